"""Quality of the state items and topics on a labelled set: precision and recall per type.

The set is in `tests/state_quality/`; the scorer, which says what each score means, is
tests/support/state_quality.py. Printed per split (`tune`, `heldout`) and for both.

Run:  python -m scripts.evals.state [--json] [--split tune|heldout] [--embedder hash|shuffled]
      [--ollama URL --llm-model MODEL]   the LLM extractor instead of the rules for the
                                         snippets and sequences; snippets where it fell back
                                         to the rules are counted (`fallbacks`)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from archivist.extract.llm import OllamaExtractor
from archivist.extract.rules import rules_candidates
from tests.support.state_quality import EMBEDDERS, SPLITS, Extract, LlmCandidates, report


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _print_table(per_type: dict[str, Any]) -> None:
    print(f"  {'type':<11} {'precision':>9} {'recall':>7} {'pred':>5} {'exp':>4}")
    for t, v in per_type.items():
        p, r = _num(v["precision"]), _num(v["recall"])
        print(f"  {t:<11} {p:>9} {r:>7} {v['predicted']:>5} {v['expected']:>4}")


def _print(name: str, part: dict[str, Any], verbose: bool) -> None:
    items = part["items"]
    print(f"== {name}")
    print(f"items: {items['snippets']} snippets")
    _print_table(items["per_type"])
    print(f"  {'all':<11} {_num(items['precision']):>9} {_num(items['recall']):>7}")
    print(
        f"  status accuracy {_num(items['status_accuracy'])}, supersession signal accuracy "
        f"{_num(items['supersession_signal_accuracy'])}, empty snippets with items: "
        f"{items['empty_snippets_with_items'] or 'none'}"
    )
    for embedder, seq in part["sequences"].items():
        print(f"sequences ({embedder} vectors): {seq['sequences']}, supersessions")
        _print_table(seq["supersession_per_type"])
        print(
            f"  {'all':<11} {_num(seq['supersession_precision']):>9} "
            f"{_num(seq['supersession_recall']):>7}"
        )
        print(
            f"  one item per action {_num(seq['one_item_per_action'])}, "
            f"its status right {_num(seq['action_status_accuracy'])}"
        )
    for topics in part["topics"]:
        print(
            f"topics ({topics['sessions']} sessions in {topics['batches']} batch(es)): "
            f"precision {_num(topics['precision'])}, recall {_num(topics['recall'])}"
        )
    if verbose:
        lines = [f"missed {x}" for x in items["misses"]] + [f"extra {x}" for x in items["extras"]]
        for embedder, seq in part["sequences"].items():
            lines += [f"{embedder}: {x}" for x in seq["wrong"]]
        for topics in part["topics"]:
            lines += [f"topics/{topics['batches']}: missed {x}" for x in topics["missed"]]
            lines += [f"topics/{topics['batches']}: not a topic {x}" for x in topics["not_topics"]]
        for line in lines:
            print("  " + line)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument("--split", choices=SPLITS, help="only this part of the set")
    parser.add_argument(
        "--embedder", choices=sorted(EMBEDDERS), action="append", help="default: all of them"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="list every miss")
    parser.add_argument("--ollama", metavar="URL", help="evaluate the LLM extractor at this Ollama")
    parser.add_argument("--llm-model", default="llama3.2", help="its chat model")
    args = parser.parse_args(argv)
    extract: Extract = rules_candidates
    llm = None
    if args.ollama:
        llm = LlmCandidates(OllamaExtractor(model=args.llm_model, host=args.ollama))
        extract = llm
    result = report(args.split, args.embedder or sorted(EMBEDDERS), extract)
    if llm is not None:
        result["llm"] = {"model": args.llm_model, "fallbacks": llm.fallbacks}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for name, part in result.items():
        if name != "llm":
            _print(name, part, args.verbose)
    if llm is not None:
        print(f"\nLLM {args.llm_model}: {len(llm.fallbacks)} fallbacks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
