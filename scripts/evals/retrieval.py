"""Retrieval quality of `memory_search` on the generated labelled set, against a BM25 baseline.

Printed: evidence recall@10 per question class and search mode, the no-answer AUROC, hit shape
and latency. The evaluation and its scorer are tests/support/retrieval_eval.py, which says what
each score means; the set is tests/support/retrieval_set.py. This starts a throw-away embedded
Postgres (scripts/bench/kit.py), or uses the one `ARCHIVIST_BENCH_PG` names.

Run:  python -m scripts.evals.retrieval                          (hash, and minilm if installed)
      python -m scripts.evals.retrieval --embedder hash --conversations 4 --json
      python -m scripts.evals.retrieval --embedder ollama --ollama-host http://127.0.0.1:11434

Exit status 0 whatever the scores; 2 when the evaluation cannot run (an unreachable Ollama, a
missing package, a changed labelled set).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any

from archivist.errors import ArchivistError
from scripts.bench.kit import embedded_server
from tests.support import retrieval_set as rs
from tests.support.retrieval_eval import (
    ANSWERABLE,
    EMBEDDERS,
    LIMIT,
    MODES,
    EmbedderOptions,
    Run,
    log,
    minilm_available,
    run_evaluation,
)


@contextmanager
def embedded_postgres() -> Iterator[str]:
    """The benchmarks' embedded Postgres (scripts/bench/kit.py); yields its admin URL."""
    with embedded_server("archivist-eval-") as server:
        yield server.admin_url


# -- output -------------------------------------------------------------------------------------


def render(runs: Sequence[Run]) -> str:
    """One row per system: recall@10 per class, no-answer AUROC, hit shape, latency."""
    n = runs[0].n if runs else {}
    heads = [f"{c} ({n.get(c, 0)})" for c in ANSWERABLE]
    header = (
        f"{'embedder':<8} {'system':<7} "
        + " ".join(f"{h:>18}" for h in heads)
        + f" {'all':>6} {'no-answer AUROC (' + str(n.get('no-answer', 0)) + ')':>24}"
        + f" {'ids/hit':>7} {'turns':>6} {'kchars':>6} {'bm25 same text':>14}"
        + f" {'p50 ms':>7} {'p95 ms':>7}"
    )
    lines = ["evidence recall@10", header, "-" * len(header)]
    for r in runs:
        lat = (
            f"{r.p50_ms:>7.1f} {r.p95_ms:>7.1f}"
            if r.p50_ms is not None and r.p95_ms is not None
            else f"{'-':>7} {'-':>7}"
        )
        lines.append(
            f"{r.embedder:<8} {r.system:<7} "
            + " ".join(f"{r.recall[c]:>18.3f}" for c in ANSWERABLE)
            + f" {r.recall['all']:>6.3f} {r.no_answer_auroc:>24.3f}"
            + f" {r.ids_per_hit:>7.1f} {r.turn_share:>6.2f} {r.kchars:>6.1f}"
            + (f" {r.bm25_same_text:>14.3f}" if r.bm25_same_text is not None else f" {'-':>14}")
            + f" {lat}"
        )
    return "\n".join(lines)


def as_json(runs: Sequence[Run], manifest: dict[str, object]) -> str:
    return json.dumps(
        {"limit": LIMIT, "set": manifest, "runs": [asdict(r) for r in runs]}, indent=2
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--embedder",
        action="append",
        choices=EMBEDDERS,
        help="repeatable; default: hash, and minilm when its packages are installed",
    )
    parser.add_argument("--mode", action="append", choices=MODES, help="repeatable; default: all")
    parser.add_argument("--conversations", type=int, help="only the first N conversations")
    parser.add_argument("--ollama-host", help="for --embedder ollama (default: $OLLAMA_HOST)")
    parser.add_argument("--ollama-model", default="nomic-embed-text")
    parser.add_argument("--ollama-dim", type=int, default=768)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a search or chunking setting for this run, e.g. search_text_weight=2",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    return parser.parse_args(argv)


def setting_overrides(pairs: Sequence[str]) -> dict[str, Any]:
    overrides: dict[str, Any] = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        if not name or not value:
            raise ValueError(f"--set wants NAME=VALUE, got {pair!r}")
        overrides[name] = json.loads(value) if value[0] in "[{0123456789-tf" else value
    return overrides


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    embedders = args.embedder or (["hash", "minilm"] if minilm_available() else ["hash"])
    if "minilm" not in embedders and not args.embedder:
        log("minilm: not installed (make eval-deps); scoring hash only")
    try:
        with embedded_postgres() as admin_url:
            runs = run_evaluation(
                embedders=embedders,
                modes=args.mode or MODES,
                conversations=args.conversations,
                options=EmbedderOptions(args.ollama_host, args.ollama_model, args.ollama_dim),
                admin_url=admin_url,
                settings_overrides=setting_overrides(args.set),
            )
    except (ArchivistError, ValueError) as exc:
        log(f"error: {exc}")
        return 2
    manifest = rs.read_manifest()
    print(as_json(runs, manifest) if args.json else render(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
