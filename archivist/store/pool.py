"""Direct Postgres connections kept open across calls: a `psycopg_pool` behind the `Rpc` primitive.

A client that searches in a loop (a bot, the MCP server) must not pay a connection set-up per
call. `PooledRpc` borrows a connection for each function call and gives it back, so one store
serves any number of calls, from any number of threads, on at most `pool_max_size`
connections. A connection the database dropped is discarded when it comes back and replaced
in the background; one that sat idle is pinged before it is lent, since the database may have
closed it meanwhile (a restart, a failover, a pooler's idle timeout), which would fail the call.

The pool is opened only after one direct connection succeeded: a bad URL or an unreachable
database then fails at once, with the same one-line error as every command, instead of the
pool retrying in the background until its timeout.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from time import monotonic
from typing import Any

from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from archivist.config import Settings
from archivist.errors import StoreError
from archivist.store.connection import CONNECT_OPTIONS, connect, prepare
from archivist.store.migrate import Conn, SchemaRecords, schema_records
from archivist.store.protocol import QueryTimeoutError
from archivist.store.psycopg_rpc import PsycopgRpc

WAIT_FOR_CONNECTION_S = 30.0  # a call that is not bounded by its own deadline
FIRST_WAIT_S = 1.0  # then the database is tried directly: is it there at all?
# A connection idle this long is pinged before use (one round trip); one in steady use is not.
IDLE_CHECK_S = 5.0


class PooledRpc:
    """The archivist's SQL functions over a pool of autocommit connections."""

    def __init__(self, url: str, settings: Settings) -> None:
        connect(url, settings).close()
        self._idle_since: weakref.WeakKeyDictionary[Conn, float] = weakref.WeakKeyDictionary()
        self._pool: ConnectionPool[Conn] = ConnectionPool(
            url,
            kwargs=CONNECT_OPTIONS,
            configure=partial(prepare, url=url, settings=settings),
            check=self._check_idle,
            min_size=1,
            max_size=settings.pool_max_size,
            name="archivist",
            open=False,
        )
        try:  # wait for it, or the first call would open a second connection meanwhile
            self._pool.open(wait=True, timeout=CONNECT_OPTIONS["connect_timeout"])
        except PoolTimeout:
            self._pool.close()
            raise StoreError("the database accepted one connection but not the pool's") from None
        self._returns_set: dict[str, bool] = {}
        self._timeouts = settings.timeouts
        self._url, self._settings = url, settings

    @contextmanager
    def connection(self, timeout_s: float = WAIT_FOR_CONNECTION_S) -> Iterator[Conn]:
        """A connection of the pool, returned to it when the body ends."""
        conn = self._take(timeout_s)
        try:
            yield conn
        finally:
            self._idle_since[conn] = monotonic()
            self._pool.putconn(conn)

    def _check_idle(self, conn: Conn) -> None:
        """Raise if a connection that sat idle for IDLE_CHECK_S or more no longer answers: the
        pool then discards it and lends another."""
        since = self._idle_since.pop(conn, None)
        if since is None or monotonic() - since >= IDLE_CHECK_S:
            ConnectionPool.check_connection(conn)

    def _take(self, timeout_s: float) -> Conn:
        """A connection within `timeout_s`. When none comes at once, the database is tried
        directly first: one that went away (a restart, a network cut) is said at once as
        `connect` says it, not after the whole wait as a pool too busy."""
        first = min(timeout_s, FIRST_WAIT_S)
        try:
            return self._pool.getconn(timeout=first)
        except PoolClosed:
            raise StoreError("this client is closed: open a new Archivist") from None
        except PoolTimeout:
            if timeout_s <= first:
                raise self._busy(timeout_s) from None
        connect(self._url, self._settings).close()  # StoreError: cannot connect ...
        try:
            return self._pool.getconn(timeout=timeout_s - first)
        except PoolTimeout:
            raise self._busy(timeout_s) from None

    @staticmethod
    def _busy(timeout_s: float) -> QueryTimeoutError:
        return QueryTimeoutError(f"no database connection became free within {timeout_s:g} s")

    def call(self, function: str, args: Mapping[str, Any], timeout_ms: int | None = None) -> Any:
        wait_s = WAIT_FOR_CONNECTION_S if timeout_ms is None else timeout_ms / 1000
        with self.connection(wait_s) as conn:
            rpc = PsycopgRpc(conn, self._returns_set, self._timeouts)
            return rpc.call(function, args, timeout_ms)

    def call_row(self, function: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
        with self.connection() as conn:
            return PsycopgRpc(conn, self._returns_set, self._timeouts).call_row(function, args)

    # Sessions are taken by advisory lock, which lives on one connection: a run holds one
    # connection of the pool for its whole length (archivist.client), never this rpc.
    lock_owner = None
    claim_ttl_s = 0

    def schema_records(self) -> SchemaRecords:
        with self.connection() as conn:
            return schema_records(conn)

    @property
    def broken(self) -> bool:
        """Never: a dropped connection is replaced, and each call fails on its own."""
        return False

    def close(self) -> None:
        self._pool.close()
