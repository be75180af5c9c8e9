"""Quality of the state items and topics on a labelled set: precision and recall per type.

The set is in `tests/state_quality/`, each file split into `tune` (looked at while writing the
rules) and `heldout` (not looked at while tuning), reported apart:

- `snippets.json`: short conversation snippets with the items a careful reader would record
  (type, keywords its text must contain, status) and, for change language, whether the
  snippet should be able to supersede an earlier item. A predicted item matches an expected
  one of the same type whose keywords all occur in its text (case-insensitive), one to one.
  Scored: precision and recall per type, status accuracy over matched items, whether the
  snippet's change language is recognised (`supersession_signal_accuracy`), and the snippets
  that must yield nothing but did.
- `sequences.json`: two batches of one session, reconciled one after the other the way the
  archive run does it. Scored: supersessions (an expected pair is found when an item matching
  `old` is superseded and `replaced_by` an item matching `new`), precision and recall per
  type; and for each expected action, whether exactly one live item stands for it (one item
  per TODO) with the expected status. Run with every `--embedder`: reconciliation must not
  depend on what the vectors say.
- `topics.json`: sessions with the topics a reader expects (`topics`, for recall) and the
  others that are fine (`acceptable`); precision is the share of the extracted topics that is
  either. A `join` case is a long session made of the sessions it names. Scored on the whole
  session in one batch and on the session archived in three.

Scored by `report`; printed by `python -m scripts.evals.state`, and held to floors by
tests/unit/test_state_quality.py.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, get_args

import numpy as np

from archivist.embed.base import Vector
from archivist.embed.hashing import HashEmbedder
from archivist.extract.llm import OllamaExtractor
from archivist.extract.rules import extend_extraction, rules_candidates
from archivist.models import Message, StateItem
from archivist.state.items import CandidateItem, ItemType, compute_uid, validated_status
from archivist.state.reconcile import admit, reconcile, supersession_evidence

SET = Path(__file__).resolve().parents[1] / "state_quality"
SNIPPETS = SET / "snippets.json"
TYPES: tuple[str, ...] = get_args(ItemType)
SPLITS = ("tune", "heldout")
Extract = Callable[[Sequence[Message]], list[CandidateItem]]
Embed = Callable[[Sequence[str]], list[Vector]]
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def load(name: str) -> list[dict[str, Any]]:
    """One file of the set (`snippets`, `sequences`, `topics` or `change_scenarios`)."""
    cases: list[dict[str, Any]] = json.loads((SET / f"{name}.json").read_text())
    return cases


def load_snippets(path: Path = SNIPPETS) -> list[dict[str, Any]]:
    snippets: list[dict[str, Any]] = json.loads(path.read_text())
    return snippets


def shuffled_vectors(texts: Sequence[str]) -> list[Vector]:
    """Vectors that say nothing about the text (seeded by its hash): equal texts, equal vectors;
    any two other texts are near-orthogonal. Reconciliation must work with these too."""
    out: list[Vector] = []
    for text in texts:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
        vector = np.random.default_rng(seed).standard_normal(256).astype(np.float32)
        out.append(vector / np.linalg.norm(vector))
    return out


EMBEDDERS: dict[str, Embed] = {
    "hash": HashEmbedder(dimension=768).embed_batch,
    "shuffled": shuffled_vectors,
}


def messages_of(snippet: dict[str, Any], key: str = "messages", start: int = 0) -> list[Message]:
    return [
        Message(
            id=f"{snippet['id']}-{start + n}",
            session_id=snippet["id"],
            role=m["role"],
            content=m["content"],
            created_at=T0 + timedelta(minutes=start + n),
        )
        for n, m in enumerate(snippet[key])
    ]


def _matches(text: str, keywords: Sequence[str]) -> bool:
    return all(k.lower() in text.lower() for k in keywords)


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def _per_type(predicted: Counter[str], expected: Counter[str], matched: Counter[str]) -> Any:
    return {
        t: {
            "precision": _ratio(matched[t], predicted[t]),
            "recall": _ratio(matched[t], expected[t]),
            "predicted": predicted[t],
            "expected": expected[t],
        }
        for t in TYPES
        if predicted[t] or expected[t]
    }


def evaluate(
    snippets: Sequence[dict[str, Any]], extract: Extract = rules_candidates
) -> dict[str, Any]:
    """The item scores of `extract` on the snippets (see the module docstring)."""
    predicted: Counter[str] = Counter()
    expected_n: Counter[str] = Counter()
    matched: Counter[str] = Counter()
    status_ok = status_n = 0
    signal_ok = signal_n = 0
    noisy: list[str] = []
    misses: list[str] = []
    extras: list[str] = []
    for snippet in snippets:
        batch = messages_of(snippet)
        candidates = admit(extract(batch), batch, 25).candidates
        by_id = {m.id: m for m in batch}
        wanted = list(snippet["expected"])
        predicted.update(c.type for c in candidates)
        expected_n.update(e["type"] for e in wanted)
        if not wanted and candidates:
            noisy.append(snippet["id"])
        free = list(candidates)
        for e in wanted:
            hit = next(
                (c for c in free if c.type == e["type"] and _matches(c.text, e["keywords"])), None
            )
            if hit is None:
                misses.append(f"{snippet['id']}: {e['type']} {e['keywords']}")
                continue
            free.remove(hit)
            matched[e["type"]] += 1
            status_n += 1
            want = e.get("status") or validated_status(hit.type, None)[0]
            status_ok += validated_status(hit.type, hit.status)[0] == want
        extras += [f"{snippet['id']}: {c.type} {c.text!r}" for c in free]
        if "supersession" in snippet:
            signal_n += 1
            signalled = any(
                supersession_evidence(c, compute_uid(c.type, c.text), by_id) is not None
                for c in candidates
                if c.type in ("decision", "constraint")
            )
            signal_ok += signalled == snippet["supersession"]
    total = (sum(predicted.values()), sum(expected_n.values()), sum(matched.values()))
    return {
        "snippets": len(snippets),
        "per_type": _per_type(predicted, expected_n, matched),
        "precision": _ratio(total[2], total[0]),
        "recall": _ratio(total[2], total[1]),
        "status_accuracy": _ratio(status_ok, status_n),
        "supersession_signal_accuracy": _ratio(signal_ok, signal_n),
        "empty_snippets_with_items": noisy,
        "misses": misses,
        "extras": extras,
    }


def reconciled(
    case: dict[str, Any], embed: Embed, extract: Extract = rules_candidates
) -> list[StateItem]:
    """The state items after both batches of a sequence, reconciled as the archive run does."""
    items: list[StateItem] = []
    vectors: dict[str, Vector] = {}
    start = 0
    for key in ("before", "after"):
        batch = messages_of(case, key, start)
        start += len(batch)
        candidates = admit(extract(batch), batch, 25).candidates
        fresh = embed([c.text.strip() for c in candidates]) if candidates else []
        result = reconcile(items, candidates, batch, vectors, fresh)
        by_text = dict(zip((c.text.strip() for c in candidates), fresh, strict=True))
        items = result.items
        vectors = {i.uid: by_text[i.text] if i.text in by_text else vectors[i.uid] for i in items}
    return items


def evaluate_sequences(
    cases: Sequence[dict[str, Any]], embed: Embed, extract: Extract = rules_candidates
) -> dict[str, Any]:
    """Supersession precision and recall per type, and one live item per expected action."""
    predicted: Counter[str] = Counter()
    expected_n: Counter[str] = Counter()
    matched: Counter[str] = Counter()
    one_n = one_ok = status_ok = 0
    wrong: list[str] = []
    for case in cases:
        items = reconciled(case, embed, extract)
        by_uid = {i.uid: i for i in items}
        done = [i for i in items if i.status == "superseded"]
        predicted.update(i.type for i in done)
        expected_n.update(e["type"] for e in case["superseded"])
        free = list(done)
        for e in case["superseded"]:
            hit = next(
                (
                    i
                    for i in free
                    if i.type == e["type"]
                    and _matches(i.text, e["old"])
                    and i.replaced_by in by_uid
                    and _matches(by_uid[i.replaced_by].text, e["new"])
                ),
                None,
            )
            if hit is None:
                wrong.append(f"{case['id']}: missed {e['type']} {e['old']} -> {e['new']}")
                continue
            free.remove(hit)
            matched[e["type"]] += 1
        wrong += [f"{case['id']}: superseded {i.type} {i.text!r}" for i in free]
        live = [i for i in items if i.type == "action" and i.status != "superseded"]
        for e in case.get("actions", []):
            one_n += 1
            same = [i for i in live if _matches(i.text, e["keywords"])]
            one_ok += len(same) == 1
            status_ok += len(same) == 1 and same[0].status == e["status"]
            if len(same) != 1 or same[0].status != e["status"]:
                found = [(i.text, i.status) for i in same]
                wrong.append(f"{case['id']}: action {e['keywords']} {e['status']}: {found}")
    total = (sum(predicted.values()), sum(expected_n.values()), sum(matched.values()))
    return {
        "sequences": len(cases),
        "supersession_per_type": _per_type(predicted, expected_n, matched),
        "supersession_precision": _ratio(total[2], total[0]),
        "supersession_recall": _ratio(total[2], total[1]),
        "one_item_per_action": _ratio(one_ok, one_n),
        "action_status_accuracy": _ratio(status_ok, one_n),
        "wrong": wrong,
    }


def _topics(case: dict[str, Any], batches: int, by_id: dict[str, dict[str, Any]]) -> list[str]:
    """The topics extracted from a session in `batches` batches; a `join` case is the
    sessions it names, one after the other, as one long session."""
    parts = [by_id[i] for i in case.get("join", [])] or [case]
    messages = messages_of(
        {"id": case["id"], "messages": [m for p in parts for m in p["messages"]]}
    )
    size = -(-len(messages) // batches)
    extraction = None
    for i in range(0, len(messages), size):
        extraction = extend_extraction(extraction, case["id"], messages[i : i + size], None)
    return extraction.topics if extraction else []


def evaluate_topics(cases: Sequence[dict[str, Any]], batches: int = 1) -> dict[str, Any]:
    """Topic recall (expected topics found) and precision (extracted topics a reader accepts)."""
    found = expected = produced = good = 0
    missed: list[str] = []
    junk: list[str] = []
    by_id = {c["id"]: c for c in load("topics")}
    for case in cases:
        topics = _topics(case, batches, by_id)
        fine = {t.lower() for t in case["topics"] + case["acceptable"]}
        hits = [t for t in case["topics"] if t.lower() in topics]
        found, expected = found + len(hits), expected + len(case["topics"])
        produced += len(topics)
        good += sum(t in fine for t in topics)
        missed += [f"{case['id']}: {t}" for t in case["topics"] if t not in hits]
        junk += [f"{case['id']}: {t}" for t in topics if t not in fine]
    return {
        "sessions": len(cases),
        "batches": batches,
        "precision": _ratio(good, produced),
        "recall": _ratio(found, expected),
        "missed": missed,
        "not_topics": junk,
    }


class LlmCandidates:
    """The LLM extractor as an `Extract`, counting the snippets it fell back to the rules on."""

    def __init__(self, extractor: OllamaExtractor) -> None:
        self.extractor = extractor
        self.fallbacks: list[str] = []

    def __call__(self, batch: Sequence[Message]) -> list[CandidateItem]:
        result = self.extractor.extract(None, "eval", batch, None, [])
        if result.record.fallback_reason:
            self.fallbacks.append(result.record.fallback_reason)
        return result.candidates


def report(
    split: str | None, embedders: Sequence[str], extract: Extract = rules_candidates
) -> dict[str, Any]:
    """Every score, per split (and `all` when no split is chosen)."""
    sets = {name: load(name) for name in ("snippets", "sequences", "topics")}
    out: dict[str, Any] = {}
    for name in [split] if split else [*SPLITS, "all"]:

        def part(cases: list[dict[str, Any]], name: str = name) -> list[dict[str, Any]]:
            return [c for c in cases if name == "all" or c["split"] == name]

        out[name] = {
            "items": evaluate(part(sets["snippets"]), extract),
            "sequences": {
                e: evaluate_sequences(part(sets["sequences"]), EMBEDDERS[e], extract)
                for e in embedders
            },
            "topics": [evaluate_topics(part(sets["topics"]), n) for n in (1, 3)],
        }
    return out
