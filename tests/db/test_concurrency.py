"""Several archive processes over one database: each session's new version is written once, the
embedding work is not doubled, and a session another worker holds does not count against
`--max-sessions` (this is how the tool scales out)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.faults import Corpus, archivist_env, create_sources, start_archive
from support.invariants import violations

from archivist.client import archive
from archivist.config import Settings
from archivist.embed.hashing import HashEmbedder
from archivist.pipeline import ArchiveRequest
from archivist.store import SessionSelection

SESSIONS = 200


def _workers(env: dict[str, str], count: int, *args: str) -> list[dict[str, Any]]:
    processes = [start_archive(env, *args) for _ in range(count)]
    reports = []
    for process in processes:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        reports.append(json.loads(out))
    return reports


def _corpus(url: str) -> psycopg.Connection[tuple[Any, ...]]:
    conn = psycopg.connect(url, autocommit=True)
    create_sources(conn)
    Corpus(conn, random.Random(200)).generate(sessions=SESSIONS, max_messages=12)
    return conn


@pytest.mark.parametrize("workers", [2, 4])
def test_workers_share_the_sessions_without_doubling_work(
    db_url: str, tmp_path: Path, workers: int
) -> None:
    with _corpus(db_url) as conn:
        reports = _workers(archivist_env(db_url, tmp_path), workers)

        outcomes = [s for r in reports for s in r["sessions"]]
        archived = [s["session_id"] for s in outcomes if s["status"] == "archived"]
        assert sorted(archived) == sorted(set(archived)) and len(archived) == SESSIONS
        versions = conn.execute(
            "SELECT count(*), count(DISTINCT session_id), max(version) FROM jarvis_archive"
        ).fetchone()
        assert versions == (SESSIONS, SESSIONS, 1)  # each new version written exactly once
        chunks = conn.execute("SELECT count(*) FROM jarvis_memory_chunks").fetchone()[0]  # type: ignore[index]
        # Every text was embedded once: what a single run embeds is exactly the chunks stored.
        assert sum(s["texts_embedded"] for s in outcomes) == chunks
        assert all(s["status"] in ("archived", "skipped", "unchanged") for s in outcomes)
        # The claim queue hands each session to one worker: next to no read is wasted.
        wasted = sum(s["status"] in ("skipped", "unchanged") for s in outcomes)
        assert wasted <= SESSIONS * 0.05, wasted
        assert violations(conn) == []


def test_single_run_embeds_as_many_texts_as_the_chunks_it_stores(
    db_url: str, tmp_path: Path
) -> None:
    """The baseline the worker test compares with: one run, one embedding per chunk."""
    with _corpus(db_url) as conn:
        [report] = _workers(archivist_env(db_url, tmp_path), 1)
        chunks = conn.execute("SELECT count(*) FROM jarvis_memory_chunks").fetchone()[0]  # type: ignore[index]
        assert sum(s["texts_embedded"] for s in report["sessions"]) == chunks


def test_max_sessions_counts_only_sessions_worked_on(db_url: str, tmp_path: Path) -> None:
    with _corpus(db_url) as conn:
        reports = _workers(archivist_env(db_url, tmp_path), 2, "--max-sessions", "40")

        for report in reports:
            assert sum(s["status"] == "archived" for s in report["sessions"]) == 40
        assert conn.execute("SELECT count(*) FROM jarvis_archive").fetchone() == (80,)
        assert violations(conn, complete=False) == []


def test_a_held_session_is_passed_over_unread_and_another_one_taken(
    db_url: str, settings: Settings
) -> None:
    with _corpus(db_url) as conn:
        conn.execute("SELECT pg_advisory_lock(hashtextextended('archivist:session:s00000', 0))")
        request = ArchiveRequest(selection=SessionSelection(limit=3), delay_ms=0)

        report = archive(settings, request, embedder=HashEmbedder(dimension=768))

        assert [(s.session_id, s.status) for s in report.sessions] == [
            ("s00001", "archived"),
            ("s00002", "archived"),
            ("s00003", "archived"),
        ]
        assert (report.passed_over.held, report.passed_over.gone) == (1, 0)
