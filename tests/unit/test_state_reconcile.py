"""Reconciliation: merge, supersede, conflict, insert, and every guardrail around them."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from archivist.embed.base import Vector
from archivist.models import Message
from archivist.state.items import CandidateItem, ItemType, StateItem, compute_uid
from archivist.state.reconcile import admit, reconcile

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def vec(similarity: float) -> Vector:
    """A unit vector whose cosine with `vec(1.0)` is `similarity`."""
    return np.array([similarity, math.sqrt(max(0.0, 1 - similarity**2))], dtype=np.float32)


def msg(mid: str, role: str = "user", minutes: int = 0, text: str = "") -> Message:
    return Message(
        id=mid, session_id="s", role=role, content=text, created_at=T0 + timedelta(minutes=minutes)
    )


def old_item(
    text: str = "Use Redis for caching",
    item_type: ItemType = "decision",
    status: str = "active",
    tags: list[str] | None = None,
    seen: datetime = T0,
) -> StateItem:
    return StateItem(
        uid=compute_uid(item_type, text),
        type=item_type,
        text=text,
        status=status,
        topic_tags=tags if tags is not None else ["caching"],
        refs=["old1"],
        created_at=seen,
        last_seen_at=seen,
    )


def cand(
    text: str,
    item_type: ItemType = "decision",
    refs: list[str] | None = None,
    tags: list[str] | None = None,
    status: str | None = None,
    context: str | None = None,
) -> CandidateItem:
    candidate = CandidateItem(
        type=item_type, text=text, refs=refs or ["m1"], topic_tags=tags or [], status=status
    )
    return candidate.with_context(context) if context else candidate


def run(
    old: StateItem, candidate: CandidateItem, similarity: float, batch: list[Message] | None = None
):  # type: ignore[no-untyped-def]
    batch = batch or [msg("m1", minutes=5)]
    return reconcile([old], [candidate], batch, {old.uid: vec(1.0)}, [vec(similarity)])


def test_merge_above_threshold_unites_and_keeps_the_old_uid() -> None:
    old = old_item(item_type="action", text="Deploy the frontend", status="open")
    result = run(old, cand("Deploy frontend", "action", tags=["deploy"], status="done"), 0.95)
    assert [c.kind for c in result.changes] == ["status", "merged"]
    (item,) = result.items
    assert item.uid == old.uid and item.status == "done"
    assert item.refs == ["old1", "m1"] and item.topic_tags == ["caching", "deploy"]


def test_supersession_needs_trigger_verb_and_user_ref() -> None:
    old = old_item()
    text = "Use Memcached instead of Redis for caching"
    result = run(old, cand(text, tags=["caching"]), 0.86)
    superseded, added = result.items
    assert superseded.status == "superseded" and superseded.replaced_by == added.uid
    assert superseded.supersession_evidence == {
        "trigger": "instead",
        "ref_msg_id": "m1",
        "candidate_uid": added.uid,
    }
    assert not added.conflict and not superseded.conflict
    assert [c.kind for c in result.changes] == ["superseded", "added"]


def test_no_trigger_means_conflict_on_both() -> None:
    result = run(old_item(), cand("Use Memcached for caching"), 0.88)
    old, new = result.items
    assert old.conflict and new.conflict and old.status == "active"
    assert result.count("conflict") == 1


def test_a_weak_cue_without_a_replacement_verb_means_conflict() -> None:
    result = run(old_item(), cand("Memcached is actually faster for caching"), 0.88)
    assert all(i.conflict for i in result.items) and result.count("superseded") == 0


@pytest.mark.parametrize("similarity", [0.0, 0.5, 0.88, 1.0])
def test_an_explicit_cue_supersedes_whatever_the_vectors(similarity: float) -> None:
    """ "Instead of Redis" names what it replaces: no cosine band, no replacement verb needed."""
    result = run(old_item(), cand("Memcached instead of Redis for caching"), similarity)
    old, new = result.items
    assert old.status == "superseded" and old.replaced_by == new.uid
    assert old.supersession_evidence is not None
    assert old.supersession_evidence["trigger"] == "instead"
    assert [c.kind for c in result.changes] == ["superseded", "added"]


def test_an_explicit_cue_replaces_only_what_it_names_for_the_same_purpose() -> None:
    queue = old_item("Keep Redis for the job queue", tags=[])
    sessions = old_item("Use Redis for the session cache", tags=[])
    vectors = {queue.uid: vec(1.0), sessions.uid: vec(0.0)}  # the vectors favour the queue
    text = "Switch to Memcached instead of Redis for the session cache"
    result = reconcile([queue, sessions], [cand(text)], [msg("m1")], vectors, [vec(1.0)])
    assert [i.status for i in result.items[:2]] == ["active", "superseded"]
    elsewhere = reconcile([queue], [cand(text)], [msg("m1")], vectors, [vec(1.0)])
    assert elsewhere.count("superseded") == 0
    nothing = reconcile(
        [old_item("Use Postgres for analytics")],
        [cand("Use Memcached instead of Redis")],
        [msg("m1")],
        {},
        [vec(1.0)],
    )
    assert nothing.count("superseded") == 0


def test_identity_merges_a_todo_said_twice_whatever_the_vectors() -> None:
    old = old_item("I'll write the migration script tomorrow", "action", status="open")
    result = run(old, cand("Write the migration script", "action", status="open"), 0.0)
    assert [c.kind for c in result.changes] == ["merged"] and len(result.items) == 1


def test_assistant_ref_alone_cannot_supersede() -> None:
    batch = [msg("m1", role="assistant", minutes=5)]
    result = run(old_item(), cand("Use Memcached instead of Redis"), 0.88, batch)
    assert result.count("superseded") == 0 and all(i.conflict for i in result.items)


def test_trigger_in_the_sentence_counts() -> None:
    candidate = cand("Use Memcached", context="Actually, let's use Memcached for the cache.")
    result = run(old_item(), candidate, 0.88)
    assert result.items[0].supersession_evidence == {
        "trigger": "actually",
        "ref_msg_id": "m1",
        "candidate_uid": result.items[1].uid,
    }


def test_below_conflict_threshold_inserts() -> None:
    result = run(old_item(), cand("Use Memcached instead of Redis"), 0.80)
    assert [c.kind for c in result.changes] == ["added"]
    assert result.items[0].status == "active" and not result.items[0].conflict


def test_topic_overlap_adds_exactly_two_hundredths() -> None:
    just_below = 0.9001  # 0.9001 + 0.02 >= 0.92 only with a shared topic
    text = "Cache sessions with Redis"
    shared = run(old_item(), cand(text, tags=["caching"]), just_below)
    assert shared.count("merged") == 1
    assert shared.changes[0].score == round(just_below + 0.02, 4)
    other = run(old_item(), cand(text, tags=["db"]), just_below)
    assert other.count("merged") == 0 and other.count("conflict") == 1
    limit = run(old_item(), cand(text, tags=["caching"]), 0.8299)
    assert limit.count("conflict") == 0  # 0.8499 < 0.85


def test_no_cross_type_merges() -> None:
    old = old_item(item_type="action", text="Use Redis for caching", status="open")
    result = run(old, cand("Use Redis for caching", "decision"), 1.0)
    assert [c.kind for c in result.changes] == ["added"] and len(result.items) == 2


def test_superseded_items_are_never_compared_or_resurrected() -> None:
    gone = old_item(status="superseded")
    same = run(gone, cand("Use Redis for caching"), 1.0)
    assert [c.kind for c in same.changes] == ["ignored"] and same.items[0].status == "superseded"
    alike = run(gone, cand("We'll use Redis caching"), 0.2)  # the same words: the same item
    assert [c.kind for c in alike.changes] == ["ignored"]
    near = run(gone, cand("Use Redis for caching sessions"), 0.95)
    assert [c.kind for c in near.changes] == ["added"] and near.items[0].status == "superseded"


def test_refs_outside_the_batch_are_dropped() -> None:
    batch = [msg("m1"), msg("m2")]
    admitted = admit(
        [cand("A thing to do", refs=["m1", "ghost"]), cand("Invented", refs=["ghost"])], batch, 25
    )
    assert [c.refs for c in admitted.candidates] == [["m1"]]
    assert admitted.dropped_refs == 1


def test_candidate_cap_keeps_the_latest_of_a_rank() -> None:
    """What holds at the batch's end was said last: an update comes after what it updates."""
    many = [cand(f"Decision number {i}") for i in range(30)]
    admitted = admit(many, [msg("m1")], 25)
    assert len(admitted.candidates) == 25 and admitted.over_cap == 5
    assert [c.text for c in admitted.candidates[:2]] == ["Decision number 5", "Decision number 6"]
    assert admitted.candidates[-1].text == "Decision number 29"
    assert len(admit(many, [msg("m1")], 3).candidates) == 3


def test_last_seen_at_on_insert_is_the_newest_ref() -> None:
    batch = [msg("m1", minutes=1), msg("m2", minutes=9)]
    result = reconcile([], [cand("Use Fly", refs=["m2", "m1"])], batch, {}, [vec(1.0)])
    (item,) = result.items
    assert item.last_seen_at == T0 + timedelta(minutes=9)
    assert item.created_at == T0 + timedelta(minutes=1)


def test_last_seen_at_on_merge_never_goes_back() -> None:
    old = old_item(seen=T0 + timedelta(days=1))
    result = run(old, cand("Use Redis for caching!"), 0.99, [msg("m1", minutes=5)])
    assert result.items[0].last_seen_at == T0 + timedelta(days=1)
    later = run(old_item(), cand("Use Redis for caching!"), 0.99, [msg("m1", minutes=5)])
    assert later.items[0].last_seen_at == T0 + timedelta(minutes=5)


def test_invalid_status_lowers_confidence() -> None:
    result = reconcile(
        [], [cand("Ship it today", "action", status="finished")], [msg("m1")], {}, [vec(1.0)]
    )
    assert result.items[0].status == "open" and result.items[0].confidence == "low"


def test_candidates_of_one_run_merge_with_each_other() -> None:
    batch = [msg("m1"), msg("m2", minutes=1)]
    candidates = [cand("Use Fly", refs=["m1"]), cand("Use Fly.", refs=["m2"])]
    result = reconcile([], candidates, batch, {}, [vec(1.0), vec(1.0)])
    assert len(result.items) == 1 and result.items[0].refs == ["m1", "m2"]


def test_reconciliation_is_deterministic_and_leaves_its_input_alone() -> None:
    old = old_item()
    first = run(old, cand("Use Memcached instead of Redis"), 0.86)
    second = run(old, cand("Use Memcached instead of Redis"), 0.86)
    assert first.items == second.items and old.status == "active"


def test_a_done_action_completes_the_open_one_whatever_the_vectors() -> None:
    old = old_item(text="Add the Memcached client to the API", item_type="action", status="open")
    other = old_item(text="Put it behind the SessionStore interface", item_type="action")
    other.status = "open"
    done = cand("Added the Memcached client behind SessionStore", "action", status="done")
    result = reconcile(
        [old, other], [done], [msg("m1", minutes=5)], {old.uid: vec(1.0)}, [vec(0.0)]
    )
    assert [c.kind for c in result.changes] == ["status", "merged"]
    first, second = result.items
    assert (first.status, first.refs) == ("done", ["old1", "m1"]) and second.status == "open"


def test_an_llm_candidate_names_what_it_supersedes() -> None:
    """The LLM's `supersedes` picks the item; change language from the user is still needed."""
    cache, queue = old_item(), old_item("Keep Redis for the job queue", tags=[])
    named = CandidateItem(
        type="decision",
        text="Move the job queue to SQS",
        refs=["m1"],
        supersedes=queue.uid,
    ).with_context("We no longer need Redis for jobs, let's move the job queue to SQS.")
    vectors = {cache.uid: vec(1.0), queue.uid: vec(0.0)}
    result = reconcile([cache, queue], [named], [msg("m1")], vectors, [vec(1.0)])
    assert [i.status for i in result.items[:2]] == ["active", "superseded"]
    plain = named.model_copy().with_context("Let's move the job queue to SQS.")
    quiet = reconcile([cache, queue], [plain], [msg("m1")], vectors, [vec(0.0)])
    assert quiet.count("superseded") == 0


def test_over_the_cap_the_users_candidates_go_first_in_conversation_order() -> None:
    at = datetime(2026, 3, 1, tzinfo=UTC)
    batch = [
        Message(id=str(i), session_id="s", role=role, content="x", created_at=at)
        for i, role in enumerate(["assistant", "user", "assistant", "user"])
    ]
    candidates = [
        CandidateItem(type="decision", text=f"Use tool {i}", refs=[str(i)]) for i in range(4)
    ]
    admitted = admit(candidates, batch, 3)
    assert [c.refs for c in admitted.candidates] == [["1"], ["2"], ["3"]]
    assert admitted.over_cap == 1
