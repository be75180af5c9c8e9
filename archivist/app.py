"""The operations the CLI and the demo expose, on the backends the settings describe."""

from __future__ import annotations

from datetime import timedelta

from archivist.backends import make_embedder, make_extractor, open_postgres_store, open_store
from archivist.config import Settings
from archivist.embed.base import Embedder
from archivist.errors import ConfigError
from archivist.models import RunReport
from archivist.pipeline import Archiver, ArchiveRequest, Progress
from archivist.prune_check import PruneCheck, prune_check
from archivist.reembed import Progress as ReembedProgress
from archivist.reembed import ReembedReport, reembed
from archivist.state.history import History, history
from archivist.state.view import StateView, state_view
from archivist.status import Status, archive_status
from archivist.store.migrate import migration_script
from archivist.store.postgres import EmbeddingConfig


def embedding_config(settings: Settings, embedder: Embedder) -> EmbeddingConfig:
    return EmbeddingConfig(embedder.model, settings.embedding_dim)


def init_database(settings: Settings) -> tuple[list[str], EmbeddingConfig]:
    """Apply migrations and record the embedding model; safe to repeat."""
    with open_store(settings) as store:
        return store.init(embedding_config(settings, make_embedder(settings)))


def schema_script(settings: Settings) -> str:
    """What `init` would do to an empty database, as one SQL script; needs no database."""
    wanted = embedding_config(settings, make_embedder(settings))
    return migration_script(wanted.model, wanted.dim)


def archive(
    settings: Settings,
    request: ArchiveRequest,
    progress: Progress | None = None,
    embedder: Embedder | None = None,
) -> RunReport:
    """Run the archivist once. The embedded database is initialised on first use."""
    embedder = embedder or make_embedder(settings)
    with open_store(settings) as store:
        if settings.uses_embedded_database and (
            store.schema_problem() or store.recorded_embedding() is None
        ):
            store.init(embedding_config(settings, embedder))
        extractor = make_extractor(settings)
        return Archiver(store, embedder, settings, extractor).run(request, progress)


def check_prune(settings: Settings, older_than: timedelta) -> PruneCheck:
    """Whether deleting messages older than `older_than` would lose anything unarchived."""
    with open_store(settings) as store:
        store.check_ready(make_embedder(settings).model)
        return prune_check(store, older_than)


def status(settings: Settings) -> Status:
    """What the archive covers, what waits, and the last runs."""
    with open_store(settings) as store:
        store.check_ready(make_embedder(settings).model)
        return archive_status(store)


HISTORY_MAX_VERSIONS = 100


def session_state(settings: Settings, session_id: str) -> StateView:
    """The compact state block of a session's latest version."""
    with open_store(settings) as store:
        store.check_ready(make_embedder(settings).model)
        latest = store.versions(session_id, 1)
        return state_view(session_id, latest[0] if latest else None)


def session_history(settings: Settings, session_id: str) -> History:
    """A session's last versions and what changed between them."""
    with open_store(settings) as store:
        store.check_ready(make_embedder(settings).model)
        # One version before the window, so the window's first version has a diff too.
        versions = store.versions(session_id, HISTORY_MAX_VERSIONS + 1)
        shown = history(session_id, versions)
        if len(versions) > HISTORY_MAX_VERSIONS:
            shown.versions = shown.versions[1:]
        return shown


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
        return reembed(store, embedder, dim, settings.embed_batch_size, progress)
