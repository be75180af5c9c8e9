"""A TEST DOUBLE of Supabase's HTTP gateway (PostgREST), for the Supabase transport's tests.

It replaces only the HTTP hop: every call executes the named function on the real test
Postgres, in its own transaction, the way PostgREST does. What it implements of PostgREST:

- `POST /rest/v1/rpc/<function>` with a JSON object of named arguments. The arguments are
  typed by the function's signature (`json_to_record`, as PostgREST does); a set-returning
  function answers a JSON array of row objects, any other its value as JSON. A function's
  `statement_timeout` setting is applied to the transaction first (PostgREST 12.2
  "hoisted" settings).
- `GET /rest/v1/<table>?select=a,b` (plain reads, no filters).
- The `apikey` and `Authorization: Bearer` headers must carry the service key (else 401).
- `role` (optional): each request's transaction runs as that role with its JWT claims, as
  PostgREST sets them (`set_config('role', ...)`, `request.jwt.claims`), e.g. `service_role`
  on a database with Supabase's roles; by default it runs as the database's owner.
- Errors in PostgREST's shape: `{"code", "message", "details", "hint"}`; an unknown function
  is 404 `PGRST202`, an unknown table 404 `PGRST205`.

Faults on purpose (`mode`): "ok"; "error500" answers 500 with an HTML proxy page that echoes
the request's apikey header (as a debugging proxy might); "down"
closes the connection without answering. Not implemented: filters, embedding, auth roles
(only the one `role` given), max-rows.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from queue import Empty, Queue
from typing import Any
from urllib.parse import parse_qs, urlsplit

import psycopg
from psycopg import sql

SERVICE_KEY = "sb-test-service-role-key-7f3a9c1e5b2d4068"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_STATUS = {"40001": 409, "57014": 500, "42883": 404, "23505": 409, "42501": 403}


class GatewayError(Exception):
    def __init__(self, status: int, code: str, message: str, details: str | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.details = status, code, message, details


class PostgrestDouble:
    """The gateway on 127.0.0.1 in a thread, over one test database."""

    def __init__(self, db_url: str, key: str = SERVICE_KEY, role: str | None = None) -> None:
        self.db_url = db_url
        self.key = key
        self.role = role
        self.mode = "ok"
        self.calls: list[str] = []
        self._pool: Queue[psycopg.Connection[tuple[Any, ...]]] = Queue()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> PostgrestDouble:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        while True:
            try:
                self._pool.get_nowait().close()
            except Empty:
                break

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
        try:
            conn = self._pool.get_nowait()
        except Empty:
            conn = psycopg.connect(self.db_url)
        try:
            if self.role:
                conn.execute(
                    "SELECT set_config('role', %s, true), "
                    "set_config('request.jwt.claims', %s, true)",
                    [self.role, json.dumps({"role": self.role})],
                )
            yield conn
        finally:
            if not (conn.closed or conn.broken):
                conn.rollback()
                self._pool.put(conn)

    def rpc(self, function: str, args: dict[str, Any]) -> Any:
        if not _NAME.match(function):
            raise GatewayError(404, "PGRST202", f"Could not find the function public.{function}")
        with self._connection() as conn:
            signature = conn.execute(
                "SELECT p.proretset, p.proconfig, "
                "ARRAY(SELECT format_type(t, NULL) FROM unnest(p.proargtypes) t), p.proargnames "
                "FROM pg_proc p WHERE p.proname = %s AND p.pronamespace = 'public'::regnamespace",
                [function],
            ).fetchall()
            match = [s for s in signature if set(args) <= set(s[3] or [])]
            if not match:
                raise GatewayError(
                    404,
                    "PGRST202",
                    f"Could not find the function public.{function}({', '.join(sorted(args))}) "
                    "in the schema cache",
                )
            returns_set, config, types, names = match[0]
            typed = dict(zip(names or [], types, strict=False))
            for setting in config or []:
                name, _, value = setting.partition("=")
                if name == "statement_timeout":
                    conn.execute("SELECT set_config('statement_timeout', %s, true)", [value])
            columns = sql.SQL(", ").join(
                sql.SQL("{} {}").format(sql.Identifier(a), sql.SQL(typed[a])) for a in args
            )
            call = sql.SQL("{}({})").format(
                sql.Identifier(function),
                sql.SQL(", ").join(
                    sql.SQL("{} => _a.{}").format(sql.Identifier(a), sql.Identifier(a))
                    for a in args
                ),
            )
            source = (
                sql.SQL("json_to_record(%s::json) AS _a({})").format(columns)
                if args
                else sql.SQL("(SELECT 1) AS _a")
            )
            query = (
                sql.SQL("SELECT coalesce(json_agg(_r), '[]') FROM {}, LATERAL {} _r").format(
                    source, call
                )
                if returns_set
                else sql.SQL("SELECT to_json({}) FROM {}").format(call, source)
            )
            params = [json.dumps(args)] if args else []
            try:
                row = conn.execute(query, params).fetchone()
                conn.commit()
            except psycopg.Error as exc:
                conn.rollback()
                raise _as_gateway_error(exc) from None
            return row[0] if row else None

    def select(self, table: str, columns: list[str]) -> Any:
        if not _NAME.match(table) or not all(_NAME.match(c) for c in columns):
            raise GatewayError(400, "PGRST100", "bad select")
        with self._connection() as conn:
            if conn.execute("SELECT to_regclass(%s)", [table]).fetchone() == (None,):
                raise GatewayError(
                    404,
                    "PGRST205",
                    f"Could not find the table 'public.{table}' in the schema cache",
                )
            query = sql.SQL(
                "SELECT coalesce(json_agg(_r), '[]') FROM (SELECT {} FROM {}) _r"
            ).format(sql.SQL(", ").join(sql.Identifier(c) for c in columns), sql.Identifier(table))
            try:  # a table the role may not read: PostgREST answers 42501, as for a function
                row = conn.execute(query).fetchone()
            except psycopg.Error as exc:
                conn.rollback()
                raise _as_gateway_error(exc) from None
            return row[0] if row else []

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self, status: int, body: Any, raw: bytes | None = None) -> None:
                data = raw if raw is not None else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html" if raw else "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _serve(self, work: Any) -> None:
                double.calls.append(self.path)
                if double.mode == "down":
                    self.close_connection = True
                    self.connection.close()
                    return
                if double.mode == "error500":
                    # A proxy's debug page that echoes the request's headers, key included.
                    page = f"<html><body>502 Bad Gateway (apikey: {self.headers.get('apikey')})"
                    self._answer(500, None, f"{page}</body></html>".encode())
                    return
                if (
                    self.headers.get("apikey") != double.key
                    or self.headers.get("Authorization") != f"Bearer {double.key}"
                ):
                    self._answer(
                        401,
                        {
                            "code": "401",
                            "message": "Invalid API key",
                            "details": None,
                            "hint": None,
                        },
                    )
                    return
                try:
                    self._answer(200, work())
                except GatewayError as exc:
                    self._answer(
                        exc.status,
                        {
                            "code": exc.code,
                            "message": exc.message,
                            "details": exc.details,
                            "hint": None,
                        },
                    )

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                path = urlsplit(self.path).path
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if not path.startswith("/rest/v1/rpc/"):
                    self._answer(404, {"code": "PGRST125", "message": "not found"})
                    return
                self._serve(lambda: double.rpc(path.removeprefix("/rest/v1/rpc/"), body))

            def do_GET(self) -> None:  # noqa: N802
                parts = urlsplit(self.path)
                table = parts.path.removeprefix("/rest/v1/")
                columns = parse_qs(parts.query).get("select", ["*"])[0].split(",")
                self._serve(lambda: double.select(table, columns))

        return Handler


def _as_gateway_error(exc: psycopg.Error) -> GatewayError:
    diag = exc.diag
    code = exc.sqlstate or "XX000"
    return GatewayError(
        _STATUS.get(code, 400), code, diag.message_primary or str(exc), diag.message_detail
    )
