"""`archivist state` and `archivist history`: the compact block, its order, the version diffs."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from support.archiving import run
from support.cli import env, invoke  # noqa: F401  (env is a fixture)
from support.sources import T0, SourceDB

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
    assert block[0] == "State (updated: 2026-01-01 00:00 UTC, items: 8)"
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
    assert lines[0].startswith("State (updated: 2026-03-01 10:01 UTC, items: ")
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
    [said] = [line for line in table.stdout.splitlines() if "superseded by" in line]
    ref = gone["evidence"]["ref_msg_id"]
    assert said.endswith(f"Use Redis for caching (instead, message {ref})")  # no raw JSON


@pytest.mark.usefixtures("env")
def test_unknown_session_is_one_clear_line() -> None:
    for command in ("state", "history"):
        result = invoke(command, "nope")
        assert result.exit_code == 2  # as archive --session-id with an id that has no messages
        assert "session nope has no archived version yet" in result.stderr
        assert "Traceback" not in result.output


SAMPLE = (
    Path(__file__).resolve().parents[2] / "archivist" / "samples" / "02_redis_to_memcached.json"
)


@pytest.mark.usefixtures("env")
@pytest.mark.parametrize("first_batch", [15, 10], ids=["one_batch", "completion_in_batch_2"])
def test_state_and_the_extraction_agree_on_what_is_done(
    source: SourceDB, settings: Settings, first_batch: int
) -> None:
    """The demo's "I've added the Memcached client behind SessionStore" (message 14) reports
    "Add the Memcached client to the API" done: the extraction and `archivist state` say so,
    whether the plan and the report were archived in one version or in two."""
    sample = json.loads(SAMPLE.read_text())
    sid, messages = sample["session_id"], sample["messages"]
    for part in (messages[:first_batch], messages[first_batch:]):
        if part:
            source.add(
                sid,
                [m["content"] for m in part],
                start=datetime.fromisoformat(part[0]["created_at"]),
                roles=[m["role"] for m in part],
            )
            run(settings)

    state = json.loads(invoke("state", sid, "--json").stdout)
    row = source.conn.execute(
        "SELECT a.extraction -> 'actions' FROM jarvis_archive_sessions s "
        "JOIN jarvis_archive a ON a.id = s.archive_id WHERE s.session_id = %s",
        [sid],
    ).fetchone()
    assert row is not None
    extraction_done = {a["description"] for a in row[0] if a["outcome"] == "done"}
    state_done = {
        i["text"] for i in state["items"] if i["type"] == "action" and i["status"] == "done"
    }
    assert "Add the Memcached client to the API" in extraction_done & state_done
    assert extraction_done == state_done
    open_in_state = {i["text"] for i in state["items"] if i["status"] == "open"}
    assert "Put it behind the existing SessionStore interface" in open_in_state
