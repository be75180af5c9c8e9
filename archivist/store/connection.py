"""The one place that opens database connections, with the settings' pooler handling.

Supabase's transaction pooler (Supavisor on port 6543) hands each transaction to whichever
server connection is free, so a prepared statement made in one transaction may be missing in
the next ("prepared statement ... does not exist"). Through a pooler psycopg must not prepare:
`prepare_threshold=None`. A URL is taken for a pooler's when its port is 6543 or its host is
`*.pooler.supabase.com`; the `database_pooler` setting overrides the guess either way.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

from archivist.config import Settings, redact, redact_url
from archivist.errors import StoreError

Conn = psycopg.Connection[tuple[Any, ...]]

POOLER_PORT = "6543"
POOLER_HOST_SUFFIX = ".pooler.supabase.com"


def looks_like_pooler(url: str) -> bool:
    """Whether a connection URL (or key=value string) points at a transaction pooler."""
    try:
        params = conninfo_to_dict(url)
    except psycopg.Error:
        return False  # malformed: connecting will say so
    hosts = str(params.get("host") or "").split(",")
    ports = str(params.get("port") or "").split(",")
    return POOLER_PORT in ports or any(h.endswith(POOLER_HOST_SUFFIX) for h in hosts)


def uses_pooler(url: str, settings: Settings) -> bool:
    """The `database_pooler` setting if set, else the guess from the URL."""
    if settings.database_pooler is not None:
        return settings.database_pooler
    return looks_like_pooler(url)


def connect(url: str, settings: Settings) -> Conn:
    """Open an autocommit connection, turning failures into one readable, redacted line."""
    secrets = settings.secrets()
    try:
        conn: Conn = psycopg.connect(
            url, autocommit=True, connect_timeout=10, application_name="archivist"
        )
    except psycopg.Error as exc:
        detail = redact(str(exc).strip().splitlines()[0] if str(exc).strip() else "", secrets)
        raise StoreError(
            f"cannot connect to the database at {redact(redact_url(url), secrets)}: {detail}"
        ) from None
    if uses_pooler(url, settings):
        conn.prepare_threshold = None  # statements must not outlive their transaction
    return conn
