"""State items through the archive run: stored in the extraction, embedded once, superseded."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from support.archiving import CountingEmbedder, run
from support.sources import T0, SourceDB

from archivist.config import Settings
from archivist.errors import EmbedError
from archivist.models import Extraction

CHAT = [
    "We've agreed to use Redis for caching.",
    "Good. The cache must stay under 2 GB of memory.",
    "I'll write the cache warm-up script tomorrow.",
    "One risk: a cold cache could overload the database after deploys.",
]


class FailingEmbedder(CountingEmbedder):
    """Fails on one call (a deterministic fake): the run dies between planning and commit."""

    def __init__(self, fail_on_call: int) -> None:
        super().__init__()
        self.fail_on_call = fail_on_call

    def embed_batch(self, texts: Any) -> Any:
        if self.calls + 1 == self.fail_on_call:
            self.calls += 1
            raise EmbedError("injected embedding failure")
        return super().embed_batch(texts)


def items(source: SourceDB, session_id: str) -> list[dict[str, Any]]:
    row = source.conn.execute(
        "SELECT a.extraction -> 'state_items' FROM jarvis_archive_sessions s "
        "JOIN jarvis_archive a ON a.id = s.archive_id WHERE s.session_id = %s",
        [session_id],
    ).fetchone()
    return list(row[0]) if row else []


def test_items_are_stored_and_embedded_as_state_item_chunks(
    source: SourceDB, settings: Settings
) -> None:
    source.add("cache", CHAT)
    run(settings)
    stored = items(source, "cache")
    by_type = {i["type"]: i for i in stored}
    assert set(by_type) == {"decision", "constraint", "action", "risk"}
    assert by_type["decision"]["text"] == "Use Redis for caching"
    assert by_type["decision"]["uid"].startswith("d_")
    chunks = source.conn.execute(
        "SELECT content, metadata FROM jarvis_memory_chunks WHERE source = 'state_item'"
    ).fetchall()
    assert sorted(c[0] for c in chunks) == sorted(i["text"] for i in stored)
    meta = {m["uid"]: m for _, m in chunks}
    assert {m["type"] for m in meta.values()} == set(by_type)
    assert all(m["status"] in ("active", "open") for m in meta.values())


def test_unchanged_items_are_not_embedded_again(source: SourceDB, settings: Settings) -> None:
    source.add("cache", CHAT)
    run(settings)
    before = {i["text"] for i in items(source, "cache")}
    source.add("cache", ["Thanks, talk later."], start=T0 + timedelta(hours=1))
    embedder = CountingEmbedder()
    run(settings, embedder)
    assert not before & set(embedder.texts)
    assert {i["text"] for i in items(source, "cache")} == before


class ShuffledEmbedder(CountingEmbedder):
    """A second deterministic embedder whose vectors say nothing about the text (seeded by its
    hash): two different texts are near-orthogonal, so no cosine band can help."""

    def embed_batch(self, texts: Any) -> Any:
        self.calls += 1
        self.texts.extend(texts)
        out = []
        for text in texts:
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
            vector = np.random.default_rng(seed).standard_normal(self.dimension)
            out.append((vector / np.linalg.norm(vector)).astype(np.float32))
        return out


class ConstantEmbedder(CountingEmbedder):
    """Every text the same vector: by cosine, everything is a duplicate of everything."""

    def embed_batch(self, texts: Any) -> Any:
        self.calls += 1
        self.texts.extend(texts)
        return [np.ones(self.dimension, dtype=np.float32) for _ in texts]


@pytest.mark.parametrize("embedder", [CountingEmbedder, ShuffledEmbedder, ConstantEmbedder])
def test_supersession_end_to_end_stores_its_evidence(
    source: SourceDB, settings: Settings, embedder: type[CountingEmbedder]
) -> None:
    """Default thresholds: "instead of Redis" names what it replaces, whatever the vectors."""
    source.add("cache", ["Let's use Redis for caching."])
    run(settings, embedder())
    ids = source.add(
        "cache",
        ["Actually, let's use Memcached instead of Redis for caching."],
        start=T0 + timedelta(hours=1),
    )
    [outcome] = run(settings, embedder()).sessions
    assert [c.kind for c in outcome.state_changes] == ["superseded", "added"]
    old, new = items(source, "cache")
    assert old["status"] == "superseded" and old["replaced_by"] == new["uid"]
    assert old["supersession_evidence"] == {
        "trigger": "instead",
        "ref_msg_id": str(ids[0]),
        "candidate_uid": new["uid"],
    }
    # The superseded item's chunk is gone; the new one is searchable.
    contents = {
        r[0]
        for r in source.conn.execute(
            "SELECT content FROM jarvis_memory_chunks WHERE source = 'state_item'"
        )
    }
    assert contents == {new["text"]}


@pytest.mark.parametrize("embedder", [CountingEmbedder, ShuffledEmbedder])
def test_one_todo_said_twice_is_one_item(
    source: SourceDB, settings: Settings, embedder: type[CountingEmbedder]
) -> None:
    source.add("todo", ["I'll set up the staging database tomorrow."])
    run(settings, embedder())
    source.add("todo", ["TODO: set up the staging database"], start=T0 + timedelta(hours=1))
    run(settings, embedder())
    source.add("todo", ["I set up the staging database."], start=T0 + timedelta(hours=2))
    run(settings, embedder())
    [action] = [i for i in items(source, "todo") if i["type"] == "action"]
    assert action["status"] == "done" and len(action["refs"]) == 3 and not action["conflict"]


def test_watermark_advances_only_with_a_successful_commit(
    source: SourceDB, settings: Settings
) -> None:
    source.add("cache", CHAT)
    before = source.snapshot()
    # The one call (the candidates with the chunks' texts) fails: nothing may be committed.
    retry_at_once = settings.model_copy(update={"failure_backoff_s": 0})  # no backoff
    [failed] = run(retry_at_once, FailingEmbedder(fail_on_call=1)).sessions
    assert failed.status == "failed" and "injected" in (failed.reason or "")
    assert source.snapshot() == before
    assert source.conn.execute("SELECT count(*) FROM jarvis_archive_sessions").fetchone() == (0,)
    [ok] = run(settings).sessions
    assert ok.status == "archived" and ok.new_messages == len(CHAT)
    assert len(items(source, "cache")) == 4


def test_versions_written_before_state_items_still_load() -> None:
    old = {"version": 1, "session_id": "s", "summary": "x", "topics": ["a"]}
    assert Extraction.model_validate(old).state_items == []
