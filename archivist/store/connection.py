"""The one place that opens database connections, with the settings' pooler handling.

Supabase's transaction pooler (Supavisor on port 6543) hands each transaction to whichever
server connection is free, so a prepared statement made in one transaction may be missing in
the next ("prepared statement ... does not exist"). Through a pooler psycopg must not prepare:
`prepare_threshold=None`. A URL is taken for a pooler's when its port is 6543 or its host is
`*.pooler.supabase.com`; the `database_pooler` setting overrides the guess either way.
"""

from __future__ import annotations

import json
import re
from typing import Any

import psycopg
from psycopg.abc import Buffer
from psycopg.adapt import Loader
from psycopg.conninfo import conninfo_to_dict
from psycopg.types.json import set_json_loads

from archivist.config import Settings, redact, redact_url
from archivist.errors import ConfigError, StoreError
from archivist.store.migrate import Conn
from archivist.store.psycopg_rpc import set_timeouts

POOLER_PORT = "6543"
POOLER_HOST_SUFFIX = ".pooler.supabase.com"
# Every connection is autocommit: each function call is its own transaction (store/psycopg_rpc.py).
CONNECT_OPTIONS: dict[str, Any] = {
    "autocommit": True,
    "connect_timeout": 10,
    "application_name": "archivist",
}


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
    """Open an autocommit connection, turning failures into one readable, redacted line.

    A URL that cannot be a connection string is a configuration error (exit 2); a database
    that cannot be reached is not.
    """
    secrets = settings.secrets()
    _check_url(url, secrets)
    try:
        conn: Conn = psycopg.connect(url, **CONNECT_OPTIONS)
        prepare(conn, url, settings)
    except psycopg.Error as exc:
        detail = redact(str(exc).strip().splitlines()[0] if str(exc).strip() else "", secrets)
        if bad := _BAD_OPTION.search(detail):  # libpq refused a value of the URL
            raise ConfigError(
                f"DATABASE_URL has an {bad.group(0)}: {redact(redact_url(url), secrets)}"
            ) from None
        raise StoreError(
            f"cannot connect to the database at {redact(redact_url(url), secrets)}: {detail}"
        ) from None
    return conn


def prepare(conn: Conn, url: str, settings: Settings) -> None:
    """Set up a new connection for the archivist (also each connection of a pool)."""
    if conn.info.encoding == "ascii":  # SQL_ASCII: psycopg would hand out bytes
        _read_leniently(conn)
    if uses_pooler(url, settings):
        conn.prepare_threshold = None  # statements must not outlive their transaction
    else:  # through a transaction pooler each call sets them (archivist.store.psycopg_rpc)
        set_timeouts(conn, settings.timeouts)


# libpq's words for a value it cannot use ('invalid port number: "99999"', 'invalid sslmode
# value: "bogus"', 'invalid connection option "x"'), as opposed to a server it cannot reach.
_BAD_OPTION = re.compile(r"invalid (?:[\w ]+ (?:value|number)|connection option)\b[^;]*")


def _check_url(url: str, secrets: list[str]) -> None:
    if not url.strip():
        raise ConfigError("DATABASE_URL is blank: unset it, or set a postgresql:// URL")
    scheme, sep, rest = url.partition("://")
    if sep and scheme.lower() not in ("postgresql", "postgres"):
        raise ConfigError(
            f"DATABASE_URL must be a postgresql:// URL, not {scheme[:20]}://; the archivist "
            "needs Postgres with pgvector"
        )
    if sep and "@" in rest.partition("/")[0].rpartition("@")[0]:
        # libpq splits at the first "@", so the rest of the password would be its host name,
        # and printed in its errors
        raise ConfigError("DATABASE_URL has an '@' in its user name or password; write it as %40")
    if not sep and "=" not in url:  # (libpq's own words would quote it: a secret, redacted)
        raise ConfigError(
            "DATABASE_URL is not a connection URL: write postgresql://host:5432/dbname, with "
            "the user and password before the host (or libpq's host=... dbname=... settings)"
        )
    try:
        params = conninfo_to_dict(url)
    except psycopg.Error as exc:
        detail = redact(str(exc).strip(), [url, *secrets])
        raise ConfigError(f"DATABASE_URL is not a connection URL: {detail}") from None
    ports = str(params.get("port") or "").split(",")
    if not all(p.isdigit() or p == "" for p in ports):
        raise ConfigError(
            f"DATABASE_URL has a port that is not a number: {redact(redact_url(url), secrets)}"
        )


class _LenientTextLoader(Loader):
    """Text from a SQL_ASCII database, whose bytes may be in any encoding: read as UTF-8,
    invalid bytes kept as lone surrogates, which `sanitize.clean_text` replaces and reports."""

    def load(self, data: Buffer) -> str:
        return bytes(data).decode("utf-8", "surrogateescape")


def _lenient_json(data: str | bytes) -> Any:
    text = data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else data
    return json.loads(text)


def _read_leniently(conn: Conn) -> None:
    """Read text and JSON of a SQL_ASCII database as UTF-8 without failing on bad bytes."""
    for name in ("text", "varchar", "bpchar", "name"):
        conn.adapters.register_loader(name, _LenientTextLoader)
    set_json_loads(_lenient_json, conn)
