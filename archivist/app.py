"""The operations the CLI and the demo expose, on the backends the settings describe."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import timedelta

from pydantic import SecretStr

from archivist.backends import database_url, make_embedder, open_postgres_store, open_store
from archivist.chunking import chunk_chars
from archivist.client import Archivist
from archivist.config import Settings
from archivist.embed.base import Embedder
from archivist.errors import ArchivistError, ConfigError
from archivist.forget import ForgetReport, ForgetRequest
from archivist.models import RunReport
from archivist.pipeline import ArchiveRequest, Progress
from archivist.pipeline.claims import RunLimits
from archivist.pipeline.run import log_run_end, log_run_start
from archivist.pipeline.workers import WorkerJob, run_workers
from archivist.prune_check import PruneCheck
from archivist.reembed import Progress as ReembedProgress
from archivist.reembed import ReembedReport, reembed
from archivist.state.current import CurrentState, Resolution
from archivist.state.history import History
from archivist.state.view import StateView
from archivist.status import Status, archive_status
from archivist.store import AUTHENTICATED, PRIVATE, EmbeddingConfig, migration_script

log = logging.getLogger(__name__)


def embedding_config(settings: Settings, embedder: Embedder) -> EmbeddingConfig:
    return EmbeddingConfig(embedder.model, settings.embedding_dim)


def init_database(
    settings: Settings, allow_authenticated: bool | None = None
) -> tuple[list[str], EmbeddingConfig]:
    """Apply migrations and record the embedding model; safe to repeat.

    `allow_authenticated` opens the archive to Supabase's signed-in users, each reading only
    their own rows (True), or makes it private again (False); None keeps what is recorded.
    """
    access = _access(settings, allow_authenticated)
    with open_store(settings, create=True) as store:
        return store.init(embedding_config(settings, make_embedder(settings)), access)


def schema_script(settings: Settings, allow_authenticated: bool | None = None) -> str:
    """What `init` would do to an empty database, as one SQL script; needs no database."""
    access = _access(settings, allow_authenticated)
    wanted = embedding_config(settings, make_embedder(settings))
    return migration_script(wanted.model, wanted.dim, settings.timeouts, access)


def _access(settings: Settings, allow_authenticated: bool | None) -> str | None:
    if allow_authenticated is None:
        return None
    if allow_authenticated and settings.sources.message_user_id is None:
        raise ConfigError(
            "--allow-authenticated needs per-user memory: set ARCHIVIST_MESSAGE_USER_ID to the "
            "user-id column of the messages table"
        )
    return AUTHENTICATED if allow_authenticated else PRIVATE


def archive(
    settings: Settings,
    request: ArchiveRequest,
    progress: Progress | None = None,
    embedder: Embedder | None = None,
    workers: int = 1,
) -> RunReport:
    """Run the archivist once, in `workers` processes (a dry run, or named sessions: in this
    one). The embedded database is created on first use, except by a dry run, which writes
    nothing. A run in several processes is one row of the run log, written here."""
    if workers == 1 or request.selection.session_ids or request.dry_run:
        with Archivist(settings, embedder, create=not request.dry_run) as client:
            return client.archive(request, progress)
    with database_url(settings, create=True) as url:
        if settings.uses_embedded_database:
            # Started once, here, for every worker; initialised before they start.
            settings = settings.model_copy(update={"database_url": SecretStr(url)})
            with Archivist(settings, embedder) as client:
                client.prepare_embedded()
        job = WorkerJob(
            _ArchiveJob(settings, replace(request, log_run=False), embedder),
            logging.getLogger("archivist").getEffectiveLevel(),
        )
        with open_store(settings) as store:
            store.check_ready()
            run_id = log_run_start(store, request, workers)
        report = run_workers(job, workers, request.selection.limit, progress)
        try:
            with open_store(settings) as store:
                log_run_end(store, run_id, report)
        except ArchivistError as exc:  # the database went away: the report says so
            log.warning("could not record the run's end in the run log: %s", exc)
        return report


@dataclass(frozen=True)
class _ArchiveJob:
    """One worker's run of `archive --workers N` (pickled into its process)."""

    settings: Settings
    request: ArchiveRequest
    embedder: Embedder | None

    def __call__(self, progress: Progress, limits: RunLimits) -> RunReport:
        with Archivist(self.settings, self.embedder) as client:
            return client.archive(self.request, progress, limits)


def forget(settings: Settings, request: ForgetRequest) -> ForgetReport:
    """Erase sessions, a user or messages from the archive and its run reports."""
    with Archivist(settings) as client:
        return client.forget(request)


def check_prune(settings: Settings, older_than: timedelta) -> PruneCheck:
    """Whether deleting messages older than `older_than` would lose anything unarchived."""
    with Archivist(settings) as client:
        return client.prune_check(older_than)


def status(settings: Settings) -> Status:
    """What the archive covers, what waits, and the last runs."""
    with open_store(settings) as store:
        store.check_ready()  # embeds nothing: any recorded model will do
        return archive_status(store)


def session_state(settings: Settings, session_id: str) -> StateView:
    """The compact state block of a session's latest version."""
    with Archivist(settings) as client:
        return client.state(session_id)


def current_state(
    settings: Settings,
    user_id: str | None,
    as_of: str | None,
    subject: str | None,
    limit: int,
) -> CurrentState:
    """The current items across sessions (or one subject's history), now or at `as_of`."""
    with Archivist(settings) as client:
        return client.current_state(user_id, as_of, subject, limit)


def state_conflicts(settings: Settings, user_id: str | None, limit: int) -> CurrentState:
    """The items in conflict, newest first."""
    with Archivist(settings) as client:
        return client.conflicts(user_id, limit)


def resolve_conflict(settings: Settings, uid: str, action: str, user_id: str | None) -> Resolution:
    """Record a person's keep or drop of one item."""
    with Archivist(settings) as client:
        return client.resolve(uid, action, user_id)


def session_history(settings: Settings, session_id: str) -> History:
    """A session's last versions and what changed between them."""
    with Archivist(settings) as client:
        return client.history(session_id)


def reembed_chunks(
    settings: Settings, dim: int | None, progress: ReembedProgress | None = None
) -> ReembedReport:
    """Move every chunk to the settings' embedding model (resumable); records it when done."""
    embedder = make_embedder(settings)
    if embedder.model != settings.embedding_model:
        raise ConfigError(
            f"the {embedder.name} embedder's model is {embedder.model}, not "
            f"{settings.embedding_model}; pass --model {embedder.model}"
        )
    if settings.uses_supabase:
        raise ConfigError(
            "reembed rewrites the chunk table and its index, which the Supabase REST transport "
            "cannot do; run it with DATABASE_URL set to the database's direct connection"
        )
    with open_postgres_store(settings) as store:
        pieces = chunk_chars(
            embedder.model, settings.chunk_max_chars, settings.embedding_input_tokens
        )
        return reembed(store, embedder, dim, settings.embed_batch_size, progress, pieces)
