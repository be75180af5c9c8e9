"""`archive --workers N`: one run in N processes through the real CLI, with one report and one
exit code; `--max-sessions` and the stop rules count for the run as a whole; the claim queue
hands each pending session to one worker, so next to no read is wasted."""

from __future__ import annotations

import json
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.faults import Corpus, archivist_env, create_sources, run_archive, start_archive
from support.invariants import violations
from support.ollama_server import OllamaTestServer

from archivist.client import archive
from archivist.config import Settings
from archivist.embed.hashing import HashEmbedder
from archivist.pipeline import ArchiveRequest
from archivist.store import EmbeddingConfig, PostgresStore, SessionSelection

SESSIONS = 120

Conn = psycopg.Connection[tuple[Any, ...]]


@pytest.fixture
def corpus(db_url: str) -> Iterator[Conn]:
    with psycopg.connect(db_url, autocommit=True) as conn:
        create_sources(conn)
        Corpus(conn, random.Random(28)).generate(sessions=SESSIONS, max_messages=8)
        yield conn


def _report(done: Any) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_two_workers_archive_every_session_once_in_one_report(
    corpus: Conn, db_url: str, tmp_path: Path
) -> None:
    done = run_archive(archivist_env(db_url, tmp_path), "--workers", "2")

    assert done.returncode == 0, done.stderr
    report = _report(done)  # one JSON document for the whole run
    assert report["workers"] == 2
    archived = [s["session_id"] for s in report["sessions"] if s["status"] == "archived"]
    assert len(archived) == len(set(archived)) == SESSIONS
    wasted = sum(s["status"] in ("skipped", "unchanged") for s in report["sessions"])
    assert wasted <= SESSIONS * 0.05
    rows = corpus.execute("SELECT count(*), count(DISTINCT session_id) FROM jarvis_archive")
    assert rows.fetchone() == (SESSIONS, SESSIONS)
    assert violations(corpus) == []
    # One row of the run log for the invocation, finished, with the whole run's counts.
    [(counts, arguments, finished)] = corpus.execute(
        "SELECT counts, arguments, finished_at IS NOT NULL FROM archivist_runs"
    ).fetchall()
    assert finished and counts["archived"] == SESSIONS and arguments["workers"] == 2


def test_max_sessions_counts_for_the_whole_run(corpus: Conn, db_url: str, tmp_path: Path) -> None:
    done = run_archive(archivist_env(db_url, tmp_path), "--workers", "3", "--max-sessions", "25")

    assert done.returncode == 0, done.stderr
    assert [s["status"] for s in _report(done)["sessions"]] == ["archived"] * 25
    assert corpus.execute("SELECT count(*) FROM jarvis_archive").fetchone() == (25,)
    assert violations(corpus, complete=False) == []


def test_the_embedder_down_stops_every_worker(
    corpus: Conn, db_url: str, tmp_path: Path, ollama_server: OllamaTestServer
) -> None:
    PostgresStore(corpus, Settings().sources).init(EmbeddingConfig("nomic-embed-text", 768))
    ollama_server.fault = "down"
    env = archivist_env(db_url, tmp_path, embedder="ollama", ollama_retries="0")
    env["OLLAMA_HOST"] = ollama_server.url

    done = run_archive(env, "--workers", "2")

    assert done.returncode == 1, done.stderr
    report = _report(done)
    failed = [s for s in report["sessions"] if s["status"] == "failed"]
    # Three in a row stop the run (stop_after_embed_failures); the other worker stops at its
    # next session, so at most one more failed beside them.
    assert 3 <= len(failed) <= 4 and len(report["sessions"]) == len(failed)
    assert [n for n in report["notes"] if "embedding failed for" in n]
    assert corpus.execute("SELECT count(*) FROM jarvis_archive").fetchone() == (0,)


def test_a_bad_setting_ends_the_run_with_one_line_and_exit_2(
    corpus: Conn, db_url: str, tmp_path: Path
) -> None:
    done = run_archive(archivist_env(db_url, tmp_path), "--workers", "0")

    assert done.returncode == 2
    assert "--workers" in done.stderr and "Traceback" not in done.stderr


def test_a_workers_configuration_error_is_one_line_and_exit_2(
    corpus: Conn, db_url: str, tmp_path: Path
) -> None:
    """The workers meet it (the database records another model); the run says it once."""
    env = archivist_env(db_url, tmp_path, embedding_dim="384")

    done = run_archive(env, "--workers", "2")

    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert corpus.execute("SELECT count(*) FROM jarvis_archive").fetchone() == (0,)


@pytest.mark.parametrize("transport", ["supabase"])
def test_over_rest_a_live_claim_is_passed_over_and_a_dead_workers_claim_expires(
    corpus: Conn, settings: Settings
) -> None:
    """Over REST a session is held by a claim row with a lease: one whose worker is alive is
    passed over unread; one left by a worker that died is taken once it has expired."""
    store = PostgresStore(corpus, Settings().sources)
    store.init(EmbeddingConfig("hash-768", 768))
    first = [s for s, _ in store.pending_claims(SessionSelection(limit=4))[0]]
    corpus.execute(
        "INSERT INTO archivist_session_claims (session_id, owner, expires_at) VALUES "
        "(%s, 'alive', now() + interval '1 hour'), (%s, 'died', now() - interval '1 second')",
        first[:2],
    )
    request = ArchiveRequest(selection=SessionSelection(limit=3), delay_ms=0)

    report = archive(settings, request, embedder=HashEmbedder(dimension=768))

    assert [(s.session_id, s.status) for s in report.sessions] == [
        (s, "archived") for s in first[1:]
    ]
    assert (report.passed_over.held, report.passed_over.gone) == (1, 0)
    claims = corpus.execute("SELECT session_id, owner FROM archivist_session_claims").fetchall()
    assert claims == [(first[0], "alive")]  # the run let go of every claim it took


def test_a_session_archived_since_it_was_listed_is_passed_over_unread(
    corpus: Conn, settings: Settings, db_url: str
) -> None:
    """The claim sees the version another worker committed after this one listed the
    session: it lets it go at once, and reads the next."""
    store = PostgresStore(psycopg.connect(db_url, autocommit=True), Settings().sources)
    try:
        store.init(EmbeddingConfig("hash-768", 768))
        listed, _ = store.pending_claims(SessionSelection(limit=2))
        other = archive(
            settings,
            ArchiveRequest(SessionSelection(session_ids=[listed[0][0]]), delay_ms=0),
            embedder=HashEmbedder(dimension=768),
        )
        assert [s.status for s in other.sessions] == ["archived"]

        claim = store.claim_next(listed)

        assert (claim.session_id, claim.held, claim.gone) == (listed[1][0], 0, 1)
        store.let_go_session(listed[1][0])
    finally:
        store.close()


def test_ctrl_c_stops_every_worker_with_exit_130(corpus: Conn, db_url: str, tmp_path: Path) -> None:
    """The signal reaches the parent only (as `kill -INT`): it stops the workers at their next
    session and waits for them; what they committed is kept."""
    env = archivist_env(db_url, tmp_path, delay_ms="100")
    process = start_archive(env, "--workers", "2")
    deadline = time.monotonic() + 60
    while _archived(corpus) == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)

    assert process.returncode == 130, stderr
    assert stderr.strip().splitlines()[-1].startswith("interrupted:"), stderr
    assert 1 <= _archived(corpus) < SESSIONS
    # one run in the log, ended, with what the workers committed (it showed "never", no counts)
    [(finished, counts)] = corpus.execute("SELECT finished_at, counts FROM archivist_runs")
    assert finished is not None and counts["interrupted"] == 1
    assert counts["archived"] == _archived(corpus)
    assert violations(corpus, complete=False) == []
    held = corpus.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'").fetchone()
    assert held == (0,)  # the workers have ended and let go of everything


def test_workers_whose_parent_was_killed_stop_at_their_next_session(
    corpus: Conn, db_url: str, tmp_path: Path
) -> None:
    """`kill -9` of the parent (the OOM killer): its workers went on archiving with nobody to
    collect their reports, then hung at exit. They stop before their next session and end."""
    env = archivist_env(db_url, tmp_path, delay_ms="100")
    process = start_archive(env, "--workers", "2")
    deadline = time.monotonic() + 60
    while _archived(corpus) == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    workers = [
        int(p) for p in Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    ]
    assert len(workers) >= 2
    process.kill()
    process.communicate(timeout=10)

    def running(pid: int) -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return False
        return state != "Z"

    deadline = time.monotonic() + 30
    while any(running(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(running(pid) for pid in workers)
    assert 1 <= _archived(corpus) < SESSIONS  # each stopped at its next session
    assert violations(corpus, complete=False) == []


def _archived(conn: Conn) -> int:
    row = conn.execute("SELECT count(*) FROM jarvis_archive").fetchone()
    return int(row[0]) if row else 0
