"""The labelled retrieval set is well-formed, and `memory_search` keeps its measured quality.

The scores come from scripts/eval_retrieval.py with the offline hash embedder (deterministic, so
the numbers only move when chunking or ranking changes). The floors sit below the measured
values (hash, 112 questions: hybrid recall@5 0.812, recall@10 0.875, MRR@10 0.630; vector
recall@10 0.795; text recall@10 0.884) so that a real regression fails, not a one-question wobble.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "eval_retrieval.py"

HYBRID_RECALL_AT_10_FLOOR = 0.80
HYBRID_RECALL_AT_5_FLOOR = 0.72
HYBRID_MRR_AT_10_FLOOR = 0.52
TEXT_RECALL_AT_10_FLOOR = 0.80
VECTOR_RECALL_AT_10_FLOOR = 0.70


def _load_script() -> ModuleType:
    """Import scripts/eval_retrieval.py (not a package) as a module."""
    spec = importlib.util.spec_from_file_location("eval_retrieval", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


ev = _load_script()


def test_labelled_set_is_well_formed() -> None:
    labelled = ev.load_labelled_set()
    assert ev.check_labelled_set(labelled) == []
    assert len(labelled.conversations) >= 12
    assert all(20 <= len(c["messages"]) <= 40 for c in labelled.conversations)
    assert len(labelled.questions) >= 60
    keys = labelled.message_keys
    assert all(a in keys for q in labelled.questions for a in q.answers)
    kinds = {q.kind for q in labelled.questions}
    assert kinds == set(ev.KINDS)
    assert sum(len(q.answers) > 1 for q in labelled.questions) >= 10
    assert len({q.question for q in labelled.questions}) == len(labelled.questions)


def test_check_labelled_set_reports_unknown_answers() -> None:
    labelled = ev.load_labelled_set()
    broken = ev.LabelledSet(
        conversations=labelled.conversations,
        questions=[ev.Question("Where?", "lexical", ("no-such-session#1",))],
    )
    assert ev.check_labelled_set(broken) == ["unknown answer 'no-such-session#1': 'Where?'"]


def test_first_rank_counts_only_turn_chunks_covering_an_answer() -> None:
    class Hit:
        def __init__(self, source: str, ids: list[str]) -> None:
            self.source = source
            self.metadata = {"message_ids": ids}

    hits = [
        Hit("archive_extraction", []),
        Hit("session_turn", ["1", "2"]),
        Hit("session_turn", ["7"]),
    ]
    assert ev.first_rank(hits, {"7", "9"}) == 3
    assert ev.first_rank(hits, {"8"}) is None
    summary = ev.summarise([1, 3, 7, None])
    assert summary["recall_at_5"] == pytest.approx(0.5)
    assert summary["recall_at_10"] == pytest.approx(0.75)
    assert summary["mrr_at_10"] == pytest.approx((1 + 1 / 3 + 1 / 7) / 4)


def test_hash_embedder_retrieval_floors(pg_server: str) -> None:
    scores = {s.mode: s for s in ev.run_evaluation(["hash"], admin_url=pg_server)}
    assert set(scores) == {"vector", "text", "hybrid"}
    hybrid, vector, text = scores["hybrid"], scores["vector"], scores["text"]
    assert hybrid.n == vector.n == text.n >= 60
    assert hybrid.recall_at_10 >= HYBRID_RECALL_AT_10_FLOOR
    assert hybrid.recall_at_5 >= HYBRID_RECALL_AT_5_FLOOR
    assert hybrid.mrr_at_10 >= HYBRID_MRR_AT_10_FLOOR
    assert hybrid.recall_at_10 >= vector.recall_at_10 - 0.05
    assert text.recall_at_10 >= TEXT_RECALL_AT_10_FLOOR
    assert vector.recall_at_10 >= VECTOR_RECALL_AT_10_FLOOR
