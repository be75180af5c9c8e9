"""The one primitive both transports share: call a SQL function by name with named arguments.

    Rpc.call(function, args) -> the function's result, shaped as JSON (like PostgREST):
    a scalar function's value, or a list of row objects for a set-returning function.

`PsycopgRpc` runs `SELECT fn(name => value, ...)` on a psycopg connection (direct Postgres,
each call its own transaction on the autocommit connection); `archivist.store.supabase`
calls the same functions through the Supabase REST gateway. Both raise `RpcError` with the
database's SQLSTATE, so the store maps errors once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from archivist.config import DatabaseTimeouts
from archivist.errors import ConfigError, StoreError
from archivist.store.migrate import SchemaRecords, schema_records

Conn = psycopg.Connection[tuple[Any, ...]]

_LOCK_NAMESPACE = "archivist:session:"


class Json:
    """A jsonb argument (so an empty list still goes as JSON, not as an array)."""

    def __init__(self, value: Any) -> None:
        self.value = value


class RpcError(StoreError):
    """A function call failed; `code` is the SQLSTATE (or the gateway's error code)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class MissingFunctionError(RpcError):
    """The function does not exist: the database is not initialised (or by another version)."""


class QueryTimeoutError(RpcError):
    """The database cancelled the call at its statement timeout."""


class LockTimeoutError(QueryTimeoutError):
    """The call waited for a lock another session holds longer than its lock timeout."""


LOCK_NOT_AVAILABLE = "55P03"  # SQLSTATE of a lock_timeout (and of NOWAIT)


class SourceSchemaError(RpcError, ConfigError):
    """A table or column the settings name does not exist, or has a type the archivist cannot
    read: a configuration error (exit code 2), wrong for every session alike."""


# undefined_table, undefined_column, datatype_mismatch: what the source-table functions raise
# (sql/007) when the configured tables or columns do not match the database.
_SCHEMA_STATES = frozenset({"42P01", "42703", "42804"})


def rpc_error(message: str, code: str | None) -> RpcError:
    """The error for a failed call: a configuration error when the schema does not fit."""
    return (SourceSchemaError if code in _SCHEMA_STATES else RpcError)(message, code)


class Rpc(Protocol):
    """A transport to the archivist's SQL functions."""

    def call(self, function: str, args: Mapping[str, Any], timeout_ms: int | None = None) -> Any:
        """Call `function` with named `args`; `timeout_ms` bounds it where the transport can."""
        ...

    def session_lock(self, session_id: str) -> Any:
        """A context manager yielding whether this worker holds the session."""
        ...

    def schema_records(self) -> SchemaRecords:
        """The migrations and functions checksum recorded; works before any function exists."""
        ...

    @property
    def broken(self) -> bool:
        """True once the connection is lost for good."""
        ...

    def close(self) -> None: ...


def error_message(text: str) -> str:
    """The first line of a database error, without the functions' `archivist: ` prefix."""
    line = text.strip().splitlines()[0] if text.strip() else "database error"
    return line.removeprefix("archivist: ")


class PsycopgRpc:
    """Calls functions on a direct Postgres connection (autocommit: one transaction each).

    Every statement on the connection is bounded by the settings' lock and statement timeouts:
    set for the session when it opens (archivist.store.connection.prepare), or, through a
    transaction pooler (no prepared statements, `prepare_threshold` None), whose server
    connections are shared, here, in each call's own transaction (`timeouts`). A function's
    own settings (sql/policy.sql) then apply inside it; they cannot bound the statement that
    calls it.
    """

    def __init__(
        self,
        conn: Conn,
        returns_set: dict[str, bool] | None = None,
        timeouts: DatabaseTimeouts | None = None,
    ) -> None:
        """`returns_set` caches which functions return sets; a pool's connections share one."""
        self.conn = conn
        self._returns_set = {} if returns_set is None else returns_set
        self._per_call = timeouts if conn.prepare_threshold is None else None

    def call(self, function: str, args: Mapping[str, Any], timeout_ms: int | None = None) -> Any:
        returns_set = self._is_set_returning(function)
        named = sql.SQL(", ").join(
            sql.SQL("{} => {}").format(sql.Identifier(name), sql.Placeholder(name)) for name in args
        )
        call = sql.SQL("{}({})").format(sql.Identifier(function), named)
        query = (
            sql.SQL("SELECT coalesce(jsonb_agg(to_jsonb(r)), '[]'::jsonb) FROM {} r").format(call)
            if returns_set
            else sql.SQL("SELECT to_jsonb({})").format(call)
        )
        params = {name: _adapt(value) for name, value in args.items()}
        try:
            with self.conn.transaction():
                if self._per_call is not None:
                    values = _timeout_values(self._per_call, timeout_ms)
                    self.conn.execute(_SET_TIMEOUTS.format(local="true"), values)
                elif timeout_ms is not None:
                    self.conn.execute(
                        "SELECT set_config('statement_timeout', %s, true)", [str(timeout_ms)]
                    )
                row = self.conn.execute(query, params).fetchone()
        except psycopg.errors.QueryCanceled as exc:
            raise QueryTimeoutError(error_message(str(exc)), exc.sqlstate) from None
        except psycopg.errors.UndefinedFunction as exc:
            raise MissingFunctionError(error_message(str(exc)), exc.sqlstate) from None
        except psycopg.Error as exc:
            raise rpc_error(error_message(str(exc)), exc.sqlstate) from None
        return row[0] if row else None

    def _is_set_returning(self, function: str) -> bool:
        if function not in self._returns_set:
            row = self.conn.execute(
                "SELECT bool_or(proretset) FROM pg_proc WHERE proname = %s "
                "AND pronamespace = current_schema()::regnamespace",
                [function],
            ).fetchone()
            if row is None or row[0] is None:
                raise MissingFunctionError(
                    f"function {function} does not exist; run: archivist init", "42883"
                )
            self._returns_set[function] = bool(row[0])
        return self._returns_set[function]

    @contextmanager
    def session_lock(self, session_id: str) -> Iterator[bool]:
        """The session's advisory lock, held on this connection while the body runs."""
        key = _LOCK_NAMESPACE + session_id
        row = self.conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", [key])
        locked = bool(row.fetchone()[0])  # type: ignore[index]
        try:
            yield locked
        finally:
            if locked and not self.conn.closed:
                self.conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", [key])

    def schema_records(self) -> SchemaRecords:
        return schema_records(self.conn)

    @property
    def broken(self) -> bool:
        return self.conn.broken

    def close(self) -> None:
        self.conn.close()


_SET_TIMEOUTS = (
    "SELECT set_config('lock_timeout', %s, {local}), set_config('statement_timeout', %s, {local})"
)


def set_timeouts(conn: Conn, timeouts: DatabaseTimeouts) -> None:
    """Bound every statement of the connection's session (not through a transaction pooler)."""
    conn.execute(_SET_TIMEOUTS.format(local="false"), _timeout_values(timeouts))


def _timeout_values(timeouts: DatabaseTimeouts, statement_ms: int | None = None) -> list[str]:
    return [str(timeouts.lock_ms), str(statement_ms or timeouts.statement_ms)]


def _adapt(value: Any) -> Any:
    return Jsonb(value.value, dumps=_dumps) if isinstance(value, Json) else value


def _dumps(value: Any) -> str:
    # Characters as UTF-8, not \u escapes: a SQL_ASCII database refuses escapes of non-ASCII.
    return json.dumps(value, separators=(",", ":"), default=str, ensure_ascii=False)
