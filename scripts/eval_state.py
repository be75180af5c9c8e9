"""Quality of the state item extractor on a labelled set: precision and recall per type.

The set is `tests/state_quality/snippets.json`: short realistic conversation snippets, each
with the items a careful reader would record (type, keywords its text must contain, status)
and, for change language, whether the snippet should supersede an earlier item. Snippets
marked `tune` were used while writing the rules; `heldout` ones were not looked at while tuning,
and are reported apart.

A predicted item matches an expected one of the same type whose keywords all occur in its
text (case-insensitive), one to one. Reported per split and per type: precision, recall;
status accuracy over matched items; for snippets labelled with `supersession`, whether the
extracted decision carries the supersession signal (trigger, replacement verb, user ref)
that reconciliation requires; and the snippets that must yield nothing but did.

Run:  python scripts/eval_state.py [--json] [--split tune|heldout]
      [--ollama URL --llm-model MODEL]   the LLM extractor instead of the rules; snippets where
                                         it fell back to the rules are counted (`fallbacks`)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, get_args

from archivist.extract.llm import OllamaExtractor
from archivist.extract.rules import rules_candidates
from archivist.models import Message
from archivist.state.items import CandidateItem, ItemType, compute_uid, validated_status
from archivist.state.reconcile import admit, supersession_evidence

SNIPPETS = Path(__file__).resolve().parent.parent / "tests" / "state_quality" / "snippets.json"
TYPES: tuple[str, ...] = get_args(ItemType)
Extract = Callable[[Sequence[Message]], list[CandidateItem]]


def load_snippets(path: Path = SNIPPETS) -> list[dict[str, Any]]:
    snippets: list[dict[str, Any]] = json.loads(path.read_text())
    return snippets


def messages_of(snippet: dict[str, Any]) -> list[Message]:
    t0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    return [
        Message(
            id=f"{snippet['id']}-{n}",
            session_id=snippet["id"],
            role=m["role"],
            content=m["content"],
            created_at=t0 + timedelta(minutes=n),
        )
        for n, m in enumerate(snippet["messages"])
    ]


def _matches(candidate: CandidateItem, expected: dict[str, Any]) -> bool:
    text = candidate.text.lower()
    return candidate.type == expected["type"] and all(
        k.lower() in text for k in expected["keywords"]
    )


def evaluate(
    snippets: Sequence[dict[str, Any]], extract: Extract = rules_candidates
) -> dict[str, Any]:
    """The scores of `extract` on the snippets (see the module docstring)."""
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
            hit = next((c for c in free if _matches(c, e)), None)
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
                if c.type == "decision"
            )
            signal_ok += signalled == snippet["supersession"]
    per_type = {
        t: {
            "precision": round(matched[t] / predicted[t], 3) if predicted[t] else None,
            "recall": round(matched[t] / expected_n[t], 3) if expected_n[t] else None,
            "predicted": predicted[t],
            "expected": expected_n[t],
        }
        for t in TYPES
    }
    total_p, total_e, total_m = (
        sum(predicted.values()),
        sum(expected_n.values()),
        sum(matched.values()),
    )
    return {
        "snippets": len(snippets),
        "per_type": per_type,
        "precision": round(total_m / total_p, 3) if total_p else None,
        "recall": round(total_m / total_e, 3) if total_e else None,
        "status_accuracy": round(status_ok / status_n, 3) if status_n else None,
        "supersession_signal_accuracy": round(signal_ok / signal_n, 3) if signal_n else None,
        "empty_snippets_with_items": noisy,
        "misses": misses,
        "extras": extras,
    }


def _print(name: str, scores: dict[str, Any]) -> None:
    print(f"== {name}: {scores['snippets']} snippets")
    print(f"{'type':<11} {'precision':>9} {'recall':>7} {'pred':>5} {'exp':>4}")
    for t, v in scores["per_type"].items():
        p = "-" if v["precision"] is None else f"{v['precision']:.2f}"
        r = "-" if v["recall"] is None else f"{v['recall']:.2f}"
        print(f"{t:<11} {p:>9} {r:>7} {v['predicted']:>5} {v['expected']:>4}")
    print(f"all         {scores['precision']:>9} {scores['recall']:>7}")
    print(
        f"status accuracy {scores['status_accuracy']}, "
        f"supersession signal accuracy {scores['supersession_signal_accuracy']}, "
        f"empty snippets with items: {scores['empty_snippets_with_items'] or 'none'}"
    )
    for line in scores["misses"]:
        print("  missed", line)
    for line in scores["extras"]:
        print("  extra ", line)


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument("--split", choices=["tune", "heldout"], help="only this part of the set")
    parser.add_argument("--ollama", metavar="URL", help="evaluate the LLM extractor at this Ollama")
    parser.add_argument("--llm-model", default="llama3.2", help="its chat model")
    args = parser.parse_args(argv)
    extract: Extract = rules_candidates
    llm = None
    if args.ollama:
        llm = LlmCandidates(OllamaExtractor(model=args.llm_model, host=args.ollama))
        extract = llm
    snippets = load_snippets()
    splits = [args.split] if args.split else ["tune", "heldout"]
    report = {s: evaluate([x for x in snippets if x["split"] == s], extract) for s in splits}
    if not args.split:
        report["all"] = evaluate(snippets, extract)
    if llm is not None:
        report["llm"] = {"model": args.llm_model, "fallbacks": llm.fallbacks}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for name, scores in report.items():
            if name == "llm":
                print(f"\nLLM {args.llm_model}: {len(llm.fallbacks if llm else [])} fallbacks")
            else:
                _print(name, scores)
    return 0


if __name__ == "__main__":
    sys.exit(main())
