"""`archivist state` and `archivist history`: the compact block, its order, the version diffs."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from sources import T0, SourceDB
from test_archive import run
from test_cli import env, invoke  # noqa: F401  (env is a fixture)

from archivist.config import Settings
from archivist.state.items import StateItem, compute_uid
from archivist.state.view import ordered, render_line, render_state


def item(text: str, item_type: str, **kw: object) -> StateItem:
    return StateItem.model_validate(
        {
            "uid": compute_uid(item_type, text),  # type: ignore[arg-type]
            "type": item_type,
            "text": text,
            "status": kw.pop("status", "active"),
            "refs": ["1"],
            **kw,
        }
    )


def test_line_format_low_confidence_and_conflict() -> None:
    q = item(
        "Cache embeddings client-side?",
        "question",
        status="open",
        confidence="low",
        topic_tags=["arch", "x"],
        refs=["1", "2"],
    )
    assert (
        render_line(q)
        == f"[{q.uid}] QUESTION (open, low) arch: Cache embeddings client-side? [refs:2]"
    )
    r = item("No rate limiting on refresh", "risk", conflict=True)
    assert (
        render_line(r) == f"[{r.uid}] RISK (active) No rate limiting on refresh [refs:1] CONFLICT"
    )


def test_order_pinned_type_confidence_recency_and_no_superseded() -> None:
    t = datetime(2026, 1, 1, tzinfo=UTC)
    items = [
        item("Old question", "question", status="open"),
        item("Risky", "risk"),
        item("Recent action", "action", status="open", last_seen_at=t + timedelta(days=2)),
        item("Older action", "action", status="open", last_seen_at=t),
        item(
            "Low action",
            "action",
            status="open",
            confidence="low",
            last_seen_at=t + timedelta(days=9),
        ),
        item("A decision", "decision"),
        item("Gone decision", "decision", status="superseded"),
        item("Pinned risk", "risk", pinned=True),
        item("Limit", "constraint"),
    ]
    assert [i.text for i in ordered(items)] == [
        "Pinned risk",
        "A decision",
        "Limit",
        "Recent action",
        "Older action",
        "Low action",
        "Risky",
        "Old question",
    ]
    block = render_state(items, t).splitlines()
    assert block[0] == "State (updated: 2026-01-01T00:00Z, items: 8)"
    assert render_state([item("x y", "decision", status="superseded")], t) == ""


@pytest.mark.usefixtures("env")
def test_state_and_history_commands(source: SourceDB, settings: Settings) -> None:
    settings = settings.model_copy(
        update={"state_conflict_threshold": 0.3, "state_merge_threshold": 0.99}
    )
    source.add("cache", ["Let's use Redis for caching.", "I'll write the warm-up script."])
    run(settings)
    source.add(
        "cache",
        [
            "Actually, let's use Memcached instead of Redis for caching.",
            "- [x] write the warm-up script",
        ],
        start=T0 + timedelta(hours=1),
    )
    run(settings)

    block = invoke("state", "cache")
    assert block.exit_code == 0, block.stderr
    lines = block.stdout.strip().splitlines()
    assert lines[0].startswith("State (updated: 2026-03-01T10:01Z, items: ")
    assert (
        "DECISION (active) caching: Use Memcached instead of Redis for caching [refs:1]" in lines[1]
    )
    assert "Use Redis for caching" not in block.stdout  # superseded: not in the block
    as_json = json.loads(invoke("state", "cache", "--json").stdout)
    assert as_json["version"] == 2 and as_json["items"][0]["type"] == "decision"

    hist = json.loads(invoke("history", "cache", "--json").stdout)
    v1, v2 = hist["versions"]
    assert (v1["version"], v2["version"]) == (1, 2) and v1["extractor"] == "rules/1"
    assert {i["type"] for i in v1["added"]} == {"decision", "action"}
    [gone] = v2["superseded"]
    assert gone["text"] == "Use Redis for caching"
    assert gone["evidence"]["trigger"] == "instead" and gone["replaced_by"].startswith("d_")
    assert [(s["status_from"], s["status_to"]) for s in v2["status_changes"]] == [("open", "done")]
    assert "memcached" in " ".join(v2["topics_added"] + v2["entities_added"]).lower()
    table = invoke("history", "cache")
    assert "superseded by d_" in table.stdout and "open -> done" in table.stdout


@pytest.mark.usefixtures("env")
def test_unknown_session_is_one_clear_line() -> None:
    for command in ("state", "history"):
        result = invoke(command, "nope")
        assert result.exit_code == 1
        assert "session nope has no archived version yet" in result.stderr
        assert "Traceback" not in result.output
