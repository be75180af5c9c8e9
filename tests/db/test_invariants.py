"""The invariant checker holds on a correct archive and catches each kind of corruption."""

from __future__ import annotations

from datetime import timedelta

import pytest
from support.invariants import summary, violations
from support.sources import T0, SourceDB

from archivist.client import archive
from archivist.config import Settings
from archivist.embed.hashing import HashEmbedder
from archivist.pipeline import ArchiveRequest


@pytest.fixture
def archived(source: SourceDB, settings: Settings) -> SourceDB:
    """Two sessions, one with two versions (12 turns, then 6 more and a late arrival)."""
    source.add("alpha", [f"alpha says we decided to use tool {i}" for i in range(12)])
    source.add("beta", [f"beta message number {i}" for i in range(5)])
    _archive(settings)
    source.add("alpha", [f"alpha goes on {i}" for i in range(6)], start=T0 + timedelta(hours=1))
    source.add("alpha", ["alpha late"], start=T0 + timedelta(seconds=30))
    _archive(settings)
    return source


def _archive(settings: Settings) -> None:
    archive(settings, ArchiveRequest(delay_ms=0), embedder=HashEmbedder(dimension=768))


def test_a_correct_archive_has_no_violation(archived: SourceDB) -> None:
    assert violations(archived.conn) == []
    counts = summary(archived.conn)
    assert (counts["sessions"], counts["lost"], counts["doubled"], counts["versions"]) == (
        2,
        0,
        0,
        3,
    )


def _alpha_turn_chunk(db: SourceDB) -> str:
    row = db.conn.execute(
        "SELECT id FROM jarvis_memory_chunks WHERE session_id = 'alpha' AND slot = 'turns:000000'"
    ).fetchone()
    assert row is not None
    return str(row[0])


CORRUPTIONS = {
    "version gap": (
        "UPDATE jarvis_archive SET version = 5 WHERE session_id = 'alpha' AND version = 1",
        "are not 1..2",
    ),
    "doubled chunk": (
        "INSERT INTO jarvis_memory_chunks (id, session_id, source, content, embedding, metadata, "
        "slot, content_hash, embedding_model, archive_version) SELECT gen_random_uuid(), "
        "session_id, source, content, embedding, metadata, 'turns:000099', content_hash, "
        "embedding_model, archive_version FROM jarvis_memory_chunks WHERE id = '{chunk}'",
        "with the same content in 2 slots",
    ),
    "message in two slots": (
        "UPDATE jarvis_memory_chunks SET metadata = jsonb_set(metadata, '{{message_ids}}', "
        "metadata -> 'message_ids' || (SELECT to_jsonb(min(id)::text) FROM session_messages "
        "WHERE session_id = 'alpha')) WHERE session_id = 'alpha' AND slot = 'turns:000001'",
        "archived in slots",
    ),
    "chunk beyond the latest version": (
        "UPDATE jarvis_memory_chunks SET archive_version = 3 WHERE id = '{chunk}'",
        "is not in the latest version's set",
    ),
    "orphan chunk": (
        "UPDATE jarvis_memory_chunks SET session_id = 'ghost' WHERE id = '{chunk}'",
        "ghost: chunk",
    ),
    "stale extraction chunk": (
        "UPDATE jarvis_memory_chunks SET content = 'Summary: old' "
        "WHERE session_id = 'beta' AND slot = 'extraction'",
        "extraction chunks are not",
    ),
    "watermark behind": (
        "UPDATE jarvis_archive_sessions SET watermark_at = watermark_at - interval '1 minute' "
        "WHERE session_id = 'beta'",
        "is not the last covered message",
    ),
    "session row off its version": (
        "UPDATE jarvis_archive_sessions SET message_count = 4 WHERE session_id = 'beta'",
        "does not match its latest version",
    ),
    "count off": (
        "UPDATE jarvis_archive_sessions SET message_count = 4 WHERE session_id = 'beta';"
        "UPDATE jarvis_archive SET message_count = 4 WHERE session_id = 'beta'",
        "message_count 4 but turn chunks cover 5",
    ),
    "lost message": (
        "INSERT INTO session_messages VALUES (9999, 'beta', 'user', 'never archived', "
        "'2026-03-01 08:00Z')",
        "beta: 1 messages not archived",
    ),
    "lost chunk": (
        "DELETE FROM jarvis_memory_chunks WHERE session_id = 'beta' AND slot = 'turns:000000'",
        "beta: 4 messages not archived",
    ),
}


@pytest.mark.parametrize("name", CORRUPTIONS)
def test_the_checker_catches(archived: SourceDB, name: str) -> None:
    statement, expected = CORRUPTIONS[name]
    archived.conn.execute(statement.format(chunk=_alpha_turn_chunk(archived)))  # type: ignore[arg-type]
    found = violations(archived.conn)
    assert any(expected in line for line in found), found
