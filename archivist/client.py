"""`Archivist`: the Python client that keeps its connections across calls.

    with Archivist.from_env() as archivist:
        for question in questions:
            hits = archivist.memory_search(question, limit=5).hits

One client holds one pool of database connections (`psycopg_pool`; direct Postgres and the
embedded database) or one REST client (Supabase), its embedders, and the outcome of the
readiness check (migrations applied, the configured embedding model recorded), which runs
once, on the first call that needs it, instead of on every call. Its methods are safe to call
from several threads at once; they share at most `pool_max_size` connections.

The module functions below (`memory_search`, `archive_search`, `search`, also importable from
`archivist`) and `archivist.app`'s open a client for one call and close it; a caller in a
loop keeps one client instead.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any

from archivist.backends import (
    database_url,
    make_embedder,
    make_extractor,
    search_embedder,
    supabase_rpc,
)
from archivist.config import SearchMode, Settings, database_label, load_settings
from archivist.embed.base import Embedder, probe
from archivist.errors import ConfigError, DimensionMismatchError
from archivist.forget import ForgetReport, ForgetRequest, forget_in_database, scrub_report_files
from archivist.models import ChunkSource, RunReport
from archivist.pipeline import Archiver, ArchiveRequest, Progress
from archivist.pipeline.claims import RunLimits
from archivist.prune_check import PruneCheck, prune_check
from archivist.queries import ArchiveQuery, HybridQuery, MemoryQuery, SessionQuery, parse_query
from archivist.search import (
    ARCHIVE_MAX_ROWS,
    MEMORY_MAX_RESULTS,
    ArchiveFilters,
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
from archivist.store import (
    Conn,
    EmbeddingConfig,
    PooledRpc,
    PostgresStore,
    Rpc,
    SessionSelection,
    Store,
    reading_settings,
)
from archivist.when import parse_time

HISTORY_MAX_VERSIONS = 100
log = logging.getLogger(__name__)


class _SharedStore(Store):
    """The store every call of one client uses: its readiness check runs once, not per call.

    A database moved to another model later (`archivist reembed`) is not noticed until the
    client is opened again; until then a search matches no chunk of the new model.
    """

    def __init__(self, rpc: Rpc, settings: Settings) -> None:
        super().__init__(rpc, settings.sources, settings.max_message_chars)
        self._ready: EmbeddingConfig | None = None
        if not settings.uses_supabase:  # a direct connection can apply migrations itself
            self.schema_fix = PostgresStore.schema_fix

    def check_ready(self, model: str | None = None) -> EmbeddingConfig:
        if self._ready is None or (model is not None and self._ready.model != model):
            self._ready = super().check_ready(model)
        return self._ready


class Archivist:
    """Searches, views, archive runs and the prune check on connections kept across calls."""

    def __init__(
        self,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
        *,
        create: bool = False,
    ) -> None:
        """Connect as `settings` say (the environment's by default); `embedder` overrides the
        configured one and stays the caller's to close.

        With the environment's settings and no database configured, it reads the demo's
        database, as the read-only commands do (`database` says which). It never creates the
        embedded database unless `create` (an archive run's client) says so.
        """
        self.note: str | None = None
        if settings is None:
            settings, self.note = reading_settings(load_settings(), Path.cwd())
            if self.note:
                log.warning("%s", self.note)
        self.settings = settings
        self._create = create
        self._closing = ExitStack()
        try:
            self._embedder = embedder or self._owned_embedder(make_embedder(self.settings))
            self._given_embedder = embedder
            self._rpc = self._connect()
            self._closing.callback(self._rpc.close)
        except BaseException:
            self._closing.close()
            raise
        self._store = _SharedStore(self._rpc, self.settings)
        self._search: Searcher | None = None
        self._search_lock = threading.Lock()

    @property
    def _searcher(self) -> Searcher:
        """The searcher, made on first use: its embedder is the configured one, or, when no
        embedding setting is given, the one of the model the database records."""
        with self._search_lock:
            if self._search is None:
                self._search = self._make_searcher()
        return self._search

    def _make_searcher(self) -> Searcher:
        embedder = self._given_embedder or self._owned_embedder(
            search_embedder(
                # One attempt within a search's own deadline: a retry would outlive it.
                self.settings.model_copy(update={"ollama_retries": 0}),
                self._store.recorded_embedding(),
                self.settings.search_timeout_s,
            )
        )
        return Searcher(self._store, embedder, self.settings)

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

    def _connect(self) -> Rpc:
        if self.settings.uses_supabase:
            return supabase_rpc(self.settings)
        url = self._closing.enter_context(database_url(self.settings, self._create))
        return PooledRpc(url, self.settings)

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

    def memory_search(
        self,
        query: str,
        limit: int = MEMORY_MAX_RESULTS,
        session_ids: Sequence[str] = (),
        source: ChunkSource | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        mode: SearchMode | None = None,
        user_id: str | None = None,
        min_score: float | None = None,
        as_of: datetime | str | None = None,
    ) -> MemorySearchResult:
        """Search memory by meaning: the chunks that best answer the query, best first (only
        `user_id`'s, when given; none with a relevance under `min_score`; with `as_of`, the
        archive as it stood then: only what had been said by that time)."""
        q = parse_query(
            MemoryQuery,
            {
                "query": query,
                "limit": limit,
                "session_ids": list(session_ids),
                "source": source,
                "since": since,
                "until": until,
                "mode": mode,
                "user_id": user_id,
                "min_score": min_score,
                "as_of": as_of,
            },
        )
        return self._searcher.memory_search(
            q.query,
            q.limit,
            q.session_ids,
            q.source,
            q.since,
            q.until,
            q.mode,
            user_id=q.user_id,
            min_score=q.min_score,
            as_of=q.as_of,
        )

    def archive_search(
        self,
        filters: ArchiveFilters | None = None,
        limit: int = ARCHIVE_MAX_ROWS,
        all_versions: bool = False,
        **filter_values: Any,
    ) -> ArchiveSearchResult:
        """Search the archive by structured fact, e.g. `archive_search(topics=["oauth"])`."""
        values = filters.model_dump() if filters is not None else filter_values
        q = parse_query(ArchiveQuery, {**values, "limit": limit, "all_versions": all_versions})
        return self._searcher.archive_search(q.filters(), q.limit, q.all_versions)

    def search(
        self,
        query: str,
        filters: ArchiveFilters | None = None,
        limit: int = MEMORY_MAX_RESULTS,
        mode: SearchMode | None = None,
        **filter_values: Any,
    ) -> SearchResult:
        """The hybrid: sessions found by meaning, restricted by structured filters."""
        values = filters.model_dump() if filters is not None else filter_values
        q = parse_query(HybridQuery, {**values, "query": query, "limit": limit, "mode": mode})
        return self._searcher.search(q.query, q.filters(), q.limit, q.mode)

    def state(self, session_id: str) -> StateView:
        """The compact state block of a session's latest version."""
        q = parse_query(SessionQuery, {"session_id": session_id})
        self._store.check_ready()  # embeds nothing: any recorded model will do
        latest = self._store.versions(q.session_id, 1)
        return state_view(q.session_id, latest[0] if latest else None)

    def history(self, session_id: str) -> History:
        """A session's last versions (at most 100) and what changed between them."""
        q = parse_query(SessionQuery, {"session_id": session_id})
        self._store.check_ready()
        # One version before the window, so the window's first version has a diff too.
        versions = self._store.versions(q.session_id, HISTORY_MAX_VERSIONS + 1)
        shown = history(q.session_id, versions)
        if len(versions) > HISTORY_MAX_VERSIONS:
            shown.versions = shown.versions[1:]
        return shown

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
        self._store.check_ready()
        return CurrentState.model_validate(self._rpc.call("archivist_current_state", q.arguments()))

    def conflicts(self, user_id: str | None = None, limit: int = 200) -> CurrentState:
        """The items on one subject that disagree without a change, newest first."""
        q = parse_query(CurrentStateQuery, {"user_id": user_id, "limit": limit})
        self._store.check_ready()
        return CurrentState.model_validate(
            self._rpc.call("archivist_current_state", q.arguments(conflicts=True))
        )

    def resolve(self, uid: str, action: str, user_id: str | None = None) -> Resolution:
        """Settle a conflict: `keep` the item (those it conflicts with stop) or `drop` it.
        Recorded; nothing is deleted."""
        q = parse_query(ResolveQuery, {"uid": uid, "action": action, "user_id": user_id})
        self._store.check_ready()
        row = self._rpc.call(
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
        self._store.check_ready()
        return prune_check(self._store, older_than, self.settings.max_message_chars)

    def forget(self, request: ForgetRequest) -> ForgetReport:
        """Erase sessions, a user or messages from the archive and the run reports.

        One transaction removes them from every archivist table and records tombstones, so no
        later run archives the same source rows again; then the run reports in the report
        folder (`request.report_dir`, else the settings') are rewritten without them. A session
        that lost single messages is archived again at once from its source, without them.
        """
        request.check()
        self._store.check_ready()
        report = forget_in_database(self._store, request)
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
        recorded = self._store.check_ready(embedder.model)
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
    ) -> RunReport:
        """Run the archivist once. The embedded database is initialised on first use.
        `limits`: those this run shares with other workers (archivist.pipeline.workers)."""
        request = request or ArchiveRequest(
            SessionSelection(limit=self.settings.max_sessions), delay_ms=self.settings.delay_ms
        )
        if self.note is not None and not request.dry_run:
            raise ConfigError(
                "this client reads the demo's database (no database configured) and does not "
                "archive into it; set DATABASE_URL, or ARCHIVIST_DATA_DIR for an embedded one"
            )
        with self._run_stores() as (store, commit_store):
            if self.settings.uses_embedded_database:
                self._init_embedded(store)
            extractor = make_extractor(self.settings)
            archiver = Archiver(store, self._embedder, self.settings, extractor, commit_store)
            return archiver.run(request, progress, limits)

    def prepare_embedded(self) -> None:
        """Initialise the database as a run on the embedded database would (for workers that
        reach the embedded database by its URL)."""
        self._init_embedded(self._store)

    def _init_embedded(self, store: Store) -> None:
        if store.schema_problem() or store.recorded_embedding() is None:
            store.init(EmbeddingConfig(self._embedder.model, self.settings.embedding_dim))

    @contextmanager
    def _run_stores(self) -> Iterator[tuple[Store, Store | None]]:
        """The stores of a run: the one it reads sessions on, and the one its commits use
        beside it (see archivist.pipeline.commit.Committer).

        Over Postgres the run reads on one connection for the whole run, which holds its
        session locks and notices when the database goes away, and commits on a second one
        (none if the pool allows one connection: the commits then wait their turn). Over REST
        both are the shared store: its calls are independent requests.
        """
        if not isinstance(self._rpc, PooledRpc):
            yield self._store, self._store
            return
        with ExitStack() as stack:
            count = min(2, self.settings.pool_max_size)
            stores = [
                self._run_store(stack.enter_context(self._rpc.connection())) for _ in range(count)
            ]
            yield stores[0], stores[1] if count > 1 else None

    def _run_store(self, conn: Conn) -> PostgresStore:
        return PostgresStore(
            conn, self.settings.sources, self.settings.max_message_chars, self.settings.timeouts
        )


def memory_search(
    query: str,
    limit: int = MEMORY_MAX_RESULTS,
    session_ids: Sequence[str] = (),
    source: ChunkSource | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    mode: SearchMode | None = None,
    settings: Settings | None = None,
    user_id: str | None = None,
    min_score: float | None = None,
    as_of: datetime | str | None = None,
) -> MemorySearchResult:
    """Search memory by meaning, on a client opened for this one call."""
    with Archivist(settings) as client:
        return client.memory_search(
            query,
            limit,
            session_ids,
            source,
            since,
            until,
            mode,
            user_id=user_id,
            min_score=min_score,
            as_of=as_of,
        )


def archive_search(
    filters: ArchiveFilters | None = None,
    limit: int = ARCHIVE_MAX_ROWS,
    all_versions: bool = False,
    settings: Settings | None = None,
    **filter_values: Any,
) -> ArchiveSearchResult:
    """Search the archive by structured fact, e.g. `archive_search(topics=["oauth"])`."""
    with Archivist(settings) as client:
        return client.archive_search(filters, limit, all_versions, **filter_values)


def search(
    query: str,
    filters: ArchiveFilters | None = None,
    limit: int = MEMORY_MAX_RESULTS,
    mode: SearchMode | None = None,
    settings: Settings | None = None,
    **filter_values: Any,
) -> SearchResult:
    """The hybrid, on a client opened for this one call."""
    with Archivist(settings) as client:
        return client.search(query, filters, limit, mode, **filter_values)
