"""Benchmark of `state --current` (archivist_current_state) and of storing the current state at
commit time (archivist_index_state), at 10k sessions, in a throw-away embedded Postgres.

Everything runs against one embedded Postgres 16 (`pgserver`, scripts/bench/kit.py: started in a
temporary directory and deleted afterwards, or the one scripts/bench/all.py shares), on a
database `archivist init` made. The state items are synthetic and written straight into
jarvis_state_items (no extraction, no embedding): N sessions (default 10,000) of about 5 items
each; 90 % of the sessions belong to U users (default 200), the rest to none (one scope, as an
archive without per-user memory has). Each scope revisits its subjects the way a person does:
half of a session's decisions are on a subject the scope already has, and those are changes
(replace, update, reverse), restatements, or a different value without change language (a
conflict); subjects nest ("cache" within "session cache"); a few changes name only the value
they drop ("we no longer use Jenkins"); some items are superseded within their session; about
one item in seven is not a decision or constraint. Generated from `--seed`.

Measured, in this order:

1. Loading: all but the last K sessions (default 200) are inserted in bulk and their current
   state computed at once (`archivist_refresh_state(true)`, the whole archive: what init does
   after an upgrade).
2. Commit cost: the K held-back sessions, drawn from the whole time range (so most are older
   than sessions already archived: out of time order), committed one by one through
   `archivist_index_state`, each in its own transaction (what `archivist_commit_version` runs
   for the state). Then a new version (the same items again) of K archived sessions, before
   and after: the statements `archivist_index_state` ran before the current state was stored
   (delete and insert the session's rows, sql/060) against the function now, alternately, each
   in a transaction rolled back. Then the stored rows are checked against the computed ones
   (`archivist_reconcile_state` over the whole archive): the script exits 1 if one differs.
3. Reads, each on one warm connection, function and hand query alternately, for random users
   (user scope) and for the whole archive (`p_user_id` NULL), limit 200 as the CLI asks:
   - `SELECT archivist_current_state(user, NULL, NULL, 200, false)`: what `state --current`,
     the Python client and the MCP tool read;
   - the hand query: the same rows from the same table, written for this one question: the
     scope's current items newest first (`WHERE current AND user_id = $1 ORDER BY became_at
     DESC NULLS LAST, session_id, uid LIMIT 200`) with, per row, the uids of the items it
     replaced (a correlated subquery on superseded_by_session, superseded_by) and the count of
     the scope's current items, returned as rows;
   - for reference, the read as it was before (every item of the scope reconciled on each read:
     the general query over `archivist_reconcile_state`), a few calls.
   Wall time per call, as the client sees it (including fetching the result), p50 and p95.

Run:  python -m scripts.bench.current                      (10k sessions, 200 users)
      python -m scripts.bench.current --sessions 1000 --users 20 --calls 50   (quick)
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from scripts.bench.corpus import TEMPLATE_DB, Server
from scripts.bench.kit import embedded_server

Conn = psycopg.Connection[tuple[Any, ...]]
T0 = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)

SUBJECTS = (
    "session cache", "cache", "job queue", "queue", "primary database", "database",
    "analytics database", "deploy target", "frontend hosting", "error monitoring", "logging",
    "log retention", "search backend", "search index", "auth provider", "login",
    "payment provider", "email provider", "ci pipeline", "ci runner", "feature flags",
    "object storage", "cdn", "metrics", "alerting", "api gateway", "message broker", "orm",
    "web framework", "mobile framework", "state management", "container orchestration",
    "secrets store", "dns", "backup schedule", "release cadence", "code review policy",
    "test runner", "linting", "formatting",
)  # fmt: skip
VALUES = (
    "Redis", "Memcached", "Postgres", "MySQL", "SQLite", "ClickHouse", "Vercel", "Netlify",
    "Fly.io", "Sentry", "Datadog", "Grafana", "Prometheus", "Elasticsearch", "Meilisearch",
    "Auth0", "Clerk", "Stripe", "Paddle", "SendGrid", "Postmark", "GitHub Actions", "Jenkins",
    "LaunchDarkly", "S3", "R2", "Cloudflare", "Kafka", "RabbitMQ", "SQS", "Django", "FastAPI",
    "React Native", "Flutter", "Kubernetes", "Nomad", "Vault", "weekly", "nightly", "pytest",
)  # fmt: skip
OTHER_TYPES = ("fact", "action", "todo")

# archivist_index_state before the current state was stored (sql/060): the session's rows out,
# its new ones in; nothing else.
INDEX_STATE_BEFORE = (
    "DELETE FROM jarvis_state_items s WHERE s.session_id = %(session)s",
    """
INSERT INTO jarvis_state_items (archive_id, session_id, user_id, uid, type, text, status,
                                subject, subject_key, value, value_key, change, replaces,
                                old_key, replaced_by, conflict, refs, became_at, last_seen_at)
SELECT %(archive)s, %(session)s, %(user)s, i ->> 'uid', i ->> 'type', i ->> 'text',
       i ->> 'status', i ->> 'subject',
       tsvector_to_array(to_tsvector('english', coalesce(i ->> 'subject', ''))),
       i ->> 'value', tsvector_to_array(to_tsvector('english', coalesce(i ->> 'value', ''))),
       i ->> 'change', i ->> 'replaces',
       tsvector_to_array(to_tsvector('english', coalesce(i ->> 'replaces', ''))),
       i ->> 'replaced_by', coalesce((i ->> 'conflict')::boolean, false),
       coalesce(i -> 'refs', '[]'), (i ->> 'created_at')::timestamptz,
       (i ->> 'last_seen_at')::timestamptz
FROM jsonb_array_elements(%(items)s::jsonb) i
ON CONFLICT (session_id, uid) DO NOTHING
""",
)

# Bulk load: many sessions' items in one statement, keys as archivist_index_state derives them.
BULK_ITEMS = """
INSERT INTO jarvis_state_items (archive_id, session_id, user_id, uid, type, text, status,
                                subject, subject_key, value, value_key, change, replaces,
                                old_key, replaced_by, conflict, refs, became_at, last_seen_at)
SELECT a.id, a.session_id, a.user_id, i ->> 'uid', i ->> 'type', i ->> 'text', i ->> 'status',
       i ->> 'subject', tsvector_to_array(to_tsvector('english', coalesce(i ->> 'subject', ''))),
       i ->> 'value', tsvector_to_array(to_tsvector('english', coalesce(i ->> 'value', ''))),
       i ->> 'change', i ->> 'replaces',
       tsvector_to_array(to_tsvector('english', coalesce(i ->> 'replaces', ''))),
       i ->> 'replaced_by', coalesce((i ->> 'conflict')::boolean, false),
       coalesce(i -> 'refs', '[]'), (i ->> 'created_at')::timestamptz,
       (i ->> 'last_seen_at')::timestamptz
FROM jsonb_each(%s::jsonb) s(session_id, items)
JOIN jarvis_archive a ON a.session_id = s.session_id AND a.is_latest
CROSS JOIN LATERAL jsonb_array_elements(s.items) i
"""

FUNCTION = "SELECT archivist_current_state(%(user)s, NULL, NULL, 200, false)"
HAND_USER = """
SELECT (SELECT count(*) FROM jarvis_state_items c WHERE c.current AND c.user_id = %(user)s),
       i.session_id, i.user_id, i.uid, i.type, i.text, i.status, i.subject, i.value, i.change,
       i.refs, i.became_at, i.last_seen_at, i.stopped_at, i.superseded_by,
       i.superseded_by_session, i.trigger, i.resolution, i.conflict_with, i.in_conflict,
       i.current,
       ARRAY(SELECT o.uid FROM jarvis_state_items o
             WHERE o.superseded_by = i.uid AND o.superseded_by_session = i.session_id
               AND o.user_id = %(user)s ORDER BY o.became_at)
FROM jarvis_state_items i
WHERE i.current AND i.user_id = %(user)s
ORDER BY i.became_at DESC NULLS LAST, i.session_id, i.uid
LIMIT 200
"""
HAND_ALL = """
SELECT (SELECT count(*) FROM jarvis_state_items c WHERE c.current),
       i.session_id, i.user_id, i.uid, i.type, i.text, i.status, i.subject, i.value, i.change,
       i.refs, i.became_at, i.last_seen_at, i.stopped_at, i.superseded_by,
       i.superseded_by_session, i.trigger, i.resolution, i.conflict_with, i.in_conflict,
       i.current,
       ARRAY(SELECT o.uid FROM jarvis_state_items o
             WHERE o.superseded_by = i.uid AND o.superseded_by_session = i.session_id
             ORDER BY o.became_at)
FROM jarvis_state_items i
WHERE i.current
ORDER BY i.became_at DESC NULLS LAST, i.session_id, i.uid
LIMIT 200
"""
# The read before the current state was stored: every item of the scope reconciled, then the
# current ones, newest first (archivist_current_state's general query).
COMPUTED = """
WITH items AS MATERIALIZED (
    SELECT * FROM archivist_reconcile_state(%(user)s)
), chosen AS (
    SELECT i.*, count(*) OVER () AS total,
           row_number() OVER (ORDER BY -extract(epoch FROM i.became_at), i.session_id, i.uid) AS n
    FROM items i WHERE i.current
)
SELECT jsonb_build_object(
    'total', coalesce((SELECT max(total) FROM chosen), 0),
    'items', coalesce((
        SELECT jsonb_agg(to_jsonb(s) - 'n' - 'total' || jsonb_build_object('supersedes', (
                   SELECT coalesce(jsonb_agg(o.uid ORDER BY o.became_at), '[]') FROM items o
                   WHERE o.superseded_by = s.uid AND o.superseded_by_session = s.session_id))
               ORDER BY s.n)
        FROM chosen s WHERE s.n <= 200), '[]'))
"""
# Stored rows that differ from the computed ones, over the whole archive (0 when exact).
DIFFERENCES = """
WITH stored AS (SELECT * FROM archivist_state_items()),
     computed AS (SELECT session_id, user_id, uid, type, text, status, subject, value, change,
                         refs, became_at, last_seen_at, stopped_at, superseded_by,
                         superseded_by_session, trigger, resolution, conflict_with, conflict,
                         current
                  FROM archivist_reconcile_state())
SELECT (SELECT count(*) FROM (TABLE stored EXCEPT ALL TABLE computed) a)
     + (SELECT count(*) FROM (TABLE computed EXCEPT ALL TABLE stored) b),
       (SELECT count(*) FROM stored)
"""


@dataclass
class Session:
    session_id: str
    user_id: str | None
    start: datetime
    items: list[dict[str, Any]] = field(default_factory=list)


def generate(sessions: int, users: int, seed: int) -> list[Session]:
    """The sessions, in time order within each scope; see the module docstring."""
    rng = random.Random(seed)
    scoped = round(sessions * 0.9)
    owners: list[str | None] = [f"user-{rng.randrange(users):04d}" for _ in range(scoped)]
    owners += [None] * (sessions - scoped)
    year = timedelta(days=365).total_seconds()
    result = [
        Session(f"s{n:06d}", owner, T0 + timedelta(seconds=rng.uniform(0, year)))
        for n, owner in enumerate(owners)
    ]
    state: dict[str | None, dict[str, list[str]]] = {}  # scope -> subject -> values said
    uid = 0
    for session in sorted(result, key=lambda s: s.start):
        said = state.setdefault(session.user_id, {})
        for n in range(rng.randint(3, 7)):
            uid += 1
            at = session.start + timedelta(minutes=2 * n)
            item: dict[str, Any] = {
                "uid": f"d_{uid:012x}",
                "status": "active",
                "refs": [n],
                "created_at": at.isoformat(),
                "last_seen_at": (at + timedelta(minutes=1)).isoformat(),
                "subject": None,
                "value": None,
                "change": None,
                "replaces": None,
            }
            roll = rng.random()
            if roll < 0.15:
                item |= {"type": rng.choice(OTHER_TYPES), "text": f"note {uid}"}
            elif roll < 0.18 and said:  # a change naming only what it drops
                subject = rng.choice(list(said))
                old = said[subject][-1]
                item |= {"type": "decision", "value": old, "change": "cancel", "replaces": old}
            else:
                kind = "constraint" if rng.random() < 0.1 else "decision"
                if said and rng.random() < 0.5:
                    subject = rng.choice(list(said))
                    old = said[subject][-1]
                    how = rng.random()
                    if how < 0.55:
                        value, change = rng.choice(VALUES), "replace"
                        item["replaces"] = old
                    elif how < 0.65:
                        value, change = rng.choice(VALUES), "update"
                    elif how < 0.7 and len(said[subject]) > 1:
                        value, change = said[subject][-2], "reverse"
                    elif how < 0.85:
                        value, change = old, None  # said again
                    else:
                        value, change = rng.choice(VALUES), None  # disagrees: a conflict
                else:
                    subject, value, change = rng.choice(SUBJECTS), rng.choice(VALUES), None
                said.setdefault(subject, []).append(value)
                item |= {"type": kind, "subject": subject, "value": value, "change": change}
            item["text"] = item.get("text") or f"{item['subject']}: {item['value']}"
            item["conflict"] = False
            if session.items and rng.random() < 0.05:
                earlier = session.items[-1]
                earlier["status"] = "superseded"
                earlier["replaced_by"] = item["uid"]
            session.items.append(item)
    return result


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


def query_ms(conn: Conn, query: str, args: dict[str, Any]) -> float:
    """One query's wall time, its rows fetched."""
    started = time.perf_counter()
    conn.execute(query, args).fetchall()
    return (time.perf_counter() - started) * 1000


def load(conn: Conn, sessions: list[Session]) -> float:
    """The sessions' versions and items in bulk, then every stored result at once (seconds)."""
    with (
        conn.cursor() as cur,
        cur.copy(
            "COPY jarvis_archive (session_id, version, span, extraction, extractor, "
            "extractor_version, user_id, is_latest) FROM STDIN"
        ) as copy,
    ):
        for s in sessions:
            copy.write_row([s.session_id, 1, "{}", "{}", "bench", "1", s.user_id, True])
    for start in range(0, len(sessions), 1000):
        batch = {s.session_id: s.items for s in sessions[start : start + 1000]}
        conn.execute(BULK_ITEMS, [json.dumps(batch)])
    started = time.perf_counter()
    conn.execute("SELECT archivist_refresh_state(true)")
    elapsed = time.perf_counter() - started
    conn.execute("VACUUM ANALYZE jarvis_state_items")
    conn.execute("VACUUM ANALYZE jarvis_archive")
    return elapsed


def archive_id(conn: Conn, session: Session) -> Any:
    row = conn.execute(
        "INSERT INTO jarvis_archive (session_id, version, span, extraction, extractor, "
        "extractor_version, user_id, is_latest) SELECT %s, coalesce(max(version), 0) + 1, "
        "'{}', '{}', 'bench', '1', %s, true FROM jarvis_archive WHERE session_id = %s "
        "RETURNING id",
        [session.session_id, session.user_id, session.session_id],
    ).fetchone()
    assert row is not None
    return row[0]


def index_state(conn: Conn, session: Session, archive: Any) -> None:
    conn.execute(
        "SELECT archivist_index_state(%s, %s, %s, %s)",
        [session.session_id, archive, session.user_id, json.dumps(session.items)],
    )


def commits(conn: Conn, held: list[Session], again: list[Session]) -> dict[str, Any]:
    """The held-back sessions committed; new versions of `again`, before and after."""
    first: list[float] = []
    for session in held:
        with conn.transaction():
            archive = archive_id(conn, session)
            started = time.perf_counter()
            index_state(conn, session, archive)
            first.append((time.perf_counter() - started) * 1000)
    before: list[float] = []
    after: list[float] = []
    for session in again:
        row = conn.execute(
            "SELECT id FROM jarvis_archive WHERE session_id = %s AND is_latest",
            [session.session_id],
        ).fetchone()
        assert row is not None
        args = {
            "session": session.session_id,
            "archive": row[0],
            "user": session.user_id,
            "items": json.dumps(session.items),
        }
        with conn.transaction(force_rollback=True):
            started = time.perf_counter()
            for query in INDEX_STATE_BEFORE:
                conn.execute(query, args)
            before.append((time.perf_counter() - started) * 1000)
        with conn.transaction(force_rollback=True):
            started = time.perf_counter()
            index_state(conn, session, row[0])
            after.append((time.perf_counter() - started) * 1000)
    return {"new": percentiles(first), "before": percentiles(before), "after": percentiles(after)}


def reads(conn: Conn, users: list[str], calls: int, computed_calls: int) -> dict[str, Any]:
    """p50/p95 ms of the function, the hand query and the computed read, per scope."""
    rng = random.Random(1)
    out: dict[str, Any] = {}
    for scope, hand in (("user", HAND_USER), ("all", HAND_ALL)):
        n = calls if scope == "user" else max(10, calls // 4)
        function: list[float] = []
        manual: list[float] = []
        for i in range(n + 5):
            args = {"user": rng.choice(users) if scope == "user" else None}
            f = query_ms(conn, FUNCTION, args)
            h = query_ms(conn, hand, args)
            if i >= 5:  # warm-up calls not counted
                function.append(f)
                manual.append(h)
        computed = [
            query_ms(conn, COMPUTED, {"user": rng.choice(users) if scope == "user" else None})
            for _ in range(computed_calls)
        ]
        out[scope] = {
            "function": percentiles(function),
            "hand": percentiles(manual),
            "computed": percentiles(computed),
            "calls": n,
            "computed_calls": computed_calls,
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--held", type=int, default=200, help="sessions committed one by one")
    parser.add_argument("--calls", type=int, default=200, help="reads per scope (user)")
    parser.add_argument("--computed-calls", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sessions = generate(args.sessions, args.users, args.seed)
    rng = random.Random(args.seed + 1)
    held = rng.sample(sessions, args.held)
    held_ids = {s.session_id for s in held}
    loaded = [s for s in sessions if s.session_id not in held_ids]
    again = rng.sample(loaded, args.held)
    users = sorted({s.user_id for s in sessions if s.user_id is not None})
    with embedded_server() as shared:
        server = Server(shared)
        try:
            server.create_template()
            url = server.clone("bench_current")
            with psycopg.connect(url, autocommit=True) as conn:
                refresh_s = load(conn, loaded)
                commit = commits(conn, held, again)
                conn.execute("VACUUM ANALYZE jarvis_state_items")
                row = conn.execute(DIFFERENCES).fetchone()
                assert row is not None
                differences, items = int(row[0]), int(row[1])
                read = reads(conn, users, args.calls, args.computed_calls)
                current = conn.execute(
                    "SELECT count(*) FILTER (WHERE current), count(*) FILTER (WHERE in_conflict),"
                    " count(*) FILTER (WHERE trigger IS NOT NULL) FROM jarvis_state_items"
                ).fetchone()
                assert current is not None
        finally:
            server.drop("bench_current")
            server.drop(TEMPLATE_DB)
    result = {
        "sessions": args.sessions,
        "users": args.users,
        "items": items,
        "current_items": current[0],
        "in_conflict": current[1],
        "stopped": current[2],
        "refresh_all_s": refresh_s,
        "commit_ms": commit,
        "reads_ms": read,
        "stored_rows_differing_from_computed": differences,
    }
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(render(result, args.held))
    return 1 if differences else 0


def render(r: dict[str, Any], held: int) -> str:
    lines = [
        f"{r['sessions']:,} sessions ({r['users']} users and a scope without a user), "
        f"{r['items']:,} state items: {r['current_items']:,} current, {r['stopped']:,} stopped, "
        f"{r['in_conflict']:,} in conflict",
        f"whole archive's current state computed and stored at once: {r['refresh_all_s']:.2f} s",
        "",
        f"{'commit of a session state (ms)':<58}{'p50':>9}{'p95':>9}",
    ]
    c = r["commit_ms"]
    for label, key in (
        (f"new session, out of time order (n={held})", "new"),
        (f"new version, before: delete + insert only (n={held})", "before"),
        (f"new version, after: + stored reconciliation (n={held})", "after"),
    ):
        p50, p95 = c[key]
        lines.append(f"{label:<58}{p50:>9.2f}{p95:>9.2f}")
    lines += ["", f"{'state --current, limit 200 (ms)':<58}{'p50':>9}{'p95':>9}"]
    for scope, title in (("user", "one user"), ("all", "whole archive")):
        x = r["reads_ms"][scope]
        rows = (
            (f"{title}: archivist_current_state (n={x['calls']})", x["function"]),
            (f"{title}: hand query, same rows (n={x['calls']})", x["hand"]),
            (f"{title}: computed on read, as before (n={x['computed_calls']})", x["computed"]),
        )
        for label, (p50, p95) in rows:
            lines.append(f"{label:<58}{p50:>9.2f}{p95:>9.2f}")
        f50, f95 = x["function"]
        h50, h95 = x["hand"]
        ratio = f"{title}: function / hand query"
        lines.append(f"{ratio:<58}{f50 / h50:>8.2f}x{f95 / h95:>8.2f}x")
    lines += [
        "",
        f"stored rows differing from computed: {r['stored_rows_differing_from_computed']}"
        " (must be 0)",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
