"""Fault isolation: a session that fails for its own input never starves the others.

Through the real `ollama` client and the Ollama test server, whose `poison` spoils the vectors
of some texts only (NaN, 384 dimensions, missing): those sessions fail, are retried with
backoff across runs and quarantined after `quarantine_after_failures` failed runs, shown by the
run report, `status` and `doctor`; the consecutive-failure stop is for faults every session
meets (the server down), so the healthy sessions behind the poisoned ones are archived. A
session id too long to archive is refused up front and only ever shown shortened.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from support.ollama_server import OllamaTestServer
from support.sources import T0, SourceDB

from archivist.config import Settings
from archivist.store import EmbeddingConfig, PostgresStore

POISON = {"POISON-NAN": "nan", "POISON-SHORT": "short", "POISON-MISSING": "missing"}
POISONED = ["p0", "p1", "p2"]
HEALTHY = ["h0", "h1", "h2"]


@pytest.fixture
def corpus(source: SourceDB) -> SourceDB:
    """Three poisoned sessions (oldest first, so a run meets them first), then three healthy."""
    PostgresStore(source.conn, Settings().sources).init(EmbeddingConfig("nomic-embed-text", 768))
    for i, (session_id, marker) in enumerate(zip(POISONED, POISON, strict=True)):
        source.add(session_id, [f"notes with {marker} inside", "ok"], T0 + timedelta(hours=i))
    for i, session_id in enumerate(HEALTHY):
        source.add(session_id, [f"{session_id} plans the deploy", "ok"], T0 + timedelta(days=1 + i))
    return source


def cli(
    db: SourceDB, server: OllamaTestServer, *args: str, **settings: str
) -> subprocess.CompletedProcess[str]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ARCHIVIST_")},
        "DATABASE_URL": db.url,
        "OLLAMA_HOST": server.url,
        "ARCHIVIST_DELAY_MS": "0",
        "ARCHIVIST_OLLAMA_RETRIES": "0",
        "ARCHIVIST_CONFIG": "",
        **{f"ARCHIVIST_{k.upper()}": v for k, v in settings.items()},
    }
    done = subprocess.run(
        [sys.executable, "-m", "archivist", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def run(db: SourceDB, server: OllamaTestServer, *args: str, **settings: str) -> dict[str, Any]:
    done = cli(db, server, "archive", "--json", *args, **settings)
    assert done.returncode in (0, 1), done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    report["exit"] = done.returncode
    return report


def by_session(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["session_id"]: s for s in report["sessions"]}


def test_poisoned_sessions_fail_alone_back_off_and_are_quarantined(
    corpus: SourceDB, ollama_server: OllamaTestServer
) -> None:
    ollama_server.poison = dict(POISON)  # type: ignore[arg-type]
    quick = {"failure_backoff_s": "0", "quarantine_after_failures": "2"}

    first = run(corpus, ollama_server, **quick)

    outcomes = by_session(first)
    assert first["exit"] == 1 and first["notes"] == []  # the stop did not trip
    assert {s: outcomes[s]["status"] for s in HEALTHY} == dict.fromkeys(HEALTHY, "archived")
    assert {s: outcomes[s]["status"] for s in POISONED} == dict.fromkeys(POISONED, "failed")
    assert "non-finite" in outcomes["p0"]["reason"]
    assert re.search(r"unequal length|384-d vectors for some", outcomes["p1"]["reason"])
    assert re.search(r"returned \d+ vectors for \d+ texts", outcomes["p2"]["reason"])
    assert [outcomes[s]["failures"] for s in POISONED] == [1, 1, 1]

    second = run(corpus, ollama_server, **quick)  # no backoff: tried again, and quarantined

    assert [s["session_id"] for s in second["sessions"]] == POISONED
    assert all(
        s["quarantined"] and "quarantined after 2 failed runs" in s["reason"]
        for s in second["sessions"]
    )
    third = run(corpus, ollama_server, **quick)
    assert third["exit"] == 0 and third["sessions"] == []
    assert sorted(h["session_id"] for h in third["held"]) == POISONED
    assert all(h["quarantined"] for h in third["held"]) and third["notes"] == []

    status = json.loads(cli(corpus, ollama_server, "status", "--json").stdout)
    assert sorted(f["session_id"] for f in status["failed_sessions"]) == POISONED
    assert status["sessions_quarantined"] == 3
    for_people = cli(corpus, ollama_server, "archive", **quick)  # what people read
    assert for_people.returncode == 0
    [held_line] = [s for s in for_people.stdout.splitlines() if s.startswith("held back:")]
    assert held_line.startswith("held back: 3 sessions after failed runs (3 quarantined)")
    assert all(s in held_line for s in POISONED)
    assert for_people.stdout.splitlines()[-1].startswith(
        "nothing archived: 3 sessions held back after failed runs, no other session has new "
        "messages"
    )  # not "nothing to archive": the held ones have new messages
    listed = cli(corpus, ollama_server, "status").stdout
    assert "failed sessions" in listed and listed.count("quarantined") == 3
    doctor = json.loads(cli(corpus, ollama_server, "doctor", "--json").stdout)
    [check] = [c for c in doctor["checks"] if c["name"] == "quarantine"]
    assert not check["ok"] and "p0" in check["detail"] and "--session-id" in check["fix"]

    ollama_server.poison = {}  # fixed: naming a quarantined session archives it and frees it
    fixed = run(corpus, ollama_server, "--session-id", "p0", **quick)
    assert by_session(fixed)["p0"]["status"] == "archived"
    status = json.loads(cli(corpus, ollama_server, "status", "--json").stdout)
    assert sorted(f["session_id"] for f in status["failed_sessions"]) == ["p1", "p2"]


def test_a_failed_session_waits_out_its_backoff(
    corpus: SourceDB, ollama_server: OllamaTestServer
) -> None:
    ollama_server.poison = {"POISON-NAN": "nan"}

    first = run(corpus, ollama_server)  # the default backoff: an hour
    second = run(corpus, ollama_server)

    assert by_session(first)["p0"]["status"] == "failed"
    assert second["sessions"] == [] and second["exit"] == 0
    [held] = second["held"]
    assert (held["session_id"], held["failures"], held["quarantined"]) == ("p0", 1, False)


def test_the_server_down_still_stops_the_run(
    corpus: SourceDB, ollama_server: OllamaTestServer
) -> None:
    ollama_server.fault = "down"

    report = run(corpus, ollama_server)

    assert len(report["sessions"]) == 3 and report["notes"] == [
        "embedding failed for 3 sessions in a row; stopped, 3 sessions not attempted"
    ]
    assert (
        json.loads(cli(corpus, ollama_server, "status", "--json").stdout)["failed_sessions"] == []
    )  # a fault of every session is held against none


LONG_ID = "conversation-" + "x" * 10_000 + "-tail1234"  # 10 KB
SHORT_ID = f"{LONG_ID[:24]}…{LONG_ID[-8:]}"


def test_a_session_id_too_long_is_refused_and_never_echoed(
    source: SourceDB, settings: Settings, tmp_path: Path
) -> None:
    from support.sources import run_cli

    source.add(LONG_ID, ["hello", "hi"])
    source.add("fine", ["hello", "hi"])

    done = run_cli(settings, "archive", "--json")
    cron = run_cli(settings, "archive", "--quiet")
    refused = run_cli(settings, "archive", "--session-id", LONG_ID)
    check = run_cli(settings, "prune-check", "--older-than", "30d", "--json")
    shown = [run_cli(settings, command, LONG_ID) for command in ("state", "history")]

    # Listed, and the exit code says a session could not be archived: never silent, in cron too.
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert [s["session_id"] for s in report["sessions"]] == ["fine"]
    assert report["unarchivable"] == {"count": 1, "examples": [f"{SHORT_ID} (10022 bytes)"]}
    assert cron.returncode == 1 and cron.stdout == ""
    assert "ids over 1024 bytes, not UTF-8 or none and cannot be archived" in " ".join(
        cron.stderr.split()
    )
    assert SHORT_ID in cron.stderr
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert SHORT_ID in refused.stderr and "at most 1024 bytes" in refused.stderr
    assert check.returncode == 3
    verdict = json.loads(check.stdout)
    assert [(s["session_id"], s["id_too_long"]) for s in verdict["sessions"]] == [(SHORT_ID, True)]
    assert verdict["sessions"][0]["reason"].startswith("session id over 1024 bytes")
    assert any("1 session has an id over 1024 bytes" in r for r in verdict["reasons"])
    assert not any("run archivist archive" in r for r in verdict["reasons"])  # it cannot help
    for read in shown:
        assert read.returncode == 2 and SHORT_ID in read.stderr, read.stderr
    for output in (done, cron, refused, check, *shown):
        assert "x" * 100 not in output.stdout + output.stderr


def test_messages_without_a_session_id_are_reported_never_archived_and_named_plainly(
    source: SourceDB, settings: Settings
) -> None:
    """A bot table may allow NULL session ids. Those messages can never be archived: each run
    says so (exit 1), and prune-check names them as such with their ids, not as a session
    called "None" to run `archive` for."""
    from support.sources import run_cli

    source.conn.execute("ALTER TABLE session_messages ALTER COLUMN session_id DROP NOT NULL")
    source.conn.execute(
        "INSERT INTO session_messages (id, session_id, role, content, created_at) "
        "VALUES (901, NULL, 'user', 'orphan', now() - interval '40 days')"
    )
    source.add("fine", ["hello", "hi"])

    done = run_cli(settings, "archive", "--json")
    check = run_cli(settings, "prune-check", "--older-than", "30d", "--json")
    shown = run_cli(settings, "prune-check", "--older-than", "30d")

    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert [s["session_id"] for s in report["sessions"]] == ["fine"]
    assert report["unarchivable"] == {"count": 1, "examples": ["messages without a session id"]}
    assert check.returncode == 3, check.stderr
    [risk] = json.loads(check.stdout)["sessions"]
    assert (risk["session_id"], risk["id_missing"], risk["id_too_long"]) == (
        "(no session id)",
        True,
        False,
    )
    assert risk["message_ids"] == {"unarchived": ["901"]}
    assert risk["reason"] == "no session id, never archived; 1 not archived (id 901)"
    reasons = json.loads(check.stdout)["reasons"]
    assert reasons == [
        "1 message has no session id, which the archive cannot hold: it is never archived; "
        "keep it, or give it a session id in the bot"
    ]
    assert "None" not in shown.stdout + shown.stderr
