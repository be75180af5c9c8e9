"""Chunks: speakers rendered as people name them, sizes cut to what the model reads, extraction
pieces that change only with the facts they hold."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from archivist.chunking import (
    chunk_chars,
    extraction_chunks,
    extraction_pieces,
    render_turn,
    state_item_chunks,
    window_chunks,
)
from archivist.config import load_settings
from archivist.errors import ConfigError
from archivist.models import Action, Decision, Entity, Extraction, Message
from archivist.state.items import StateItem

AT = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def message(n: int, role: str, text: str) -> Message:
    return Message(id=str(n), session_id="s", role=role, content=text, created_at=AT)


def test_speakers_are_labelled_and_unknown_roles_keep_their_name() -> None:
    assert render_turn(message(1, "user", " hi ")) == "User: hi"
    assert render_turn(message(2, "Assistant", "hello")) == "Assistant: hello"
    assert render_turn(message(3, "user", "hi"), {"user": "Maya"}) == "Maya: hi"
    assert render_turn(message(4, "Tom", "yo")) == "Tom: yo"


def test_chunks_are_cut_to_the_models_input() -> None:
    assert chunk_chars("all-minilm", 1500) == 863  # (256 - 2) tokens x 3.4 characters
    assert chunk_chars("all-minilm:latest", 600) == 600  # the setting is the ceiling
    assert chunk_chars("nomic-embed-text", 1500) == 1500  # 2048 tokens read 1500 whole
    assert chunk_chars("hash-768", 1500) == 1500
    assert chunk_chars("my-model", 1500, input_tokens=128) == 428
    long = [message(i, "user", "word " * 100) for i in range(4)]  # 500 characters each
    chunks = window_chunks(
        "s", "turns:000000", long, "all-minilm", 1, chunk_chars("all-minilm", 1500)
    )
    assert all(len(c.content) <= 863 for c in chunks)
    assert [c.metadata["message_ids"] for c in chunks] == [["0"], ["1"], ["2"], ["3"]]


def test_state_item_chunks_carry_their_refs_and_change_with_them() -> None:
    item = StateItem(uid="d_1", type="decision", text="Use Redis", status="active", refs=["7"])
    [chunk] = state_item_chunks("s", [item], "hash-768", 1)
    assert chunk.metadata["message_ids"] == ["7"]
    [grown] = state_item_chunks("s", [item.model_copy(update={"refs": ["7", "9"]})], "hash-768", 1)
    assert grown.metadata["message_ids"] == ["7", "9"] and grown.id != chunk.id


def test_speaker_labels_from_the_environment_are_json() -> None:
    settings = load_settings(environ={"ARCHIVIST_SPEAKER_LABELS": '{"User": " Maya "}'})
    assert settings.speaker_labels == {"user": "Maya"}
    with pytest.raises(ConfigError, match="ARCHIVIST_SPEAKER_LABELS"):
        load_settings(environ={"ARCHIVIST_SPEAKER_LABELS": "Maya"})


# -- extraction pieces: cut by what they hold, so a version changes only the pieces it touches --

TOOLS = ["Redis", "Kafka", "Sentry", "Grafana", "Terraform", "Celery", "Nginx", "dbt"]


def extraction(decisions: int = 40, entities: int = 200, preferences: int = 40) -> Extraction:
    return Extraction(
        session_id="s",
        summary="Moving the billing API to Memcached; Priya reviews the plan.",
        topics=["billing api", "caching", "deployment"],
        decisions=[
            Decision(text=f"Use {TOOLS[i % 8]} for service {i} with a {i * 37 % 900} s timeout")
            for i in range(decisions)
        ],
        actions=[
            Action(description=f"Open a PR that adds {TOOLS[i % 8]} metrics to job {i}")
            for i in range(decisions)
        ],
        entities=[
            Entity(type="tool", name=f"{TOOLS[i % 8]} {i}", key=f"tool:{TOOLS[i % 8].lower()}_{i}")
            for i in range(entities)
        ],
        preferences_inferred=[
            f"answers about {TOOLS[i % 8]} job {i} with code examples" for i in range(preferences)
        ],
    )


def changed(before: Extraction, after: Extraction, max_chars: int = 1500) -> list[str]:
    """The pieces of `after` that `before` does not have (the texts a version embeds)."""
    old = set(extraction_pieces(before, max_chars))
    return [p for p in extraction_pieces(after, max_chars) if p not in old]


def test_extraction_pieces_hold_every_fact_once_within_the_size() -> None:
    ex = extraction()
    pieces = extraction_pieces(ex, 1500)
    assert len(pieces) >= 4 and all(len(p) <= 1500 for p in pieces)
    assert pieces[0].startswith("Summary: Moving the billing API")  # the head comes first
    lines = [line for p in pieces for line in p.splitlines()]
    for fact in [f"Preference: {p}" for p in ex.preferences_inferred]:
        assert lines.count(fact) == 1, fact
    names = [n for line in lines if line.startswith("Entities: ") for n in line[10:].split(", ")]
    assert sorted(names) == sorted(e.name for e in ex.entities)  # each once (the open group
    # of a section goes to the head, so pieces are not in list order)
    # Decisions and actions are embedded once, as state items, not again in the extraction.
    assert not [line for line in lines if line.startswith(("Decision: ", "Action"))]
    assert extraction_pieces(ex, 1500) == pieces  # the same facts, the same pieces


def test_new_or_changed_decisions_and_actions_change_no_extraction_piece() -> None:
    before = extraction()
    done = before.actions[0].model_copy(update={"outcome": "done"})
    after = before.model_copy(
        update={
            "decisions": [*before.decisions, Decision(text="Switch the ingest worker to Go")],
            "actions": [done, *before.actions[1:]],
        }
    )
    assert changed(before, after) == []


def test_appending_a_preference_changes_the_head_and_at_most_the_group_it_closes() -> None:
    before = extraction()
    new = "answers in French"
    after = before.model_copy(update={"preferences_inferred": [*before.preferences_inferred, new]})
    fresh = changed(before, after)
    # Cut by position, every piece after the new line moved; here at most two pieces change:
    # the head (which holds the newest groups) and a group the new line closed.
    assert 1 <= len(fresh) <= 2
    assert any(f"Preference: {new}" in p for p in fresh)
    assert all(f"Preference: {new}" in p or p.startswith("Summary: ") for p in fresh)


def test_inserting_or_dropping_an_old_entity_leaves_the_other_groups_alone() -> None:
    before = extraction()
    inserted = Entity(type="tool", name="Airflow", key="tool:airflow")
    middle = [*before.entities[:60], inserted, *before.entities[60:]]
    for after in (
        before.model_copy(update={"entities": middle}),
        before.model_copy(update={"entities": before.entities[1:]}),  # a capped list's oldest
    ):
        fresh = changed(before, after)
        assert 1 <= len(fresh) <= 2  # its group, and the next if an end moved
        assert len(extraction_pieces(after, 1500)) - len(fresh) >= 3  # the rest kept


def test_a_new_summary_changes_only_the_head() -> None:
    before = extraction()
    after = before.model_copy(update={"summary": "Billing moved; Grafana dashboards next."})
    assert changed(before, after) == [extraction_pieces(after, 1500)[0]]


def test_extraction_pieces_fit_a_small_model_and_a_long_summary() -> None:
    ex = extraction().model_copy(update={"summary": "word " * 400})
    for max_chars in (300, 860):
        pieces = extraction_pieces(ex, max_chars)
        assert all(0 < len(p) <= max_chars for p in pieces)
        assert len(set(pieces)) == len(pieces)
    assert extraction_pieces(Extraction(session_id="s"), 1500) == []


def test_an_extraction_chunk_keeps_its_id_when_a_group_is_added_before_it() -> None:
    before = extraction()
    extra = [f"plain text for the legacy cron host number {i}" for i in range(15)]
    after = before.model_copy(
        update={"preferences_inferred": [*extra, *before.preferences_inferred]}
    )
    ids = lambda ex: {c.content: c.id for c in extraction_chunks("s", ex, "m", 1, 1500)}  # noqa: E731
    old, new = ids(before), ids(after)
    kept = set(old) & set(new)
    assert len(new) > len(old) and len(kept) >= 3
    assert all(old[text] == new[text] for text in kept)


def test_a_window_of_long_turns_is_one_chunk_that_knows_where_each_turn_starts() -> None:
    turns = [
        message(1, "user", "Which database do we use for the ledger?"),
        message(2, "assistant", "Postgres. " + "It keeps the ledger consistent. " * 100),
        message(3, "user", "And backups?"),
    ]
    (chunk,) = window_chunks("s", "turns:000000", turns, "hash-768", 1, 16_000, index=0)
    assert chunk.metadata["message_ids"] == ["1", "2", "3"]
    starts = chunk.metadata["turn_starts"]
    assert [chunk.content[s:].split(":", 1)[0] for s in starts] == ["User", "Assistant", "User"]
    assert chunk.content[starts[2] :] == "User: And backups?"


def test_a_window_longer_than_its_ceiling_is_cut_at_turns() -> None:
    turns = [message(i, "user", "word " * 100) for i in range(4)]  # 506 characters a turn
    chunks = window_chunks("s", "turns:000000", turns, "hash-768", 1, 1100, index=0)
    assert [c.metadata["message_ids"] for c in chunks] == [["0", "1"], ["2", "3"]]


def test_an_extraction_piece_stands_for_the_messages_that_named_its_entities() -> None:
    extraction = Extraction(
        session_id="s",
        summary="Deploy talk.",
        entities=[
            Entity(type="tool", name="Vercel", key="tool:vercel", refs=["3", "9"]),
            Entity(type="tool", name="Netlify", key="tool:netlify", refs=["4"]),
            Entity(type="tool", name="Old", key="tool:old"),  # archived before refs: none
        ],
    )
    (chunk,) = extraction_chunks("s", extraction, "hash-768", 1, 1500)
    assert chunk.metadata["message_ids"] == ["3", "9", "4"]
    bare = Extraction(session_id="s", summary="Nothing named.")
    assert extraction_chunks("s", bare, "hash-768", 1, 1500)[0].metadata["message_ids"] == []


def test_an_extraction_piece_holding_the_summary_stands_for_its_messages() -> None:
    """The summary's own messages first (what its text was taken from), then the entities'."""
    extraction = Extraction(
        session_id="s",
        summary='User asked: "Deploy it." Decided: Use Vercel.',
        summary_refs=["1", "5"],
        topics=["deploys"],
        entities=[Entity(type="tool", name="Vercel", key="tool:vercel", refs=["5", "8"])],
    )
    (chunk,) = extraction_chunks("s", extraction, "hash-768", 1, 1500)
    assert chunk.metadata["message_ids"] == ["1", "5", "8"]
    # a summary cut over two pieces: neither holds it whole, so neither names its messages
    long = extraction.model_copy(update={"summary": "Decided: " + "word " * 150, "entities": []})
    pieces = extraction_chunks("s", long, "hash-768", 1, 400)
    assert len(pieces) > 1 and all(p.metadata["message_ids"] == [] for p in pieces)
