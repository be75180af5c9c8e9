"""Changes said in words nobody here chose: does exactly the new choice end current?

`tests/state_quality/change_scenarios.json` holds three batches of scenarios written for this
evaluation by writers who saw neither the rules nor any other scenario, only the format: a
user's first message that chooses something, a later one that changes it, a word of the new
value and one of the old (batch 2's later messages are written as if in a new conversation;
batch 3's writer was asked to avoid the common phrasings of a change).
Scenarios without an old word are controls: the later message chooses something else, and
must replace nothing. Even-numbered scenarios are the tuning half, odd-numbered the held-out
half, run only to report.

Each scenario is archived twice, as one session (the two messages a few minutes apart) and as
two sessions a day apart, each as its own user, with the rules extractor and the hash
embedder; what is read is the current state across sessions (`archivist_state_items`). A
change passes when a current decision or constraint names the new value and none names the
old one (words after "instead of" or "from" in an item's text, or after a "Drop" that opens
it, are what it replaced or dropped, not what it holds); a control passes when none of its
items was superseded.

Run:  python -m scripts.evals.scenarios [--split tune|heldout] [--json] [-v]
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from scripts.evals.current import TYPES, archived

SET = Path(__file__).resolve().parents[2] / "tests" / "state_quality" / "change_scenarios.json"
SPLITS = ("tune", "heldout")
MODES = {"within": "one session", "across": "two sessions"}
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
_REPLACED = re.compile(r"^drop\b|\b(?:instead of|from)\b", re.I)


@dataclass(frozen=True)
class Scenario:
    id: str
    split: str
    first: str
    later: str
    new: str
    old: str | None

    @property
    def batch(self) -> str:
        return self.id.split("-", 1)[0]

    @property
    def control(self) -> bool:
        return self.old is None


def load(path: Path = SET) -> list[Scenario]:
    return [Scenario(**entry) for entry in json.loads(path.read_text())]


def rows(scenarios: Sequence[Scenario]) -> list[tuple[int, str, str, str, datetime, str]]:
    """Each scenario's two user messages (each answered "Noted."), in one session and in two."""
    out: list[tuple[int, str, str, str, datetime, str]] = []
    for scenario in scenarios:
        for mode in MODES:
            user = f"{scenario.id}-{mode}"
            for n, text in enumerate((scenario.first, scenario.later)):
                session = user if mode == "within" else f"{user}-s{n}"
                day = timedelta(days=n if mode == "across" else 0)
                for role, content in (("user", text), ("assistant", "Noted.")):
                    at = T0 + day + timedelta(minutes=len(out))
                    out.append((len(out) + 1, session, role, content, at, user))
    return out


def _names(texts: Sequence[str], word: str) -> bool:
    pattern = re.compile(r"(?<![\w.])" + re.escape(word) + r"(?!\w)", re.I)
    return any(pattern.search(text) for text in texts)


def passes(scenario: Scenario, items: Sequence[dict[str, Any]]) -> bool:
    """Whether one archived form of the scenario (its user's items) ends as it should."""
    chosen = [i for i in items if i["type"] in TYPES]
    if scenario.control:
        return all(i["current"] for i in chosen)
    current = [i["text"] for i in chosen if i["current"]]
    held = [_REPLACED.split(text, maxsplit=1)[0] for text in current]
    return _names(current, scenario.new) and not _names(held, scenario.old or "")


def score(scenarios: Sequence[Scenario], items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per batch, split and kind (changes, controls): how many pass in each form."""
    by_user: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        by_user.setdefault(item["user_id"], []).append(item)
    report: dict[str, Any] = {}
    for scenario in scenarios:
        kind = "controls" if scenario.control else "changes"
        cell = report.setdefault(f"{scenario.batch}_{scenario.split}_{kind}", {"n": 0})
        cell["n"] += 1
        for mode in MODES:
            ok = passes(scenario, by_user.get(f"{scenario.id}-{mode}", []))
            cell[mode] = cell.get(mode, 0) + ok
            if not ok:
                cell.setdefault(f"failed_{mode}", []).append(scenario.id)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=SPLITS, help="only this half (default: both)")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument("-v", "--verbose", action="store_true", help="list the failed ids")
    args = parser.parse_args(argv)
    scenarios = [s for s in load() if args.split in (None, s.split)]
    report = score(scenarios, archived(rows(scenarios), "eval_scenarios"))
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{'batch, half, kind':<28} {'n':>4} {'one session':>12} {'two sessions':>13}")
    for name, cell in sorted(report.items()):
        print(f"{name:<28} {cell['n']:>4} {cell['within']:>12} {cell['across']:>13}")
        if args.verbose:
            for mode in MODES:
                if cell.get(f"failed_{mode}"):
                    print(f"  failed, {MODES[mode]}: {' '.join(cell[f'failed_{mode}'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
