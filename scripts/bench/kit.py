"""What every benchmark in scripts/ shares: one embedded Postgres, and statements counted on it.

`embedded_server()` starts pgserver (Postgres 16 + pgvector) in a temporary directory and
deletes it afterwards, or, when `ARCHIVIST_BENCH_PG` holds the admin URL of a server that is
already running (`scripts/bench_all.py` sets it), uses that server and leaves it running. So
each benchmark stays runnable on its own, and `bench_all.py` runs them all on one start-up.

`StatementLog` counts, on the Postgres side, the statements one database received: it turns
on `log_statement = 'all'` for that database and reads the server's own log file through
`pg_read_file` (pgserver starts Postgres with `-l <pgdata>/log`), so nothing on the client
side, no driver hook, decides what counts as a call.
"""

from __future__ import annotations

import os
import re
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
LOG_FILE = "log"  # relative to the data directory, where pgserver asks pg_ctl to log
# One line per statement a client sent: simple protocol ("statement:") or extended ("execute").
STATEMENT_LINE = re.compile(r"LOG:  (?:statement|execute [^:]*): ")
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


class StatementLog:
    """Counts the statements one database receives between `start()` and `count()`.

    Statement logging is set on the database (`ALTER DATABASE ... SET log_statement`), so only
    connections opened afterwards and to that database log; the count is read from the part of
    the server log written since `start()`. Each counted line is one statement the server
    received, that is one round trip (a BEGIN and a COMMIT count as one each).
    """

    def __init__(self, admin_url: str, database: str) -> None:
        self.admin_url = admin_url
        self.database = database
        self._offset = 0

    def enable(self) -> None:
        self._alter("all")

    def disable(self) -> None:
        self._alter("none")

    def _alter(self, value: str) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(
                sql.SQL("ALTER DATABASE {} SET log_statement = {}").format(
                    sql.Identifier(self.database), sql.Literal(value)
                )
            )

    def _size(self, conn: psycopg.Connection[Any]) -> int:
        row = conn.execute("SELECT size FROM pg_stat_file(%s)", [LOG_FILE]).fetchone()
        return int(row[0]) if row else 0

    def start(self) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            self._offset = self._size(conn)

    def lines(self) -> list[str]:
        """The statement lines logged since `start()`."""
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            end = self._size(conn)
            row = conn.execute(
                "SELECT convert_from(pg_read_binary_file(%s, %s, %s), 'UTF8')",
                [LOG_FILE, self._offset, end - self._offset],
            ).fetchone()
        text = str(row[0]) if row else ""
        return [line for line in text.splitlines() if STATEMENT_LINE.search(line)]

    def count(self) -> int:
        return len(self.lines())
