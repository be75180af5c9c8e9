"""The strings a pattern's every match contains (`prefilter`): never one a match can lack."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from pathlib import Path

import pytest

from archivist import state
from archivist.extract import rules
from archivist.prefilter import Gated, Needs, folded
from archivist.state.frames import _PATTERNS

SAMPLES = Path(__file__).resolve().parents[2] / "archivist" / "samples"


@pytest.mark.parametrize(
    ("pattern", "one_of"),
    [
        (r"\btakes\s+place\s+in\b", ("takes",)),  # the longest, then the first
        (r"\b(?:moved|moves|relocated)\s+to\b", ("moved", "moves", "relocated")),
        (r"\bmov(?:e|ed|ing)\b", ("move", "moving")),  # "moved" holds "move"
        (r"(?:it's|it is|it's now)\s+\w+", ("it is", "it's")),
        (r"(?<=\bwe agreed )\w+", ("we agreed ",)),
        (r"\b(?:ab|cd)?(?:xy)+z", ("xy",)),
        (r"(?:foo|\w+)\s+bar", ("bar",)),  # an alternative without a string
        (r"\w+(?:\s+done)?", ()),  # optional
        (r"x*(?!done)", ()),
        (r"\u2192\s*(?:\u2192|->)", ()),  # no ASCII string
        (r"(?-i:[A-Z])SQL", ("sql",)),
    ],
)
def test_needs_of_a_pattern(pattern: str, one_of: tuple[str, ...]) -> None:
    assert Needs.of(re.compile(pattern, re.I)).one_of == one_of


def test_a_text_without_the_strings_cannot_match() -> None:
    needs = Needs.of(re.compile(r"\btakes\s+place\b", re.I))
    assert needs.may_match(folded("The retreat TAKES PLACE in May"))
    assert not needs.may_match(folded("The retreat is in May"))
    assert Needs().may_match("")


def test_only_the_case_twins_of_ascii_letters_are_folded() -> None:
    """Every character beyond ASCII that re.IGNORECASE matches to an ASCII character is one
    that `folded` writes as that character, so folding loses no match."""
    everything = "".join(map(chr, range(128, 0x110000)))
    twins = set(re.compile("[\x00-\x7f]", re.I).findall(everything))
    assert twins and all(folded(c).isascii() and re.match(folded(c), c, re.I) for c in twins)
    assert folded("\u212a\u0130\u017f") == "kis"


def _sentences() -> list[str]:
    texts = []
    for path in sorted(SAMPLES.glob("*.json")):
        texts += [m["content"] for m in json.loads(path.read_text())["messages"]]
    return [s for t in texts for s in re.split(r"(?<=[.!?])\s+|\n+", t) if s]


def _gated() -> list[Gated]:
    """The gated patterns of the rules and of `state`."""
    names = [
        f"{package.__name__}.{m.name}"
        for package in (rules, state)
        for m in pkgutil.iter_modules(package.__path__)
    ]
    values = [v for name in names for v in vars(importlib.import_module(name)).values()]
    while any(isinstance(v, tuple) for v in values):  # ((trigger, pattern), ...)
        values = [x for v in values for x in (v if isinstance(v, tuple) else (v,))]
    return list({id(v): v for v in values if isinstance(v, Gated)}.values())


def test_the_rules_patterns_match_no_text_their_needs_rule_out() -> None:
    sentences = _sentences()
    patterns = [p for p, _ in _PATTERNS] + [g.pattern for g in _gated()]
    ruled_out = 0
    for pattern in patterns:
        needs = Needs.of(pattern)
        for sentence in sentences:
            if not needs.may_match(folded(sentence)):
                ruled_out += 1
                assert pattern.search(sentence) is None, (pattern.pattern, sentence)
    assert len(patterns) > 150 and ruled_out > len(sentences) * len(patterns) // 2


def test_a_gated_pattern_finds_what_the_pattern_finds() -> None:
    gated = Gated(r"(?:takes|took)\s+place\s+(?P<where>\w+)", re.I)
    assert gated.needs.one_of == ("place",)
    for text in ("TOOK place Monday, it takes place daily", "No such event", ""):
        for found, expected in (
            (gated.search(text), gated.pattern.search(text)),
            (gated.match(text), gated.pattern.match(text)),
        ):
            assert (found and found.span()) == (expected and expected.span())
        spans = [m.span() for m in gated.pattern.finditer(text)]
        assert [m.span() for m in gated.finditer(text)] == spans
