"""What a choice is about: the *subject* a statement decides, the *value* it gives it, and the
kind of *change* it makes, read from one sentence by its subject/object structure.

    "Login goes through Auth0 for the portal"        subject login, value Auth0
    "We use Sentry for error monitoring"             subject error monitoring, value Sentry
    "moving the order queue from RabbitMQ to SQS"    subject order queue, old RabbitMQ, value SQS
    "Redis -> Memcached for the session cache"       subject session cache, old Redis, ...
    "keep Redis for sessions after all"              subject sessions, value Redis, reverse
    "we no longer use Jenkins"                       old Jenkins, cancel
    "the launch moved to the 17th"                   subject launch, value the 17th, update

A frame is what lets a change supersede only what it replaces: two items are about the same
thing when their subjects share their words (`same_subject`), never because their vectors are
close. Reconciliation (within a session) and the current state (across sessions, in SQL over
`subject_key`) both read it. Pure functions, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, cast

from archivist.words import FUNCTION_WORDS, stem, tokens

ChangeKind = Literal["replace", "reverse", "cancel", "update"]

# A noun phrase: up to five words, no clause punctuation. Cut further by `_phrase`.
_WORD = r"(?:[^\s,.;:!?()\[\]\"]|[.,](?=[\w$])|(?<=\d):(?=\d))+"
_NP = _WORD + r"(?:\s+" + _WORD + r"){0,5}?"
_NP4 = _WORD + r"(?:\s+" + _WORD + r"){0,3}?"
_UPDATED = (
    r"(?:improved|increased|grown|grew|dropped|reached|extended|risen|rose|moved|changed"
    r"|updated|bumped|raised|lowered|reduced|gone up|gone down|climbed|fallen|fell|jumped"
    r"|shrunk|expanded|doubled|halved|slipped|rescheduled|adjusted|postponed|pushed back"
    r"|pushed|set)"
)
_END = (
    r"(?=\s*(?:[,;:!?()\n]|[.,](?![\w$])|$|\s(?:for|instead|after all|now|anymore|any more"
    r"|from now|going forward|for now|again|please|too|as well|because|since|so|but|and"
    r"|though|then|which|when|if|until|after|before|while|thanks|due)\b))"
)
_DET = r"(?:(?:the|our|my|a|an|their|your|its|this|that)\s+)?"
_ARTICLE = re.compile(r"^(?:the|our|my|a|an|their|your|its|this|that|all|all of)\s+", re.I)
_TRAILING = re.compile(
    r"\s+(?:instead|now|anymore|any more|again|too|then|please|for now|after all|as well"
    r"|going forward|from now on|for good|here|there|though|too)$",
    re.I,
)
_NOT_SUBJECT = frozenset(
    """it this that we i you they he she we're i'm let's lets we'll i'll they're you're
    everything something anything nothing one which
    what who there here thing stuff all both either""".split()
)
_NOT_VALUE = frozenset(
    """it this that them those these one something anything everything nothing stuff things
    same so well too now back""".split()
)
# A value never starts with these: "scratch that, we need more time" chooses nothing.
_VERBISH = frozenset(
    """to with them need needs want let go do does did is are was were be have has had can
    could should would will shall may might must not no don't didn't isn't""".split()
)

_REVERSAL = re.compile(
    r"\b(?:after all|on second thought|on reflection|scratch that|never ?mind|forget (?:that|what"
    r" i said)|change of plans?|i take (?:that|it) back|back to|revert(?:ing|ed)? to"
    r"|roll(?:ing|ed)? back to|go(?:ing)? back|went back|return(?:ing)? to|as (?:it was|before)"
    r"|undo (?:that|the switch))\b",
    re.I,
)
_CANCEL = re.compile(
    r"\b(?:no longer (?:use|using|need|run|running|rely on|have|want)|stop(?:ped)? using"
    r"|(?:are|is|'re|'s) not using|aren't using|isn't using|not using|drop(?:ping|ped)?"
    r"|get(?:ting)? rid of|got rid of|ditch(?:ing|ed)?|retir(?:e|ing|ed)|sunset(?:ting)?"
    r"|kill(?:ing|ed)? off|remov(?:e|ing|ed)|cancel(?:l?ing|l?ed)?|scrap(?:ping|ped)?)\b",
    re.I,
)
_UPDATE_VERBS = (
    r"(?:moved|pushed|pushed back|changed|bumped|shifted|postponed|rescheduled|delayed|updated"
    r"|raised|lowered|increased|decreased|reduced|cut|dropped|went up|went down|slipped"
    r"|brought forward|moved up|grew|fell|rose|climbed)"
)


@dataclass(frozen=True)
class Frame:
    """One sentence's choice: what about (`subject`), what (`value`), what it replaces (`old`)
    and how (`change`: None for a plain choice)."""

    subject: str | None = None
    value: str | None = None
    old: str | None = None
    change: ChangeKind | None = None

    @property
    def empty(self) -> bool:
        return self.subject is None and self.value is None and self.old is None


NO_FRAME = Frame()


# Where a subject-first statement starts: the sentence, or after a lead-in clause ("Heads
# up, the launch moved to the 17th").
_START = r"(?:^|(?<=[,:;] )|(?<=[,:;]))(?:and\s+|so\s+|also\s+|but\s+)?"
_LEAD = re.compile(
    r"^(?:(?:yes|yeah|yep|ok(?:ay)?|so|alright|right|fine|sure|well|great|cool|good|heads up"
    r"|update|quick update|fyi|btw|also|and|but|then|final answer)\b[\s,:!.\u2014-]*)+",
    re.I,
)
# A plain choice said as news ("search runs on Typesense now") is an update of its subject.
_NOW = re.compile(
    r"\b(?:now|from now on|going forward|from today|these days|nowadays|as of today"
    r"|starting (?:today|tomorrow|monday|tuesday|wednesday|thursday|friday|next week))\b",
    re.I,
)


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(
        pattern.replace("START ", _START)
        .replace("UPDATED", _UPDATED)
        .replace("NP4", _NP4)
        .replace("NP", _NP)
        .replace("DET", _DET)
        .replace("END", _END),
        re.I,
    )


# (pattern, change, choice): the first pattern that matches and yields a phrase wins. Named
# groups: subj, val, old. Changes come first, so "move X from A to B" is never read as a
# plain "X ... to B".
_PATTERNS: tuple[tuple[re.Pattern[str], ChangeKind | None], ...] = tuple(
    (_rx(p), cast(ChangeKind | None, c))
    for p, c in (
        # replacements
        (
            r"\breplac(?:e|ed|es|ing)\s+DET(?P<old>NP)\s+(?:with|by)\s+DET(?P<val>NP)"
            r"(?:\s+(?:for|on|in)\s+DET(?P<subj>NP))?END",
            "replace",
        ),
        (
            r"\b(?:swap(?:ping|ped)?|trad(?:e|ing|ed))\s+(?:out\s+)?DET(?P<old>NP)\s+for\s+DET"
            r"(?P<val>NP)(?:\s+(?:for|on|in)\s+DET(?P<subj>NP))?END",
            "replace",
        ),
        (
            r"\b(?:mov|switch|migrat|chang|port|shift|flipp?|transition|convert)\w*\s+(?:over\s+)?"
            r"DET(?P<subj>NP)\s+(?:over\s+)?(?:from|off(?: of)?)\s+DET(?P<old>NP)\s+(?:over\s+)?"
            r"(?:to|onto|in favou?r of)\s+DET(?P<val>NP)END",
            "replace",
        ),
        (
            r"\b(?:mov|switch|migrat|chang|port|shift|go|goes|went|going|transition|convert)\w*"
            r"\s+(?:over\s+)?(?:from|off(?: of)?)\s+DET(?P<old>NP)\s+(?:over\s+)?(?:to|onto)\s+DET"
            r"(?P<val>NP)(?:\s+(?:for|on|in)\s+DET(?P<subj>NP))?END",
            "replace",
        ),
        (
            r"(?:^DET(?P<subj2>NP)\s*:\s*|^|:\s*|\bfor\s+DET(?P<subj>NP)\s*[:,]?\s*)(?P<old>NP)\s*(?:\u2192|->|=>|\u27f6)\s*"
            r"(?P<val>NP)END",
            "replace",
        ),
        (
            r"\b(?:use|using|go with|going with|pick|choose|adopt)\s+DET(?P<val>NP)\s+(?:instead of"
            r"|rather than|in place of)\s+DET(?P<old>NP)(?:\s+(?:for|on|in)\s+DET(?P<subj>NP))?END",
            "replace",
        ),
        # reversals that name the subject or the value
        (
            r"\b(?:go(?:ing)?|went|switch(?:ing)?|mov(?:e|ing)|revert(?:ing)?|return(?:ing)?"
            r"|roll(?:ing)?)\s+(?:DET(?P<subj>NP)\s+)?back\s+to\s+DET(?P<val>NP)"
            r"(?:\s+(?:for|on|in)\s+DET(?P<subj2>NP))?END",
            "reverse",
        ),
        (r"\brevert(?:ing|ed)?\s+(?:DET(?P<subj>NP)\s+)?to\s+DET(?P<val>NP)END", "reverse"),
        # value updates: "the launch moved to the 17th", "response time is now 250 ms"
        (
            r"START DET(?P<subj>NP)\s+(?:has\s+|have\s+|got\s+|was\s+|is\s+|has"
            r" been\s+|just\s+)*" + _UPDATE_VERBS + r"\s+(?:to|until|till|back to|up to|down to)\s+"
            r"DET(?P<val>NP)END",
            "update",
        ),
        (
            r"START DET(?P<subj>NP)\s+(?:is|are|'s)\s+now\s+(?:at\s+|on\s+|set"
            r" to\s+)?DET(?P<val>NP)END",
            "update",
        ),
        (
            r"START DET(?P<subj>NP)\s+(?:is|are|'s)\s+(?:at\s+|on\s+)?DET"
            r"(?P<val>NP)\s+now\b",
            "update",
        ),
        (
            r"START DET(?P<subj>NP)\s+(?:has|have)\s+(?:now\s+)?(?:changed|been"
            r" changed|been updated|been moved)\s+to\s+DET(?P<val>NP)END",
            "update",
        ),
        # moves that name the subject: "move the session cache to Memcached"
        (
            r"\b(?:mov|switch|migrat|port|shift|flipp?|transition)\w*\s+(?:over\s+)?DET(?P<subj>NP)"
            r"\s+(?:over\s+)?(?:to|onto)\s+DET(?P<val>NP)END",
            "replace",
        ),
        (
            r"\b(?:switch|mov|migrat)\w*\s+(?:over\s+)?(?:to|onto)\s+DET(?P<val>NP)"
            r"(?:\s+(?:for|on|in)\s+DET(?P<subj>NP))?END",
            "replace",
        ),
        # cancellations
        (
            r"\b(?:we|i|they)?\s*(?:no longer (?:use|need|run|rely on|have|want)|stop(?:ped)? using"
            r"|(?:are|am|'re|'m)\s+not using|aren't using|not using|don't use|do not use)\s+DET"
            r"(?P<old>NP)(?:\s+(?:for|on|in)\s+DET(?P<subj>NP))?END",
            "cancel",
        ),
        (
            r"\b(?:drop|ditch|scrap|retire|kill off|get rid of|stop using)\s+DET(?P<old>NP)"
            r"(?:\s+(?:for|from)\s+DET(?P<subj>NP))?END",
            "cancel",
        ),
        (
            r"START DET(?P<old>NP)\s+is\s+(?:out|gone|dead|off the table"
            r"|cancell?ed)END",
            "cancel",
        ),
        # a reversal then the choice: "scratch that, Heroku", "on second thought: Postgres"
        (
            r"\b(?:scratch that|never ?mind|on second thought|on reflection|change of plans?)\s*"
            r"[,:;\u2014-]?\s*(?:let's\s+|we'll\s+|we\s+will\s+)?(?:just\s+)?(?:use\s+|go with\s+"
            r"|keep\s+|stick with\s+)?DET(?P<val>NP)(?:\s+(?:for|on|in)\s+DET(?P<subj>NP))?END",
            "reverse",
        ),
        # plain choices
        (
            r"START DET(?P<subj>NP)\s+(?:goes|go|going|will go|is going|routes?"
            r"|is routed|gets routed|runs|run|will run|is running|lives|will live|sits|is deployed"
            r"|gets deployed|will be deployed|is hosted|will be hosted|is handled|is managed"
            r"|is powered|is built|is stored|gets stored|will be stored|is backed|is served"
            r"|is done|is tracked|happens|(?:is|are|gets?|will be)\s+(?!not\b)[a-z]+ed)\s+"
            r"(?:through|on|in|via|by|with|to|from|at|using)\s+DET"
            r"(?P<val>NP)END",
            None,
        ),
        (
            r"START DET(?P<subj>NP)\s+(?:uses|will use|is using|relies on"
            r"|should use|must use|stays on|stays with|is on|are on|will be on|is at|are at"
            r"|is due(?: on| by)?|are due(?: on| by)?)\s+DET(?P<val>NP)END",
            None,
        ),
        (
            r"\b(?:we|i|they|the team)\s*(?:now\s+|currently\s+|still\s+|already\s+|just\s+)?"
            r"(?:use|'re using|are using|am using|'m using|rely on|run|are running|'re running"
            r"|went with|picked|chose|settled on|deploy to|host on|standardi[sz]ed on|stick with"
            r"|stay with|keep|are keeping|'re keeping|'ll keep|will keep|'ll use|will use"
            r"|'re going with|are going with|'ll go with|will go with)\s+DET(?P<val>NP)\s+"
            r"(?:for|as)\s+DET(?P<subj>NP)END",
            None,
        ),
        (
            r"\b(?:we|i|they|the team|let's|lets|let us)(?:'re|'ll|'ve|\s+are|\s+will|\s+have)?\s+"
            r"(?:now\s+|currently\s+|still\s+|already\s+|just\s+)?(?:deploy|deploying|deployed"
            r"|host|hosting|hosted|store|storing|stored|put|putting|run|running|serve|serving"
            r"|keep|keeping|send|sending|ship|shipping|build|building|publish|publishing)\s+DET"
            r"(?P<subj>NP)\s+(?:on|in|to|at|with|via|through|on top of)\s+DET(?P<val>NP)END",
            None,
        ),
        (
            r"\b(?:use|go with|pick|choose|adopt|stick with|stay with|keep|settle on|standardi[sz]e"
            r" on|going with|sticking with|keeping|using)\s+DET(?P<val>NP)\s+(?:for|as)\s+DET"
            r"(?P<subj>NP)END",
            None,
        ),
        (
            r"^(?:ok(?:ay)?|fine|alright|right|so|then)?[\s,]*(?P<val>[A-Z][\w.+#'-]*(?:\s+"
            r"[\w.+#'-]+){0,2})\s+it\s+is\b",
            None,
        ),
        (
            r"\b(?:we|i)\s+(?:now\s+|currently\s+)?(?:use|'re using|are using|'m using|rely on"
            r"|went with|picked|chose|settled on|'re going with|are going with|'ll go with"
            r"|will go with|'ll use|will use|'ll keep|will keep|keep)\s+DET(?P<val>NP)END",
            None,
        ),
        (
            r"\b(?:let's|lets|let us)\s+(?:just\s+)?(?:use|go with|pick|choose|adopt|stick with"
            r"|stay with|keep|settle on)\s+DET(?P<val>NP)END",
            None,
        ),
        (r"\b(?:(?:stick|stay)(?:ing)?\s+with|keep(?:ing)?)\s+DET(?P<val>NP)END", None),
    )
)


# Updates said in passing, inside a longer sentence that may ask something else: "the response
# time, which has recently improved to 250ms, ... can you help?", "I've extended my study
# sessions to 4 hours", "the new deadline of May 5". Read even in questions and hedged
# sentences: the update itself is stated, not asked.
_ASIDES: tuple[re.Pattern[str], ...] = tuple(
    _rx(p)
    for p, _ in (
        (
            r"\b(?:the|my|our)\s+(?P<subj>NP4)\s*,?\s+(?:which|that)\s+(?:has\s+|have\s+|had\s+)?"
            r"(?:now\s+|recently\s+|just\s+|further\s+|since\s+)*UPDATED(?:\s+further)?"
            r"(?:\s+(?:to|at))?\s+DET(?P<val>NP)END",
            "update",
        ),
        (
            r"\b(?:my|our|the)\s+(?P<subj>NP4)\s+(?:has|have|had|was|is|got)\s+(?:been\s+)?(?:now\s+"
            r"|recently\s+|just\s+|further\s+)*UPDATED(?:\s+further)?(?:\s+(?:to|at))?\s+DET"
            r"(?P<val>NP)END",
            "update",
        ),
        (
            r"\b(?:i|we)(?:'ve|\s+have)?\s+(?:now\s+|recently\s+|just\s+|since\s+)*(?:extended"
            r"|increased|raised|reduced|cut|lowered|bumped|moved|changed|updated|pushed|shifted"
            r"|expanded|upped|doubled|halved)\s+(?:my|our|the)\s+(?P<subj>NP4)\s+(?:to|up to"
            r"|down to)\s+DET(?P<val>NP)END",
            "update",
        ),
        (
            r"\bthe\s+(?:new|updated|revised)\s+(?P<subj>NP4)\s+(?:of|is|will be|at)\s+DET"
            r"(?P<val>NP)END",
            "update",
        ),
        (
            r"\bnow\s+(?:i|we)\s+have\s+(?:a\s+total\s+of\s+)?(?P<val>\d[\w.,]*)\s+(?P<subj>NP4)END",
            "update",
        ),
    )
)


_ARROW = re.compile("\u2192|->|=>|\u27f6")
_ARROWS = next(p for p, _ in _PATTERNS if "\\u2192" in p.pattern)


def _phrase(text: str | None, *, value: bool = False) -> str | None:
    """A captured phrase without articles, trailing fillers or an empty core; None if vague."""
    if not text:
        return None
    phrase = " ".join(text.split()).strip(" '\"*")
    for _ in range(3):
        phrase = _ARTICLE.sub("", phrase)
        phrase = _TRAILING.sub("", phrase)
    words = phrase.lower().split()
    if not words or len(words) > 5:
        return None
    if value:
        if phrase.lower() in _NOT_VALUE or words[0] in _NOT_SUBJECT or words[0] in _VERBISH:
            return None
    elif phrase.lower() in _NOT_SUBJECT or words[0] in _NOT_SUBJECT:
        return None
    return phrase


def _change_of(sentence: str, change: ChangeKind | None) -> ChangeKind | None:
    if _REVERSAL.search(sentence) and change in (None, "reverse"):
        return "reverse"
    return change


@lru_cache(maxsize=4096)
def aside(sentence: str) -> Frame:
    """An update said in passing (`_ASIDES`), or an empty frame."""
    text = " ".join(sentence.replace("\u2019", "'").split())
    for pattern in _ASIDES:
        match = pattern.search(text)
        if match is None:
            continue
        value = _phrase(match.group("val"), value=True)
        subject = _phrase(match.group("subj"))
        if value is not None and subject is not None:
            return Frame(subject, value, None, "update")
    return Frame()


@lru_cache(maxsize=4096)
def frame(sentence: str) -> Frame:
    """The choice a sentence states, or an empty frame (cached: a run reads a sentence for
    its decisions and its constraints, and chat repeats itself)."""
    text = _LEAD.sub("", " ".join(sentence.replace("\u2019", "'").split()))
    found = aside(text)
    if not found.empty:
        return found
    arrows = _ARROW.search(text) is not None
    for pattern, change in _PATTERNS:
        if pattern is _ARROWS and not arrows:
            continue
        match = pattern.search(text)
        if match is None:
            continue
        groups = match.groupdict()
        value = _phrase(groups.get("val"), value=True)
        old = _phrase(groups.get("old"), value=True)
        subject = _phrase(groups.get("subj") or groups.get("subj2"))
        if value is None and old is None:
            continue
        if groups.get("subj") and subject is None:
            continue  # "We'll go with X": "we" is who chose, not what about
        if change == "cancel" and old is None:
            continue
        change = _change_of(text, change)
        if change is None and subject and value and _NOW.search(text):
            change = "update"
        return Frame(subject, value, old, change)
    if _REVERSAL.search(text):
        return Frame(change="reverse")
    if _CANCEL.search(text):
        return Frame(change="cancel")
    return Frame()


_STATEMENT = _rx(
    r"START DET(?P<subj>NP)\s+(?:is|are|will be|must be|has to be|needs to be"
    r"|have to be|should be|must stay|has to stay|needs to stay|can't exceed|cannot exceed"
    r"|must not exceed|is capped at|are capped at|is set to|are set to|is due|is scheduled for)"
    r"\s+(?:at most\s+|at least\s+|under\s+|below\s+|above\s+|on\s+|by\s+|in\s+)?DET"
    r"(?P<val>NP)END"
)
_TENTATIVE = re.compile(
    r"\b(?:maybe|perhaps|might|could we|should we|would it|what if|if|whether|unless|not sure"
    r"|thinking (?:about|of)|considering|wondering|suppose|option|options|alternatively"
    r"|or maybe|do you think|i wonder|in case)\b",
    re.I,
)


def tentative(sentence: str) -> bool:
    """A hedge or a condition: "maybe we move X to Y" chooses nothing yet."""
    return bool(_TENTATIVE.search(sentence))


def statement(sentence: str) -> Frame:
    """The subject and value of a stated requirement ("the deadline is March 1"): what a
    constraint is about, so that a later update of the same subject replaces it."""
    found = frame(sentence)
    if not found.empty:
        return found
    match = _STATEMENT.search(" ".join(sentence.split()))
    if match is None:
        return Frame()
    return Frame(_phrase(match.group("subj")), _phrase(match.group("val"), value=True))


def is_choice(found: Frame) -> bool:
    """A frame that states a choice on its own: a subject and a value, or a change that names
    what it picks or drops."""
    if found.change is not None:
        return found.value is not None or found.old is not None
    return found.subject is not None and found.value is not None


def choice_text(found: Frame) -> str | None:
    """A choice as a short decision text ("Use SQS for order queue instead of RabbitMQ")."""
    if found.change == "cancel" and found.old:
        return f"Drop {found.old}" + (f" for {found.subject}" if found.subject else "")
    if found.value is None:
        return None
    if found.change == "update" and found.subject:
        return f"{found.subject[:1].upper()}{found.subject[1:]}: {found.value}"
    text = f"Use {found.value}" + (f" for {found.subject}" if found.subject else "")
    return text + (f" instead of {found.old}" if found.old else "")


def key(phrase: str | None) -> tuple[str, ...]:
    """A phrase's comparable form: its content-word stems, sorted (`subject_key` in SQL)."""
    if not phrase:
        return ()
    words = [stem(t) for t in tokens(phrase) if t not in FUNCTION_WORDS]
    return tuple(sorted({w for w in words if w}))


def same_subject(a: str | None, b: str | None) -> bool:
    """Two subjects are one when the words of one are all words of the other ("sessions" and
    "session cache"); "job queue" and "session cache" are not."""
    ka, kb = set(key(a)), set(key(b))
    return bool(ka and kb) and (ka <= kb or kb <= ka)


def same_value(a: str | None, b: str | None) -> bool:
    """Two values are one when their words are ("Memcached" = "memcached cluster" is not)."""
    ka, kb = set(key(a)), set(key(b))
    return bool(ka and kb) and (ka <= kb or kb <= ka)
