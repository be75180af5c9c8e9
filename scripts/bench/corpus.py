"""What the archive benchmarks share: a synthetic corpus, a migrated template database to
clone, and the COPY floor an archive run is measured against.

The corpus is generated from a seed with `random.Random` (same seed, same corpus) and loaded
with binary COPY: N sessions x M messages of tool, service and decision talk, half of the
sessions with a bot summary. `Server` wraps the kit's server with a template database that
holds the source tables and the archivist's migrations. `copy_baseline` binary-COPies the rows
an archive run wrote, selected back, into copies of their tables with and without indexes.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from archivist.config import Settings
from archivist.source_tables import source_tables_sql
from archivist.store import EmbeddingConfig, PostgresStore
from scripts.bench import kit

EMBEDDING = EmbeddingConfig("hash-768", 768)
TEMPLATE_DB = "bench_template"
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
MESSAGE_STEP = timedelta(seconds=45)
SESSION_STAGGER = timedelta(minutes=3)

MESSAGE_COLUMNS = "id, session_id, role, content, created_at"
MESSAGE_TYPES = ["int8", "text", "text", "text", "timestamptz"]
# The column a corpus with users gives each message (sources.message_user_id).
USER_COLUMN = "user_id"

MessageRow = tuple[Any, ...]  # the MESSAGE_COLUMNS, then the user id in a corpus with users

# -- the synthetic corpus -----------------------------------------------------------------------

TOOLS = (
    "Vercel", "Redis", "Memcached", "Postgres", "Kafka", "Docker", "Kubernetes", "Terraform",
    "GitHub Actions", "Sentry", "Grafana", "Prometheus", "Supabase", "Cloudflare", "Nginx",
    "FastAPI", "Celery", "RabbitMQ", "S3", "Fly.io", "pgvector", "Airflow", "dbt", "Stripe",
)  # fmt: skip
SERVICES = (
    "the billing API", "the auth service", "the web app", "the ingest worker",
    "the search backend", "the nightly ETL", "the mobile API", "the admin dashboard",
    "the notification queue", "the reporting job",
)  # fmt: skip
PEOPLE = ("Maria", "Tom", "Priya", "Jonas", "Aiko", "Carlos")
USER_LINES = (
    "Can you check why {service} is slow since the last deploy?",
    "Should we move {service} from {tool2} to {tool}?",
    "let's use {tool} for {service}.",
    "I think we should go with {tool} instead of {tool2} for {service}.",
    "What's the cheapest way to run {service} on {tool}?",
    "Remind me to rotate the {tool} credentials on Friday.",
    "The {tool} dashboard shows {n} errors per minute on {service}.",
    "I prefer short answers with code examples.",
    "Please write a migration plan for {service}, {person} will review it.",
    "ok, thanks, that worked.",
    "Why does {tool} keep restarting the pods of {service}?",
    "We need {service} to handle {n} requests per second by next month.",
    "Let's go with {tool}; {person} already has an account.",
)
ASSISTANT_LINES = (
    "I'll deploy {service} to {tool} once the tests pass.",
    "We decided to switch {service} from {tool2} to {tool}.",
    "Let's use {tool} with a {n}-second timeout for {service}.",
    "The p95 latency of {service} went from {n} ms to {n2} ms after enabling {tool}.",
    "Next step: I'll open a PR that adds {tool} metrics to {service}.",
    "Done: {service} now reads its configuration from {tool}.",
    "Blocked: the {tool} API key for {service} has expired, {person} has to renew it.",
    "Here is the plan: snapshot the {tool2} data, cut {service} over to {tool}, then watch "
    "the alerts for an hour.",
    "The error comes from a missing index; adding it should bring {service} under {n2} ms.",
    "I'll set up {tool} for {service} and share the dashboard with {person}.",
    "{tool} caches the responses for {n} seconds, so stale reads are expected right after a write.",
    "You could also keep {tool2} and put {tool} in front of it as a read-through cache.",
    "Deployed: version {n} of {service} is live on {tool}.",
)
SUMMARY_LINES = (
    "The user is moving {service} to {tool}.",
    "Decided to use {tool} instead of {tool2}.",
    "Open issue: {service} latency around {n} ms.",
    "{person} owns the rollout of {service}.",
)


class ChatWriter:
    """Realistic-looking chat text from a seeded RNG: tools, services, decisions, actions."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def _fill(self, template: str) -> str:
        tool, tool2 = self.rng.sample(TOOLS, 2)
        return template.format(
            tool=tool,
            tool2=tool2,
            service=self.rng.choice(SERVICES),
            person=self.rng.choice(PEOPLE),
            n=self.rng.randint(2, 900),
            n2=self.rng.randint(2, 900),
        )

    def message(self, role: str) -> str:
        """One message of 50 to 400 characters."""
        lines = USER_LINES if role == "user" else ASSISTANT_LINES
        target = self.rng.randint(50, 400)
        text = self._fill(self.rng.choice(lines))
        while len(text) < target:
            text += " " + self._fill(self.rng.choice(lines))
        if len(text) > 400:
            text = text[:400].rsplit(" ", 1)[0]
        return text

    def summary(self) -> str:
        return " ".join(self._fill(line) for line in self.rng.sample(SUMMARY_LINES, 3))


def session_id(prefix: str, index: int) -> str:
    return f"{prefix}-{index:05d}"


def message_time(session_index: int, position: int) -> datetime:
    return T0 + SESSION_STAGGER * session_index + MESSAGE_STEP * position


def message_rows(
    writer: ChatWriter,
    prefix: str,
    sessions: int,
    positions: range,
    first_id: int,
    users: int = 0,
) -> Iterator[MessageRow]:
    """Messages at `positions` of every session (user first, then alternating); with `users`,
    session s belongs to user s mod users."""
    next_id = first_id
    for s in range(sessions):
        sid = session_id(prefix, s)
        user = (f"user-{s % users:04d}",) if users else ()
        for position in positions:
            role = "user" if position % 2 == 0 else "assistant"
            yield next_id, sid, role, writer.message(role), message_time(s, position), *user
            next_id += 1


def copy_messages(
    conn: psycopg.Connection[Any], rows: Iterable[MessageRow], users: bool = False
) -> int:
    """Binary COPY into session_messages (with USER_COLUMN if `users`); returns the row count."""
    columns, types = MESSAGE_COLUMNS, MESSAGE_TYPES
    if users:
        columns, types = f"{columns}, {USER_COLUMN}", [*types, "text"]
    count = 0
    with conn.cursor() as cur:
        copy_sql = f"COPY session_messages ({columns}) FROM STDIN (FORMAT BINARY)"
        with cur.copy(copy_sql) as copy:
            copy.set_types(types)
            for row in rows:
                copy.write_row(row)
                count += 1
    return count


def load_corpus(
    url: str, seed: int, prefix: str, sessions: int, messages: int, users: int = 0
) -> float:
    """Generate and load N x M messages and a summary for every other session; returns seconds.
    With `users`, the messages get a USER_COLUMN, the sessions spread over that many users."""
    writer = ChatWriter(random.Random(f"{seed}:{prefix}"))
    started = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        if users:
            add = f"ALTER TABLE session_messages ADD COLUMN IF NOT EXISTS {USER_COLUMN} text"
            conn.execute(add)
        rows = message_rows(writer, prefix, sessions, range(messages), 1, users)
        copy_messages(conn, rows, users=bool(users))
        summaries = [
            (session_id(prefix, s), writer.summary(), message_time(s, messages - 1))
            for s in range(0, sessions, 2)
        ]
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO session_summaries VALUES (%s, %s, %s)", summaries)
        conn.execute("ANALYZE session_messages")
        conn.execute("ANALYZE session_summaries")
    return time.perf_counter() - started


def grow_corpus(url: str, seed: int, prefix: str, sessions: int, old: int, extra: int) -> int:
    """Append `extra` messages to every session, after its last one; returns rows added."""
    writer = ChatWriter(random.Random(f"{seed}:{prefix}:growth"))
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM session_messages").fetchone()
        first_id = int(row[0]) if row else 1
        rows = message_rows(writer, prefix, sessions, range(old, old + extra), first_id)
        added = copy_messages(conn, rows)
        conn.execute("ANALYZE session_messages")
    return added


# -- the embedded server ------------------------------------------------------------------------


class Server(kit.Server):
    """The shared server, with a migrated template database holding the source tables."""

    def __init__(self, server: kit.Server) -> None:
        super().__init__(server.admin_url)

    def create_template(self) -> None:
        """A database with the source tables and the archivist's migrations applied."""
        self.create(TEMPLATE_DB)
        with psycopg.connect(self.url(TEMPLATE_DB), autocommit=True) as conn:
            conn.execute(source_tables_sql())
            PostgresStore(conn, Settings().sources).init(EMBEDDING)

    def clone(self, name: str) -> str:
        """A database cloned from the template, with any migration added since applied."""
        url = self.create(name, TEMPLATE_DB)
        with psycopg.connect(url, autocommit=True) as conn:
            PostgresStore(conn, Settings().sources).init(EMBEDDING)
        return url


# -- COPY baseline ------------------------------------------------------------------------------


@dataclass
class CopyStats:
    rows: int  # chunk rows
    indexed_s: float  # the chunk rows, into a table with every index
    bare_s: float  # the chunk rows, into a table without any index
    all_rows: int = 0  # every row the run wrote: chunks, versions, watermarks, message hashes,
    # state items
    all_indexed_s: float = 0.0  # all of them, into tables with the same indexes


# The tables an archive run writes rows into (those this schema has).
WRITTEN_TABLES = (
    "jarvis_memory_chunks",
    "jarvis_archive",
    "jarvis_archive_sessions",
    "archivist_message_hashes",
    "jarvis_state_items",
)


def copy_table(conn: psycopg.Connection[Any], table: str, like: str) -> tuple[int, float]:
    """Rows of `table`, binary-COPied out, then timed binary-COPied into a `LIKE` copy of it."""
    columns = [
        str(name)
        for (name,) in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
            "AND is_generated = 'NEVER' ORDER BY ordinal_position",
            [table],
        ).fetchall()
    ]
    names = ", ".join(f'"{c}"' for c in columns)
    data = bytearray()
    with conn.cursor() as cur:
        with cur.copy(f"COPY (SELECT {names} FROM {table}) TO STDOUT (FORMAT BINARY)") as out:
            for block in out:
                data += block
        rows = int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])  # type: ignore[index]
    target = f"bench_copy_{table}"
    conn.execute(f"DROP TABLE IF EXISTS {target}")
    conn.execute(f"CREATE TABLE {target} (LIKE {table} {like})")
    started = time.perf_counter()
    with conn.cursor() as cur:
        with cur.copy(f"COPY {target} ({names}) FROM STDIN (FORMAT BINARY)") as copy:
            copy.write(bytes(data))
    seconds = time.perf_counter() - started
    conn.execute(f"DROP TABLE {target}")
    return rows, seconds


def copy_baseline(url: str) -> CopyStats:
    """COPY the rows the archive wrote, as selected back, with every index and with none."""
    bare_like = "INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING STORAGE"
    with psycopg.connect(url, autocommit=True) as conn:
        present = {
            str(t)
            for (t,) in conn.execute(
                "SELECT tablename FROM pg_tables WHERE tablename = ANY(%s)", [list(WRITTEN_TABLES)]
            ).fetchall()
        }
        rows, indexed = copy_table(conn, "jarvis_memory_chunks", "INCLUDING ALL")
        _, bare = copy_table(conn, "jarvis_memory_chunks", bare_like)
        stats = CopyStats(rows=rows, indexed_s=indexed, bare_s=bare)
        for table in WRITTEN_TABLES:
            if table in present:
                n, seconds = copy_table(conn, table, "INCLUDING ALL")
                stats.all_rows += n
                stats.all_indexed_s += seconds
    return stats
