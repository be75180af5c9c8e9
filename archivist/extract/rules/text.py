"""Text preparation: a message's prose cleaned and cut into sentences and task-list items."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from typing import Literal

MAX_ANALYSED_CHARS = 20_000

_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029]")
# (a block left open runs to the end: pasted code cut short, or a message cut at
# MAX_ANALYSED_CHARS inside one)
_FENCED = re.compile(r"```.*?(?:```|\Z)", re.S)
_EMPHASIS = re.compile(r"\*\*|__|~~|`")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
# No break after a title or a common abbreviation ("Dr. Patel", "e.g. Redis"). The cheap
# lookbehind (a sentence mark) comes first: the abbreviations are only tried after one, not at
# every character (same matches, the lookarounds all test the same position).
_SENTENCE_BREAK = re.compile(
    r"(?<=[.!?\u2026])(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bSt\.)(?<!\bvs\.)"
    r"(?<!\bProf\.)(?<!\bJr\.)(?<!\bSr\.)(?<!\bRev\.)"
    r"(?<!\be\.g\.)(?<!\bi\.e\.)\s+"
)
_LINE_PREFIX = re.compile(r"^(?:>+\s*|#{1,6}\s+)")
_LIST_ITEM = re.compile(r"^(?:[-*\u2022+]|\d{1,2}[.)])\s+(?P<body>\S.*)$")
_CHECKBOX = re.compile(r"^(?:[-*+]\s+)?\[(?P<mark>[ xX])\]\s+(?P<body>\S.*)$")
_HEADS = (
    r"(?:plan|next steps?|next up|to-?dos?|to do|action items?|tasks?|checklist|follow[- ]?ups?"
    r"|remaining (?:work|items|steps))"
)
# A line that heads a task list: with a colon ("Plan for Monday:", "Things to do next:"), as a
# markdown heading ("## Next steps"), or the heading words alone ("Action items", "The plan").
# A sentence that only mentions a plan is prose ("we're on the Team plan now").
_LIST_HEADER = re.compile(
    r"^(?=.{1,60}$)(?!.*\b(?:problems?|issues?|risks?|concerns?|questions?|pros|cons)\b)"
    r"(?:(?:#{1,6}\s*)?(?:.*\b)?" + _HEADS + r"\b[^:]*:"
    r"|#{1,6}\s*(?:.*\b)?" + _HEADS + r"\b[^:]*(?<=\w)"
    r"|(?:(?:the|our|my|your|today's|this week's)\s+)?"
    + _HEADS
    + r"(?:\s+for\s+\S+(?:\s+\S+)?)?)$",
    re.I,
)


def clean_text(text: str) -> str:
    """`text` cut to the analysed length, with control characters and surrogates blanked."""
    return _CONTROL.sub(" ", text[:MAX_ANALYSED_CHARS]).translate(_QUOTES)


def clip(text: str, limit: int) -> str:
    """`text` cut at a word to at most `limit` characters, an ellipsis marking the cut."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;.") + "\u2026"


def prepare(text: str) -> str:
    """The prose of a message: cleaned, without fenced code blocks and markdown emphasis."""
    return _EMPHASIS.sub("", _FENCED.sub("\n", clean_text(text)))


def split_sentences(text: str) -> list[str]:
    """Sentences at `.`, `!`, `?` or an ellipsis followed by a space."""
    return [s for s in (p.strip() for p in _SENTENCE_BREAK.split(text)) if s]


def _units(text: str) -> Iterator[tuple[str, Literal["planned", "done"] | None]]:
    """Sentences of the prose, each with the outcome it has when it is an item of a task list.

    A list directly under a header such as "Next steps:" or "TODO:" is a list of planned
    actions; markdown checkboxes are actions whatever precedes them.
    """
    in_list = seen_item = False
    for raw in text.split("\n"):
        line = raw.strip()
        if not line:
            in_list = in_list and not seen_item
            continue
        box = _CHECKBOX.match(line)
        item = _LIST_ITEM.match(line)
        if box:
            yield box.group("body"), "planned" if box.group("mark") == " " else "done"
        elif item and in_list:
            seen_item = True
            yield item.group("body"), "planned"
        elif _LIST_HEADER.match(line):
            in_list, seen_item = True, False
        else:
            in_list = False
            body = _LINE_PREFIX.sub("", item.group("body") if item else line)
            for sentence in split_sentences(body):
                yield sentence, None


def units(text: str) -> list[tuple[str, Literal["planned", "done"] | None]]:
    """The sentences of a message's prose, each with its task-list outcome (see `_units`)."""
    if len(text) > MAX_ANALYSED_CHARS:
        return list(_units(prepare(text)))  # not cached: the cache holds its keys
    return list(_cached_units(text))


@lru_cache(maxsize=1024)
def _cached_units(text: str) -> tuple[tuple[str, Literal["planned", "done"] | None], ...]:
    """`units`, cached: the rules read a message's sentences for its extraction, for its
    candidate items and (the user's) for contradicting experiences."""
    return tuple(_units(prepare(text)))


def ascii_fold(text: str) -> str:
    """`text` with accents folded to ASCII and other non-ASCII characters dropped."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
