"""The archive's promises, checked over a whole database: nothing lost, nothing doubled.

`violations(conn)` returns one line per broken promise (an empty list when all hold). Per
session it checks that:

- versions are numbered 1..N without gaps, and the session row points at version N with the
  same watermark and message count;
- no chunk is doubled: no message is covered by turn chunks of two slots (the `edit:` slots,
  which hold a later text of a message archived before, aside), and no two slots of a session
  hold chunks of the same source, content and model (turn chunks: and covering the same
  messages); equal pieces within one slot are one repetitive text cut up;
- every chunk belongs to the latest version's chunk set: its session is archived, its
  `archive_version` is not beyond the latest, its `archive_id` names that version of that
  session, and the extraction chunks are the latest extraction's text;
- the watermark is the last covered dated message `(created_at, id)` (if that message was
  pruned: no covered message lies past it), and the dated messages
  the turn chunks cover number exactly `message_count`;
- with `complete=True` (after a run to completion): every source message is covered.

It reads the default source tables (`session_messages`, `session_summaries`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import psycopg

from archivist.chunking import extraction_pieces
from archivist.models import Extraction

Conn = psycopg.Connection[tuple[Any, ...]]


def violations(conn: Conn, complete: bool = True, chunk_max_chars: int = 1500) -> list[str]:
    """Every broken invariant in the database, one line each (empty: all hold)."""
    found: list[str] = []
    found += _version_numbering(conn)
    found += _doubled_chunks(conn)
    found += _chunk_membership(conn, chunk_max_chars)
    found += _watermarks_and_counts(conn)
    if complete:
        found += _uncovered_messages(conn)
    return found


def _version_numbering(conn: Conn) -> list[str]:
    found = []
    rows = conn.execute(
        """
        SELECT s.session_id, s.latest_version, s.watermark_at, s.watermark_id, s.message_count,
               array_agg(a.version ORDER BY a.version) FILTER (WHERE a.version IS NOT NULL),
               (SELECT row(l.version, l.watermark_at, l.watermark_id, l.message_count)::text
                FROM jarvis_archive l WHERE l.id = s.archive_id AND l.session_id = s.session_id)
        FROM jarvis_archive_sessions s
        LEFT JOIN jarvis_archive a ON a.session_id = s.session_id
        GROUP BY s.session_id
        """
    ).fetchall()
    for sid, latest, wm_at, wm_id, count, versions, pointed in rows:
        if (versions or []) != list(range(1, latest + 1)):
            found.append(f"{sid}: versions {versions} are not 1..{latest}")
        expected = conn.execute(
            "SELECT row(%s::integer, %s::timestamptz, %s::text, %s::integer)::text",
            [latest, wm_at, wm_id, count],
        ).fetchone()
        if latest > 0 and (pointed is None or pointed != expected[0]):  # type: ignore[index]
            found.append(f"{sid}: session row does not match its latest version ({pointed})")
    orphans = conn.execute(
        "SELECT DISTINCT a.session_id FROM jarvis_archive a "
        "LEFT JOIN jarvis_archive_sessions s USING (session_id) WHERE s.session_id IS NULL"
    ).fetchall()
    found += [f"{sid}: versions without a session row" for (sid,) in orphans]
    return found


def _doubled_chunks(conn: Conn) -> list[str]:
    found = []
    rows = conn.execute(
        """
        SELECT session_id, source, count(DISTINCT slot) FROM jarvis_memory_chunks
        GROUP BY session_id, source, content, embedding_model,
                 CASE WHEN source = 'session_turn' THEN metadata -> 'message_ids' END
        HAVING count(DISTINCT slot) > 1
        """
    ).fetchall()
    found += [
        f"{sid}: {source} chunks with the same content in {n} slots" for sid, source, n in rows
    ]
    rows = conn.execute(
        """
        SELECT session_id, mid, array_agg(DISTINCT slot ORDER BY slot)
        FROM jarvis_memory_chunks, jsonb_array_elements_text(metadata -> 'message_ids') mid
        WHERE source = 'session_turn' AND slot NOT LIKE 'edit:%%'
        GROUP BY session_id, mid
        HAVING count(DISTINCT slot) > 1
        """
    ).fetchall()
    found += [f"{sid}: message {mid} archived in slots {slots}" for sid, mid, slots in rows]
    return found


def _chunk_membership(conn: Conn, chunk_max_chars: int) -> list[str]:
    found = []
    rows = conn.execute(
        """
        SELECT c.session_id, c.id, c.archive_version, s.latest_version, a.session_id, a.version
        FROM jarvis_memory_chunks c
        LEFT JOIN jarvis_archive_sessions s ON s.session_id = c.session_id
        LEFT JOIN jarvis_archive a ON a.id = (c.metadata ->> 'archive_id')::uuid
        WHERE s.latest_version IS NULL OR c.archive_version > s.latest_version
           OR a.session_id IS DISTINCT FROM c.session_id
           OR a.version IS DISTINCT FROM c.archive_version
        """
    ).fetchall()
    for sid, cid, version, latest, owner, owner_version in rows:
        found.append(
            f"{sid}: chunk {cid} of version {version} is not in the latest version's set "
            f"(latest {latest}, archive_id names {owner} v{owner_version})"
        )
    stored: dict[str, list[str]] = defaultdict(list)
    for sid, content in conn.execute(
        "SELECT session_id, content FROM jarvis_memory_chunks WHERE slot = 'extraction' "
        "ORDER BY session_id, (metadata ->> 'version')::int, content"
    ):
        stored[sid].append(content)
    for sid, extraction in conn.execute(
        "SELECT s.session_id, a.extraction FROM jarvis_archive_sessions s "
        "JOIN jarvis_archive a ON a.id = s.archive_id"
    ):
        pieces = extraction_pieces(Extraction.model_validate(extraction), chunk_max_chars)
        if sorted(stored.get(sid, [])) != sorted(pieces):
            found.append(f"{sid}: extraction chunks are not the latest extraction's text")
    return found


def _watermarks_and_counts(conn: Conn) -> list[str]:
    """The watermark is the last covered dated message; covered dated messages = the count."""
    found = []
    rows = conn.execute(
        """
        WITH covered AS (
            SELECT DISTINCT c.session_id, mid
            FROM jarvis_memory_chunks c, jsonb_array_elements_text(c.metadata -> 'message_ids') mid
            WHERE c.source = 'session_turn' AND c.slot NOT LIKE 'undated:%%'
        ), last AS (
            SELECT DISTINCT ON (m.session_id) m.session_id, m.created_at, m.id::text AS id
            FROM session_messages m JOIN covered v
              ON v.session_id = m.session_id AND v.mid = m.id::text
            WHERE m.created_at BETWEEN '0001-01-02' AND now() + interval '1 year'  -- dated
            ORDER BY m.session_id, m.created_at DESC, m.id DESC
        )
        SELECT s.session_id, s.watermark_at, s.watermark_id, l.created_at, l.id, s.message_count,
               (SELECT count(*) FROM covered v WHERE v.session_id = s.session_id),
               EXISTS (SELECT 1 FROM session_messages m
                       WHERE m.session_id = s.session_id AND m.id::text = s.watermark_id)
        FROM jarvis_archive_sessions s LEFT JOIN last l USING (session_id)
        """
    ).fetchall()
    for sid, wm_at, wm_id, last_at, last_id, count, covered, wm_present in rows:
        # A pruned watermark message cannot be compared; then nothing covered may lie past it.
        exact = wm_present or wm_at is None
        past = last_at is not None and (wm_at is None or last_at > wm_at)
        if (exact and (wm_at, wm_id) != (last_at, last_id)) or past:
            found.append(
                f"{sid}: watermark ({wm_at}, {wm_id}) is not the last covered message "
                f"({last_at}, {last_id})"
            )
        if count != covered:
            found.append(f"{sid}: message_count {count} but turn chunks cover {covered}")
    return found


def _uncovered_messages(conn: Conn) -> list[str]:
    rows = conn.execute(
        """
        SELECT m.session_id, count(*) FROM session_messages m
        WHERE NOT EXISTS (
            SELECT 1 FROM jarvis_memory_chunks c
            WHERE c.session_id = m.session_id AND c.source = 'session_turn'
              AND c.metadata -> 'message_ids' ? m.id::text)
        GROUP BY 1 ORDER BY 1
        """
    ).fetchall()
    return [f"{sid}: {n} messages not archived" for sid, n in rows]


def summary(conn: Conn) -> dict[str, int]:
    """Counts for a report: sessions, messages, messages lost, doubled chunks and messages."""

    def one(query: str) -> int:
        return int(conn.execute(query).fetchone()[0])  # type: ignore[index]

    return {
        "sessions": one("SELECT count(*) FROM jarvis_archive_sessions WHERE latest_version > 0"),
        "messages": one("SELECT count(*) FROM session_messages"),
        "lost": sum(int(line.split(": ")[1].split()[0]) for line in _uncovered_messages(conn)),
        "doubled": len(_doubled_chunks(conn)),
        "versions": one("SELECT count(*) FROM jarvis_archive"),
        "chunks": one("SELECT count(*) FROM jarvis_memory_chunks"),
    }
