"""Planned actions, completions ("I've deployed it") and the user's preferences."""

from __future__ import annotations

import re
from collections.abc import Callable

from archivist.extract.rules.decisions import OBJ
from archivist.extract.rules.findings import ActionHit, Completion, Finding, PreferenceHit
from archivist.extract.rules.guards import CONDITIONAL, NOT_YET, clause_before, hedged
from archivist.extract.rules.phrases import (
    ACTION_LEAD,
    clause,
    coordinated,
    has_substance,
    inside,
    scan,
    tidy,
)
from archivist.extract.rules.vocabulary import CHATTER_VERBS, NOT_PREFERENCE
from archivist.prefilter import Gated
from archivist.words import content_stems

ACTION_WORDS = 14

_ACTIONS: tuple[Gated, ...] = (
    Gated(
        r"\b(?:i|we)(?:'ll|\s+will|'m going to|\s+am going to|'re going to|\s+are going to"
        rf"|'m gonna|'re gonna|\s+shall)\s+{OBJ}",
        re.I,
    ),
    Gated(rf"\blet me\s+{OBJ}", re.I),
    Gated(rf"\b(?:let's|let us)\s+{OBJ}", re.I),
    Gated(
        r"\b(?:i|we)\s+(?:still\s+|also\s+|really\s+|definitely\s+|just\s+)?(?:need|have|got)"
        rf"\s+to\s+{OBJ}",
        re.I,
    ),
    Gated(rf"^(?:still\s+|also\s+)?need\s+to\s+{OBJ}", re.I),
    Gated(rf"\b(?:remind me to|don't forget to|do not forget to)\s+{OBJ}", re.I),
    Gated(rf"^(?:TODO|FIXME)\b[\s:\u2013-]*{OBJ}"),
    Gated(rf"^(?:to-?do|to do)\s*:\s*{OBJ}", re.I),
    Gated(rf"\b(?:the|our|my)\s+plan\s+(?:is|was)\s+to\s+{OBJ}", re.I),
)
_SHOULD_ACTION = Gated(rf"\b(?:we|i)\s+should\s+{OBJ}", re.I)
_WHEN_MARKER = Gated(
    r"\b(?:tomorrow|tonight|next|later today|later this week|this week|this afternoon"
    r"|this evening|first thing|on (?:mon|tues|wednes|thurs|fri|satur|sun)day"
    r"|by (?:mon|tues|wednes|thurs|fri|satur|sun)day|by eod|end of day)\b",
    re.I,
)
_NEXT_LIST = re.compile(
    r"^next(?:\s+steps?|\s+up)?\s*[:\u2013\u2014-]\s*(?P<obj>\S.{0,600})"
    r"|\bnext steps?\s+(?:is|are|will be|would be)\s*:?\s+(?:to\s+)?(?P<obj2>\S.{0,600})",
    re.I,
)
_ITEM_SPLIT = re.compile(r";|(?:^|\s)\(?\d{1,2}[.)]\s+|,\s+(?:and\s+)?then\s+|\s+and then\s+")


def _action_text(obj: str) -> str | None:
    """A planned action as an imperative phrase, unless it is conversational filler."""
    phrase = tidy(ACTION_LEAD.sub("", obj.strip()), ACTION_WORDS)
    first, _, rest = phrase.lower().partition(" ")
    if first in CHATTER_VERBS or rest.startswith("you ") or rest == "you":
        return None
    return phrase if has_substance(phrase) else None


_PAST = (
    r"deployed|shipped|finished|completed|fixed|merged|pushed|set up|created|added|updated"
    r"|booked|sent|wrote|written|installed|configured|migrated|drafted|rotated|released"
    r"|published|implemented|reserved|scheduled|submitted|built|tested|reverted|removed"
    r"|deleted|enabled|disabled|connected|upgraded|bought|paid|cancell?ed|ordered|filed"
    r"|resolved|opened|wired up|hooked up|cleaned up|backfilled|renamed|refactored|documented"
    r"|emailed|pinged|confirmed|uploaded|applied|signed up|registered|renewed|switched"
    r"|patched|bumped|rolled back|rolled out"
)
_MORE_DONE = re.compile(rf"\s+and\s+(?:also\s+|then\s+)?(?=(?:{_PAST})\b)", re.I)
_COMPLETIONS: tuple[Gated, ...] = (
    Gated(
        r"\b(?:i|we)(?:'ve|\s+have|\s+had)?\s+(?:just\s+|now\s+|already\s+|finally\s+|also\s+"
        rf"|successfully\s+)?(?P<verb>{_PAST})\b(?P<obj>.{{0,400}})",
        re.I,
    ),
    Gated(
        r"^(?:just\s+|all\s+|finally\s+)?(?P<verb>done|finished|completed|shipped|deployed"
        r"|merged|pushed|fixed|booked|sent|added|created|updated|installed|configured|rotated"
        r"|released|published|implemented|reserved|submitted|removed|deleted|upgraded|bought"
        r"|paid|ordered|resolved|backfilled|renamed|refactored|uploaded|applied|patched)\b"
        r"(?P<obj>.{0,400})",
        re.I,
    ),
    Gated(
        r"^(?P<verb>)(?P<obj>(?:(?:the|my|our|your|that|this)\s+[^,;:]{1,60}?|it|that|this"
        r"|everything|all|both)\s+(?:is|are|'s|has been|have been|was|were)\s+(?:now\s+|all\s+"
        r"|finally\s+|officially\s+)?(?:done|live|deployed|merged|fixed|finished|complete"
        r"|completed|shipped|booked|sent|resolved|in place|up and running|sorted))\b",
        re.I,
    ),
)

_PREFERENCES: tuple[tuple[Gated, Callable[[re.Match[str], str], str]], ...] = (
    (
        Gated(
            r"\b(?:i|we)(?:'d|\s+would)?\s+(?:really\s+|much\s+|generally\s+|usually\s+"
            rf"|strongly\s+|always\s+)?prefer\s+{OBJ}",
            re.I,
        ),
        lambda m, obj: f"Prefers {obj}",
    ),
    (
        Gated(rf"\b(?:i|we)(?:'d|\s+would)\s+(?:much\s+)?rather\s+{OBJ}", re.I),
        lambda m, obj: f"Would rather {obj}",
    ),
    (
        Gated(
            r"\bi\s+(?:really\s+|much\s+)?like\s+(?P<obj>[^,;.!?]{1,120}?)\s+(?:a lot\s+)?"
            r"(?:better|more)\b(?:\s+than\s+(?P<than>[^,;.!?]{1,80}))?",
            re.I,
        ),
        lambda m, obj: f"Prefers {obj}" + (f" over {m.group('than')}" if m.group("than") else ""),
    ),
    (
        Gated(
            r"\bi\s+(?:really\s+)?(?:hate|dislike|can't stand|don't like|do not like)\s+" + OBJ,
            re.I,
        ),
        lambda m, obj: f"Dislikes {obj}",
    ),
    (
        Gated(rf"(?:^|\bplease\s+)(?:please\s+)?always\s+{OBJ}", re.I),
        lambda m, obj: f"Always {obj}",
    ),
    (
        Gated(rf"(?:^|\bplease\s+)(?:please\s+)?never\s+{OBJ}", re.I),
        lambda m, obj: f"Never {obj}",
    ),
    (
        Gated(rf"(?:^|\bplease\s+)(?:please\s+)?(?:don't|do not)\s+{OBJ}", re.I),
        lambda m, obj: "" if obj.split()[0].lower() in NOT_PREFERENCE else f"Don't {obj}",
    ),
    (
        Gated(
            r"\bmy\s+(?:favou?rite|preferred)\s+(?P<what>[a-z][a-z ]{1,30}?)\s+is\s+" + OBJ,
            re.I,
        ),
        lambda m, obj: f"Favourite {m.group('what').lower()}: {obj}",
    ),
)


def find_actions(body: str, taken: list[tuple[int, int]]) -> list[tuple[int, Finding]]:
    """Planned actions by position, outside the spans decisions took."""
    found: list[tuple[int, Finding]] = []
    for pattern in _ACTIONS:
        for match, obj in scan(pattern, body):
            if inside(match.start(), taken) or hedged(body, match.start()):
                continue
            texts = [_action_text(part) for part in coordinated(obj)]
            found += [(match.start(), ActionHit(text, "planned")) for text in texts if text]
            if any(texts):
                taken.append((match.start(), match.start("obj") + len(obj)))
    if _WHEN_MARKER.search(body):
        for match, obj in scan(_SHOULD_ACTION, body):
            text = None if inside(match.start(), taken) else _action_text(obj)
            if text:
                found.append((match.start(), ActionHit(text, "planned")))
    return found + _next_items(body)


def _next_items(body: str) -> list[tuple[int, Finding]]:
    """Items of "Next: a; b" or "next steps are 1) a 2) b"."""
    match = _NEXT_LIST.search(body)
    if match is None:
        return []
    rest = match.group("obj") or match.group("obj2") or ""
    items = (_action_text(clause(part)) for part in _ITEM_SPLIT.split(rest))
    return [(match.start(), ActionHit(text, "planned")) for text in items if text]


def find_completions(body: str) -> list[tuple[int, Finding]]:
    """What the sentence says was done, by position (not "once it is done")."""
    found: list[tuple[int, Finding]] = []
    for pattern in _COMPLETIONS:
        for match, obj in scan(pattern, body):
            if NOT_YET.search(clause_before(body, match.start())):
                continue
            for part in _MORE_DONE.split(f"{match.group('verb')} {obj}"):
                text = tidy(part, ACTION_WORDS)
                stems = content_stems(text)
                if stems:
                    found.append((match.start(), Completion(text, stems)))
    return found


def find_preferences(body: str) -> list[tuple[int, Finding]]:
    """The user's preferences by position ("I prefer X", "never Y"), unless conditional."""
    found: list[tuple[int, Finding]] = []
    for pattern, build in _PREFERENCES:
        for match, obj in scan(pattern, body):
            phrase = tidy(obj, ACTION_WORDS, capital=False)
            if not phrase or CONDITIONAL.search(body[: match.start()]):
                continue
            text = tidy(build(match, phrase), ACTION_WORDS + 4)
            if has_substance(text):
                found.append((match.start(), PreferenceHit(text)))
    return found
