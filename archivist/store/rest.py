"""The Supabase transport: the archivist's SQL functions called through the REST gateway.

PostgREST runs each request in its own transaction and runs no ad-hoc SQL, so everything the
archivist does is a function call (sql/functions/), a commit is one call (atomic in the database),
and the session lock is a claim with a TTL (an advisory lock would end with the request).
Errors from the gateway, and a gateway that is down, become one-line `RpcError`s with the
service key redacted.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

import httpx
from postgrest.exceptions import APIError
from supabase import Client, create_client
from supabase.lib.client_options import SyncClientOptions

from archivist.config import redact
from archivist.errors import StoreError
from archivist.store.migrate import (
    ACCESS_KEY,
    FUNCTIONS_KEY,
    INSUFFICIENT_PRIVILEGE,
    PRIVATE,
    SchemaRecords,
    no_access,
)
from archivist.store.protocol import (
    Json,
    MissingFunctionError,
    QueryTimeoutError,
    RpcError,
    Vectors,
    rpc_error,
)

# PostgREST's "function not found" and "table not found" codes, and Postgres's own.
log = logging.getLogger(__name__)

_MISSING_FUNCTION = {"PGRST202", "42883"}
_MISSING_TABLE = {"PGRST205", "42P01"}


class SupabaseRpc:
    """Calls the archivist's functions with supabase-py's `rpc`, as the service role."""

    def __init__(
        self,
        url: str,
        key: str,
        secrets: list[str],
        claim_ttl_s: int = 900,
        timeout_s: float = 120.0,
    ) -> None:
        self.url = url
        self._secrets = [key, *secrets]
        self.claim_ttl_s = claim_ttl_s
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._broken = False
        # The timeout lives on our own httpx client: postgrest-py deprecated its own setting.
        self._http = httpx.Client(timeout=timeout_s)
        try:
            self.client: Client = create_client(
                url,
                key,
                options=SyncClientOptions(
                    httpx_client=self._http,
                    postgrest_client_timeout=None,  # type: ignore[arg-type]
                    auto_refresh_token=False,
                    persist_session=False,
                ),
            )
        except Exception as exc:  # supabase-py raises bare exceptions for a bad URL or key
            raise StoreError(f"cannot use Supabase at {url}: {self._clean(exc)}") from None

    def call(self, function: str, args: Mapping[str, Any], timeout_ms: int | None = None) -> Any:
        """POST /rest/v1/rpc/<function>; the function's own statement_timeout bounds it."""
        payload = {name: _json_value(value) for name, value in args.items()}
        try:
            return self.client.rpc(function, payload).execute().data
        except APIError as exc:
            code = str(exc.code) if exc.code else None
            message = self._clean(exc.message or exc.details or exc)
            if code in _MISSING_FUNCTION:
                raise MissingFunctionError(
                    f"Supabase has no function {function}; run `archivist init` to see "
                    "what the database lacks",
                    code,
                ) from None
            if code == "57014":
                raise QueryTimeoutError(message, code) from None
            if code == INSUFFICIENT_PRIVILEGE:
                raise no_access(None) from None
            raise rpc_error(f"Supabase: {message}", code) from None
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from None

    def call_row(self, function: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
        """The first row of a set-returning function, as JSON (vectors as their text)."""
        rows = self.call(function, args)
        return dict(rows[0]) if rows else None

    @property
    def lock_owner(self) -> str:
        """Sessions are claimed, in this worker's name (a lock would end with the request)."""
        return self.owner

    def schema_records(self) -> SchemaRecords:
        """Read `archivist_migrations` and `archivist_meta` over REST (no function needed)."""
        migrations = self._rows("archivist_migrations", "name,checksum")
        meta = {str(r["key"]): str(r["value"]) for r in self._rows("archivist_meta", "key,value")}
        return SchemaRecords(
            {str(r["name"]): str(r["checksum"]) for r in migrations},
            meta.get(FUNCTIONS_KEY),
            meta.get(ACCESS_KEY, PRIVATE),
        )

    def _rows(self, table: str, columns: str) -> list[dict[str, Any]]:
        """Every row of a small table; none if the table does not exist yet."""
        try:
            rows = self.client.table(table).select(columns).execute().data
        except APIError as exc:
            if str(exc.code) in _MISSING_TABLE:
                return []
            if str(exc.code) == INSUFFICIENT_PRIVILEGE:
                raise no_access(None) from None
            raise RpcError(f"Supabase: {self._clean(exc.message or exc)}", exc.code) from None
        except httpx.HTTPError as exc:
            raise self._unreachable(exc) from None
        return [r for r in rows if isinstance(r, dict)]

    @property
    def broken(self) -> bool:
        return self._broken

    def close(self) -> None:
        self._http.close()

    def _unreachable(self, exc: httpx.HTTPError) -> RpcError:
        # A slow answer is one failed call; a refused or dropped connection is a lost gateway.
        self._broken = isinstance(exc, httpx.TransportError) and not isinstance(
            exc, httpx.ReadTimeout | httpx.WriteTimeout
        )
        return RpcError(f"cannot reach Supabase at {self.url}: {self._clean(exc)}", None)

    def _clean(self, detail: object) -> str:
        text = str(detail).strip()
        line = text.splitlines()[0] if text else type(detail).__name__
        return redact(line.removeprefix("archivist: "), self._secrets)


def _json_value(value: Any) -> Any:
    if isinstance(value, Json):
        return value.value
    if isinstance(value, Vectors):
        return value.as_text() or None
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value
