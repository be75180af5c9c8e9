"""Measure: how long an archivist call waits behind a lock another session holds.

On one embedded Postgres (PostgreSQL 16, pgvector), with the archivist's functions as `init`
leaves them (lock_timeout_s 10, statement_timeout_s 600, the searches 15 s):

- a search called as SQL by a bot, directly (`SELECT * FROM match_jarvis_memory_chunks(...)`
  on a connection without a statement_timeout) and over REST
  (tests/support/postgrest_double.py, which applies a function's statement_timeout to the
  request's transaction like PostgREST 12.2),
  while another session holds ACCESS EXCLUSIVE on jarvis_memory_chunks;
- an archive run in which one session's row of jarvis_archive_sessions is held FOR UPDATE by
  another session: the seconds that session takes to fail, and the run's total.

It prints the seconds until each was cancelled, and how (SQLSTATE). Numbers, not assertions.

Run:  python -m scripts.bench.lock_waits
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import psycopg

from archivist.client import Archivist, archive
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest
from archivist.source_tables import source_tables_sql
from scripts.bench.corpus import Server
from scripts.bench.kit import embedded_server
from tests.support.postgrest_double import SERVICE_KEY, PostgrestDouble

VECTOR = "[" + ",".join(["0.1"] * 768) + "]"
SOURCES = (
    source_tables_sql()
    + """
INSERT INTO session_messages
SELECT n, 's' || (n % 4), CASE WHEN n % 2 = 0 THEN 'user' ELSE 'assistant' END,
       'message ' || n || ' about the deploy', now() - interval '40 days' + n * interval '1 min'
FROM generate_series(1, 40) n;
"""
)


def timed(label: str, call: Any) -> None:
    started = time.perf_counter()
    outcome = call()
    print(f"{label:<52} {time.perf_counter() - started:6.2f} s  {outcome}")


def direct_search(url: str) -> str:
    with psycopg.connect(url, autocommit=True) as conn:
        try:
            conn.execute("SELECT * FROM match_jarvis_memory_chunks(%s::vector, 5, '{}')", [VECTOR])
        except psycopg.Error as exc:
            return f"cancelled, SQLSTATE {exc.sqlstate}"
    return "answered"


def rest_search(double: PostgrestDouble) -> str:
    answer = httpx.post(
        f"{double.url}/rest/v1/rpc/match_jarvis_memory_chunks",
        json={"query_embedding": VECTOR, "match_count": 5},
        headers={"apikey": SERVICE_KEY, "Authorization": f"Bearer {SERVICE_KEY}"},
        timeout=300,
    )
    code = answer.json().get("code") if answer.status_code != 200 else None
    return f"cancelled, HTTP {answer.status_code}, code {code}" if code else "answered"


def main() -> None:
    with embedded_server() as shared, tempfile.TemporaryDirectory() as tmp:
        server = Server(shared)
        try:
            url = server.create("lockwaits")
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(SOURCES)
            settings = Settings(database_url=url, embedder="hash", data_dir=Path(tmp) / "d")
            with Archivist(settings) as client:
                client.init()
                client.archive(ArchiveRequest(delay_ms=0))
            double = PostgrestDouble(url).start()
            with psycopg.connect(url) as holder:
                holder.execute("LOCK TABLE jarvis_memory_chunks IN ACCESS EXCLUSIVE MODE")
                timed("search as SQL, direct, behind ACCESS EXCLUSIVE", lambda: direct_search(url))
                timed(
                    "search as SQL, over REST, behind ACCESS EXCLUSIVE", lambda: rest_search(double)
                )
                holder.rollback()
                with psycopg.connect(url, autocommit=True) as conn:
                    conn.execute(
                        "INSERT INTO session_messages SELECT 100 + n, 's' || n, 'user', 'late', "
                        "now() FROM generate_series(0, 3) n"
                    )
                holder.execute(
                    "SELECT 1 FROM jarvis_archive_sessions WHERE session_id = 's0' FOR UPDATE"
                )

                def run() -> str:
                    report = archive(settings, ArchiveRequest(delay_ms=0))
                    failed = [f"{s.session_id}: {s.reason}" for s in report.failed]
                    return f"{report.count('archived')} archived, failed {failed}"

                timed("archive run, one session's row held FOR UPDATE", run)
                holder.rollback()
            double.stop()
        finally:
            server.drop("lockwaits")


if __name__ == "__main__":
    main()
