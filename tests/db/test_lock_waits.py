"""Bounded waits: a lock held by someone else never hangs a run or a search.

Every archivist function carries lock_timeout_s and statement_timeout_s (sql/policy.sql, from
`init`), so the bound holds over REST too; a session that meets a lock fails naming the pid
that holds it, and the run goes on. The searches carry 15 s for both, which holds for a caller
of the SQL as well (a function's own statement_timeout would not bound the statement calling
it; its lock_timeout bounds every lock wait inside it).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest
from conftest import HASH_768
from support.commands import run_doctor
from support.faults import archivist_env, run_archive
from support.postgrest_double import SERVICE_KEY, PostgrestDouble
from support.sources import SourceDB

from archivist.client import archive
from archivist.config import DatabaseTimeouts, Settings
from archivist.pipeline import ArchiveRequest
from archivist.store import PostgresStore

FAST = DatabaseTimeouts(lock_ms=400, statement_ms=60_000)


@pytest.fixture
def fast_locks(source: SourceDB) -> SourceDB:
    """The test database's functions initialised with a 0.4 s lock timeout."""
    with psycopg.connect(source.url, autocommit=True) as conn:
        PostgresStore(conn, Settings().sources, timeouts=FAST).init(HASH_768)
    return source


@pytest.fixture
def holder(source: SourceDB) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
    """Another session, in an open transaction, for taking locks; rolled back after the test."""
    with psycopg.connect(source.url) as conn:
        yield conn
        conn.rollback()


@pytest.mark.both_transports
def test_a_session_behind_a_row_lock_fails_naming_the_pid_and_the_run_goes_on(
    fast_locks: SourceDB,
    settings: Settings,
    holder: psycopg.Connection[tuple[Any, ...]],
) -> None:
    source = fast_locks
    source.add("held", ["let's use Redis", "ok"])
    source.add("free", ["let's use Kafka", "ok"])
    archive(settings, ArchiveRequest(delay_ms=0))
    source.add("held", ["and a TTL of one hour"], start=source_later(source))
    source.add("free", ["with three partitions"], start=source_later(source))
    holder.execute("SELECT 1 FROM jarvis_archive_sessions WHERE session_id = 'held' FOR UPDATE")

    report = archive(settings, ArchiveRequest(delay_ms=0))

    outcomes = {s.session_id: s for s in report.sessions}
    assert outcomes["free"].status == "archived"
    assert outcomes["held"].status == "failed"
    assert outcomes["held"].reason == (
        f"waiting for a lock held by pid {holder.info.backend_pid}: gave up after lock_timeout_s "
        "(ARCHIVIST_LOCK_TIMEOUT_S, 10 s unless set)"
    )
    assert outcomes["held"].failures == 0  # a lock is not the session's fault: no backoff
    holder.rollback()
    [again] = archive(settings, ArchiveRequest(delay_ms=0)).sessions
    assert (again.session_id, again.status) == ("held", "archived")


def source_later(source: SourceDB) -> Any:
    row = source.conn.execute("SELECT max(created_at) + interval '1 hour' FROM session_messages")
    return row.fetchone()[0]  # type: ignore[index]


def test_a_locked_archive_table_ends_the_cli_run_with_each_session_failed(
    fast_locks: SourceDB, holder: psycopg.Connection[tuple[Any, ...]], tmp_path: Any
) -> None:
    fast_locks.add("a", ["hello", "hi"])
    fast_locks.add("b", ["hello again", "hi"])
    env = archivist_env(fast_locks.url, tmp_path, lock_timeout_s="0.4")
    assert run_archive(env).returncode == 0
    fast_locks.add("a", ["more"], start=source_later(fast_locks))
    fast_locks.add("b", ["more"], start=source_later(fast_locks))
    holder.execute("LOCK TABLE jarvis_archive IN ACCESS EXCLUSIVE MODE")

    done = run_archive(env)  # run_archive's own timeout fails the test if it hangs

    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    reasons = {s["session_id"]: s["reason"] for s in report["sessions"]}
    pid = holder.info.backend_pid
    assert reasons == dict.fromkeys(
        "ab",
        f"waiting for a lock held by pid {pid}: gave up after lock_timeout_s "
        "(ARCHIVIST_LOCK_TIMEOUT_S, 10 s unless set)",
    )


def test_doctor_reports_timeouts_the_functions_do_not_have(fast_locks: SourceDB) -> None:
    settings = Settings(database_url=fast_locks.url, embedder="hash")
    [check] = [c for c in run_doctor(settings).checks if c.name == "timeouts"]
    assert not check.ok and "lock 0.4 s" in check.detail and check.fix
    tuned = settings.model_copy(update={"lock_timeout_s": 0.4, "statement_timeout_s": 60})
    [check] = [c for c in run_doctor(tuned).checks if c.name == "timeouts"]
    assert check.ok, check


MATCH = "SELECT * FROM match_jarvis_memory_chunks(%s::vector, 5, '{}')"


def test_a_search_behind_a_lock_is_cancelled_for_sql_callers_direct_and_over_rest(
    source: SourceDB, postgrest: PostgrestDouble, holder: psycopg.Connection[tuple[Any, ...]]
) -> None:
    vector = "[" + ",".join(["0.1"] * 768) + "]"
    holder.execute("LOCK TABLE jarvis_memory_chunks IN ACCESS EXCLUSIVE MODE")
    errors: dict[str, str] = {}

    def direct() -> None:
        with psycopg.connect(source.url, autocommit=True) as conn:  # no statement_timeout
            try:
                conn.execute(MATCH, [vector])
            except psycopg.Error as exc:
                errors["direct"] = str(exc.sqlstate)

    def rest() -> None:
        answer = httpx.post(
            f"{postgrest.url}/rest/v1/rpc/match_jarvis_memory_chunks",
            json={"query_embedding": vector, "match_count": 5},
            headers={"apikey": SERVICE_KEY, "Authorization": f"Bearer {SERVICE_KEY}"},
            timeout=120,
        )
        errors["rest"] = str(answer.json().get("code"))

    threads = [threading.Thread(target=direct), threading.Thread(target=rest)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors["direct"] == "55P03"  # lock_timeout, 15 s, set on the function
    assert errors["rest"] in {"55P03", "57014"}  # or the hoisted statement_timeout
