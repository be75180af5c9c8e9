"""Decisions: "let's use X", "we decided to X", "X it is" as short imperative sentences."""

from __future__ import annotations

import re

from archivist.extract.rules.findings import DecisionHit, Finding
from archivist.extract.rules.guards import hedged
from archivist.extract.rules.phrases import coordinated, has_substance, inside, scan, tidy
from archivist.extract.rules.vocabulary import CHATTER_VERBS, domain_of
from archivist.prefilter import Gated
from archivist.state.change import change_cue

DECISION_WORDS = 12

# The object of a trigger: what follows it, cut to its clause by `phrases.scan`.
OBJ = r"(?P<obj>\S.{0,400})"
_CHOICE = (
    r"use|go with|go for|pick|choose|adopt|stick with|stay with|switch(?: over)? to|move to"
    r"|migrate to|standardi[sz]e on|settle on|drop|replace|ditch|keep"
)
_VERB_BASE = {
    "going with": "go with",
    "sticking with": "stick with",
    "switching to": "switch to",
    "switching over to": "switch to",
    "switch over to": "switch to",
    "switched to": "switch to",
    "switched over to": "switch to",
    "migrated to": "migrate to",
    "migrating to": "migrate to",
    "moving to": "move to",
    "switching from": "switch from",
    "switched from": "switch from",
    "switching over from": "switch from",
    "switched over from": "switch from",
    "migrating from": "migrate from",
    "migrated from": "migrate from",
    "moving from": "move from",
    "moved from": "move from",
}


_DECISIONS: tuple[Gated, ...] = tuple(
    Gated(pattern, re.I)
    for pattern in (
        rf"\b(?:let's|lets|let us)\s+(?:just\s+|definitely\s+|go ahead and\s+)?"
        rf"(?P<neg>not\s+)?(?P<verb>{_CHOICE})\s+{OBJ}",
        r"\bwe(?:'ll|\s+will|'re going to|\s+are going to|\s+shall)\s+(?:just\s+|definitely\s+)?"
        rf"(?P<verb>{_CHOICE})\s+{OBJ}",
        r"\bi(?:'ll|\s+will|'m going to|\s+am going to)\s+(?:just\s+)?"
        rf"(?P<verb>go with|go for|stick with|switch(?: over)? to)\s+{OBJ}",
        r"\b(?:we(?:'re|\s+are)|i(?:'m|\s+am))\s+(?:now\s+)?"
        rf"(?P<verb>going with|switching(?: over)? to|sticking with|migrating to)\s+{OBJ}",
        r"\b(?:we|i)\s+(?:(?:'ve|have)\s+)?(?:now\s+|just\s+|finally\s+)?"
        rf"(?P<verb>switched(?: over)? to|migrated to)\s+{OBJ}",
        # "we're switching from Jenkins to GitHub Actions": the text keeps both sides
        r"\b(?:let's|lets|let us|we(?:'re|\s+are|'ve|\s+have|'ll|\s+will)?|i(?:'m|\s+am|'ve"
        r"|\s+have)?)\s+(?:now\s+|just\s+|finally\s+)?(?P<verb>(?:switch(?:ing|ed)?|migrat(?:e|ing|ed)"
        r"|mov(?:e|ing|ed))(?: over)? from)\s+(?P<obj>[^,.;:!?]{1,80}?\sto\s.{1,300})",
        r"^(?P<verb>go with|going with|switch(?: over)? to|switching(?: over)? to|stick with"
        rf"|sticking with)\s+{OBJ}",
        r"\bdecided\s+(?P<neg>not\s+)?(?P<link>(?:that\s+)?(?:we|i)(?:'ll|\s+will|\s+should"
        rf"|\s+need\s+to|\s+would)?|to|on|that)\s+{OBJ}",
        rf"\bdecided\s*:\s*{OBJ}",
        r"\b(?:we|i|everyone|both of us)(?:'ve|\s+have|\s+all|\s+have all|'ve all)?\s+agreed\s+"
        rf"(?P<link>to|on|that)\s+{OBJ}",
        rf"^agreed\s*(?::\s*|\s+(?P<link>to|on|that)\s+){OBJ}",
        r"\b(?:the\s+|our\s+|my\s+)?(?:final\s+)?decision\s*(?::|(?:is|was)\s+(?:to|that))\s*"
        + OBJ,
    )
) + (
    # "Vercel it is." (names only, so case-sensitive)
    Gated(
        r"^(?P<itis>)(?P<obj>[A-Z][\w.+#'-]*(?:\s+(?:(?:de|da|do|del|la|le|van|von|of|the)\s+)?"
        r"[A-Z0-9][\w.+#'-]*){0,3})\s+it\s+is\s*[.!]*$"
    ),
)
# In a sentence that says what it replaces ("we no longer need the cron box; let's move the
# jobs to GitHub Actions"), any plan is a choice: a decision, not an action.
_CHANGE_PLAN = Gated(
    r"\b(?:let's|lets|let us|we(?:'ll|\s+will|'re going to|\s+are going to))\s+"
    rf"(?P<verb>[a-z]+)\s+{OBJ}",
    re.I,
)
_PRONOUN_OBJECTS = frozenset(
    "it|that|this|them|those|these|one|either|both|that one|this one|the other|the other one"
    "|the former|the latter|your suggestion|your recommendation|your idea|option|yours"
    "|the first|the second|the first one|the second one".split("|")
)


def _decision_text(match: re.Match[str], obj: str) -> str | None:
    """The decision as a short imperative sentence ("Use Vercel for the frontend deploy")."""
    phrase = tidy(obj, DECISION_WORDS, capital=False)
    if not phrase or phrase.lower() in _PRONOUN_OBJECTS:
        return None
    groups = match.groupdict()
    if match.re is _CHANGE_PLAN.pattern and groups["verb"].lower() in CHATTER_VERBS:
        return None
    negative = bool(groups.get("neg"))
    if groups.get("verb"):
        verb = " ".join(groups["verb"].lower().split())
        text = f"{_VERB_BASE.get(verb, verb).capitalize()} {phrase}"
        text = f"Do not {text[0].lower()}{text[1:]}" if negative else text
    elif groups.get("link") == "on" or groups.get("itis") is not None:
        text = f"Go with {phrase}"
    else:
        text = f"Do not {phrase}" if negative else phrase[:1].upper() + phrase[1:]
    return text if has_substance(text) else None


def _plain_decision(text: str) -> str | None:
    phrase = tidy(text, DECISION_WORDS)
    return phrase if has_substance(phrase) else None


def find_decisions(body: str) -> tuple[list[tuple[int, Finding]], list[tuple[int, int]]]:
    """The decisions of a sentence by position, and the spans they took (no action there)."""
    found: list[tuple[int, Finding]] = []
    spans: list[tuple[int, int]] = []
    cue = change_cue(body)
    patterns = _DECISIONS + ((_CHANGE_PLAN,) if cue and cue.old else ())
    for pattern in patterns:
        for match, obj in scan(pattern, body):
            if inside(match.start(), spans) or hedged(body, match.start()):
                continue
            first, *more = coordinated(obj)
            texts = [_decision_text(match, first), *(_plain_decision(part) for part in more)]
            for text in texts:
                if text:
                    found.append((match.start(), DecisionHit(text, domain_of(body))))
            spans.append((match.start(), match.start("obj") + len(obj)))
    return found, spans
