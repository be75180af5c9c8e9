"""memory-search --as-of: the archive as it stood at a date, from Python, the CLI and MCP's model.

Only what had been said by then is searched (chunks whose messages are all at or before it), so
a fact changed later is shown as it was, not as superseded by what came after.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest
from support.archiving import run
from support.sources import T0, SourceDB, run_archivist
from typer.testing import CliRunner

from archivist import memory_search
from archivist.cli import cli
from archivist.client import search
from archivist.config import Settings
from archivist.queries import MemoryQuery

BETWEEN = T0 + timedelta(days=3)
QUESTION = "what is the checkout API average?"


def two_weeks(source: SourceDB, settings: Settings) -> None:
    """The checkout API's average in week 1 (900 ms) and its update in week 2 (300 ms)."""
    source.add(
        "week1",
        ["Our checkout API answers in 900 ms on average.", "That is slow for a checkout."],
        start=T0,
    )
    source.add("chat", ["Any plans for the weekend?", "Hiking, probably."], start=T0)
    source.add(
        "week2",
        ["Good news: the checkout API average is down to 300 ms now.", "Great improvement!"],
        start=T0 + timedelta(days=7),
    )
    run(settings)


def invoke(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def last_at(metadata: dict[str, object]) -> datetime:
    return datetime.fromisoformat(str(metadata["last_at"]))


@pytest.mark.both_transports
def test_as_of_shows_the_old_fact_unsuperseded(source: SourceDB, settings: Settings) -> None:
    two_weeks(source, settings)
    now = memory_search(QUESTION, settings=settings, source="session_turn")
    sessions = [h.session_id for h in now.hits]
    assert sessions.index("week2") < sessions.index("week1")  # the newer ranks first
    assert now.hits[sessions.index("week1")].superseded_by is not None
    assert now.as_of is None

    then = memory_search(QUESTION, settings=settings, as_of=BETWEEN)
    assert then.as_of == BETWEEN
    assert then.hits and {h.session_id for h in then.hits} <= {"week1", "chat"}
    assert all(last_at(h.metadata) <= BETWEEN for h in then.hits)
    old = next(h for h in then.hits if "900 ms" in h.content)
    assert old.session_id == "week1" and old.superseded_by is None
    assert all(h.superseded_by is None for h in then.hits)
    # every mode obeys it (vector mode reads another SQL path)
    for mode in ("vector", "text"):
        hits = memory_search(QUESTION, settings=settings, as_of=BETWEEN, mode=mode).hits
        assert hits and all(h.session_id != "week2" for h in hits), mode


def test_as_of_leaves_out_what_a_session_said_later(source: SourceDB, settings: Settings) -> None:
    """A session that went on after the date: its earlier turns are found, its later turns and
    its summary and extraction pieces (which cover the later turns too) are not."""
    early = ["We deploy the checkout API on Vercel.", "Fine, Vercel it is."] * 2
    late = ["We moved the checkout API deploys to Fly.io.", "Fly.io works well."] * 2
    ids = source.add("deploys", early, start=T0)
    source.add("deploys", late, start=T0 + timedelta(days=10))
    run(settings)
    hits = memory_search(
        "where do we deploy the checkout API?", settings=settings, as_of=BETWEEN
    ).hits
    assert hits and all(h.source == "session_turn" for h in hits)
    assert {m for h in hits for m in h.message_ids} <= {str(i) for i in ids}
    assert not any("Fly.io" in h.content for h in hits)
    everything = memory_search("where do we deploy the checkout API?", settings=settings).hits
    assert any("Fly.io" in h.content for h in everything)


def test_as_of_through_the_query_model_of_mcp() -> None:
    q = MemoryQuery.model_validate({"query": "x", "as_of": "2026-03-01"})
    assert q.as_of is not None and q.as_of.isoformat() == "2026-03-01T00:00:00+00:00"
    schema = MemoryQuery.model_json_schema()["properties"]["as_of"]
    assert "as it stood" in str(schema.get("description"))


@pytest.mark.usefixtures("env")
def test_cli_as_of(source: SourceDB, settings: Settings) -> None:
    two_weeks(source, settings)
    result = invoke(
        "memory-search", QUESTION, "--as-of", BETWEEN.date().isoformat() + "T00:00", "--json"
    )
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert datetime.fromisoformat(doc["as_of"]) == BETWEEN.replace(hour=0, minute=0, second=0)
    assert doc["hits"] and all(h["session_id"] != "week2" for h in doc["hits"])
    old = next(h for h in doc["hits"] if "900 ms" in h["content"])
    assert old["superseded_by"] is None
    table = invoke("memory-search", QUESTION, "--as-of", BETWEEN.date().isoformat())
    assert table.exit_code == 0 and " as of " in table.stdout


def test_cli_refuses_a_bad_as_of_date(source: SourceDB) -> None:
    """Through the real entry point: one line in the project's words, exit 2."""
    env = {"DATABASE_URL": source.url, "ARCHIVIST_EMBEDDER": "hash"}
    for value, said in (("yesterdayish", "--as-of"), ("2026-02-30", "--as-of")):
        done = run_archivist(["memory-search", "checkout", "--as-of", value], env)
        shown = [line for line in done.stderr.splitlines() if line.strip()]
        assert done.returncode == 2, done.stderr
        assert len(shown) == 1 and said in shown[0] and "Traceback" not in done.stderr
    later = run_archivist(
        ["memory-search", "checkout", "--since", "2026-03-05", "--as-of", "2026-03-01"], env
    )
    assert later.returncode == 2 and "is after as_of" in later.stderr, later.stderr


def test_the_hybrid_search_as_of_searches_chunks_as_of_too(
    source: SourceDB, settings: Settings
) -> None:
    two_weeks(source, settings)
    result = search(QUESTION, settings=settings, as_of=BETWEEN)
    chunks = [c for s in result.sessions for c in s.chunks]
    assert chunks and all(last_at(c.metadata) <= BETWEEN for c in chunks)
    assert "week2" not in {s.session_id for s in result.sessions}
