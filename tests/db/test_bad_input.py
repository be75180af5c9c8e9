"""Bad source data, one class per row: each is archived correctly or skipped with a reason in
the run report; never a crash, never a silent loss (tests/support/invariants.py checks every row).

NUL bytes cannot reach the archivist from Postgres: `text` refuses U+0000 (the test shows the
database refusing it) so the cleaner's NUL stripping, kept for other transports, is checked on
a message directly. Invalid UTF-8 comes from a SQL_ASCII database, which stores any bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest
from conftest import HASH_768
from support.commands import check_prune
from support.invariants import violations
from support.sources import T0, SourceDB, run_archivist

from archivist.client import archive
from archivist.config import Settings
from archivist.embed.hashing import HashEmbedder
from archivist.extract import base
from archivist.models import Message, RunReport
from archivist.pipeline import ArchiveRequest
from archivist.sanitize import clean_message
from archivist.store import PostgresStore, connect

MB10 = 10 * 1024 * 1024


def _run(settings: Settings) -> RunReport:
    request = ArchiveRequest(delay_ms=0)
    return archive(settings, request, embedder=HashEmbedder(dimension=768))


def _insert(db: SourceDB, rows: list[tuple[object, ...]]) -> None:
    with db.conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO session_messages (id, session_id, role, content, created_at) "
            "VALUES (%s, %s, %s, %s, %s)",
            rows,
        )


def _timestamps(db: SourceDB, values: list[str]) -> None:
    """One dated message, then one message per created_at value given as SQL text."""
    db.add("odd", ["a normal message first"])
    for n, value in enumerate(values):
        db.conn.execute(
            "INSERT INTO session_messages VALUES (%s, 'odd', 'user', %s, %s::timestamptz)",
            [100 + n, f"stamped {value}", value],
        )


def _duplicate_ids(db: SourceDB) -> None:
    db.conn.execute("ALTER TABLE session_messages DROP CONSTRAINT session_messages_pkey")
    db.add("left", ["left one", "left two"], ids=[1, 2])
    db.add("right", ["right one", "right two"], ids=[1, 2])


@dataclass
class Case:
    setup: Callable[[SourceDB], None]
    clipped: dict[str, int] = field(default_factory=dict)  # summed over the run's sessions
    sessions: int = 1
    settings: dict[str, int] = field(default_factory=dict)


CASES: dict[str, Case] = {
    "null content": Case(lambda db: db.add("s", [None, "after a NULL"])),
    "empty content": Case(lambda db: db.add("s", ["", "after an empty one"])),
    "whitespace only": Case(lambda db: db.add("s", ["   \n\t  ", " ", "then words"])),
    "10 MB message": Case(
        lambda db: db.add("s", ["x" * MB10, "small"]), clipped={"max_message_chars": 1}
    ),
    "unknown roles": Case(
        lambda db: db.add(
            "s",
            ["a", "b", "c", "d"],
            roles=["SYSTEM ", "tool", None, ""],  # type: ignore[list-item]
        )
    ),
    "NULL created_at": Case(lambda db: _timestamps(db, [None]), clipped={"undated": 1}),  # type: ignore[list-item]
    "infinite created_at": Case(
        lambda db: _timestamps(db, ["infinity", "-infinity"]), clipped={"undated": 2}
    ),
    "far-future created_at": Case(
        lambda db: _timestamps(db, ["20000-01-01", "2999-01-01", "0044-03-15 BC"]),
        clipped={"undated": 3},
    ),
    "3000 messages, one timestamp": Case(
        lambda db: db.add("s", [f"same time {i}" for i in range(3000)], step=timedelta(0)),
        settings={"max_messages_per_version": 1000},
    ),
    "a session of ten versions' messages": Case(
        lambda db: db.add("s", [f"turn {i}" for i in range(4_000)], step=timedelta(seconds=1)),
        settings={"max_messages_per_version": 400},
    ),
    # a labelled line whose value is longer than an item's value may be (once a crash)
    "a label over a paragraph": Case(
        lambda db: db.add("s", ["Abstract: " + "the role of media framing in policy " * 6])
    ),
    "summary without messages": Case(lambda db: db.summarize("s", "only a summary", T0)),
    "messages without summary": Case(lambda db: db.add("s", ["no summary here", "indeed"])),
    "duplicate ids across sessions": Case(_duplicate_ids, sessions=2),
}


@pytest.mark.parametrize("name", CASES)
def test_bad_input_is_archived_or_reported_never_lost(
    name: str, source: SourceDB, settings: Settings
) -> None:
    case = CASES[name]
    case.setup(source)
    settings = settings.model_copy(update=case.settings)

    report = _run(settings)

    assert [s.reason for s in report.failed] == []
    assert [s.status for s in report.sessions] == ["archived"] * case.sessions
    clipped: dict[str, int] = {}
    for outcome in report.sessions:
        for key, count in outcome.clipped.items():
            clipped[key] = clipped.get(key, 0) + count
    assert clipped == case.clipped
    assert violations(source.conn) == []
    assert _run(settings).sessions == []  # nothing left pending, nothing redone


def test_a_10_mb_message_is_cut_in_the_query(source: SourceDB) -> None:
    source.add("s", ["y" * MB10])
    store = PostgresStore(source.conn, Settings().sources, max_message_chars=20_000)
    row = store.read_session("s", rebuild=False, limit=10, model="hash-768", window=4)
    store.let_go_session("s")
    [message] = row["read"]["new"]
    assert len(message["content"]) == 20_001  # one past the limit, so the cut is reported


def test_undated_messages_are_at_risk_for_prune_check_until_archived(
    source: SourceDB, settings: Settings
) -> None:
    _timestamps(source, [None, "infinity"])
    before = check_prune(settings, timedelta(days=1))
    assert not before.safe and before.undated_at_risk == 2
    _run(settings)
    assert check_prune(settings, timedelta(days=1)).safe


def test_nul_bytes_are_refused_by_postgres_and_stripped_by_the_cleaner(source: SourceDB) -> None:
    with pytest.raises(psycopg.DataError):
        source.add("s", ["a\x00b"])
    message = Message(id="1", session_id="s", role="user", content="a\x00b", created_at=T0)
    cleaned, repairs = clean_message(message, 100)
    assert cleaned.content == "ab" and repairs == ["unstorable_characters"]


@pytest.fixture
def ascii_db(pg_server: str) -> Iterator[str]:
    """A SQL_ASCII database (stores any bytes), migrated, with the source tables."""
    admin = psycopg.connect(pg_server, autocommit=True)
    admin.execute(
        "CREATE DATABASE t_ascii ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' "
        "TEMPLATE template0"
    )
    url = pg_server.replace("/postgres?", "/t_ascii?", 1)
    with psycopg.connect(url, autocommit=True) as conn:
        PostgresStore(conn, Settings().sources).init(HASH_768)
    yield url
    admin.execute("DROP DATABASE t_ascii WITH (FORCE)")
    admin.close()


def test_invalid_utf8_from_a_sql_ascii_database_is_replaced_and_reported(
    ascii_db: str, tmp_path: Path
) -> None:
    with SourceDB.create(ascii_db) as db:
        db.conn.execute(
            "INSERT INTO session_messages VALUES (1, 'latin', 'user', "
            "convert_from('\\x63616ff8'::bytea, 'SQL_ASCII'), %s), "
            "(2, 'latin', 'assistant', "
            "convert_from('\\x636166c3a9206f6b'::bytea, 'SQL_ASCII'), %s)",
            [T0, T0 + timedelta(minutes=1)],
        )
        settings = Settings(database_url=ascii_db, embedder="hash", data_dir=tmp_path)

        [outcome] = _run(settings).sessions

        assert outcome.status == "archived", outcome.reason
        assert outcome.clipped == {"unstorable_characters": 1}
        with connect(ascii_db, settings) as conn:
            text = " ".join(r[0] for r in conn.execute("SELECT content FROM jarvis_memory_chunks"))
            assert violations(conn) == []  # read through the archivist's lenient loaders
        assert "cao\ufffd" in text and "caf\u00e9 ok" in text


def test_a_session_id_of_invalid_utf8_is_left_out_and_the_others_archived(
    ascii_db: str, tmp_path: Path
) -> None:
    """An id the archive cannot store as text is reported like an id too long to hold, never
    a fault of the whole run (it was one: every run stopped on it, and no session archived)."""
    with SourceDB.create(ascii_db) as db:
        db.conn.execute(
            "INSERT INTO session_messages VALUES "
            "(1, convert_from('\\x626164ff6964'::bytea, 'SQL_ASCII'), 'user', 'hi', %s), "
            "(2, 'ok', 'user', 'We use Redis for caching.', %s)",
            [T0, T0 + timedelta(minutes=1)],
        )
        settings = Settings(database_url=ascii_db, embedder="hash", data_dir=tmp_path)

        report = _run(settings)

        assert [(s.session_id, s.status) for s in report.sessions] == [("ok", "archived")]
        assert report.unarchivable.count == 1
        assert report.unarchivable.examples == ["bad\\xffid (not UTF-8)"]
        env = {"DATABASE_URL": ascii_db, "ARCHIVIST_EMBEDDER": "hash"}
        for args in (["archive"], ["status"], ["prune-check", "--older-than", "1m"]):
            done = run_archivist(args, env)
            shown = done.stdout + done.stderr
            assert "Traceback" not in shown and "internal error" not in shown, (args, shown)
            assert done.returncode in (1, 3) if args[0] != "status" else done.returncode == 0
            assert args[0] == "status" or "bad\\xffid" in shown, (args, shown)


def test_a_fault_of_the_rules_fails_its_session_alone(
    source: SourceDB, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rule that raises on some text (a bug, as the long label was) fails that session with a
    one-line reason and holds it back; the sessions after it are archived, and the run goes on."""
    rules = base.rules_candidates

    def faulty(messages: list[Message]) -> object:
        if any("TRIPWIRE" in (m.content or "") for m in messages):
            raise ValueError("a rule's own fault")
        return rules(messages)

    monkeypatch.setattr(base, "rules_candidates", faulty)
    source.add("bad", ["a line with TRIPWIRE in it", "ok"])
    source.add("good", ["We've agreed to use Redis for caching.", "ok"], T0 + timedelta(hours=1))

    report = _run(settings)

    assert {s.session_id: s.status for s in report.sessions} == {
        "bad": "failed",
        "good": "archived",
    }
    assert [s.reason for s in report.failed] == ["the rules extractor failed: ValueError"]
    assert violations(source.conn, complete=False) == []
    monkeypatch.setattr(base, "rules_candidates", rules)
    assert _run(settings).sessions == []  # held back: not retried at once
