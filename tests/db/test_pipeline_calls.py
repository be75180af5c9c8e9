"""What an archive run costs the database, counted on the Postgres side, and what a session
that grew embeds.

Statements are counted in the server's own log: `log_statement = 'all'` is set on the test's
database only, and the lines written during the run are read back with `pg_read_file`
(pgserver starts Postgres with `-l <pgdata>/log`). Every statement a client sends is one line,
so a BEGIN or a COMMIT counts like a call. Two runs over 3 and 6 new sessions differ only by
the sessions: the difference, divided by 3, is what one session costs, whatever the run's own
fixed statements (readiness, the run log, the session list) are.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from support.sources import T0, SourceDB
from support.statements import StatementLog

from archivist.client import archive
from archivist.config import Settings
from archivist.embed.hashing import HashEmbedder
from archivist.models import RunReport
from archivist.pipeline import ArchiveRequest
from archivist.store import SessionSelection

TALK = [
    "Should we move the billing API from Redis to Memcached?",
    "We decided to switch the billing API from Redis to Memcached.",
    "Remind me to rotate the Memcached credentials on Friday.",
    "I'll set up Grafana for the billing API and share the dashboard with Priya.",
    "Let's go with Terraform; Priya already has an account.",
    "Deployed: version 12 of the billing API is live on Fly.io.",
    "Why does Kubernetes keep restarting the pods of the ingest worker?",
    "The error comes from a missing index; adding it should fix the ingest worker.",
    "Next step: I'll open a PR that adds Sentry metrics to the ingest worker.",
    "ok, thanks, that worked.",
]


class CountingEmbedder(HashEmbedder):
    """The hash embedder, keeping the texts it was asked to embed (a real embedder)."""

    def __init__(self) -> None:
        super().__init__(dimension=768)
        self.texts: list[str] = []

    def embed_batch(self, texts: Any) -> Any:
        self.texts.extend(texts)
        return super().embed_batch(texts)


@pytest.fixture
def statements(pg_server: str, db_url: str) -> Iterator[Any]:
    """A StatementLog on the test's database: `start()`, then `lines()`."""
    database = psycopg.conninfo.conninfo_to_dict(db_url)["dbname"]
    log = StatementLog(pg_server, str(database))
    log.enable()
    try:
        yield log
    finally:
        log.disable()


def run(settings: Settings, embedder: HashEmbedder | None = None) -> RunReport:
    request = ArchiveRequest(selection=SessionSelection(limit=50), delay_ms=0)
    return archive(settings, request, embedder=embedder or HashEmbedder())


def add_sessions(source: SourceDB, prefix: str, count: int) -> None:
    for i in range(count):
        source.add(f"{prefix}-{i}", TALK, start=T0 + timedelta(hours=i))


def test_a_session_costs_at_most_four_statements(
    source: SourceDB, settings: Settings, statements: Any
) -> None:
    """The read, the commit and the let-go, and (its versions have decisions with values) the
    read of the archive's current state that ties a change to an earlier session's item."""
    add_sessions(source, "warm", 1)
    run(settings)  # the first run also adopts archived messages: not what is measured
    costs = []
    for prefix, count in (("three", 3), ("six", 6)):
        add_sessions(source, prefix, count)
        statements.start()
        report = run(settings)
        assert [s.status for s in report.sessions] == ["archived"] * count
        costs.append(len(statements.lines()))
    per_session = (costs[1] - costs[0]) / 3
    assert per_session <= 4, f"{per_session} statements per session ({costs})"
    # Nothing is wrapped in BEGIN/COMMIT: one statement, one round trip.
    statements.start()
    add_sessions(source, "nine", 1)
    run(settings)
    assert not [s for s in statements.lines() if re.search(r": (BEGIN|COMMIT)\b", s)]


def test_a_session_that_grew_embeds_only_its_new_turns_and_changed_items(
    source: SourceDB, settings: Settings
) -> None:
    source.add("grown", [f"{t} ({i})" for i in range(4) for t in TALK], start=T0)  # 40
    full = CountingEmbedder()
    run(settings, full)
    stored = {
        str(content)
        for (content,) in source.conn.execute("SELECT content FROM jarvis_memory_chunks")
    }
    source.add("grown", [f"{t} (later)" for t in TALK[:4]], start=T0 + timedelta(hours=5))
    grown = CountingEmbedder()
    run(settings, grown)
    assert grown.texts, "the new turns are embedded"
    # No text a stored chunk held is embedded again (an unchanged extraction piece, an item
    # whose status or references changed, a window's unchanged first piece).
    assert stored.isdisjoint(grown.texts)
    rows = source.conn.execute(
        "SELECT source, content FROM jarvis_memory_chunks WHERE archive_version = 2"
    ).fetchall()
    new_by_source: dict[str, set[str]] = {}
    for kind, content in rows:
        new_by_source.setdefault(str(kind), set()).add(str(content))
    # Whatever was embedded is the text of a chunk this version wrote, or a state candidate.
    written = set().union(*new_by_source.values())
    assert len(set(grown.texts) - written) <= len(TALK)
    assert len(grown.texts) < len(full.texts) / 4


def _calls(lines: list[str], function: str) -> list[tuple[int, str]]:
    """(log position, backend pid) of each statement that calls `function`."""
    return [
        (n, pid.group(1))
        for n, line in enumerate(lines)
        if function in line and (pid := re.search(r"\[(\d+)\]", line))
    ]


@pytest.mark.parametrize("pool", [4, 1])
def test_a_session_commits_beside_the_next_ones_read(
    source: SourceDB, settings: Settings, statements: Any, pool: int
) -> None:
    """Commits go over a connection of their own, so the next session is read (and planned)
    while the last one commits; it is let go only after. With one connection allowed, the
    commits take turns with the reads on it."""
    settings = settings.model_copy(update={"pool_max_size": pool})
    add_sessions(source, "warm", 1)
    run(settings)
    add_sessions(source, "two", 2)
    statements.start()
    report = run(settings)

    assert [s.status for s in report.sessions] == ["archived", "archived"]
    lines = statements.lines()
    reads = _calls(lines, "archivist_claim_read")  # the claim queue's take-and-read
    commits = _calls(lines, "archivist_commit_version")
    let_gos = _calls(lines, "archivist_let_go_session")
    assert len(reads) == len(commits) == len(let_gos) == 2
    assert reads[1][0] < let_gos[0][0]  # the second session read before the first let go
    pairs = zip(commits, let_gos, strict=True)
    assert all(n_commit < n_let_go for (n_commit, _), (n_let_go, _) in pairs)
    read_pids, commit_pids = {pid for _, pid in reads}, {pid for _, pid in commits}
    assert len(read_pids) == len(commit_pids) == 1
    assert (read_pids == commit_pids) == (pool == 1)
