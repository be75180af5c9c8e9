"""State items: normalisation, UIDs, precedence, status coercion, change language."""

from __future__ import annotations

from typing import get_args

from hypothesis import given
from hypothesis import strategies as st

from archivist.state.change import replacement_verb, supersession_trigger
from archivist.state.items import (
    STATUS_PRECEDENCE,
    UID_PREFIX,
    CandidateItem,
    ItemType,
    compute_uid,
    default_status,
    normalize_text,
    resolve_status_merge,
    validated_status,
)

TYPES: tuple[ItemType, ...] = get_args(ItemType)


@given(st.text(max_size=200))
def test_normalisation_is_idempotent(text: str) -> None:
    once = normalize_text(text)
    assert normalize_text(once) == once
    assert once == once.strip() and "  " not in once and once == once.lower()


@given(st.sampled_from(TYPES), st.text(min_size=1, max_size=200))
def test_uid_is_deterministic_prefixed_and_blind_to_form(item_type: ItemType, text: str) -> None:
    uid = compute_uid(item_type, text)
    assert uid == compute_uid(item_type, text)
    assert uid.startswith(UID_PREFIX[item_type]) and len(uid) == len(UID_PREFIX[item_type]) + 12
    assert compute_uid(item_type, f'  "{text.upper()}"  ') == compute_uid(item_type, text.upper())


@given(st.text(min_size=1, max_size=80))
def test_uid_differs_across_types(text: str) -> None:
    assert len({compute_uid(t, text) for t in TYPES}) == len(TYPES)


def test_normalisation_examples() -> None:
    assert normalize_text("- Use   \u201cRedis\u201d  for caching\n") == "use redis for caching"
    assert normalize_text("1. Ship it") == "ship it"
    assert compute_uid("decision", "Use Redis") == compute_uid("decision", "* use redis ")


def test_precedence_per_type() -> None:
    assert resolve_status_merge("action", "open", "done") == "done"
    assert resolve_status_merge("action", "blocked", "open") == "blocked"
    assert resolve_status_merge("action", "done", "blocked") == "done"
    assert resolve_status_merge("action", "done", "superseded") == "superseded"
    assert resolve_status_merge("question", "open", "answered") == "answered"
    for item_type in ("decision", "constraint", "risk"):
        assert resolve_status_merge(item_type, "active", "superseded") == "superseded"


@given(st.sampled_from(TYPES), st.data())
def test_precedence_is_commutative(item_type: ItemType, data: st.DataObject) -> None:
    statuses = STATUS_PRECEDENCE[item_type]
    a, b = data.draw(st.sampled_from(statuses)), data.draw(st.sampled_from(statuses))
    assert resolve_status_merge(item_type, a, b) == resolve_status_merge(item_type, b, a)


def test_invalid_status_is_coerced_to_the_default() -> None:
    assert validated_status("action", "finished") == ("open", False)
    assert validated_status("question", "done") == ("open", False)
    assert validated_status("decision", "superseded") == ("active", False)
    assert validated_status("action", "blocked") == ("blocked", True)
    assert validated_status("risk", None) == (default_status("risk"), True)


def test_change_language() -> None:
    assert supersession_trigger("Use Memcached instead of Redis") == "instead"
    assert supersession_trigger("We no longer need Redis") == "no longer"
    assert supersession_trigger("Use Redis for caching") is None
    assert replacement_verb("let's go with Fly") == "go with"
    assert replacement_verb("Redis is slow instead") is None


def test_candidate_context_stays_out_of_the_json_schema() -> None:
    candidate = CandidateItem(type="decision", text="Use Fly").with_context("instead, use Fly")
    assert "instead" in candidate.signal_text()
    assert "_context" not in CandidateItem.model_json_schema()["properties"]
