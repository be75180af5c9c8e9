"""A user's list of what is settled, read one entry at a time.

People state several choices at once as a list: "Kitchen reno decisions: white oak cabinets,
quartz countertops", "here's what I've locked in: under 5 minutes, open with the camping
story", "Team norms for Q2: - standups Mon/Wed/Fri 9:30 - 2-week sprints". Read as one
sentence such a list yields one choice at most (the heading's); each entry is a choice of its
own, and its later change ("standups: MWF 9:30 -> daily 9:15") needs it as an item to replace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from archivist.extract.rules.guards import is_question
from archivist.extract.rules.phrases import has_substance
from archivist.extract.rules.vocabulary import COMMON_VERBS
from archivist.prefilter import Gated
from archivist.state.frames import RATE, Frame, idle_subject, is_time, tentative
from archivist.words import FUNCTION_WORDS

# A heading that says the list after its colon is settled (not a list of questions or news).
_SETTLED = Gated(
    r"^(?P<head>[^:?]{0,80}?\b(?:decisions?|decided|plan|planning|locked(?:\s+in)?|settled"
    r"|final(?:ized|ised)?|norms|rules|set-?up|so far|confirm(?:ed)?|details|specs?|line-?up"
    r"|picks|choices|the deal|\w+-wise)\b[^:?]{0,40}?)\s*:\s*(?P<list>\S.*)$",
    re.I,
)
# A heading that says the entries after it change what was settled: each entry is read as a
# sentence of its own, but no bare entry is a choice ("Quick update: the tests pass").
_CHANGES = re.compile(
    r"^(?P<head>[^:?]{0,80}?\b(?:changes?|updates?|updated|revised|post-\w+)\b[^:?]{0,40}?)"
    r"\s*:\s*(?P<list>\S.*)$",
    re.I,
)
_BULLET = re.compile(r"(?:^|\s+)(?:-|\u2022|\*)\s+")
_ENTRY = re.compile(r"\s*;\s*|,\s+(?:and\s+)?|\s+\+\s+|\s+and\s+(?=[a-z]+\s)", re.I)
ENTRY_WORDS = 12  # the longest entry read; a longer one is prose, not a list entry
# What an entry without a verb of choosing must name to be a choice: a name, a number, a day.
_CONCRETE = re.compile(
    r"(?-i:(?<=\s)[A-Z][\w.&'/-]*)|\d|\"|\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b", re.I
)
# Where a bare entry's subject ends and its value starts ("standups Mon/Wed/Fri 9:30"), or
# its value ends and its subject starts ("2-week sprints").
_SUBJECT_FIRST = re.compile(
    r"^(?P<subj>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}?)(?:\s+(?:on|at|in|via|with|by|for|of))?\s+(?P<val>(?-i:[A-Z0-9$\"\u20ac\u00a3]).*"
    r"|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b.*)$"
)
_LABELLED = re.compile(r"^(?P<subj>[^:]{1,30}?)(?<!\d)\s*:\s*(?P<val>\S.*)$")
_VALUE_FIRST = re.compile(
    r"^(?P<val>[$\u20ac\u00a3]?\d[\w./:-]*)\s+(?P<subj>[a-z][a-z-]+(?:\s+[a-z][a-z-]+)?)$", re.I
)
# The verb and article an entry of a list of choices may start with: "add a $1M umbrella policy".
_VERB_LEAD = re.compile(r"^(?P<verb>[a-z]+)\s+(?:a|an|the|our|my)\s+(?=\S)", re.I)
# "a Genie opener": the name is the value, the noun after it what it is for.
_NAME_FIRST = re.compile(
    r"^(?P<val>(?-i:[A-Z])[\w.&'-]*(?:\s+(?-i:[A-Z0-9])[\w.&'-]*){0,2})"
    r"\s+(?P<subj>[a-z][a-z-]+(?:\s+[a-z][a-z-]+)?)$"
)
_ARTICLE = re.compile(r"^(?:a|an|the|our|my)\s+", re.I)
_WITH = re.compile(r"^with\s+(?=(?:a|an|the)\s)", re.I)
_PRONOUN_LEAD = re.compile(
    r"^(?:i|we|you|he|she|they|it|this|that|there|my|our|his|her|their|its)\b", re.I
)


@dataclass(frozen=True)
class SettledList:
    """The entries of a list of what is settled, and whether an entry that is no sentence
    ("quartz countertops") is a choice by being on it."""

    entries: list[str]
    bare: bool


def settled_list(sentence: str) -> SettledList | None:
    """The list a user's sentence gives (see the module), or None when it gives none: a
    heading that says it is settled, one that says it changes with a bullet after it, or
    two bullets or more."""
    if is_question(sentence) or tentative(sentence):
        return None
    settled = _SETTLED.match(sentence) or _named_list(sentence)
    changes = None if settled else _CHANGES.match(sentence)
    headed = settled or changes
    body = headed.group("list") if headed else sentence
    bullets = len(_BULLET.findall(" " + body))
    if not settled and bullets < (1 if changes else 2):
        return None  # "Change of plans: onboarding gets two steps, ...": one change
    parts = _BULLET.split(" " + body) if bullets else _ENTRY.split(body)
    entries = [p.strip(" .;,") for p in parts if p.strip(" .;,")]
    entries = [e for e in entries if len(e.split()) <= ENTRY_WORDS]
    if len(entries) < (1 if headed and bullets else 2):
        return None
    bare = bullets >= 2 or settled is not None
    return SettledList(entries, bare)


# Any short heading before a colon: "monthly budget: groceries 600, dining out 200, ...".
_HEADED = re.compile(r"^(?P<head>[A-Za-z][\w'/&-]*(?:\s+[\w'/&-]+){0,3})\s*:\s*(?P<list>\S.*)$")
_HEAD_VERB = re.compile(r"\b(?:is|are|was|were|be|been|has|have|had|got)\b|'s\b", re.I)
NAMED_ENTRY_WORDS = 6  # the longest entry of a list under a heading that does not say settled
_NOT_A_HEADING = frozenset(
    """note notes update updates question questions answer problem issue reason why example
    context background fyi ps edit warning tip status result results summary tldr""".split()
)


def _named_list(sentence: str) -> re.Match[str] | None:
    """A heading of a few words and, after its colon, two entries or more that each name
    something (a name or a number) in a few words: a list of what the heading is set to."""
    headed = _HEADED.match(sentence)
    if headed is None or headed["head"].lower().split()[-1] in _NOT_A_HEADING:
        return None
    if (
        _PRONOUN_LEAD.match(headed["head"])
        or _HEAD_VERB.search(headed["head"])  # "Hall is booked: ...": a sentence's subject
        or _BULLET.search(" " + headed["list"])
    ):
        return None
    entries = [e for e in (p.strip(" .;,") for p in _ENTRY.split(headed["list"])) if e]
    named = [e for e in entries if _CONCRETE.search(" " + e)]
    # (choices of their own: "Triangle sides: 7 cm, 24 cm" are values of one thing)
    own = [e for e in named if bare_choice(e).subject]
    short = all(len(e.split()) <= NAMED_ENTRY_WORDS for e in entries)
    return headed if len(named) == len(entries) and len(own) >= 2 and short else None


def entries_of(text: str) -> list[str]:
    """The entries of a list said in one line ("Stripe for payments, pickup only")."""
    return [e for e in (p.strip(" .;,") for p in _ENTRY.split(text)) if e]


def labelled(entry: str) -> tuple[str, str] | None:
    """An entry's label and what follows it ("router: Ubiquiti Dream Router", "my mic:
    returned the MV7, got a Rode PodMic instead"), or None; "standups 9:30" has none."""
    match = _LABELLED.match(entry)
    return (match["subj"], match["val"]) if match else None


def bare_choice(entry: str) -> Frame:
    """The choice an entry of a settled list makes without a verb of choosing ("2-week
    sprints", "quartz countertops with a Calacatta look"), or an empty frame."""
    words = entry.split()
    if (
        len(words) > ENTRY_WORDS
        or not has_substance(entry)
        or _PRONOUN_LEAD.match(entry)
        or (len(words) < 2 and not _CONCRETE.search(" " + entry))
    ):
        return Frame()
    named = _ARTICLE.sub("", entry)
    lead = _VERB_LEAD.match(named)
    if lead and lead["verb"].lower() in COMMON_VERBS:
        named = named[lead.end() :]  # what is added is what the entry names
    split = _LABELLED.match(entry) or (
        _SUBJECT_FIRST.match(named) or _VALUE_FIRST.match(named) or _NAME_FIRST.match(named)
    )
    if split is not None and split.re is _VALUE_FIRST and split["subj"].lower() in _UNITS:
        return Frame()  # "25 cm", "4:00 PM": a quantity or a time of nothing named
    if split is not None and split.re is _VALUE_FIRST and _a_subject(split["subj"]):
        return Frame(*_counted(split["subj"], split["val"]), said=entry)
    if split is not None and (split.re is _LABELLED or _a_subject(split["subj"])):
        return Frame(split.group("subj"), split.group("val"), said=entry)
    return Frame(None, entry, commit=True, said=entry)


# What a number is counted in: after one, never what an entry is about.
_UNITS = frozenset(
    """am pm mm cm km ft mi mg kg lb lbs oz ml kb mb gb tb ms sec secs min mins minutes hr hrs
    hours day days week weeks month months year years px fps meters metres feet""".split()
)
_AREA = frozenset({"square", "sq", "cubic"})  # "square meters": one unit in two words


def _counted(subject: str, value: str) -> tuple[str, str]:
    """A number said before its subject with the unit it counts in between ("14 days
    retention", "36 square meters booth"): the unit goes with the number. Words that are all
    a unit stay as they were ("24 square meters")."""
    words = subject.split()
    n = 0
    while n < len(words) and (
        words[n].lower() in _UNITS or (words[n].lower() in _AREA and n + 1 < len(words))
    ):
        n += 1
    if n == len(words):
        return subject, value
    return " ".join(words[n:]), " ".join([value, *words[:n]])


def _a_subject(words: str) -> bool:
    """Whether words split off an entry can be what it is about: no function word ("add a"),
    no verb first ("starts June 24"), not a unit ("4:00 PM") nor a lead-in ("specifically")."""
    said = words.split()
    return (
        not any(w.lower() in FUNCTION_WORDS for w in said)
        and said[0].lower() not in COMMON_VERBS
        and said[0].lower()[:-1] not in COMMON_VERBS
        and words.lower() not in _UNITS
        and not idle_subject(words)
    )


FRAGMENT_WORDS = 6  # the longest clause read as a fragment of the choice before it
FRAGMENT_VALUE_WORDS = 3  # and the longest value of its own it gives ("fundraising goal $10k")
_EVERY = re.compile(r"^(?:every|each)\s+(?:other\s+)?", re.I)
# ("'s" is a verb after a pronoun, "it's", and a possessive after a name: "at Mike's place")
_VERB = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|do|does|did)\b"
    r"|\b(?:it|that|there|here|what|who|he|she|where|how|let)'s\s",
    re.I,
)
_AT_A_NAME = re.compile(r"^(?:at|in)\s+(?:the\s+)?(?-i:[A-Z])", re.I)


def _plan_verb(chosen: Frame) -> str | None:
    """The verb of a plan without a subject ("we're playing 5e": playing), which a when or a
    where said after it is about."""
    verb = (chosen.said or "").split()[0].lower() if chosen.commit and chosen.said else ""
    return verb if verb.endswith("ing") and len(verb) > 4 else None


def fragment_choice(clause: str, chosen: Frame) -> Frame:
    """The choice a verbless clause after a choice adds to it: when or where
    ("we're playing 5e, every other saturday at 2, at Mike's place"), or a subject of its own
    with its value ("date is sat oct 12, ..., fundraising goal $10k"); else an empty frame."""
    words = clause.split()
    if len(words) > FRAGMENT_WORDS or _PRONOUN_LEAD.match(clause) or _VERB.search(clause):
        return Frame()  # "..., Sundays are family days": a clause of its own
    # (not its value: "playing 5e, every other saturday" is no 5e's, but the playing's)
    about = chosen.subject or _plan_verb(chosen)
    if about and (is_time(_EVERY.sub("", clause)) or _AT_A_NAME.match(clause)):
        return Frame(about, clause, said=f"{about[:1].upper()}{about[1:]}: {clause}")
    if rate := RATE.match(clause.strip()):  # "feeding Royal Canin, 3 meals a day"
        said = re.sub(r"\W+$", "", clause.strip())
        return Frame(rate["what"], said, said=said)
    named = _ARTICLE.sub("", _WITH.sub("", clause))  # "..., with a ticket price of $150"
    split = _SUBJECT_FIRST.match(named) or _VALUE_FIRST.match(named)
    if split is None:
        return Frame()
    subject, value = split["subj"], split["val"]
    if split.re is _VALUE_FIRST:
        subject, value = _counted(subject, value)
    if (
        not has_substance(clause)
        or len(split.group("val").split()) > FRAGMENT_VALUE_WORDS
        or not _a_subject(subject)
    ):
        # "some folks want 3-week sprints", "and Square handles payments", "starts June 24"
        return Frame()
    return Frame(subject, value.rstrip(" .!"), said=clause)  # (not the sentence's full stop)
