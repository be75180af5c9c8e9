"""A user's statement of how things are arranged, in words no choice pattern knows.

People record a plan in many more ways than "let's use X for Y": "we're reading Demon
Copperhead next", "kayla's driving", "SLA: daily tables ready by 6am ET", "quiet hours after
11pm weeknights". The choice rules (archivist/state/frames.py) read a subject and a value from a
sentence's structure; what they cannot read is still a decision when the sentence has the shape
of an arrangement: a labelled value, the speaker's own ongoing or settled plan, someone taking a
job on, or a short verbless specification with a time or an amount. It is no decision when it
is asked, hedged, left open or declined ("haven't decided", "TBD", "not happening").

The shapes are structural, not phrases of one writer: they were found on the blind tuning
conversations (tests/state_quality/current_state.txt, c200-c279), and the sentences they read
are only those of a user message for which no rule found anything at all.
"""

from __future__ import annotations

import re

from archivist.extract.rules.guards import is_question
from archivist.extract.rules.phrases import strip_fillers
from archivist.state.frames import tentative

# Left open or turned down: no decision ("still deciding", "not worth it", "I told her no").
_OPEN = re.compile(
    r"\b(?:haven'?t (?:decided|made up (?:my|our) minds?)|not decided|undecided|tbd"
    r"|still (?:chewing|debating|figuring|thinking|looking)|not happening"
    r"|no way|not worth it|told (?:him|her|them|\w+) no|so no\b|nah\b|not sure|no idea"
    r"|we'?ll see|discussing|deciding|up in the air|on hold|(?:yet|have|need) to decide)\b"
    # hedged, imagined or estimated
    r"|^(?:or|but)\b|\b(?:like|probably|imagine|i think|i guess|kinda|sorta|away)\b",
    re.I,
)
# A labelled value: "SLA: daily tables ready by 6am ET", "- owner for launch comms: Priya".
_LABELLED = re.compile(
    r"^\W*(?!.*\b(?:i|it|is|was|were|think|he|she|they|we|you)\b.*:)([a-z][\w'./&+ -]{1,40}?)"
    r"\s*:\s+\S",
    re.I,
)
_LABEL_ENDS = re.compile(r"\w\**:\s")
# A label that is a clause of its own ("Here's the PR that went out:"), not a name of a thing.
_CLAUSE_LABEL = re.compile(
    r"\b(?:(?:here|there|that|what|it)'s|is|are|was|were|has|have|had|did|went|got|said|made"
    r"|sent|that|which|who)\b",
    re.I,
)
_PERSON = re.compile(r"\b(?:i|we|you|he|she|they)\b", re.I)
# The speaker's own plan, ongoing or settled, said as one: "we're reading X next", "I'm also
# tucking basil in", "were doing every other friday", "im on dishes now". Without a word that
# makes it a plan (a time to come, a routine, a change, "also") it is what the speaker is
# doing at the moment ("I'm running some errands").
_OWN_PLAN = re.compile(
    r"(?:\b(?:we're|we are|i'?m|i am|im)|(?:^|[,;.]\s*|\bso\s+|\band\s+)were)\s+"
    r"(?:(?:also|now|just|still|definitely)\s+)?"
    r"(?:(?!going to\b|gonna\b|(?:no|some|any|every)thing\b)[a-z]+ing\b|on\s+\w)",
    re.I,
)
_PLAN_WORD = re.compile(
    r"\b(?:next|now\W*$|instead|anymore|from now on|every|each|weekly|daily|nightly|monthly"
    r"|a (?:day|week|month)|per|also|this (?:year|season|spring|summer|fall|autumn|winter"
    r"|semester|term|quarter|month)|starting|until|through|for the (?!fun|heck|record))\b",
    re.I,
)
# Being well, on the way, or busy with the day: no plan ("I'm doing good", "on my way").
_SMALL_TALK = re.compile(
    r"\b(?:doing (?:good|well|great|ok|okay|fine|alright|better|amazing|awesome)|on my way"
    r"|errands|(?:just|currently|right now)\b|feel(?:s|ing)?\b)\b",
    re.I,
)
# Someone taking something on: "kayla's driving", "my sister's doing a chocolate one",
# "Dr. Moreau has agreed to take over", "my brother is putting together a slideshow".
_TAKEN_ON = re.compile(
    r"(?:\b(?!(?i:it|he|she|that|what|there|here|who|everything|nothing)'s)[A-Za-z]+'s"
    r"|\b(?:my|our)\s+[a-z]+\s+is|\b[A-Z][a-z]+\s+is)\s+(?:(?:also|now)\s+)?"
    r"(?:doing|driving|handling|making|bringing|putting together|running|leading|hosting"
    r"|cooking|baking|covering|organi[sz]ing)\b"
    r"|\b(?:agreed to|will|'ll)\s+(?:take over|handle|lead|host|cover|run)\b",
)
# Feelings, moods and goings-on, not arrangements: "I'm dying", "we're loving it".
_STATE_VERB = re.compile(
    r"\b(?:i'?m|we'?re|we are|i am)\s+(?:(?:also|now|just|still|definitely)\s+)?"
    r"(?:feeling|thinking|wondering|hoping|trying|dying|loving|hating|getting|having|looking"
    r"|kidding|joking|guessing|assuming|worried|excited|glad|happy|sad|tired|sorry|considering"
    r"|leaning|debating|planning to|curious)\b",
    re.I,
)
# A verbless specification: a time, a day, a frequency or a limit in a short clause ("quiet
# hours after 11pm weeknights", "n=24 per condition", "kana only").
_SPEC = re.compile(
    r"\d\s*(?:am|pm|ms|%|x\b)|\b\d+\s*(?:min(?:ute)?s?|h(?:ou)?rs?|days?|weeks?|months?|years?"
    r"|miles?|km|people|kids|guests|words|pages)\b|\b(?:per|a (?:day|week|month))\b"
    r"|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:weekly|daily|monthly|nightly"
    r"|weeknights?|weekends|every other|required)\b|\bonly(?:\W*$| for now)",
    re.I,
)
_FINITE = re.compile(
    r"\b(?:is|are|was|were|am|be|been|have|has|had|do|does|did|will|would|can|could|should"
    r"|shall|may|might|must|[a-z]+ed|[a-z]+'(?:s|re|ll|ve|d|m)|gave|got|went|made|took|said"
    r"|told|came|saw|bought|found|thought|felt|knew|left|ran|began|wrote|read|spent|heard"
    r"|im|ive|its|thats|theyre|youre|dont|cant|isnt|wasnt)\b",
    re.I,
)
# The nouns that name a limit ("the budget", "a cap"), here and in the choice rules.
LIMIT_NOUNS = r"cap|limit|ceiling|budget|quota|max|maximum|minimum|allowance|p9\d"
# What makes an arrangement a limit: "SLA: ...", "min iOS version 15", "quiet hours after 11pm".
_LIMIT_WORD = re.compile(
    rf"\b(?:{LIMIT_NOUNS}|sla|slo|min|target|deadline|due|required|mandatory|quiet hours"
    r"|at most|at least|no more than|no later than)\b",
    re.I,
)
_PAST = re.compile(r"\b(?:yesterday|last (?:night|week|month|year)|ago|used to)\b", re.I)
SPEC_WORDS = 12  # the longest verbless specification read as one


def limits(sentence: str) -> bool:
    """Whether an arrangement is a limit (a constraint) rather than a choice."""
    return _LIMIT_WORD.search(sentence) is not None


def arrangement(sentence: str) -> bool:
    """Whether a user's sentence states an arrangement (see the module docstring)."""
    text = strip_fillers(sentence).strip()
    if not text or is_question(text) or tentative(text) or _OPEN.search(text) or _PAST.search(text):
        return False
    if _LABELLED.match(text):
        # one label that names something, given a thing rather than a story ("Note: I went
        # to Paris" is none, nor "Here's the PR that went out: <link>", nor a row of a pasted
        # table, "Time: 9:00 Activity: Meeting with Laura")
        label, value = text.split(":", 1)
        return (
            len(_LABEL_ENDS.findall(text)) == 1
            and not _CLAUSE_LABEL.search(label)
            and not _PERSON.search(value)
        )
    if _SMALL_TALK.search(text):
        return False
    if _OWN_PLAN.search(text) and _PLAN_WORD.search(text) and not _STATE_VERB.search(text):
        return True
    if _TAKEN_ON.search(text):
        return True
    words = text.split()
    return 3 <= len(words) <= SPEC_WORDS and not _FINITE.search(text) and bool(_SPEC.search(text))
