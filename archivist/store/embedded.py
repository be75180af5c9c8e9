"""The embedded default database: Postgres 16 with pgvector from the `pgserver` wheel."""

from __future__ import annotations

import logging
import warnings
from pathlib import Path
from typing import Any

from archivist.errors import StoreError
from archivist.extras import needs_extra

log = logging.getLogger(__name__)


def pgserver_module() -> Any:
    """The `pgserver` package, or a usage error naming the `embedded` extra."""
    with (
        needs_extra("embedded", "The embedded database (no DATABASE_URL set)", ("pgserver",)),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
        import pgserver
    return pgserver


def start_embedded(data_dir: Path) -> Any:
    """Start (or join) the embedded server whose data lives under `data_dir`; returns its handle.

    The server stops when the last process holding a handle exits.
    """
    pgdata = data_dir / "pgdata"
    pgserver = pgserver_module()
    try:
        pgdata.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server = pgserver.get_server(pgdata, cleanup_mode="stop")
    except Exception as exc:  # pgserver raises bare exceptions from its subprocess calls
        raise StoreError(
            f"cannot start the embedded database in {pgdata}: {exc}; "
            "set DATABASE_URL to use your own Postgres"
        ) from exc
    log.info("embedded Postgres at %s", pgdata)
    return server


def embedded_exists(data_dir: Path) -> bool:
    """Whether an embedded database was ever created under `data_dir`."""
    return (data_dir / "pgdata" / "PG_VERSION").is_file()


def embedded_url(server: Any) -> str:
    """The connection URL of an embedded server handle."""
    return str(server.get_uri())
