"""archive-search over state items: --type and --status, from the CLI and from Python."""

from __future__ import annotations

import json

import pytest
from support.archiving import run
from support.cli import env, invoke  # noqa: F401  (env is a fixture)
from support.sources import SourceDB

from archivist import archive_search
from archivist.config import Settings


def archived(source: SourceDB, settings: Settings) -> None:
    source.add(
        "cache", ["We've agreed to use Redis for caching.", "I'll write the warm-up script."]
    )
    source.add("trip", ["Book the hotel in Lisbon.", "I booked the hotel in Lisbon."])
    source.add("chat", ["hello there", "hi!"])
    run(settings)


def test_python_api_filters_by_type_and_status(source: SourceDB, settings: Settings) -> None:
    archived(source, settings)
    result = archive_search(item_types=["action"], item_statuses=["open"], settings=settings)
    assert [h.session_id for h in result.hits] == ["cache"]
    [hit] = result.hits
    assert [(i.type, i.status) for i in hit.state_items] == [("action", "open")]
    done = archive_search(item_types=["action"], item_statuses=["done"], settings=settings)
    assert [h.session_id for h in done.hits] == ["trip"]
    decisions = archive_search(item_types=["decision"], settings=settings)
    assert [i.text for h in decisions.hits for i in h.state_items] == ["Use Redis for caching"]
    everything = archive_search(session_ids=["cache"], settings=settings)
    assert len(everything.hits[0].state_items) == 2  # no item filter: all items


@pytest.mark.usefixtures("env")
def test_cli_type_and_status(source: SourceDB, settings: Settings) -> None:
    archived(source, settings)
    result = invoke("archive-search", "--type", "action", "--status", "open", "--json")
    assert result.exit_code == 0, result.stderr
    hits = json.loads(result.stdout)["hits"]
    assert [h["session_id"] for h in hits] == ["cache"]
    assert hits[0]["state_items"][0]["uid"].startswith("a_")
    table = invoke("archive-search", "--type", "decision")
    assert "decision (active): Use Redis for caching" in table.stdout


@pytest.mark.usefixtures("env")
def test_cli_refuses_an_unknown_type() -> None:
    result = invoke("archive-search", "--type", "wish")
    assert result.exit_code == 2 and "Traceback" not in result.output
