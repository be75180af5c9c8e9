"""`Archivist`: the client, the library's front door (see archivist.client)."""

from __future__ import annotations

import logging
import threading
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any

from archivist.chunking import chunk_chars
from archivist.client.connections import Connections, SharedStore
from archivist.config import EMBEDDING_SETTINGS, Settings, database_label, load_settings
from archivist.doctor import DoctorReport, run_doctor
from archivist.embed.base import Embedder, probe
from archivist.embed.configured import make_embedder
from archivist.embed.hashing import HashEmbedder, hash_model
from archivist.errors import ConfigError, DimensionMismatchError, SessionNotArchivedError
from archivist.failures import shortened
from archivist.forget import ForgetReport, ForgetRequest, forget_in_database, scrub_report_files
from archivist.models import RunReport
from archivist.pipeline import ArchiveRequest, Progress
from archivist.pipeline.claims import RunLimits
from archivist.prune_check import PruneCheck, prune_check
from archivist.queries import (
    ArchiveFilters,
    ArchiveQuery,
    HybridQuery,
    MemoryQuery,
    SessionQuery,
    build_query,
    parse_query,
)
from archivist.reembed import Progress as ReembedProgress
from archivist.reembed import ReembedReport, reembed
from archivist.search import (
    ArchiveSearchResult,
    MemorySearchResult,
    Searcher,
    SearchResult,
)
from archivist.state.current import (
    CurrentState,
    CurrentStateQuery,
    Resolution,
    ResolveQuery,
)
from archivist.state.history import History, history
from archivist.state.view import StateView, state_view
from archivist.status import Status, archive_status
from archivist.store import (
    AUTHENTICATED,
    PRIVATE,
    EmbeddingConfig,
    SessionSelection,
    migration_script,
    reading_settings,
)
from archivist.when import parse_time

HISTORY_MAX_VERSIONS = 100
log = logging.getLogger(__name__)


class Archivist:
    """Every command of the archivist, on connections kept across calls."""

    def __init__(
        self,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
        *,
        create: bool = False,
        connect: bool = True,
    ) -> None:
        """Connect as `settings` say (the environment's by default); `embedder` overrides the
        configured one and stays the caller's to close.

        With the environment's settings and no database configured, it reads the demo's
        database, as the read-only commands do (`database` says which). It never creates the
        embedded database unless `create` (an archive run's client) says so, or `init` runs.
        Without `connect` it connects on the first call that needs the database, not now:
        `schema_script` needs none, and `doctor` reports a database it cannot reach.
        """
        self.note: str | None = None
        if settings is None:
            settings, self.note = reading_settings(load_settings(), Path.cwd())
            if self.note:
                log.warning("%s", self.note)
        self.settings = settings
        self._closing = ExitStack()
        try:
            self._given_embedder = embedder
            self._made_embedder: Embedder | None = embedder
            self._db = Connections(self.settings, create)
            self._closing.callback(self._db.close)
            if connect:
                self._db.open()
        except BaseException:
            self._closing.close()
            raise
        self._search: Searcher | None = None
        self._search_lock = threading.Lock()
        self._embedder_lock = threading.Lock()

    @property
    def _embedder(self) -> Embedder:
        """The embedder given, or the configured one made on first use: reading commands need
        none (and the Ollama client takes a third of a second to import)."""
        with self._embedder_lock:
            if self._made_embedder is None:
                self._made_embedder = self._owned_embedder(make_embedder(self.settings))
        return self._made_embedder

    @property
    def _searcher(self) -> Searcher:
        """The searcher, made on first use: its embedder is the configured one, or, when no
        embedding setting is given, the one of the model the database records."""
        with self._search_lock:
            if self._search is None:
                self._search = self._make_searcher()
        return self._search

    def _make_searcher(self) -> Searcher:
        store = self._db.open()
        embedder = self._given_embedder or self._owned_embedder(
            search_embedder(
                # One attempt within a search's own deadline: a retry would outlive it.
                self.settings.model_copy(update={"ollama_retries": 0}),
                store.recorded_embedding(),
                self.settings.search_timeout_s,
            )
        )
        return Searcher(store, embedder, self.settings)

    @classmethod
    def from_env(cls) -> Archivist:
        """A client configured by the environment and `archivist.toml`, like the CLI (with no
        database configured: the demo's, read-only)."""
        return cls()

    @property
    def database(self) -> str:
        """Which database this client uses, as a person can read it (no password)."""
        return database_label(self.settings)

    def _owned_embedder(self, embedder: Embedder) -> Embedder:
        close = getattr(embedder, "close", None)
        if close is not None:
            self._closing.callback(close)
        return embedder

    def _ready(self) -> SharedStore:
        """The shared store, checked (once per client) for what embeds nothing: any recorded
        model will do."""
        store = self._db.open()
        store.check_ready()
        return store

    def __enter__(self) -> Archivist:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connections (and the embedded database's handle); safe to repeat."""
        self._closing.close()

    # -- reads --------------------------------------------------------------------------------

    def memory_search(self, query: str | MemoryQuery, **options: Any) -> MemorySearchResult:
        """Search memory by meaning: the chunks that best answer the query, best first (only
        `user_id`'s, when given; none with a relevance under `min_score`; with `as_of`, the
        archive as it stood then: only what had been said by that time).

        `query` is a `MemoryQuery`, or its words with its other fields as keyword arguments:
        `memory_search("refresh tokens", limit=5, since="7d")`."""
        q = build_query(MemoryQuery, query, **options)
        return self._searcher.memory_search(q)

    def archive_search(
        self, filters: ArchiveFilters | None = None, **options: Any
    ) -> ArchiveSearchResult:
        """Search the archive by structured fact, e.g. `archive_search(topics=["oauth"])`:
        `filters` (an `ArchiveFilters`, or a whole `ArchiveQuery`) or `ArchiveQuery`'s fields as
        keyword arguments, or both."""
        q = build_query(ArchiveQuery, filters, **options)
        return self._searcher.archive_search(q)

    def search(
        self, query: str | HybridQuery, filters: ArchiveFilters | None = None, **options: Any
    ) -> SearchResult:
        """The hybrid: sessions found by meaning, restricted by structured filters. `query` is
        a `HybridQuery`, or its words with `filters` and `HybridQuery`'s other fields as
        keyword arguments."""
        if filters is not None:
            options = {**filters.model_dump(), **options}
        q = build_query(HybridQuery, query, **options)
        return self._searcher.search(q)

    def status(self) -> Status:
        """What the archive covers, what waits, and the last runs."""
        return archive_status(self._ready())

    def doctor(self) -> DoctorReport:
        """Check the database, pgvector, migrations, indexes, Ollama and the models, each with
        the fix when it fails; a database it cannot reach is a failed check, not an error."""
        llm = None
        if self.settings.extractor == "ollama":  # the rules have nothing to check
            from archivist.extract.configured import make_extractor  # loads the rules: a second

            llm = make_extractor(self.settings)
        return run_doctor(self.settings, self._db.schema_store, self._embedder, llm)

    def state(self, session_id: str) -> StateView:
        """The compact state block of a session's latest version."""
        q = parse_query(SessionQuery, {"session_id": session_id})
        latest = self._ready().versions(q.session_id, 1)
        if not latest:
            self._refuse_forgotten(q.session_id)
        return state_view(q.session_id, latest[0] if latest else None)

    def history(self, session_id: str) -> History:
        """A session's last versions (at most 100) and what changed between them."""
        q = parse_query(SessionQuery, {"session_id": session_id})
        # One version before the window, so the window's first version has a diff too.
        versions = self._ready().versions(q.session_id, HISTORY_MAX_VERSIONS + 1)
        if not versions:
            self._refuse_forgotten(q.session_id)
        shown = history(q.session_id, versions)
        if len(versions) > HISTORY_MAX_VERSIONS:
            shown.versions = shown.versions[1:]
        return shown

    def _refuse_forgotten(self, session_id: str) -> None:
        """A session with no version that `forget` erased says so, not "not archived yet"."""
        if self._ready().session_forgotten(session_id):
            raise SessionNotArchivedError(
                f"session {shortened(session_id)} was forgotten on request (archivist forget): "
                "it is never archived again"
            )

    def current_state(
        self,
        user_id: str | None = None,
        as_of: datetime | str | None = None,
        subject: str | None = None,
        limit: int = 200,
    ) -> CurrentState:
        """What is true now (or at `as_of`) across sessions: the current items of a user (or of
        the whole archive), each with its session and messages; with `subject`, every item on
        that subject, oldest first: how it changed."""
        q = parse_query(
            CurrentStateQuery,
            {"user_id": user_id, "as_of": as_of, "subject": subject, "limit": limit},
        )
        rpc = self._ready().rpc
        return CurrentState.model_validate(rpc.call("archivist_current_state", q.arguments()))

    def conflicts(self, user_id: str | None = None, limit: int = 200) -> CurrentState:
        """The items on one subject that disagree without a change, newest first."""
        q = parse_query(CurrentStateQuery, {"user_id": user_id, "limit": limit})
        return CurrentState.model_validate(
            self._ready().rpc.call("archivist_current_state", q.arguments(conflicts=True))
        )

    def resolve(self, uid: str, action: str, user_id: str | None = None) -> Resolution:
        """Settle a conflict: `keep` the item (those it conflicts with stop) or `drop` it.
        Recorded; nothing is deleted."""
        q = parse_query(ResolveQuery, {"uid": uid, "action": action, "user_id": user_id})
        row = self._ready().rpc.call(
            "archivist_resolve_state_item",
            {"p_uid": q.uid, "p_action": q.action, "p_user_id": q.user_id},
        )
        if row is None:
            raise ConfigError(f"no state item {q.uid} in the archive; see `archivist conflicts`")
        return Resolution.model_validate(row)

    def prune_check(self, older_than: timedelta | str) -> PruneCheck:
        """Whether deleting messages older than `older_than` (or "30d", or "2026-01-01")
        would lose anything."""
        if isinstance(older_than, str):
            try:
                older_than = datetime.now(UTC) - parse_time(older_than)
            except ValueError as exc:
                raise ConfigError(f"older_than: {exc}") from None
        return prune_check(self._ready(), older_than, self.settings.max_message_chars)

    def forget(self, request: ForgetRequest) -> ForgetReport:
        """Erase sessions, a user or messages from the archive and the run reports.

        One transaction removes them from every archivist table and records tombstones, so no
        later run archives the same source rows again; then the run reports in the report
        folder (`request.report_dir`, else the settings') are rewritten without them. A session
        that lost single messages is archived again at once from its source, without them.
        """
        request.check()
        report = forget_in_database(self._ready(), request)
        folder = request.report_dir or self.settings.report_dir
        if folder is not None:
            scrub_report_files(report, folder)
        if report.rebuilt and not request.dry_run:
            again = self.archive(
                ArchiveRequest(
                    SessionSelection(session_ids=report.rebuilt, limit=len(report.rebuilt)),
                    delay_ms=0,
                )
            )
            report.rearchived = again.sessions
        return report

    def check(self) -> EmbeddingConfig:
        """Check the database, its migrations and the embedding model now, once: what a
        long-running server does at start. Raises what a first call would."""
        embedder = self._searcher.embedder
        recorded = self._db.open().check_ready(embedder.model)
        vector = probe(embedder)
        dim = 0 if vector is None else len(vector)
        if dim != recorded.dim:
            raise DimensionMismatchError(
                f"{embedder.model} makes {dim}-d vectors but the database stores "
                f"{recorded.dim}-d; use a model of that dimension, or move the database with: "
                f"archivist reembed --model {embedder.model}"
            )
        return recorded

    # -- writes -------------------------------------------------------------------------------

    def archive(
        self,
        request: ArchiveRequest | None = None,
        progress: Progress | None = None,
        limits: RunLimits | None = None,
        workers: int = 1,
    ) -> RunReport:
        """Run the archivist once, in `workers` processes (a dry run, or named sessions: in this
        one). The embedded database is initialised on first use. `limits`: those this run
        shares with other workers (archivist.pipeline.workers)."""
        request = request or ArchiveRequest(
            SessionSelection(limit=self.settings.max_sessions), delay_ms=self.settings.delay_ms
        )
        if self.note is not None and not request.dry_run:
            raise ConfigError(
                "this client reads the demo's database (no database configured) and does not "
                "archive into it; set DATABASE_URL, or ARCHIVIST_DATA_DIR for an embedded one"
            )
        # A run loads the extractor and the rest of the pipeline here, not when the client is
        # imported: a search or a status from the command line starts without them.
        from archivist.client.runs import run_here, run_in_workers

        if workers == 1 or request.selection.session_ids or request.dry_run:
            return run_here(self._db, self._embedder, request, progress, limits)
        open_client = partial(Archivist, embedder=self._given_embedder)
        return run_in_workers(self._db, self._embedder, request, progress, workers, open_client)

    def init(self, allow_authenticated: bool | None = None) -> tuple[list[str], EmbeddingConfig]:
        """Apply migrations and record the embedding model (making the embedded database if
        there is none); safe to repeat. Returns the migrations applied and what is recorded.

        `allow_authenticated` opens the archive to Supabase's signed-in users, each reading only
        their own rows (True), or makes it private again (False); None keeps what is recorded.
        """
        access = _access(self.settings, allow_authenticated)
        with self._db.schema_store(create=True) as store:
            return store.init(self._embedding(), access)

    def schema_script(self, allow_authenticated: bool | None = None) -> str:
        """What `init` would do to an empty database, as one SQL script; needs no database."""
        access = _access(self.settings, allow_authenticated)
        wanted = self._embedding()
        return migration_script(wanted.model, wanted.dim, self.settings.timeouts, access)

    def _embedding(self) -> EmbeddingConfig:
        return EmbeddingConfig(self._embedder.model, self.settings.embedding_dim)

    def reembed(
        self, dim: int | None = None, progress: ReembedProgress | None = None
    ) -> ReembedReport:
        """Move every chunk to the client's embedding model (resumable); records it when done."""
        embedder, settings = self._embedder, self.settings
        if embedder.model != settings.embedding_model:
            wanted = settings.embedding_model
            named_dim = wanted.removeprefix("hash-") if embedder.name == "hash" else ""
            fix = (
                f"add --dim {named_dim} (its model is named by its dimension)"
                if named_dim.isdigit()
                else f"pass --model {embedder.model}"
            )
            raise ConfigError(
                f"the {embedder.name} embedder's model is {embedder.model}, not {wanted}; {fix}"
            )
        if settings.uses_supabase:
            raise ConfigError(
                "reembed rewrites the chunk table and its index, which the Supabase REST "
                "transport cannot do; run it with DATABASE_URL set to the database's direct "
                "connection"
            )
        pieces = chunk_chars(
            embedder.model, settings.chunk_max_chars, settings.embedding_input_tokens
        )
        with self._db.postgres_stores(1) as [store]:
            return reembed(store, embedder, dim, settings.embed_batch_size, progress, pieces)


def _access(settings: Settings, allow_authenticated: bool | None) -> str | None:
    if allow_authenticated is None:
        return None
    if allow_authenticated and settings.sources.message_user_id is None:
        raise ConfigError(
            "--allow-authenticated needs per-user memory: set ARCHIVIST_MESSAGE_USER_ID to the "
            "user-id column of the messages table"
        )
    return AUTHENTICATED if allow_authenticated else PRIVATE


def search_embedder(
    settings: Settings, recorded: EmbeddingConfig | None, timeout_s: float | None = None
) -> Embedder:
    """The embedder for searching a database: the configured one if any embedding setting was
    given, else the one whose model the database records (so a database archived with the
    offline `hash` embedder is searched with it, without a flag)."""
    if recorded is None or EMBEDDING_SETTINGS & settings.model_fields_set:
        return make_embedder(settings, timeout_s)
    if recorded.model == hash_model(recorded.dim):
        return HashEmbedder(dimension=recorded.dim, batch_size=settings.embed_batch_size)
    return make_embedder(
        settings.model_copy(
            update={
                "embedder": "ollama",
                "embedding_model": recorded.model,
                "embedding_dim": recorded.dim,
            }
        ),
        timeout_s,
    )
