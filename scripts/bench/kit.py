"""What every benchmark in scripts/ shares: one embedded Postgres.

`embedded_server()` starts pgserver (Postgres 16 + pgvector) in a temporary directory and
deletes it afterwards, or, when `ARCHIVIST_BENCH_PG` holds the admin URL of a server that is
already running (`python -m scripts.bench.all` sets it), uses that server and leaves it running. So
each benchmark stays runnable on its own, and `scripts.bench.all` runs them all on one start-up.

The statements a benchmark's database received are counted by tests/support/statements.py.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

SERVER_ENV = "ARCHIVIST_BENCH_PG"
# The repository root: a benchmark run as a child process (`python -m scripts.bench.NAME`) starts
# here, so that the package `scripts` is found without touching sys.path.
ROOT = Path(__file__).resolve().parents[2]
_DROP = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")


class Server:
    """One Postgres server (embedded, or the running one `ARCHIVIST_BENCH_PG` names)."""

    def __init__(self, admin_url: str, handle: Any = None) -> None:
        self.admin_url = admin_url
        self._handle = handle

    @classmethod
    def start(cls, root: Path) -> Server:
        """Start pgserver with its data directory under `root` (deleted by `stop`)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pgserver/platformdirs warn about XDG_RUNTIME_DIR
            import pgserver

            handle: Any = pgserver.get_server(root / "pgdata", cleanup_mode="delete")
        return cls(str(handle.get_uri()), handle)

    def url(self, database: str) -> str:
        """The connection URL of `database` on this server."""
        return str(psycopg.conninfo.make_conninfo(self.admin_url, dbname=database))

    def create(self, name: str, template: str | None = None) -> str:
        """(Re)create database `name`, empty or as a copy of `template`; returns its URL."""
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
            create = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
            if template:
                create += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
            conn.execute(create)
        return self.url(name)

    def drop(self, name: str) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )

    def stop(self) -> None:
        """Stop and delete the server if this process started it; leave a shared one running."""
        if self._handle is not None:
            self._handle.cleanup()


@contextmanager
def embedded_server(prefix: str = "archivist-bench-") -> Iterator[Server]:
    """The shared server if `ARCHIVIST_BENCH_PG` names one, else a throw-away embedded one."""
    shared = os.environ.get(SERVER_ENV)
    if shared:
        yield Server(shared)
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        root = Path(tmp)
        os.chmod(root, 0o755)  # pgserver runs Postgres as another user when started by root
        server = Server.start(root)
        try:
            yield server
        finally:
            server.stop()
