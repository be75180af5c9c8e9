"""What one client holds open: a pool of direct connections (direct Postgres and the embedded
database, whose server it keeps running) or one REST client (Supabase).

They are opened on first use, once, whichever thread comes first, and closed with the client.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from archivist.config import Settings
from archivist.errors import ConfigError
from archivist.store import (
    EmbeddingConfig,
    PooledRpc,
    PostgresStore,
    Rpc,
    Store,
    database_url,
    schema_fix,
    supabase_rpc,
)


class SharedStore(Store):
    """The store every call of one client uses: its readiness check runs once, not per call.

    A database moved to another model later (`archivist reembed`) is not noticed until the
    client is opened again; until then a search matches no chunk of the new model.
    """

    def __init__(self, rpc: Rpc, settings: Settings) -> None:
        super().__init__(rpc, settings.sources, settings.max_message_chars)
        self._ready: EmbeddingConfig | None = None
        if not settings.uses_supabase:  # a direct connection can apply migrations itself
            self.schema_fix = schema_fix(settings, PostgresStore.schema_fix)

    def check_ready(self, model: str | None = None) -> EmbeddingConfig:
        if self._ready is None or (model is not None and self._ready.model != model):
            self._ready = super().check_ready(model)
        return self._ready


class Connections:
    """A client's connections to the database the settings describe."""

    def __init__(self, settings: Settings, create: bool) -> None:
        """`create`: make the embedded database if it does not exist yet."""
        self.settings = settings
        self._create = create
        self._closing = ExitStack()
        self._lock = threading.Lock()
        self._store: SharedStore | None = None
        self._url: str | None = None

    def open(self, create: bool = False) -> SharedStore:
        """The shared store, connecting first if this is the first use (making the embedded
        database with `create`, or the client's own `create`)."""
        with self._lock:
            if self._store is None:
                self._store = SharedStore(self._connect(create or self._create), self.settings)
            return self._store

    def _connect(self, create: bool) -> Rpc:
        rpc: Rpc
        if self.settings.uses_supabase:
            rpc = supabase_rpc(self.settings)
        else:
            url = self._closing.enter_context(database_url(self.settings, create))
            rpc = PooledRpc(url, self.settings)
            self._url = url
        self._closing.callback(rpc.close)
        return rpc

    def direct_url(self) -> str:
        """The URL of the direct connections: `DATABASE_URL`, or the embedded database's."""
        self.open()
        if self._url is None:
            raise ConfigError("Supabase over REST has no connection URL; set DATABASE_URL")
        return self._url

    @contextmanager
    def postgres_stores(self, count: int, create: bool = False) -> Iterator[list[PostgresStore]]:
        """Up to `count` stores (as many as the pool allows), each on a connection of its own
        held until the body ends: for what needs one connection throughout (session locks, a
        transaction, applying the schema, reading the catalog). None over REST."""
        rpc = self.open(create).rpc
        if not isinstance(rpc, PooledRpc):
            yield []
            return
        settings = self.settings
        with ExitStack() as stack:
            yield [
                PostgresStore(
                    stack.enter_context(rpc.connection()),
                    settings.sources,
                    settings.max_message_chars,
                    settings.timeouts,
                )
                for _ in range(min(count, settings.pool_max_size))
            ]

    @contextmanager
    def schema_store(self, create: bool = False) -> Iterator[Store]:
        """The store that applies the schema and reads the catalog: a direct connection's, or
        over REST the shared one (which can only check them)."""
        with self.postgres_stores(1, create) as stores:
            yield stores[0] if stores else self.open()

    def close(self) -> None:
        """Close the connections and let go of the embedded database; safe to repeat."""
        self._closing.close()
