"""Sentence guards: questions, conditionals, hedges and "not yet" yield no decisions or actions."""

from __future__ import annotations

import re

from archivist.extract.rules.phrases import strip_fillers
from archivist.prefilter import Gated

_TAG_QUESTION = Gated(
    r"[,\s](?:ok|okay|right|yeah|yes|agreed|alright|sounds? good|cool|deal)\s*\?+\s*$", re.I
)
_QUESTION_START = re.compile(
    r"^(?:should|shall|could|would|can|what|which|how|why|whether|where|who|does|did"
    r"|do you think|any (?:thoughts|ideas|suggestions)|is it|are we|are you)\b",
    re.I,
)
# A question asked after a clause, without its mark: "..., so how do I get started with X",
# "..., like how many ways can I choose 2 items".
_ASKED_AFTER = Gated(
    r"(?:[,;:]\s*|\b(?:so|but|and|now|like)\s+)(?:how|what|which|where|why)"
    r"(?:\s+(?!(?:i|we|you)\b)[\w'-]+){0,2}?\s+(?:do|does|can|could"
    r"|should|would|will|shall)\s+(?:i|we|you)\b",
    re.I,
)
CONDITIONAL = re.compile(r"\b(?:if|whether|unless|what if|suppose|supposing|in case)\b", re.I)
_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|might|could|would|should|considering|consider|thinking about|not|never"
    r"|wondering|option|alternatively|or|unsure)\b|n't\b",
    re.I,
)
NOT_YET = re.compile(
    r"\b(?:if|when|once|after|before|until|unless|whether|hope|hopefully|not|never|yet|will"
    r"|should|need to|going to)\b|n't\b",
    re.I,
)


def is_question(sentence: str) -> bool:
    """A question mark (not a tag question like ", ok?"), a question word first, or a question
    asked after a clause."""
    text = sentence.rstrip()
    if text.endswith("?") and not _TAG_QUESTION.search(text):
        return True
    return bool(_QUESTION_START.match(strip_fillers(text)) or _ASKED_AFTER.search(text))


def clause_before(text: str, end: int) -> str:
    """The part of the clause that precedes position `end` (at most 200 chars back)."""
    before = text[max(0, end - 200) : end]
    return re.split(r"[,;:]\s", before)[-1]


def hedged(text: str, start: int) -> bool:
    """A conditional anywhere before `start`, or a hedge or negation in the same clause."""
    return bool(
        CONDITIONAL.search(text[max(0, start - 300) : start])
        or _HEDGE.search(clause_before(text, start))
    )
