"""Property: prune-check never says safe while the archive lacks a message's current text.

Hypothesis drives random histories over a small archived corpus: messages edited, deleted,
inserted again under the same id (with the old or a new text), extended past the cut
(`max_message_chars` is 120 here), added late, and archive runs in between. After every step
an oracle independent of the SQL looks at the chunks themselves: a message's current text is
archived when a turn chunk covering its id contains that text (every text carries a unique tag,
so a match is not a coincidence). prune-check may say safe only when every message older than
the cutoff passes; and after an archive run it must say safe unless some message is over the
cut (then it must not).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from itertools import count
from typing import Any

import psycopg
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from support.commands import check_prune
from support.sources import T0, SourceDB

from archivist.client import archive
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest

EXAMPLES = 40
CUT = 120
THIRTY_DAYS = timedelta(days=30)
WORDS = "deploy vercel redis budget launch june token refresh invoice lisbon schema".split()

Op = tuple[str, int, int]  # (kind, message index, word seed)
OPS = st.tuples(
    st.sampled_from(["edit", "delete", "reinsert_new", "reinsert_same", "extend", "late", "run"]),
    st.integers(0, 7),
    st.integers(0, 10_000),
)


@dataclass
class Corpus:
    conn: psycopg.Connection[tuple[Any, ...]]
    tags: count[int]

    def text(self, seed: int, words: int = 4) -> str:
        picked = " ".join(WORDS[(seed + i * 7) % len(WORDS)] for i in range(words))
        return f"t{next(self.tags)}x {picked}"

    def rows(self) -> list[tuple[Any, ...]]:
        return self.conn.execute(
            "SELECT id, session_id, content, created_at FROM session_messages ORDER BY id"
        ).fetchall()

    def apply(self, op: Op) -> None:
        kind, index, seed = op
        rows = self.rows()
        if kind == "late":
            self.conn.execute(
                "INSERT INTO session_messages SELECT coalesce(max(id), 0) + 1, %s, 'user', %s, %s "
                "FROM session_messages",
                [f"s{seed % 2}", self.text(seed), T0 + timedelta(seconds=seed % 300)],
            )
            return
        if not rows:
            return
        mid, sid, content, at = rows[index % len(rows)]
        if kind == "edit":
            self.conn.execute(
                "UPDATE session_messages SET content = %s WHERE id = %s", [self.text(seed), mid]
            )
        elif kind == "extend":  # past the cut, sometimes
            more = " " + " ".join(WORDS) * (1 + seed % 2)
            self.conn.execute(
                "UPDATE session_messages SET content = content || %s WHERE id = %s", [more, mid]
            )
        elif kind == "delete":
            self.conn.execute("DELETE FROM session_messages WHERE id = %s", [mid])
        elif kind.startswith("reinsert"):
            self.conn.execute("DELETE FROM session_messages WHERE id = %s", [mid])
            text = content if kind == "reinsert_same" else self.text(seed)
            self.conn.execute(
                "INSERT INTO session_messages VALUES (%s, %s, 'user', %s, %s)", [mid, sid, text, at]
            )


def lacking(conn: psycopg.Connection[tuple[Any, ...]]) -> list[str]:
    """Messages older than 30 days whose current text no turn chunk covering them holds."""
    chunks: dict[tuple[str, str], list[str]] = {}
    for sid, content, ids in conn.execute(
        "SELECT session_id, content, metadata -> 'message_ids' FROM jarvis_memory_chunks "
        "WHERE source = 'session_turn'"
    ):
        for mid in ids:
            chunks.setdefault((sid, mid), []).append(content)
    return [
        f"{sid}/{mid}"
        for mid, sid, content in conn.execute(
            "SELECT id::text, session_id, content FROM session_messages "
            "WHERE created_at < now() - interval '30 days'"
        )
        if not any(content.strip() in c for c in chunks.get((sid, mid), []))
    ]


RESET = """
TRUNCATE session_messages, session_summaries, jarvis_memory_chunks, archivist_message_hashes,
         archivist_runs, archivist_session_claims;
TRUNCATE jarvis_archive_sessions, jarvis_state_items, jarvis_archive;
"""


@hypothesis_settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(OPS, min_size=1, max_size=8))
def test_prune_check_is_never_safe_while_the_archive_lacks_current_text(
    source: SourceDB, settings: Settings, ops: list[Op]
) -> None:
    conn = source.conn
    conn.execute(RESET)
    narrow = settings.model_copy(update={"max_message_chars": CUT})
    corpus = Corpus(conn, count())
    for n in range(6):
        source.add(f"s{n % 2}", [corpus.text(n)], start=T0 + timedelta(minutes=10 + n), ids=[n + 1])
    archive(narrow, ArchiveRequest(delay_ms=0))

    for op in [*ops, ("run", 0, 0)]:
        if op[0] == "run":
            report = archive(narrow, ArchiveRequest(delay_ms=0))
            assert not report.failed, report.failed
        else:
            corpus.apply(op)
        missing = lacking(conn)
        result = check_prune(narrow, THIRTY_DAYS)
        assert not (result.safe and missing), (op, missing)
        if op[0] == "run":
            over = [r for r in corpus.rows() if len(r[2]) > CUT]
            assert result.safe == (not over), (op, over, result.reasons)
