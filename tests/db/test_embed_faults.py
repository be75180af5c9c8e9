"""Embedding faults mid-run, through the real `ollama` client and the Ollama test server.

A transient fault (down, 500, slow) fails the sessions it hits, with the reason, archives the
others, exits 1, and a re-run completes them; after `stop_after_embed_failures` failures in a
row the run stops and says how many sessions it did not attempt. A model that is gone or of
the wrong dimension is a configuration error: the run stops with exit 2 and one line, keeping
only whole versions.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from support.invariants import violations
from support.ollama_server import OllamaTestServer
from support.sources import T0, SourceDB

from archivist.config import Settings
from archivist.store import EmbeddingConfig, PostgresStore

SESSIONS = [f"s{i}" for i in range(6)]


@pytest.fixture
def corpus(source: SourceDB) -> SourceDB:
    """Six sessions (oldest first: s0 .. s5) in a database initialised for nomic-embed-text."""
    PostgresStore(source.conn, Settings().sources).init(EmbeddingConfig("nomic-embed-text", 768))
    for i, session_id in enumerate(SESSIONS):
        start = T0 + timedelta(hours=i)
        source.add(session_id, [f"{session_id} talks about topic {n}" for n in range(4)], start)
    return source


def archive(
    db: SourceDB, server: OllamaTestServer, tmp_path: Path, **settings: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any] | None]:
    env = {
        **os.environ,
        "DATABASE_URL": db.url,
        "OLLAMA_HOST": server.url,
        "ARCHIVIST_DELAY_MS": "0",
        "ARCHIVIST_OLLAMA_TIMEOUT_S": "2",
        "ARCHIVIST_OLLAMA_RETRIES": "1",
        "ARCHIVIST_OLLAMA_BACKOFF_S": "0.01",
        "ARCHIVIST_CONFIG": "",
        **{f"ARCHIVIST_{k.upper()}": v for k, v in settings.items()},
    }
    done = subprocess.run(
        [sys.executable, "-m", "archivist", "archive", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done, json.loads(done.stdout) if done.stdout.strip() else None


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {s["session_id"]: s["status"] for s in report["sessions"]}


def rerun_completes(db: SourceDB, server: OllamaTestServer, tmp_path: Path) -> None:
    server.reset()
    done, report = archive(db, server, tmp_path)
    assert done.returncode == 0, done.stderr
    assert violations(db.conn) == []


@pytest.mark.parametrize(
    ("fault", "reason"),
    [("down", "not reachable"), ("500", "HTTP 500")],
)
def test_embedder_failing_mid_run_stops_after_a_few_sessions_in_a_row(
    corpus: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path, fault: Any, reason: str
) -> None:
    ollama_server.fault, ollama_server.fault_after = fault, 2

    # One request at a time: with several in flight, which session's request is the server's
    # third depends on timing (the next session's embeddings overlap this one's).
    done, report = archive(corpus, ollama_server, tmp_path, embed_concurrency="1")

    assert done.returncode == 1 and report is not None
    assert statuses(report) == {
        "s0": "archived",
        "s1": "archived",
        "s2": "failed",
        "s3": "failed",
        "s4": "failed",
    }
    assert all(reason in s["reason"] for s in report["sessions"] if s["status"] == "failed")
    assert report["notes"] == [
        "embedding failed for 3 sessions in a row; stopped, 1 sessions not attempted"
    ]
    assert violations(corpus.conn, complete=False) == []
    rerun_completes(corpus, ollama_server, tmp_path)


def test_a_slow_answer_past_the_timeout_fails_that_session_only(
    corpus: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    ollama_server.fault, ollama_server.fail_times, ollama_server.delay_s = "slow", 2, 3.0
    ollama_server.fault_after = 1

    # One request at a time, so that both slow answers meet s1's request and its retry.
    done, report = archive(
        corpus, ollama_server, tmp_path, ollama_timeout_s="0.5", embed_concurrency="1"
    )

    assert done.returncode == 1 and report is not None
    assert statuses(report) == {s: "failed" if s == "s1" else "archived" for s in SESSIONS}
    [failed] = [s for s in report["sessions"] if s["status"] == "failed"]
    assert "did not answer within 0.5 s" in failed["reason"]
    assert violations(corpus.conn, complete=False) == []
    rerun_completes(corpus, ollama_server, tmp_path)


@pytest.mark.parametrize(
    ("fault", "message"),
    [("404", "ollama pull nomic-embed-text"), ("wrong_dim", "384-d vectors")],
)
def test_model_gone_or_wrong_dimension_mid_run_stops_with_one_line_and_exit_2(
    corpus: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path, fault: Any, message: str
) -> None:
    ollama_server.fault, ollama_server.fault_after = fault, 2

    done, _ = archive(corpus, ollama_server, tmp_path, embed_concurrency="1")  # in order

    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    archived = corpus.conn.execute("SELECT count(*) FROM jarvis_archive_sessions").fetchone()
    assert archived == (2,)  # the two whole versions before the fault, nothing partial
    assert violations(corpus.conn, complete=False) == []
    rerun_completes(corpus, ollama_server, tmp_path)
