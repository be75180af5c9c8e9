"""prune-check: the gate a prune job calls before deleting old messages."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime, timedelta

import pytest
from support.commands import check_prune
from support.sources import T0, SourceDB, run_cli

from archivist.client import archive
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest

THIRTY_DAYS = timedelta(days=30)


@pytest.mark.both_transports
def test_everything_old_archived_is_safe(source: SourceDB, settings: Settings) -> None:
    source.add("a", ["hello", "hi"])
    source.add("b", ["let's use Redis", "ok"])
    archive(settings, ArchiveRequest(delay_ms=0))
    source.add("a", ["a new message nobody archived yet"], start=datetime.now(UTC))

    result = check_prune(settings, THIRTY_DAYS)

    assert result.safe and result.messages_at_risk == 0 and result.sessions == []
    assert (result.messages_older, result.sessions_older) == (4, 2)


@pytest.mark.both_transports
def test_unarchived_and_late_messages_are_at_risk(source: SourceDB, settings: Settings) -> None:
    source.add("done", ["hello", "hi"])
    archive(settings, ArchiveRequest(delay_ms=0))
    source.add("never", ["not archived", "at all"], start=T0 + timedelta(hours=1))
    source.add("done", ["stamped before the watermark"], start=T0 - timedelta(minutes=5))

    result = check_prune(settings, THIRTY_DAYS)

    assert not result.safe and result.messages_at_risk == 3
    at_risk = {s.session_id: s for s in result.sessions}
    assert at_risk["never"].messages_at_risk == 2 and at_risk["never"].covered_up_to is None
    assert at_risk["done"].messages_at_risk == 1
    assert at_risk["done"].oldest_at_risk == T0 - timedelta(minutes=5)
    assert at_risk["done"].covered_up_to is not None  # archived, but not this late one
    archive(settings, ArchiveRequest(delay_ms=0))
    assert check_prune(settings, THIRTY_DAYS).safe


def test_cli_exit_codes_and_json(source: SourceDB, settings: Settings) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(settings, "prune-check", *args)

    source.add("s", ["hello", "hi"])
    unsafe = cli("--older-than", "30d", "--json")
    assert unsafe.returncode == 3  # not safe: neither success nor a failure of the check
    assert json.loads(unsafe.stdout)["sessions"][0]["session_id"] == "s"
    archive(settings, ArchiveRequest(delay_ms=0))
    safe = cli("--older-than", "30d")
    assert safe.returncode == 0 and "safe" in safe.stdout
    bad = cli("--older-than", "soon")
    assert bad.returncode == 2 and "30d" in bad.stderr
    dated = cli("--older-than", "2000-01-01")  # an ISO date works as a cutoff too
    assert dated.returncode == 0 and "older than 2000-01-01" in dated.stdout
