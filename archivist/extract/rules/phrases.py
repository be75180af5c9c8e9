"""Phrases: a matched clause turned into a short item text, and scanning a pattern's matches."""

from __future__ import annotations

import re
from collections.abc import Iterator

from archivist.extract.rules.text import clean_text, prepare, split_sentences
from archivist.extract.rules.vocabulary import COMMON_VERBS, GREETING
from archivist.prefilter import Gated
from archivist.words import VAGUE

MAX_PHRASE_CHARS = 200
REQUEST_CHARS = 200

_CUT = re.compile(
    r"[;!?()\[\]{}\"]|[,:](?=\s|$)|\s[\u2014\u2013-]+\s|\u2014"
    # a full stop, but not a title's ("Dr. Farah")
    r"|(?<!\b(?-i:Dr))(?<!\b(?-i:Mr))(?<!\b(?-i:Ms))(?<!\b(?-i:Mrs))(?<!\b(?-i:St))"
    r"(?<!\b(?-i:Prof))(?<!\b(?-i:Jr))(?<!\b(?-i:Sr))(?<!\b(?-i:Rev))\.(?=\s|$)"
    r"|\s(?:because|since|so that|so|but|though|although|unless|while|whereas|which"
    r"|otherwise|if|when|once|except)\b"
    r"|\s(?:and|or)\s+(?:i|we|you|let'?s|let us|then|also|maybe|it|that|this)\b"
    r"|\sthen\b",
    re.I,
)
_TRAILING = re.compile(
    r"(?:\s+(?:then|please|i think|i guess|i suppose|ok|okay|anyway|for sure|right|yeah|too"
    r"|as well|the|a|an|and|or|to|for|with|of|in|on|at|by|from|is|are|be|so|but|my|our|your))+$",
    re.I,
)
_FILLER = re.compile(
    r"^(?:(?:ok(?:ay)?|alright|all right|sure|great|cool|perfect|yes|yeah|yep|yup|right|fine"
    r"|good|nice|awesome|excellent|sounds good|got it|thanks|thank you|so|then|and|but|also"
    r"|well|hmm+|oh|ah|makes sense|in that case|honestly|anyway|understood)\b[\s,.!:;\u2014-]*)+",
    re.I,
)
# What comes before the verb of a planned action: "TODO: I'll set up X" plans "Set up X".
ACTION_LEAD = re.compile(
    r"^(?:(?:just|also|then|now|first|quickly|probably|definitely|actually|still|go ahead and"
    r"|need to|have to|try to|try and|want to|get to|be sure to|start by"
    r"|(?:i|we)(?:'ll| will|'m going to| am going to|'re going to| are going to| need to"
    r"| have to|'ve got to| should| must))\s+)+",
    re.I,
)


def clause(text: str) -> str:
    """`text` up to the end of its clause (punctuation, a conjunction, a new subject)."""
    cut = _CUT.search(text)
    return text[: cut.start()] if cut else text


_COORDINATED = re.compile(
    r"\s+and\s+(?:also\s+)?(?=(?:" + "|".join(sorted(COMMON_VERBS)) + r")\b)", re.I
)


def coordinated(text: str) -> list[str]:
    """A clause split where "and" starts a new verb phrase: "add X and keep Y" -> both."""
    return _COORDINATED.split(text)


def tidy(text: str, max_words: int, *, capital: bool = True) -> str:
    """A clause as a short phrase: capped in words and characters, without trailing filler."""
    phrase = " ".join(text.split()[:max_words])
    phrase = _TRAILING.sub("", " " + phrase).strip(" '\"*.,")[:MAX_PHRASE_CHARS].strip()
    return phrase[:1].upper() + phrase[1:] if capital else phrase


def strip_fillers(sentence: str) -> str:
    """The sentence without its leading "ok, so," fillers."""
    return _FILLER.sub("", sentence.strip())


def has_substance(phrase: str) -> bool:
    """At least two words, and something after the first one that is not a pronoun or filler."""
    parts = [w.strip(".,'\"").lower() for w in phrase.split()]
    return len(parts) >= 2 and any(w and w not in VAGUE for w in parts[1:])


def request_phrase(text: str) -> str:
    """What a message asks, for a summary: its first non-greeting sentences, at most 200 chars."""
    sentences = split_sentences(" ".join(prepare(text).split()))
    wanted = [s for s in sentences if not GREETING.match(s)] or sentences
    phrase = ""
    for sentence in wanted:
        phrase = f"{phrase} {sentence}".strip()
        if len(phrase) >= 40:
            break
    phrase = phrase or " ".join(clean_text(text).split())
    if len(phrase) > REQUEST_CHARS:
        phrase = phrase[:REQUEST_CHARS].rsplit(" ", 1)[0] + "\u2026"
    return phrase.replace('"', "'")


def scan(pattern: Gated, text: str) -> Iterator[tuple[re.Match[str], str]]:
    """Matches of `pattern` with the clause of their object; the next search starts after it."""
    pos = 0
    while (match := pattern.search(text, pos)) is not None:
        obj = clause(match.group("obj") or "")
        yield match, obj
        pos = max(match.start("obj") + len(obj), match.start() + 1)


def inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    """Whether `pos` falls in one of the spans an earlier pattern already took."""
    return any(start <= pos < end for start, end in spans)
