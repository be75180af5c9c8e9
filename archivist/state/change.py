"""Change language: the words that say a new choice replaces an old one, and what the old one was.

A supersession needs a *cue* in a candidate's text or its sentence (and a ref to a user
message, which reconciliation checks):

- an *explicit* cue names what is replaced: "instead of X", "rather than X", "switch from X
  to Y", "replace X with Y", "no longer use X", "not X anymore", "move off X". Its `old`
  phrase is what reconciliation looks for among the live items, so the supersession does not
  depend on how close two vectors happen to be;
- a *weak* cue ("actually", "switched to", "changed it to", a bare "instead") names only the
  new choice. It counts only next to a verb that names that choice (`replacement_verb`):
  "actually" alone is everyday speech. Weak cues leave the choice of the replaced item to the
  cosine band.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from archivist.prefilter import Gated

# What follows an explicit cue, up to the end of its clause: the replaced thing.
_OLD = r"(?P<old>[^,.;:!?()\n]{1,80}?)"
_OLD_END = (
    r"(?=[ \t]*(?:[,.;:!?()\n]|$)|\s+(?:for|and|but|because|so|since|in favou?r of|to|with|now"
    r"|anymore|any more|any longer|last|this|next|from now)\b)"
)
_EXPLICIT: tuple[tuple[str, Gated], ...] = tuple(
    (trigger, Gated(pattern, re.I))
    for trigger, pattern in (
        ("instead", rf"\binstead of\s+{_OLD}{_OLD_END}"),
        ("rather than", rf"\brather than\s+{_OLD}{_OLD_END}"),
        ("switch from", rf"\bswitch(?:ed|es|ing)?(?:\s+over)?\s+from\s+{_OLD}\s+to\b"),
        (
            "move off",
            r"\b(?:mov|migrat)(?:e|ed|es|ing)\s+(?:away\s+)?(?:from|off(?:\s+of)?)\s+"
            + _OLD
            + _OLD_END,
        ),
        ("replace", rf"\breplac(?:e|ed|es|ing)\s+{_OLD}\s+(?:with|by)\b"),
        (
            "no longer",
            r"\bno longer\s+(?:use|using|need|needs|want|run|running|go(?:ing)? with|rely on"
            rf"|have|keep|keeping)\s+{_OLD}{_OLD_END}",
        ),
        (
            "not anymore",
            rf"\b(?:not|don't|do not|won't)\s+(?:use|using|need|want|keep)\s+{_OLD}"
            r"\s+any\s?more\b",
        ),
    )
)
_WEAK = Gated(
    r"\b(?P<t>instead|no longer|not anymore|replac(?:e|ed|es|ing)|switch(?:ed|ing)? from"
    r"|switched|changed (?:it )?to|change (?:it )?to|actually)\b",
    re.I,
)
_REPLACEMENT_VERB = re.compile(
    r"\b(?P<v>use|using|choose|chose|chosen|switch(?:ed|ing)?|go(?:ing)? with|went with"
    r"|adopt(?:ed|ing)?|move(?:d)? to|migrat(?:e|ed|ing) to|replac(?:e|ed|es|ing)|pick(?:ed)?)\b",
    re.I,
)
_ARTICLE = re.compile(r"^(?:the|a|an|our|my|their|your)\s+", re.I)


@dataclass(frozen=True)
class Cue:
    """Change language found in a text: its trigger, and the replaced phrase if it names one."""

    trigger: str
    old: str | None = None


def change_cue(text: str) -> Cue | None:
    """The change language in `text`: an explicit cue first, else a weak one next to a
    replacement verb, else None."""
    found: list[tuple[int, Cue]] = []
    for trigger, pattern in _EXPLICIT:
        match = pattern.search(text)
        if match:
            old = _ARTICLE.sub("", match.group("old").strip())
            if old:
                found.append((match.start(), Cue(trigger, old)))
    if found:
        return min(found, key=lambda pair: pair[0])[1]
    weak = supersession_trigger(text)
    if weak is None or replacement_verb(text) is None:
        return None
    return Cue(weak)


def supersession_trigger(text: str) -> str | None:
    """The change word in `text` ("instead", "no longer", "switched", ...), lower case."""
    match = _WEAK.search(text)
    return " ".join(match.group("t").lower().split()) if match else None


def replacement_verb(text: str) -> str | None:
    """The verb naming a new choice ("use", "switch", "go with", ...), lower case."""
    match = _REPLACEMENT_VERB.search(text)
    return " ".join(match.group("v").lower().split()) if match else None
