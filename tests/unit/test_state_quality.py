"""The labelled state-quality set is well-formed, and the rules keep their quality on it.

Measured with `python -m scripts.evals.state` (rules extractor, both embedders):

- items, tune / held-out: precision 0.97 / 1.00, recall 1.00 / 1.00, status accuracy 1.00;
- supersessions, tune / held-out, hash and shuffled vectors alike: precision 1.00 / 1.00,
  recall 1.00 / 0.75; one live item per expected action 1.00 / 1.00;
- topics in one batch, tune / held-out: precision 0.97 / 0.96, recall 0.86 / 0.89.

The floors sit below, so that a real regression fails, not a one-item wobble.
"""

from __future__ import annotations

from typing import Any, get_args

import pytest
from support import state_quality
from support.ollama_server import OllamaTestServer

from archivist.extract.llm import OllamaExtractor
from archivist.state.items import ItemType


@pytest.fixture(scope="module")
def scores() -> dict[str, Any]:
    report: dict[str, Any] = state_quality.report(None, sorted(state_quality.EMBEDDERS))
    return report


def test_the_labelled_set_covers_what_the_issue_asks() -> None:
    snippets = state_quality.load_snippets()
    sequences, topics = state_quality.load("sequences"), state_quality.load("topics")
    assert len(snippets) >= 50 and len(sequences) >= 24 and len(topics) >= 8
    for cases in (snippets, sequences, topics):
        assert len({c["id"] for c in cases}) == len(cases)
    for split in ("tune", "heldout"):
        part = [s for s in snippets if s["split"] == split]
        types = {e["type"] for s in part for e in s["expected"]}
        assert types == set(get_args(ItemType)), split
        assert any(not s["expected"] for s in part), f"{split}: no snippet that must yield nothing"
        assert {s.get("supersession") for s in part} >= {True, False}, split
        seq = [s for s in sequences if s["split"] == split]
        assert any(s["superseded"] for s in seq) and any(not s["superseded"] for s in seq)
        assert any(s.get("actions") for s in seq), f"{split}: no one-action-per-TODO case"
        assert any(t["split"] == split and "caching" in t["topics"] for t in topics)


def test_the_blind_change_scenarios_name_what_they_score() -> None:
    """scripts/evals/scenarios.py scores these by the words they name: each new word must be
    in the later message, each old word in the first, and the halves alternate."""
    scenarios = state_quality.load("change_scenarios")
    assert len({s["id"] for s in scenarios}) == len(scenarios)
    changes = [s for s in scenarios if s["old"] is not None]
    assert len(changes) >= 100 and len(scenarios) - len(changes) >= 30
    for scenario in scenarios:
        assert scenario["new"].lower() in scenario["later"].lower(), scenario["id"]
        assert (scenario["old"] or "").lower() in scenario["first"].lower(), scenario["id"]
        index = int(scenario["id"].rsplit("-", 1)[1])
        assert scenario["split"] == ("tune" if index % 2 == 0 else "heldout"), scenario["id"]


def test_rules_item_quality_floor(scores: dict[str, Any]) -> None:
    tune, held = scores["tune"]["items"], scores["heldout"]["items"]
    assert tune["precision"] >= 0.9 and tune["recall"] >= 0.9
    assert held["precision"] >= 0.85 and held["recall"] >= 0.85
    assert tune["status_accuracy"] >= 0.9 and held["status_accuracy"] >= 0.85
    assert tune["supersession_signal_accuracy"] >= 0.9
    assert tune["empty_snippets_with_items"] == held["empty_snippets_with_items"] == []


@pytest.mark.parametrize("embedder", ["hash", "shuffled"])
def test_supersession_and_one_item_per_todo_hold_with_any_vectors(
    scores: dict[str, Any], embedder: str
) -> None:
    """Vectors that carry no meaning at all ("shuffled") do as well as the lexical ones."""
    tune = scores["tune"]["sequences"][embedder]
    held = scores["heldout"]["sequences"][embedder]
    assert tune["supersession_precision"] == 1.0 and tune["supersession_recall"] >= 0.9
    assert held["supersession_precision"] >= 0.9 and held["supersession_recall"] >= 0.7
    assert tune["one_item_per_action"] == 1.0 and held["one_item_per_action"] >= 0.9
    assert tune["action_status_accuracy"] == 1.0 and held["action_status_accuracy"] >= 0.9


def test_same_results_whatever_the_embedder(scores: dict[str, Any]) -> None:
    for split in ("tune", "heldout"):
        sequences = scores[split]["sequences"]
        assert sequences["hash"]["wrong"] == sequences["shuffled"]["wrong"]


def test_topics_floor(scores: dict[str, Any]) -> None:
    for split in ("tune", "heldout"):
        one, three = scores[split]["topics"]
        assert one["precision"] >= 0.85 and one["recall"] >= 0.8, split
        assert three["precision"] >= 0.85 and three["recall"] >= 0.7, split
        shown = [t.split(": ", 1)[1] for t in one["not_topics"] + three["not_topics"]]
        assert not {"noted", "remind", "cache"} & set(shown)


def test_the_llm_path_scores_the_llm_and_counts_its_fallbacks(
    ollama_server: OllamaTestServer,
) -> None:
    """Pointed at an Ollama, the scorer scores the LLM's candidates; where the LLM fails, the
    rules' candidates are scored and the fallback is counted."""
    ollama_server.models.add("llama3.2:latest")
    ollama_server.chat_replies = ["not JSON at all"]
    snippets = [s for s in state_quality.load_snippets() if s["split"] == "heldout"]
    llm = state_quality.LlmCandidates(OllamaExtractor(model="llama3.2", host=ollama_server.url))
    scores = state_quality.evaluate(snippets, llm)
    assert len(llm.fallbacks) == len(snippets)
    assert all(r.startswith("invalid_output") for r in llm.fallbacks)
    assert scores["precision"] == state_quality.evaluate(snippets)["precision"]
    assert len(ollama_server.chat_requests) == len(snippets)
