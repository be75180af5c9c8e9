"""Words: tokens, crude stems and the function words, shared by the rules and reconciliation.

Both the rules extractor (which reads messages) and reconciliation (which compares state items
across versions) need to tell whether two short texts name the same thing; they use these
helpers so that they agree. Pure functions, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """`1 session`, `2 sessions` (`nouns` where adding an s is wrong: `1 message is`, `2
    messages are`)."""
    return f"{n} {noun}" if n == 1 else f"{n} {nouns or noun + 's'}"


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of `text`, for writing word lists as text blocks."""
    return frozenset(text.split())


FUNCTION_WORDS = word_set(
    """a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't down during each few for from further had hadn't has hasn't have haven't
    having he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll
    i'm i've if in into is isn't it it's its itself let's lets let me more most my myself no nor
    not of off on once only or other ought our ours ourselves out over own same she should
    shouldn't so some such than that that's the their theirs them themselves then there there's
    these they they'd they'll they're they've this those through to too under until up very was
    wasn't we we'd we'll we're we've were weren't what what's when where which while who whom
    why will with won't would wouldn't you you'd you'll you're you've your yours yourself
    yourselves also just via per etc vs yet still already ever every much many lot lots anything
    something nothing everything someone anyone everyone either neither whether though although
    since unless upon within without across along around among toward towards onto instead
    rather quite really maybe perhaps probably actually basically gonna wanna gotta ok okay yes
    yeah yep no nope hey hi hello thanks thank please sure right well oh ah hmm"""
)
VAGUE = word_set(
    """it that this them those these one so too now then there here up out again later soon
    today tomorrow tonight something things stuff more all everything anything away over done
    ok okay first next thing on off in back a an the to for with and or of at by from is are be
    me you us him her i we my our your just also right"""
)
_COMPLETION_GENERIC = word_set(
    "done live finished finish complete completed sorted place running now all everything "
    "officially finally already just"
)
_TOKEN = re.compile(r"[a-z0-9][a-z0-9+#.'-]*")


def tokens(text: str) -> list[str]:
    """Lowercase word tokens, without trailing punctuation or possessive `'s`."""
    return [w for t in _TOKEN.findall(text.lower()) if (w := t.rstrip(".'-").removesuffix("'s"))]


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude stem so that "deploy", "deployed" and "deploys" compare equal (cached: the rules
    and reconciliation stem the same words over and over)."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) >= 3 and word[-1] == word[-2] and word[-1].isalpha() and word[-1] not in "aeiou":
        word = word[:-1]
    return word


@lru_cache(maxsize=8192)
def content_stems(text: str) -> frozenset[str]:
    """Stems of the words that carry meaning, for matching a completion to a planned action."""
    ignored = FUNCTION_WORDS | VAGUE | _COMPLETION_GENERIC
    return frozenset(stem(t) for t in tokens(text) if t not in ignored)


def completed_index(done: frozenset[str], planned: Sequence[str | None]) -> int | None:
    """The index of the planned action that a completion's content stems report done, or None.

    An action matches when it shares two content words with the completion, or contains every
    content word of it ("I've deployed it" matches "Deploy the preview"); the one sharing the
    most words wins, the most recent on a tie. `None` entries (actions already done, other
    items) never match. The v1 extraction, the state candidates and reconciliation all decide
    with this, so that the extraction's "done" and the state's "done" are the same action.
    """
    best, best_score = None, 0
    for i in range(len(planned) - 1, -1, -1):
        text = planned[i]
        if text is None:
            continue
        shared = len(done & content_stems(text))
        if (shared >= 2 or 0 < shared == len(done)) and shared > best_score:
            best, best_score = i, shared
    return best


# When something is to happen says nothing about what it is: "Renew the certificate tonight"
# and "Renew the certificate" are one item.
TIME_WORDS = word_set(
    """today tomorrow tonight yesterday morning afternoon evening night week weekend month
    monday tuesday wednesday thursday friday saturday sunday asap eod later soon"""
)
# Verbs that only say a choice was made: "Go with Postgres" and "Use Postgres" are one
# decision, and in "switch to Memcached instead of Redis" they are not what is replaced.
CHOICE_STEMS = frozenset(
    stem(w)
    for w in """use using go going went with pick picked choose chose adopt adopted stick
    sticking stay settle standardise standardize switch switching switched move moving moved
    migrate migrating migrated keep keeping replace replacing replaced""".split()
)
_NEGATION = re.compile(r"\b(?:not|never|no|don't|doesn't|won't|can't|cannot)\b|n't\b", re.I)


@lru_cache(maxsize=8192)
def identity(text: str) -> frozenset[str]:
    """What makes two short item texts the same item: their content stems without time words
    and choosing verbs ("I'll write the migration script tomorrow" = "Write the migration
    script"; "Go with Postgres" = "Use Postgres"), plus a mark when the text is negated, so
    that "Do not use X" never equals "Use X". Empty when nothing is left to compare.

    Cached: reconciliation compares each new item's identity with every item of its session,
    and the rules key each candidate by it."""
    stems = {stem(t) for t in tokens(text) if t not in TIME_WORDS} & content_stems(text)
    stems -= CHOICE_STEMS
    if stems and _NEGATION.search(text):
        stems.add("~not")
    return frozenset(stems)
