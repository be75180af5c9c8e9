"""A labelled retrieval set, generated: long multi-session conversations and questions about them.

The generator is tests/support/retrieval_set.py (which describes the set). Printed: the set's
counts and checksum; on request the whole set as JSON, or a new manifest after a deliberate
change.

Run:  python -m scripts.evals.retrieval_set                  (counts and checksum)
      python -m scripts.evals.retrieval_set --out set.json   (the whole set, to read)
      python -m scripts.evals.retrieval_set --write-manifest (after a deliberate change)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.support.retrieval_set import MANIFEST, SEED, generate, manifest_of, problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", type=Path, help="write the whole set as JSON here")
    parser.add_argument("--write-manifest", action="store_true", help=f"rewrite {MANIFEST.name}")
    args = parser.parse_args(argv)
    labelled = generate(args.seed)
    found = problems(labelled)
    if found:
        print("error: " + "; ".join(found[:5]), file=sys.stderr)
        return 2
    manifest = manifest_of(labelled)
    if args.out:
        args.out.write_text(json.dumps(labelled.to_json(), indent=1), encoding="utf-8")
    if args.write_manifest:
        MANIFEST.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(manifest, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
