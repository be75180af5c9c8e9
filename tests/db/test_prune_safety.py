"""Nothing is lost when you prune: prune-check knows the text the archive holds of each message.

The archive records, per message, the md5 and length of the text it archived; prune-check
compares them with the current rows. These are the ways the promise broke before (issue 14):
an edit after archiving, a delete and re-insert with the same id, a message longer than the
cut, and `--rebuild` after a prune.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from support.commands import check_prune
from support.invariants import violations
from support.sources import T0, SourceDB, run_cli

from archivist import memory_search
from archivist.client import archive
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest

THIRTY_DAYS = timedelta(days=30)


def archive_all(settings: Settings) -> None:
    report = archive(settings, ArchiveRequest(delay_ms=0))
    assert not report.failed, report.failed


def prune_check_json(settings: Settings) -> tuple[int, dict[str, object]]:
    done = run_cli(settings, "prune-check", "--older-than", "30d", "--json")
    assert done.returncode in (0, 3), done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.mark.both_transports
def test_an_edit_after_archiving_is_not_safe_until_archived_again(
    source: SourceDB, settings: Settings
) -> None:
    ids = source.add("s", ["we deploy on Heroku", "ok", "and the budget is 300 euros"])
    archive_all(settings)
    assert check_prune(settings, THIRTY_DAYS).safe
    source.conn.execute(
        "UPDATE session_messages SET content = 'we deploy on Fly.io' WHERE id = %s", [ids[0]]
    )

    code, result = prune_check_json(settings)

    assert code == 3 and not result["safe"]
    [session] = result["sessions"]  # type: ignore[misc]
    assert (session["edited"], session["message_ids"]) == (1, {"edited": [str(ids[0])]})
    assert "edited since archived" in session["reason"]
    assert any("archivist archive" in line for line in result["reasons"])  # type: ignore[union-attr]
    archive_all(settings)
    assert prune_check_json(settings)[0] == 0
    assert memory_search("Fly.io", settings=settings, mode="text").hits
    assert memory_search("Heroku", settings=settings, mode="text").hits  # the old text stays


def test_a_message_deleted_and_inserted_again_with_new_text_is_not_safe(
    source: SourceDB, settings: Settings
) -> None:
    ids = source.add("s", ["the door code is 1234", "noted"])
    archive_all(settings)
    row = source.conn.execute(
        "DELETE FROM session_messages WHERE id = %s RETURNING created_at", [ids[0]]
    ).fetchone()
    assert row is not None
    source.add("s", ["the door code is 9876"], start=row[0], ids=[ids[0]])

    result = check_prune(settings, THIRTY_DAYS)

    assert not result.safe and result.messages_edited == 1
    assert result.sessions[0].message_ids == {"edited": [str(ids[0])]}
    archive_all(settings)
    assert check_prune(settings, THIRTY_DAYS).safe
    assert violations(source.conn) == []


def test_a_message_longer_than_the_cut_is_never_safe_until_archived_whole(
    source: SourceDB, settings: Settings
) -> None:
    tail = "the tail says the launch moves to june"
    long = "filler words " * 4600 + tail  # 59,838 characters: over the 20,000 cut
    [long_id, _] = source.add("s", [long, "ok"])
    archive_all(settings)

    result = check_prune(settings, THIRTY_DAYS)

    assert not result.safe and result.messages_truncated == 1
    assert result.sessions[0].message_ids == {"truncated": [str(long_id)]}
    assert any("ARCHIVIST_MAX_MESSAGE_CHARS" in line for line in result.reasons)
    for_people = run_cli(settings, "prune-check", "--older-than", "30d")
    assert for_people.returncode == 3
    said = " ".join(for_people.stdout.split())  # wrapped at 80 columns off a terminal
    assert "(1 session) is at risk: 1 archived cut at max_message_chars" in said
    assert "ARCHIVIST_MAX_MESSAGE_CHARS" in for_people.stdout and str(long_id) in for_people.stdout
    archive_all(settings)  # nothing changed: still cut, still not safe, no new version
    assert not check_prune(settings, THIRTY_DAYS).safe

    wider = settings.model_copy(update={"max_message_chars": 60_000})
    archive_all(wider)

    assert check_prune(wider, THIRTY_DAYS).safe
    hits = memory_search("launch moves to june", settings=wider, mode="text").hits
    assert any(tail in h.content for h in hits)
    pieces = source.conn.execute(
        "SELECT count(*), sum(length(content)) FROM jarvis_memory_chunks "
        "WHERE source = 'session_turn' AND metadata -> 'message_ids' ? %s",
        [str(long_id)],
    ).fetchone()
    # archived whole, in pieces of at most window_max_chars: the first as archived when it was
    # cut, the rest in an edit slot, none twice
    assert pieces is not None and pieces[0] >= 4 and pieces[1] >= len(long)
    assert violations(source.conn) == []


def test_rebuild_after_a_prune_refuses_and_every_fact_stays_findable(
    source: SourceDB, settings: Settings
) -> None:
    source.add("s", ["let's use Vercel for the olive deploy", "ok, Vercel it is"])
    later = source.add(
        "s", ["the budget is 300 euros", "fine"], start=datetime.now(UTC) - timedelta(days=1)
    )
    archive_all(settings)
    assert check_prune(settings, THIRTY_DAYS).safe
    prune = "DELETE FROM session_messages WHERE created_at < %s"
    source.conn.execute(prune, [T0 + timedelta(days=1)])
    before = source.snapshot()

    done = run_cli(settings, "archive", "--rebuild", "--session-id", "s")

    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "--rebuild refused" in done.stderr
    assert "2 archived messages" in done.stderr and "s (2)" in done.stderr
    assert source.snapshot() == before
    hits = memory_search("Vercel olive deploy", settings=settings, mode="text").hits
    assert any("Vercel" in h.content for h in hits)
    assert [h.session_id for h in memory_search("budget", settings=settings, mode="text").hits]
    assert later  # the remaining messages are still there
    assert run_cli(settings, "archive", "--session-id", "s").returncode == 0
