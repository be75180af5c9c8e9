"""`StatementLog` counts, on the Postgres side, the statements one database received: it turns
on `log_statement = 'all'` for that database and reads the server's own log file through
`pg_read_file` (pgserver starts Postgres with `-l <pgdata>/log`), so nothing on the client
side, no driver hook, decides what counts as a call. Used by tests/db/test_pipeline_calls.py
and the archive benchmark (scripts/bench/archive.py).
"""

from __future__ import annotations

import re
from typing import Any

import psycopg
from psycopg import sql

LOG_FILE = "log"  # relative to the data directory, where pgserver asks pg_ctl to log
# One line per statement a client sent: simple protocol ("statement:") or extended ("execute").
STATEMENT_LINE = re.compile(r"LOG:  (?:statement|execute [^:]*): ")


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
