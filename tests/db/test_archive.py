"""The archive run on a real Postgres: versions, watermarks, chunks, idempotency, atomicity."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import psycopg
import pytest
from support.archiving import CountingEmbedder, run
from support.invariants import violations
from support.sources import T0, SourceDB

from archivist.config import Settings

DEPLOY_CHAT = [
    "We need to ship the olive frontend this week. Should we use Netlify or Vercel?",
    "Both work. Vercel has first-class Next.js support and preview deploys.",
    "OK, let's use Vercel for the frontend deploy.",
    "Great. I'll set up the Vercel project and connect the GitHub repo acme/olive.",
    "Next: phase 2 tasks for the olive deep work.",
    "I'll draft the phase 2 task list tomorrow.",
]


def chunk_rows(source: SourceDB, session_id: str) -> list[tuple[Any, ...]]:
    return source.conn.execute(
        "SELECT id, slot, source, metadata, created_at FROM jarvis_memory_chunks "
        "WHERE session_id = %s ORDER BY slot, id",
        [session_id],
    ).fetchall()


def covered_message_ids(source: SourceDB, session_id: str) -> list[str]:
    rows = source.conn.execute(
        "SELECT jsonb_array_elements_text(metadata->'message_ids') FROM jarvis_memory_chunks "
        "WHERE session_id = %s AND source = 'session_turn'",
        [session_id],
    )
    return [r[0] for r in rows]


@pytest.mark.both_transports
def test_first_run_writes_a_version_chunks_and_the_watermark(
    source: SourceDB, settings: Settings
) -> None:
    ids = source.add("olive", DEPLOY_CHAT)
    source.summarize("olive", "Planned the olive deploy; chose Vercel.", T0 + timedelta(hours=1))

    report = run(settings)

    [outcome] = report.sessions
    assert (outcome.status, outcome.version_from, outcome.version_to) == ("archived", 0, 1)
    assert outcome.new_messages == len(DEPLOY_CHAT)
    version = source.conn.execute(
        "SELECT version, extraction, span, extractor, watermark_id, message_count "
        "FROM jarvis_archive WHERE session_id = 'olive'"
    ).fetchall()
    assert len(version) == 1
    number, extraction, span, extractor, watermark_id, count = version[0]
    assert number == 1 and extractor == "rules" and count == len(DEPLOY_CHAT)
    assert watermark_id == str(ids[-1])
    assert extraction["version"] == 1 and extraction["session_id"] == "olive"
    assert extraction["summary"] == "Planned the olive deploy; chose Vercel."
    assert span["turn_count"] == len(DEPLOY_CHAT)
    assert any("vercel" in d["text"].lower() for d in extraction["decisions"])
    sources = {row[2] for row in chunk_rows(source, "olive")}
    assert sources == {"session_summary", "archive_extraction", "session_turn", "state_item"}
    assert sorted(covered_message_ids(source, "olive")) == sorted(str(i) for i in ids)
    archive_id = source.conn.execute("SELECT id FROM jarvis_archive").fetchone()[0]
    assert all(row[3]["archive_id"] == str(archive_id) for row in chunk_rows(source, "olive"))


@pytest.mark.both_transports
def test_second_run_on_unchanged_data_writes_nothing_and_embeds_nothing(
    source: SourceDB, settings: Settings
) -> None:
    source.add("olive", DEPLOY_CHAT)
    source.add("other", ["hello there", "hi! how can I help?"])
    run(settings)
    before = source.snapshot()
    embedder = CountingEmbedder()

    report = run(settings, embedder)

    assert report.sessions == []  # nothing pending
    assert embedder.calls == 0
    assert source.snapshot() == before
    # Asked by name, the sessions are reported unchanged, still without a write or a call.
    report = run(settings, embedder, session_ids=["olive", "other"])
    assert [s.status for s in report.sessions] == ["unchanged", "unchanged"]
    assert embedder.calls == 0
    assert source.snapshot() == before


@pytest.mark.both_transports
def test_incremental_run_embeds_only_new_and_changed_chunks(
    source: SourceDB, settings: Settings
) -> None:
    # 20 turns = windows 0 and 1 complete (8 turns each), window 2 partial (4 turns).
    settings = settings.model_copy(update={"turns_per_window": 8})
    source.add("long", [f"message number {i} about topic {i % 3}" for i in range(20)])
    run(settings)
    before = {row[0]: row for row in chunk_rows(source, "long")}
    embedder = CountingEmbedder()

    source.add("long", [f"late message {i}" for i in range(3)], start=T0 + timedelta(days=1))
    report = run(settings, embedder)

    [outcome] = report.sessions
    assert (outcome.version_from, outcome.version_to, outcome.new_messages) == (1, 2, 3)
    after = {row[0]: row for row in chunk_rows(source, "long")}
    windows = lambda rows, slot: {i for i, r in rows.items() if r[1] == slot}  # noqa: E731
    # Complete windows keep their rows untouched (same id, same created_at).
    for slot in ("turns:000000", "turns:000001"):
        assert windows(after, slot) == windows(before, slot)
        assert all(after[i][4] == before[i][4] for i in windows(after, slot))
    # Only the grown partial window and the changed extraction were embedded.
    grown = windows(after, "turns:000002")
    assert grown and grown.isdisjoint(windows(before, "turns:000002"))
    assert len(embedder.texts) == len(grown) + len(windows(after, "extraction"))
    assert outcome.texts_embedded == len(embedder.texts)
    # The replaced chunks are gone; every message is covered exactly once.
    assert outcome.chunks_removed == len(windows(before, "turns:000002")) + len(
        windows(before, "extraction")
    )
    covered = covered_message_ids(source, "long")
    assert len(covered) == len(set(covered)) == 23


@pytest.mark.parametrize("id_type", ["bigint", "text"])
def test_equal_timestamps_are_ordered_by_id_and_nothing_is_skipped_or_doubled(
    db_url: str, tmp_path: Any, id_type: str
) -> None:
    settings = Settings(
        database_url=db_url,
        embedder="hash",
        data_dir=tmp_path,
        max_messages_per_version=3,
    )
    with SourceDB.create(db_url, id_type=id_type) as source:
        # 12 messages share one timestamp; bigint ids 8..19 sort 9 < 10 numerically.
        ids = list(range(8, 20)) if id_type == "bigint" else [f"m{i:02d}" for i in range(12)]
        source.add("ties", [f"tied message {i}" for i in ids], step=timedelta(0), ids=ids)

        report = run(settings)

        [outcome] = report.sessions
        assert outcome.new_messages == 12
        assert outcome.version_to == 4  # 3 messages per version
        watermarks = source.conn.execute(
            "SELECT watermark_id FROM jarvis_archive ORDER BY version"
        ).fetchall()
        assert [w[0] for w in watermarks] == [str(ids[i]) for i in (2, 5, 8, 11)]
        covered = covered_message_ids(source, "ties")
        assert sorted(covered) == sorted(str(i) for i in ids)
        assert len(covered) == len(set(covered))
        # More tied messages arrive later, with ids past the watermark: picked up, once.
        later = [20, 21] if id_type == "bigint" else ["m12", "m13"]
        source.add("ties", ["tied late 1", "tied late 2"], step=timedelta(0), ids=later)
        assert run(settings).sessions[0].new_messages == 2
        assert len(covered_message_ids(source, "ties")) == 14


def test_a_failure_inside_the_commit_leaves_the_previous_version_intact(
    source: SourceDB, settings: Settings
) -> None:
    source.add("olive", DEPLOY_CHAT[:3])
    run(settings)
    before = source.snapshot()
    source.add("olive", DEPLOY_CHAT[3:], start=T0 + timedelta(hours=2))
    # Fail the very last statement of archivist_commit_version (the watermark update).
    source.conn.execute(
        """
        CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$;
        CREATE TRIGGER boom BEFORE UPDATE ON jarvis_archive_sessions
            FOR EACH ROW EXECUTE FUNCTION boom();
        """
    )

    retry_at_once = settings.model_copy(update={"failure_backoff_s": 0})  # no backoff
    report = run(retry_at_once)

    [outcome] = report.sessions
    assert outcome.status == "failed" and "injected failure" in (outcome.reason or "")
    assert source.snapshot() == before
    source.conn.execute("DROP TRIGGER boom ON jarvis_archive_sessions")
    report = run(retry_at_once)
    assert report.sessions[0].status == "archived"
    assert report.sessions[0].new_messages == len(DEPLOY_CHAT) - 3
    assert len(covered_message_ids(source, "olive")) == len(DEPLOY_CHAT)


def test_dry_run_writes_nothing_embeds_only_candidates_and_shows_the_plan(
    source: SourceDB, settings: Settings
) -> None:
    source.add("olive", DEPLOY_CHAT)
    before = source.snapshot()
    embedder = CountingEmbedder()

    report = run(settings, embedder, dry_run=True)

    [plan] = report.sessions
    assert report.dry_run and plan.status == "planned"
    assert (plan.version_from, plan.version_to, plan.new_messages) == (0, 1, len(DEPLOY_CHAT))
    assert plan.chunks_added >= 2
    assert any("vercel" in d.lower() for d in plan.decisions)
    # Only the state candidates' texts are embedded (to reconcile them); nothing is written.
    added = [c.text for c in plan.state_changes if c.kind == "added"]
    assert any("vercel" in t.lower() for t in added)
    assert embedder.calls == 1 and sorted(embedder.texts) == sorted(set(added))
    assert source.snapshot() == before
    # The real run then does what the plan said.
    real = run(settings).sessions[0]
    assert (real.chunks_added, real.version_to) == (plan.chunks_added, plan.version_to)
    # Its calls: one, the candidates' (which the dry run made too) with the chunks' texts.
    assert plan.embed_calls == real.embed_calls == 1


@pytest.mark.both_transports
def test_rebuild_recomputes_from_the_first_message_and_keeps_nothing_stale(
    source: SourceDB, settings: Settings
) -> None:
    source.add("olive", DEPLOY_CHAT)
    run(settings)
    first = {row[0] for row in chunk_rows(source, "olive")}
    embedder = CountingEmbedder()

    report = run(settings, embedder, session_ids=["olive"], rebuild=True)

    [outcome] = report.sessions
    assert (outcome.version_from, outcome.version_to) == (1, 2)
    assert outcome.new_messages == len(DEPLOY_CHAT)
    assert {row[0] for row in chunk_rows(source, "olive")} == first
    assert embedder.calls == 0  # same content, same chunk ids: nothing re-embedded


def test_rebuild_without_named_sessions_recomputes_every_archived_one(
    source: SourceDB, settings: Settings
) -> None:
    """Per-user memory switched on after the archive was made: `archive --rebuild` is how its
    sessions get their users at once. It listed only the sessions with new messages, so with
    none it rebuilt nothing ("nothing to archive")."""
    source.conn.execute("ALTER TABLE session_messages ADD COLUMN user_id text")
    for n in range(3):
        ids = source.add(f"s{n}", [f"Let's use tool{n} for the deploys.", "Ok."])
        source.conn.execute("UPDATE session_messages SET user_id = 'alice' WHERE id = %s", [ids[0]])
    run(settings)
    scoped = settings.model_copy(
        update={"sources": settings.sources.model_copy(update={"message_user_id": "user_id"})}
    )
    assert run(scoped).sessions == []  # no news: an archive run does nothing

    report = run(scoped, rebuild=True, limit=2)  # up to --max-sessions, by session id

    assert [(s.session_id, s.status) for s in report.sessions] == [
        ("s0", "archived"),
        ("s1", "archived"),
    ]
    users = source.conn.execute(
        "SELECT session_id, user_id FROM jarvis_archive_sessions ORDER BY session_id"
    ).fetchall()
    assert users == [("s0", "alice"), ("s1", "alice"), ("s2", None)]


def test_a_cut_message_archived_whole_later_adds_only_what_was_cut(
    source: SourceDB, settings: Settings
) -> None:
    """prune-check's advice for a message archived cut: raise max_message_chars and archive.
    The whole text goes to an edit slot; its parts the archive holds already (the text up to
    the old cut, in the window's pieces) are not stored a second time."""
    words = [f"w{n:05d}" for n in range(1_200)]  # 7,200 characters, no two pieces alike
    source.add("long", [" ".join(words), "ok"])
    small = settings.model_copy(update={"max_message_chars": 5_000, "window_max_chars": 2_000})
    [cut] = run(small).sessions
    assert cut.clipped == {"max_message_chars": 1}

    [whole] = run(small.model_copy(update={"max_message_chars": 10_000})).sessions

    assert whole.status == "archived"
    assert violations(source.conn) == []  # nothing stored twice, nothing missing
    text = " ".join(
        r[0]
        for r in source.conn.execute(
            "SELECT content FROM jarvis_memory_chunks WHERE source = 'session_turn'"
        )
    )
    assert words[-1] in text  # the part that was cut is there now


def test_null_content_odd_roles_and_huge_messages_are_archived_not_lost(
    source: SourceDB, settings: Settings
) -> None:
    huge = "word " * 40_000  # 200,000 characters
    ids = source.add(
        "messy",
        [None, "", "   ", huge, "let's use Redis for caching", "ok"],
        roles=["USER", "tool", "", "user", "user", None],  # type: ignore[list-item]
    )
    settings = settings.model_copy(update={"max_message_chars": 5000})

    [outcome] = run(settings).sessions

    assert outcome.status == "archived" and outcome.new_messages == 6
    assert outcome.clipped == {"max_message_chars": 1}
    covered = covered_message_ids(source, "messy")
    assert set(covered) == {str(i) for i in ids}
    assert covered.count(str(ids[3])) == 1  # the cut 5,000 characters, whole in its window
    longest = source.conn.execute(
        "SELECT max(length(content)) FROM jarvis_memory_chunks"
    ).fetchone()[0]
    assert 5000 < longest <= settings.window_max_chars


@pytest.mark.both_transports
def test_summary_only_session_and_summary_updates_are_archived(
    source: SourceDB, settings: Settings
) -> None:
    source.summarize("quiet", "The user asked about nothing in particular.", T0)
    [first] = run(settings).sessions
    assert (first.session_id, first.status, first.version_to) == ("quiet", "archived", 1)
    assert run(settings).sessions == []
    source.summarize("quiet", "Now the user decided to use Postgres.", T0 + timedelta(days=1))
    [second] = run(settings).sessions
    assert second.version_to == 2
    text = source.conn.execute(
        "SELECT content FROM jarvis_memory_chunks WHERE source = 'session_summary'"
    ).fetchall()
    assert text == [("Now the user decided to use Postgres.",)]


def test_a_summary_row_without_text_is_no_work(source: SourceDB, settings: Settings) -> None:
    """A bot's summary row whose text is NULL holds nothing to archive: it was read on every
    run and left the session pending ("1 unchanged") for ever."""
    source.add("s", ["hi", "hello"], start=T0)
    source.summarize("s", None, T0 + timedelta(hours=1))  # type: ignore[arg-type]
    assert [o.status for o in run(settings).sessions] == ["archived"]
    assert run(settings).sessions == []


@pytest.mark.both_transports
def test_max_sessions_takes_the_oldest_pending_first(source: SourceDB, settings: Settings) -> None:
    for n in range(5):
        source.add(f"s{n}", ["hi", "hello"], start=T0 + timedelta(days=5 - n))
    report = run(settings, limit=2)
    assert [s.session_id for s in report.sessions] == ["s4", "s3"]
    assert [s.session_id for s in run(settings, limit=10).sessions] == ["s2", "s1", "s0"]


def test_a_session_locked_by_another_run_is_passed_over(
    source: SourceDB, settings: Settings
) -> None:
    source.add("busy", ["hi", "hello"])
    with psycopg.connect(source.url, autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(hashtextextended('archivist:session:busy', 0))")
        report = run(settings)
        assert report.sessions == [] and report.passed_over.held == 1  # never read
        [outcome] = run(settings, session_ids=["busy"]).sessions  # named: read, and skipped
        assert outcome.status == "skipped"
        assert "another archivist run" in (outcome.reason or "")
    assert run(settings).sessions[0].status == "archived"


@pytest.mark.both_transports
def test_a_late_arrival_is_archived_without_moving_the_turn_windows(
    source: SourceDB, settings: Settings
) -> None:
    source.add("late", [f"message {i}" for i in range(10)])  # 09:00 .. 09:09
    run(settings)
    windows_before = {r[0] for r in chunk_rows(source, "late") if r[1].startswith("turns:")}
    # A message stamped 09:04:30 shows up after the archive's watermark (09:09).
    [late_id] = source.add(
        "late", ["let's use Kafka for the event bus"], start=T0 + timedelta(minutes=4, seconds=30)
    )

    [outcome] = run(settings).sessions

    assert (outcome.status, outcome.version_to, outcome.new_messages) == ("archived", 2, 1)
    assert outcome.clipped == {"late_arrivals": 1}
    rows = chunk_rows(source, "late")
    assert {r[0] for r in rows if r[1].startswith("turns:")} == windows_before
    late_chunks = [r for r in rows if r[1].startswith("late:")]
    assert [r[3]["message_ids"] for r in late_chunks] == [[str(late_id)]]
    covered = covered_message_ids(source, "late")
    assert len(covered) == len(set(covered)) == 11
    decisions = source.conn.execute(
        "SELECT extraction->'decisions' FROM jarvis_archive WHERE version = 2"
    ).fetchone()[0]
    assert any("kafka" in d["text"].lower() for d in decisions)
    assert run(settings).sessions == []  # counted as covered now


@pytest.mark.both_transports
def test_late_arrivals_and_new_messages_in_one_run(source: SourceDB, settings: Settings) -> None:
    source.add("mix", [f"message {i}" for i in range(5)])
    run(settings)
    source.add("mix", ["late one"], start=T0 + timedelta(seconds=30))
    source.add("mix", ["new one", "new two"], start=T0 + timedelta(hours=1))

    [outcome] = run(settings).sessions

    assert outcome.new_messages == 3 and outcome.clipped == {"late_arrivals": 1}
    covered = covered_message_ids(source, "mix")
    assert len(covered) == len(set(covered)) == 8
    windows = [r[3]["message_ids"] for r in chunk_rows(source, "mix") if r[1] == "turns:000001"]
    assert len(windows) == 1 and len(windows[0]) == 3  # the partial window grew by the new two


@pytest.mark.both_transports
def test_pruned_messages_stay_archived_and_the_session_goes_on(
    source: SourceDB, settings: Settings
) -> None:
    ids = source.add("pruned", [f"we decided to use tool number {i}" for i in range(12)])
    run(settings)
    before = source.snapshot()
    source.conn.execute("DELETE FROM session_messages WHERE id = ANY(%s)", [ids[:6]])

    assert run(settings).sessions == []  # a prune is not a change to archive
    assert source.snapshot() == before
    new = source.add("pruned", ["and one more thing"], start=T0 + timedelta(days=1))
    [outcome] = run(settings).sessions
    assert outcome.new_messages == 1
    covered = set(covered_message_ids(source, "pruned"))
    assert covered == {str(i) for i in ids + new}  # the pruned six are still archived


def test_an_edited_message_is_archived_again_and_its_old_text_kept(
    source: SourceDB, settings: Settings
) -> None:
    ids = source.add("edited", ["let's use Heroku", "ok"])
    run(settings)
    source.conn.execute(
        "UPDATE session_messages SET content = 'let''s use Render' WHERE id = %s", [ids[0]]
    )
    [outcome] = run(settings).sessions
    assert (outcome.status, outcome.version_to, outcome.clipped) == ("archived", 2, {"edited": 1})
    edits = source.conn.execute(
        "SELECT content, metadata -> 'message_ids' FROM jarvis_memory_chunks "
        "WHERE slot LIKE 'edit:%%'"
    ).fetchall()
    assert edits == [("User: let's use Render", [str(ids[0])])]
    text = " ".join(r[0] for r in source.conn.execute("SELECT content FROM jarvis_memory_chunks"))
    assert "Render" in text and "Heroku" in text  # the archived text stays findable
    assert run(settings).sessions == []
    [rebuilt] = run(settings, session_ids=["edited"], rebuild=True).sessions
    assert rebuilt.status == "archived"  # from the current messages: nothing was pruned
    text = " ".join(r[0] for r in source.conn.execute("SELECT content FROM jarvis_memory_chunks"))
    assert "Render" in text and "Heroku" not in text


@pytest.mark.both_transports
def test_a_pruned_partial_window_is_not_rewritten(source: SourceDB, settings: Settings) -> None:
    ids = source.add("idle", ["we chose Postgres for the ledger", "noted"])  # window 0: 2 of 8
    run(settings)
    source.conn.execute("DELETE FROM session_messages WHERE session_id = 'idle'")  # all pruned
    new = source.add("idle", ["back after a month"], start=T0 + timedelta(days=40))

    [outcome] = run(settings).sessions

    assert outcome.status == "archived"
    slots = {
        r[1]: r[3]["message_ids"] for r in chunk_rows(source, "idle") if r[2] == "session_turn"
    }
    assert slots == {"turns:000000": [str(i) for i in ids], "turns:000001": [str(new[0])]}


@pytest.mark.both_transports
def test_source_tables_and_columns_are_read_by_their_names_case_kept(
    db_url: str, settings: Settings
) -> None:
    """A bot's table in its own schema with mixed-case names, mapped in the settings."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(
            'CREATE SCHEMA bot; CREATE TABLE bot."ChatLog" ("MsgId" bigint PRIMARY KEY, '
            '"Conv" text, "Who" text, "Body" text, "At" timestamptz)'
        )
        for n, text in enumerate(DEPLOY_CHAT):
            conn.execute(
                'INSERT INTO bot."ChatLog" VALUES (%s, %s, %s, %s, %s)',
                [n + 1, "Olive", ("user", "assistant")[n % 2], text, T0 + timedelta(minutes=n)],
            )
    sources = settings.sources.model_copy(
        update={
            "messages_table": "bot.ChatLog",
            "message_id": "MsgId",
            "message_session_id": "Conv",
            "message_role": "Who",
            "message_content": "Body",
            "message_created_at": "At",
        }
    )
    report = run(settings.model_copy(update={"sources": sources}))

    [outcome] = report.sessions
    assert (outcome.session_id, outcome.status, outcome.new_messages) == ("Olive", "archived", 6)
    with psycopg.connect(db_url) as conn:
        row = conn.execute(
            "SELECT watermark_id FROM jarvis_archive_sessions WHERE session_id = 'Olive'"
        ).fetchone()
    assert row == ("6",)
