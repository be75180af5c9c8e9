"""The current state "now" is stored at commit time (sql/061): after every change (a session
archived, out of time order too, a new version, a forget, a resolution) the stored rows are
exactly what `archivist_reconcile_state` computes over the whole scope, row by row, for each
user and for the whole archive; and `state --current` reads them in the order and shape the
general query gives."""

from __future__ import annotations

import json
import random
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.commands import init_database
from support.sources import T0, SourceDB, run_archivist

from archivist.client import Archivist, archive
from archivist.config import Settings, SourceTables
from archivist.pipeline import ArchiveRequest
from archivist.state.frames import subject_key, value_side

Conn = psycopg.Connection[tuple[Any, ...]]
DAY = timedelta(days=1)
COLUMNS = (
    "session_id, user_id, uid, type, text, status, subject, value, change, refs, became_at, "
    "last_seen_at, stopped_at, superseded_by, superseded_by_session, trigger, resolution, "
    "conflict_with, conflict, current"
)
ORDER = "ORDER BY session_id, uid"


def assert_stored_is_computed(conn: Conn, users: list[str | None]) -> int:
    """Stored rows (archivist_state_items now) equal computed ones, per scope; the row count."""
    rows = 0
    for user in users:
        stored = conn.execute(
            f"SELECT {COLUMNS} FROM archivist_state_items(%s) {ORDER}", [user]
        ).fetchall()
        computed = conn.execute(
            f"SELECT {COLUMNS} FROM archivist_reconcile_state(%s) {ORDER}", [user]
        ).fetchall()
        assert len(stored) == len(computed)
        for got, want in zip(stored, computed, strict=True):
            assert got == want, (user, got, want)
        rows += len(stored)
    # each row's keys are its texts' stems (its subject's, archivist_subject_key), whether it was
    # written anew or kept
    stale = conn.execute(
        "SELECT count(*) FROM jarvis_state_items WHERE (subject_key, value_key, old_key) "
        "IS DISTINCT FROM (archivist_subject_key(subject), "
        "tsvector_to_array(to_tsvector('english', coalesce(value, ''))), "
        "tsvector_to_array(to_tsvector('english', coalesce(replaces, ''))))"
    ).fetchone()
    assert stale == (0,)
    currency = conn.execute(
        "SELECT archivist_item_currency(ARRAY(SELECT DISTINCT session_id FROM jarvis_state_items))"
    ).fetchone()
    expected = conn.execute(
        "SELECT coalesce(jsonb_object_agg(s, i), '{}') FROM (SELECT session_id AS s, "
        "jsonb_object_agg(uid, current) AS i FROM archivist_reconcile_state() GROUP BY 1) x"
    ).fetchone()
    assert currency == expected
    return rows


# The general query's answer for the current items now, as the function gave it before the
# current items were stored: from the computed rows.
EXPECTED_CURRENT = """
WITH items AS MATERIALIZED (
    SELECT session_id, user_id, uid, type, text, status, subject, value, change, refs, became_at,
           last_seen_at, stopped_at, superseded_by, superseded_by_session, trigger, resolution,
           conflict_with, conflict, current
    FROM archivist_reconcile_state(%(user)s)
), chosen AS (
    SELECT i.*, count(*) OVER () AS total,
           row_number() OVER (ORDER BY -extract(epoch FROM i.became_at), i.session_id, i.uid) AS n
    FROM items i WHERE i.current
)
SELECT jsonb_build_object(
    'user_id', %(user)s::text, 'as_of', NULL, 'subject', NULL,
    'total', coalesce((SELECT max(total) FROM chosen), 0),
    'items', coalesce((
        SELECT jsonb_agg(to_jsonb(s) - 'n' - 'total' || jsonb_build_object('supersedes', (
                   SELECT coalesce(jsonb_agg(o.uid ORDER BY o.became_at), '[]') FROM items o
                   WHERE o.superseded_by = s.uid AND o.superseded_by_session = s.session_id))
               ORDER BY s.n)
        FROM chosen s WHERE s.n <= %(limit)s), '[]'))
"""


def assert_current_reads_as_computed(conn: Conn, users: list[str | None]) -> None:
    for user in users:
        for limit in (2, 200):
            got = conn.execute(
                "SELECT archivist_current_state(%s, p_limit => %s)", [user, limit]
            ).fetchone()
            want = conn.execute(EXPECTED_CURRENT, {"user": user, "limit": limit}).fetchone()
            assert got == want, user


# -- through the SQL functions: many random changes ---------------------------------------------

SUBJECTS = ["session cache", "cache", "job queue", "queue", "session", "primary database",
            "database", "deploy target", "", ""]  # fmt: skip
VALUES = ["Redis", "Memcached", "Postgres", "MySQL", "Vercel", "Netlify", "SQS", "Redis cluster",
          "10k", "$500", "Q2", "30 min", "64"]  # fmt: skip
CHANGES = [None, None, None, "replace", "reverse", "cancel", "update"]
USERS: list[str | None] = [None, "u1", "u2"]


def random_items(rng: random.Random, start: Any) -> list[dict[str, Any]]:
    """A session's items: decisions and constraints on shared subjects, a note now and then,
    uids drawn from a small pool (the same statement in two sessions has the same uid), some
    superseded in the session by a later one."""
    items: list[dict[str, Any]] = []
    uids = rng.sample(range(40), rng.randint(1, 5))
    for n, u in enumerate(uids):
        change = rng.choice(CHANGES)
        item = {
            "uid": f"d_{u:012x}",
            "type": rng.choice(["decision", "decision", "constraint", "fact"]),
            "text": f"item {u}",
            "status": "active",
            "subject": rng.choice(SUBJECTS) or None,
            "value": rng.choice(VALUES),
            "change": change,
            "replaces": rng.choice(VALUES + [s for s in SUBJECTS if s]) if change else None,
            "conflict": rng.random() < 0.1,
            "refs": [n],
            "created_at": (start + timedelta(minutes=n)).isoformat(),
            "last_seen_at": (start + timedelta(minutes=n + 1)).isoformat(),
        }
        if items and rng.random() < 0.4:
            earlier = rng.choice(items)
            earlier["status"] = "superseded"
            earlier["replaced_by"] = item["uid"] if rng.random() < 0.6 else "d_ffffffffffff"
        if items and rng.random() < 0.3:  # it conflicts with an item of its session
            other = rng.choice(items)
            for a, b in ((item, other), (other, item)):
                a["conflict"] = True
                a.setdefault("conflict_with", []).append(b["uid"])
        items.append(item)
    return items


def index_session(conn: Conn, session: str, user: str | None, items: list[dict[str, Any]]) -> None:
    """A version of `session` with `items`, as archivist_commit_version indexes it."""
    row = conn.execute(
        "INSERT INTO jarvis_archive (session_id, version, span, extraction, extractor, "
        "extractor_version, user_id) SELECT %s, coalesce(max(version), 0) + 1, '{}', '{}', "
        "'test', '1', %s FROM jarvis_archive WHERE session_id = %s RETURNING id",
        [session, user, session],
    ).fetchone()
    assert row is not None
    conn.execute(
        "SELECT archivist_index_state(%s, %s, %s, %s)",
        [session, row[0], user, json.dumps(items)],
    )


@pytest.mark.parametrize(
    ("seed", "in_time_order"), [(20261126, False), (1, False), (4, False), (7, True)]
)
def test_random_commits_forgets_and_resolutions_keep_the_stored_state_exact(
    db_url: str, seed: int, in_time_order: bool
) -> None:
    rng = random.Random(seed)
    sessions = {f"s{n:02d}": rng.choice(USERS) for n in range(36)}
    starts = {s: T0 + timedelta(hours=rng.randint(0, 2000)) for s in sessions}
    # a third said after every resolution (made now): disagreements anew with items kept or dropped
    later = datetime.now(UTC) + timedelta(days=1)
    starts.update({s: later + timedelta(hours=rng.randint(0, 200)) for s in list(sessions)[::3]})
    order = list(sessions)
    rng.shuffle(order)  # archived in no particular time order, or as a cron run meets them
    if in_time_order:
        order.sort(key=starts.__getitem__)
    checked = 0
    said: dict[str, list[dict[str, Any]]] = {}
    with psycopg.connect(db_url, autocommit=True) as conn:
        for step, session in enumerate(order):
            said[session] = random_items(rng, starts[session])
            index_session(conn, session, sessions[session], said[session])
            if step % 4 == 3:  # a new version of an archived session replaces its items
                again = rng.choice(order[: step + 1])
                if rng.random() < 0.3:  # another user spoke in it: it has none from now on
                    sessions[again] = None
                if rng.random() < 0.5:  # a few more messages: the same items, one changed
                    items = [dict(i) for i in said[again]]
                    for item in items:  # said again in the new messages
                        item["last_seen_at"] = (starts[again] + timedelta(hours=1)).isoformat()
                    changed = rng.choice(items)
                    changed["text"] = changed["text"] + " (again)"
                    if rng.random() < 0.5:
                        changed["value"] = rng.choice(VALUES)
                    items += random_items(rng, starts[again] + timedelta(hours=1))[:1]
                else:
                    items = random_items(rng, starts[again])
                said[again] = items
                index_session(conn, again, sessions[again], items)
            if step % 5 == 4:  # a resolution, keep or drop, of an item in conflict or not
                # chosen by the seed, not by the server's random(): the run is the same each time
                uid = conn.execute(
                    "SELECT uid FROM jarvis_state_items ORDER BY in_conflict DESC, session_id, uid "
                    "OFFSET %s LIMIT 1",
                    [rng.randrange(4)],
                ).fetchone()
                assert uid is not None
                conn.execute(
                    "SELECT archivist_resolve_state_item(%s, %s)",
                    [uid[0], rng.choice(["keep", "drop"])],
                )
            if step % 7 == 6:  # a session forgotten: the items left on its subjects change
                gone = rng.choice(order[: step + 1])
                conn.execute(
                    "SELECT archivist_forget('{}'::jsonb, ARRAY[%s], p_dry_run => false)",
                    [gone],
                )
            checked += assert_stored_is_computed(conn, USERS)
        assert_current_reads_as_computed(conn, USERS)
        # the scenario has what the rules decide on: changes across sessions, conflicts,
        # resolutions, items superseded in their session and not
        counts = conn.execute(
            "SELECT count(*) FILTER (WHERE trigger NOT IN ('in session')), "
            "count(*) FILTER (WHERE trigger = 'in session'), count(*) FILTER (WHERE in_conflict), "
            "count(*) FILTER (WHERE resolution IS NOT NULL), count(*) FILTER (WHERE current), "
            "count(DISTINCT user_id) FROM jarvis_state_items"
        ).fetchone()
        assert counts is not None and all(c > 0 for c in counts), counts
    assert checked > 1000


@pytest.mark.parametrize(
    ("settled", "action", "current"),
    [
        (0, "keep", [True, False, False]),
        (0, "drop", [False, True, True]),
        (1, "keep", [False, True, True]),
    ],
)
def test_settling_one_side_of_a_conflict_in_one_session_settles_the_pair(
    db_url: str, settled: int, action: str, current: list[bool]
) -> None:
    """A session's "never" fact and the two facts that affirm it name each other: the current
    state lists the pairs, and a person's word on one settles all three. The "never" kept, the
    affirmations are out of the current state; dropped, they stay, with no conflict left; one
    affirmation kept, the "never" is out and the other affirmation's conflict with it ends."""
    never, *said = ("f_00000000000a", "f_00000000000b", "f_00000000000c")

    def fact(n: int, uid: str, value: str, partners: list[str]) -> dict[str, Any]:
        at = (T0 + timedelta(minutes=n)).isoformat()
        return {
            "uid": uid,
            "type": "fact",
            "text": f"fact {n}",
            "status": "active",
            "subject": "zotero",
            "value": value,
            "conflict": True,
            "conflict_with": partners,
            "refs": [n],
            "created_at": at,
            "last_seen_at": at,
        }

    items = [
        fact(0, never, "never", said),
        *(fact(n, u, "yes", [never]) for n, u in enumerate(said, 1)),
    ]
    with psycopg.connect(db_url, autocommit=True) as conn:
        index_session(conn, "s", "u1", items)
        listed = dict(conn.execute("SELECT uid, conflict_with FROM archivist_state_items('u1') "
                                   "WHERE conflict").fetchall())  # fmt: skip
        assert listed == {never: said, said[0]: [never], said[1]: [never]}
        uids = [never, *said]
        conn.execute("SELECT archivist_resolve_state_item(%s, %s)", [uids[settled], action])
        assert_stored_is_computed(conn, ["u1"])
        now = conn.execute(
            "SELECT uid, current, conflict FROM archivist_state_items('u1') ORDER BY uid"
        ).fetchall()
    assert now == [(uid, c, False) for uid, c in zip(uids, current, strict=True)]


def test_a_commit_in_time_order_reads_only_what_is_still_true_on_its_subject(
    db_url: str,
) -> None:
    """A subject changed many times: the items a session's item on it may change are itself and
    the one it stopped, not the four stopped before its time (found without reading them,
    sql/003); each commit still stores what the whole scope computes."""
    values = ["Redis", "Memcached", "Valkey", "Dragonfly", "KeyDB", "Garnet"]
    with psycopg.connect(db_url, autocommit=True) as conn:
        for n, value in enumerate(values):
            item = {
                "uid": f"d_{n:012x}", "type": "decision", "text": f"Use {value} for the cache",
                "status": "active", "subject": "cache", "value": value,
                "change": "replace" if n else None, "refs": [0],
                "created_at": (T0 + n * DAY).isoformat(),
            }  # fmt: skip
            index_session(conn, f"s{n}", None, [item])
            assert_stored_is_computed(conn, [None])
        looked_up = conn.execute(
            "SELECT array_agg(s.value ORDER BY s.value) FROM archivist_state_neighbours("
            "ARRAY(SELECT i FROM jarvis_state_items i WHERE i.session_id = 's5'), false) n "
            "JOIN jarvis_state_items s ON s.id = n.id"
        ).fetchone()
        stopped = conn.execute(
            "SELECT count(*) FROM jarvis_state_items WHERE stopped_at IS NOT NULL"
        ).fetchone()
    assert stopped == (5,)
    assert looked_up == (["Garnet", "KeyDB"],)


def test_storing_the_state_never_scans_the_table(db_url: str) -> None:
    """The state step reads a few rows by id or by a key's index, whatever the statistics say:
    a table analyzed while empty or small is cheapest to scan, and a plan that scans it, kept
    by the connection, scanned it once per lookup as it grew (docs/current-state.md, Speed)."""
    rng = random.Random(3)
    scans = "SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relname = 'jarvis_state_items'"
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE jarvis_state_items")
        for n in range(12):
            index_session(conn, f"s{n:02d}", rng.choice(USERS), random_items(rng, T0 + n * DAY))
        row = conn.execute(
            "SELECT array_agg(s)::text FROM jarvis_state_items s WHERE s.session_id >= 's09'"
        ).fetchone()
        assert row is not None and row[0]
        with conn.transaction():
            before = conn.execute(scans).fetchone()
            stored = conn.execute(
                "SELECT archivist_store_state(%s::jarvis_state_items[])", [row[0]]
            ).fetchone()
            after = conn.execute(scans).fetchone()
    assert stored == (0,)  # stored already: only read
    assert before == after


def test_init_fills_stored_results_missing_or_made_by_other_rules(
    db_url: str, tmp_path: Path
) -> None:
    rng = random.Random(7)
    with psycopg.connect(db_url, autocommit=True) as conn:
        for n in range(12):
            index_session(conn, f"s{n}", rng.choice(USERS), random_items(rng, T0 + n * DAY))
        want = conn.execute(f"SELECT {COLUMNS} FROM archivist_state_items() {ORDER}").fetchall()
        # as sql/061 leaves an archive (nothing stored), and as other rules would have stored it
        conn.execute(
            "UPDATE jarvis_state_items SET current = NULL, in_conflict = NULL, stopped_at = NULL"
        )
        assert conn.execute("SELECT archivist_refresh_state()").fetchone() == (
            conn.execute("SELECT count(*)::integer FROM jarvis_state_items").fetchone()
        )
        conn.execute("UPDATE jarvis_state_items SET current = NOT current")
        assert conn.execute("SELECT archivist_refresh_state()").fetchone() == (0,)  # same rules
        conn.execute("UPDATE archivist_meta SET value = 'other' WHERE key = 'state_rules'")
        assert conn.execute("SELECT archivist_refresh_state()").fetchone() != (0,)
        assert (
            conn.execute(f"SELECT {COLUMNS} FROM archivist_state_items() {ORDER}").fetchall()
            == want
        )
        # an archive from before sql/061, as `init` finds it: nothing stored, no rules recorded,
        # subjects keyed by an older archivist_subject_key
        conn.execute("UPDATE jarvis_state_items SET current = NULL, stopped_at = NULL")
        conn.execute("UPDATE jarvis_state_items SET subject_key = subject_key || '{limit}'")
        conn.execute("DELETE FROM archivist_meta WHERE key = 'state_rules'")
        env = {"DATABASE_URL": db_url, "ARCHIVIST_EMBEDDER": "hash",
               "ARCHIVIST_DATA_DIR": str(tmp_path), "ARCHIVIST_CONFIG": ""}  # fmt: skip
        done = run_archivist(["init"], env)
        assert done.returncode == 0, done.stderr
        stored = conn.execute(f"SELECT {COLUMNS} FROM archivist_state_items() {ORDER}")
        assert stored.fetchall() == want
        assert_stored_is_computed(conn, USERS)


@pytest.mark.parametrize(
    "value",
    ["10k", "$500", "12%", "30 min", "up to 150", "2-week", "583", "at 10", "Q2", "9:30",
     "Wednesdays", "the 17th", "Ally", "5e", "Mint 15 GB", "iPhone 15 Pro", "plan at $9",
     "daily 9:15", "every other saturday at 2", "the last sunday of each month", "last week",
     "21 of May", "14 March", "5 mayonnaise jars", "", None],
)  # fmt: skip
def test_a_values_side_is_the_same_in_python_and_sql(db_url: str, value: str | None) -> None:
    with psycopg.connect(db_url) as conn:
        row = conn.execute("SELECT archivist_value_side(%s)", [value]).fetchone()
    assert row == (value_side(value),)


# -- through the real pipeline and CLI -----------------------------------------------------------

A, B = "user-a", "user-b"


def test_archive_runs_forget_and_resolve_keep_the_stored_state_exact(
    db_url: str, tmp_path: Path
) -> None:
    settings = Settings(
        database_url=db_url,
        embedder="hash",
        data_dir=tmp_path,
        delay_ms=0,
        sources=SourceTables(message_user_id="user_id"),
    )
    env = {
        "DATABASE_URL": db_url,
        "ARCHIVIST_EMBEDDER": "hash",
        "ARCHIVIST_DATA_DIR": str(tmp_path),
        "ARCHIVIST_MESSAGE_USER_ID": "user_id",
        "ARCHIVIST_CONFIG": "",
    }
    users: list[str | None] = [None, A, B]
    with SourceDB.create(db_url) as source, psycopg.connect(db_url, autocommit=True) as conn:
        source.conn.execute("ALTER TABLE session_messages ADD COLUMN user_id text")
        init_database(settings)

        def add(session: str, user: str, lines: list[str], day: int) -> None:
            ids = source.add(session, [x for line in lines for x in (line, "Ok.")], T0 + day * DAY)
            source.conn.execute(
                "UPDATE session_messages SET user_id = %s WHERE id = ANY (%s)", [user, ids[::2]]
            )

        def run() -> None:
            report = archive(settings, ArchiveRequest(delay_ms=0))
            assert not report.failed and report.error is None
            assert_stored_is_computed(conn, users)
            assert_current_reads_as_computed(conn, users)

        # a newer session archived first; the older one it changes comes after
        add("a3", A, ["We're moving the session cache from Redis to Memcached."], 3)
        add("b1", B, ["Let's use Redis for the session cache."], 1)
        run()
        add("a1", A, ["Let's use Redis for the session cache.", "Use Postgres for billing."], 1)
        add("a2", A, ["The marketing site is deployed on Netlify."], 2)
        add("a4", A, ["The marketing site is deployed on Vercel."], 4)
        run()
        current = {i["text"] for i in run_json(env, "state", "--current", "--user-id", A)}
        assert "Use Redis for the session cache" not in current
        conflicts = run_json(env, "conflicts", "--user-id", A)
        assert len(conflicts) == 2
        # a new version of a session: its items replace the old ones
        add("a1", A, ["Actually, billing moves to MySQL instead of Postgres."], 1)
        run()
        # resolutions: keep one side of the conflict, then drop the other
        with Archivist(settings) as client:
            client.resolve(conflicts[0]["uid"], "keep")
        assert_stored_is_computed(conn, users)
        assert run_json(env, "conflicts", "--user-id", A) == []
        with Archivist(settings) as client:
            client.resolve(conflicts[1]["uid"], "drop")
        assert_stored_is_computed(conn, users)
        assert_current_reads_as_computed(conn, users)
        # forgetting the session that changed the cache brings the older choice back
        done = run_archivist(["forget", "--session-id", "a3", "--json"], env)
        assert done.returncode == 0, done.stderr
        assert_stored_is_computed(conn, users)
        current = {i["text"] for i in run_json(env, "state", "--current", "--user-id", A)}
        assert "Use Redis for the session cache" in current
        assert_current_reads_as_computed(conn, users)


def run_json(env: dict[str, str], *args: str) -> list[dict[str, Any]]:
    done = run_archivist([*args, "--json"], env)
    assert done.returncode == 0, done.stderr
    items: list[dict[str, Any]] = json.loads(done.stdout)["items"]
    return items


INDEX_SCANS = """
SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_indexes
WHERE indexrelname = %s
"""


@pytest.mark.parametrize("user", [None, "u1"])
def test_state_current_reads_the_current_index(db_url: str, user: str | None) -> None:
    rng = random.Random(3)
    index = f"jarvis_state_items_current{'_all' if user is None else ''}_idx"
    with psycopg.connect(db_url, autocommit=True) as conn:
        for n in range(30):
            index_session(conn, f"s{n}", rng.choice(USERS), random_items(rng, T0 + n * DAY))
        conn.execute("ANALYZE jarvis_state_items")

        def scans() -> int:
            conn.execute("SELECT pg_stat_force_next_flush()")
            conn.execute("SELECT pg_stat_clear_snapshot()")
            row = conn.execute(INDEX_SCANS, [index]).fetchone()
            assert row is not None
            return int(row[0])

        before = scans()
        conn.execute("SET enable_seqscan = off")  # as on a large table
        conn.execute("SELECT archivist_current_state(%s)", [user])
        assert scans() > before


def test_two_commits_in_one_scope_at_once_each_see_the_others_items(db_url: str) -> None:
    """The second commit's state step waits for the first one's transaction: what it stores is
    computed with the first one's items, not without them."""
    first = [
        {"uid": "d_000000000001", "type": "decision", "text": "Redis for the session cache",
         "status": "active", "subject": "session cache", "value": "Redis",
         "created_at": (T0 + DAY).isoformat()},
    ]  # fmt: skip
    second = [
        {"uid": "d_000000000002", "type": "decision", "text": "session cache: Memcached",
         "status": "active", "subject": "session cache", "value": "Memcached",
         "change": "replace", "replaces": "Redis", "created_at": (T0 + 2 * DAY).isoformat()},
    ]  # fmt: skip
    with psycopg.connect(db_url) as one, psycopg.connect(db_url) as two:
        index_session(one, "s1", "u1", first)  # in a transaction, not committed yet
        done: list[BaseException | None] = []

        def commit_second() -> None:
            try:
                index_session(two, "s2", "u1", second)
                two.commit()
                done.append(None)
            except BaseException as error:  # noqa: BLE001 - reported below
                done.append(error)

        thread = threading.Thread(target=commit_second)
        thread.start()
        thread.join(1.0)
        assert thread.is_alive() and not done  # waiting for the first commit's scope
        one.commit()
        thread.join(30)
        assert done == [None]
    with psycopg.connect(db_url, autocommit=True) as conn:
        assert_stored_is_computed(conn, ["u1"])
        rows = conn.execute(
            "SELECT uid, current, superseded_by FROM jarvis_state_items ORDER BY uid"
        ).fetchall()
    assert rows == [("d_000000000001", False, "d_000000000002"), ("d_000000000002", True, None)]


@pytest.mark.parametrize(
    "subject",
    ["session cache", "offsite venue", "pickup time", "upload limit", "max upload count",
     "guest cap", "budget ceiling", "cap", "max upload", "", None],
)  # fmt: skip
def test_a_subjects_key_is_the_same_in_python_and_sql(db_url: str, subject: str | None) -> None:
    with psycopg.connect(db_url) as conn:
        row = conn.execute("SELECT archivist_subject_key(%s)", [subject]).fetchone()
    assert row is not None and tuple(sorted(row[0])) == subject_key(subject)
