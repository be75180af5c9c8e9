"""The direct transport: the archivist's SQL functions on a psycopg connection.

`PsycopgRpc` runs `SELECT fn(name => value, ...)` on an autocommit connection, each call its
own transaction, and maps psycopg's errors to the protocol's (`mapped_errors`, with the
database's SQLSTATE), so nothing above the store sees a psycopg exception.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import psycopg
from pgvector.psycopg.vector import register_vector_info
from psycopg import sql
from psycopg.adapt import PyFormat
from psycopg.types import TypeInfo
from psycopg.types.json import Jsonb

from archivist.config import DatabaseTimeouts
from archivist.store.migrate import (
    INSUFFICIENT_PRIVILEGE,
    Conn,
    SchemaRecords,
    no_access,
    schema_records,
)
from archivist.store.protocol import (
    Json,
    MissingFunctionError,
    QueryTimeoutError,
    RpcError,
    Vectors,
    rpc_error,
)

# A database failure that no call mapped (a connection lost outside a call, a pool that cannot
# connect): the CLI and the MCP server catch it by this name, so nothing above the store
# imports psycopg.
DatabaseError = psycopg.Error


def database_error_line(exc: BaseException) -> str:
    """One line for a database failure: the first line of its message, else its type."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


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

    lock_owner = None  # sessions are taken by advisory lock on this connection
    claim_ttl_s = 0

    def call(self, function: str, args: Mapping[str, Any], timeout_ms: int | None = None) -> Any:
        returns_set = self._is_set_returning(function)
        call = self._call_sql(function, args)
        query = (
            sql.SQL("SELECT coalesce(jsonb_agg(to_jsonb(r)), '[]'::jsonb) FROM {} r").format(call)
            if returns_set
            else sql.SQL("SELECT to_jsonb({})").format(call)
        )
        with self._privileged(), mapped_errors():
            row = self._execute(query, self._params(args), timeout_ms).fetchone()
        return row[0] if row else None

    def call_row(self, function: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
        query = sql.SQL("SELECT * FROM {}").format(self._call_sql(function, args))
        with self._privileged(), mapped_errors():
            self._register_vector()  # its columns come in binary: vectors too
            params = self._params(args)
            cursor = self._execute(query, params, None, binary=True)
            row = cursor.fetchone()
            names = [c.name for c in cursor.description or []]
        return dict(zip(names, row, strict=True)) if row else None

    @contextmanager
    def _privileged(self) -> Iterator[None]:
        """A call the role may not make ("permission denied") as the error that names the
        role and the grant it lacks, not as a database error."""
        try:
            yield
        except RpcError as exc:
            if exc.code != INSUFFICIENT_PRIVILEGE:
                raise
            with mapped_errors():
                role = self.conn.execute(
                    "SELECT current_user::text, CASE WHEN EXISTS (SELECT 1 FROM pg_roles "
                    "WHERE rolname = 'service_role') THEN 'service_role' ELSE (SELECT "
                    "pg_get_userbyid(c.relowner)::text FROM pg_class c "
                    "WHERE c.oid = to_regclass('archivist_meta')) END"
                ).fetchone()
            raise no_access(*(role or ("?", None))) from None

    def _call_sql(self, function: str, args: Mapping[str, Any]) -> sql.Composed:
        named = sql.SQL(", ").join(
            sql.SQL("{} => {}").format(
                sql.Identifier(name),
                sql.Placeholder(
                    name, PyFormat.BINARY if isinstance(value, Vectors) else PyFormat.AUTO
                ),
            )
            for name, value in args.items()
        )
        return sql.SQL("{}({})").format(sql.Identifier(function), named)

    def _params(self, args: Mapping[str, Any]) -> dict[str, Any]:
        if any(isinstance(v, Vectors) for v in args.values()):
            self._register_vector()
        return {name: _adapt(value) for name, value in args.items()}

    def _register_vector(self) -> None:
        """pgvector's adapters for `vector` on this connection (once: they live on it), from
        one plain catalog read (pgvector's own `register_vector` opens a transaction per type)."""
        if self.conn.adapters.types.get("vector") is not None:
            return
        # By the extension, not the search_path: pgvector may live in a schema (Supabase's
        # `extensions`) that this connection's search_path does not list.
        row = self.conn.execute(
            "SELECT t.oid, t.typarray FROM pg_type t JOIN pg_extension e "
            "ON e.extname = 'vector' AND t.typnamespace = e.extnamespace "
            "WHERE t.typname = 'vector'"
        ).fetchone()
        if row is None:
            raise MissingFunctionError("the vector extension is missing; run: archivist init")
        register_vector_info(self.conn, TypeInfo("vector", row[0], row[1]))

    def _execute(
        self,
        query: sql.Composed,
        params: Mapping[str, Any],
        timeout_ms: int | None,
        binary: bool = False,
    ) -> psycopg.Cursor[Any]:
        """One statement, one round trip, its own transaction (autocommit); in an explicit
        transaction only when timeouts must be set for it alone (through a transaction
        pooler, or a call with its own deadline)."""
        cursor = self.conn.cursor(binary=binary)
        if self._per_call is None and timeout_ms is None:
            return cursor.execute(query, params)
        with self.conn.transaction():
            if self._per_call is not None:
                values = _timeout_values(self._per_call, timeout_ms)
                self.conn.execute(_SET_TIMEOUTS.format(local="true"), values)
            else:
                self.conn.execute(
                    "SELECT set_config('statement_timeout', %s, true)", [str(timeout_ms)]
                )
            cursor.execute(query, params)
            # Rows are read before the transaction ends (the cursor keeps them).
        return cursor

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
    if isinstance(value, Json):
        return Jsonb(value.value, dumps=_dumps)
    if isinstance(value, Vectors):
        return value.values or None
    return value


@contextmanager
def mapped_errors() -> Iterator[None]:
    """psycopg's errors as the archivist's (`RpcError` and its children, with the SQLSTATE),
    at the store boundary: nothing above the store sees a psycopg exception."""
    try:
        yield
    except psycopg.errors.QueryCanceled as exc:
        raise QueryTimeoutError(error_message(str(exc)), exc.sqlstate) from None
    except psycopg.errors.UndefinedFunction as exc:
        raise MissingFunctionError(error_message(str(exc)), exc.sqlstate) from None
    except psycopg.Error as exc:
        raise rpc_error(error_message(str(exc)), exc.sqlstate) from None


def _dumps(value: Any) -> str:
    # Characters as UTF-8, not \u escapes: a SQL_ASCII database refuses escapes of non-ASCII.
    return json.dumps(value, separators=(",", ":"), default=str, ensure_ascii=False)
