"""Turn chunks: speakers rendered as people name them, sizes cut to what the model reads."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from archivist.chunking import chunk_chars, render_turn, state_item_chunks, window_chunks
from archivist.config import load_settings
from archivist.errors import ConfigError
from archivist.models import Message
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
    with pytest.raises(ConfigError, match="speaker_labels"):
        load_settings(environ={"ARCHIVIST_SPEAKER_LABELS": "Maya"})
