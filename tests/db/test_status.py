"""archivist status and the run log behind it."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from support.commands import status
from support.sources import T0, SourceDB, run_cli

from archivist.client import archive
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest


@pytest.mark.both_transports
def test_status_counts_and_the_run_log(source: SourceDB, settings: Settings) -> None:
    source.add("a", ["hello", "hi"])
    source.add("b", ["let's use Redis", "ok"])
    archive(settings, ArchiveRequest(delay_ms=0))
    archive(settings, ArchiveRequest(delay_ms=0, dry_run=True))  # logs nothing
    source.add("a", ["later"], start=T0 + timedelta(days=1))
    source.add("c", ["never archived", "yet"], start=T0 + timedelta(hours=3))

    result = status(settings)

    assert result.sessions_archived == 2
    assert (result.sessions_pending, result.messages_unarchived) == (2, 3)
    assert result.oldest_unarchived == T0 + timedelta(hours=3)
    [run] = result.last_runs
    assert run.finished_at is not None and run.counts is not None
    assert run.counts["archived"] == 2 and run.failures == {}
    assert run.arguments["max_sessions"] == 50


@pytest.mark.both_transports
def test_a_failed_session_is_in_the_run_log(source: SourceDB, settings: Settings) -> None:
    source.add("bad", ["hello"])
    source.conn.execute(
        "CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN RAISE EXCEPTION 'injected'; END $$; "
        "CREATE TRIGGER boom BEFORE INSERT ON jarvis_archive FOR EACH ROW EXECUTE FUNCTION boom()"
    )
    archive(settings, ArchiveRequest(delay_ms=0))
    [run] = status(settings).last_runs
    assert run.counts is not None and run.counts["failed"] == 1
    assert run.failures is not None and "injected" in run.failures["bad"]


def test_status_cli_json(source: SourceDB, settings: Settings) -> None:
    source.add("a", ["hello", "hi"])
    result = run_cli(settings, "status", "--json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["messages_unarchived"] == 2 and payload["last_runs"] == []
