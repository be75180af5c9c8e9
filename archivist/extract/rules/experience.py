"""Experience facts that contradict each other: "I've never used any citation software, like
Zotero" against "I just downloaded Zotero on March 2".

A *negated* experience is a first-person "never" (or "haven't ever") statement; what it is
about is its object: the names in it ("Zotero", "Flask"), else its head's content words
("scheduled writing sessions", "a first draft"). An *affirmed* one is another first-person
sentence of the batch, not a wish ("I want to learn ...") nor a question unless it says what
was done ("..., like I did on March 10th?", "... the strategies I learned from the course?"),
that names all of those names, or at least two of the head's words (all of one), or says the
same deed of two of the object's words ("I've never apologized to Rachael in person for
forgetting our anniversary" against "I apologized in person for forgetting our anniversary").
Only such a pair makes facts: two "never" statements, or two affirmed ones, are restatements
and make none. Pure functions, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from archivist.state.frames import MONTH
from archivist.words import FUNCTION_WORDS, stem, tokens

MAX_AFFIRMED = 10  # messages the "yes" of one "never" cites
MAX_FACT_WORDS = 12

_NEVER = re.compile(
    r"\b(?:i|we)(?:'ve|\s+have|'d|\s+had)?\s+(?:actually\s+|honestly\s+|really\s+|truly\s+)*"
    r"(?:never|not ever|haven't ever|have not ever|hadn't ever)\s+(?:actually\s+|really\s+|ever\s+"
    r"|even\s+|once\s+)*(?P<verb>[a-z]+)\s+(?P<obj>(?:[^.;!?]|(?<=\b(?-i:Dr|Mr|Ms|St))\.){2,200})",
    re.I,
)
# Where the object of a "never" ends, and where its head ends.
_OBJ_END = re.compile(
    r"\s(?:so|but|and i|and i'm|because|although|though|yet)\b|\s-\s|,\s*(?:should|can|could"
    r"|would|how|what|why|is|do|does|so|but|and|which|it|this|that)\b",
    re.I,
)
# Where an object's first conjunct ends: "or", "and", a comma but one before an example ("any
# citation software, like Zotero"): "missing rehearsals, considering Rachael and I ..." is
# about rehearsals.
_FIRST_END = re.compile(
    r"\s(?:or|and)\s|,(?!\s*(?:like|such as|e\.g\.|including|especially|namely)\b)", re.I
)
# "Flask-Login, which I've never integrated": the object comes first.
_WHICH_NEVER = re.compile(
    r"(?P<obj>[\w.+'-]+(?:\s+[\w.+'-]+){0,3}),?\s+which\s+(?:i|we)(?:'ve|\s+have)?\s+"
    r"(?:actually\s+|really\s+)*never\s+(?:ever\s+|even\s+)*(?P<verb>[a-z]+)\b",
    re.I,
)
_ASKING = re.compile(
    r"^(?:\W*(?:hmm+|so|ok(?:ay)?|well|and|but|also)\b[\s,]*)*(?:can|could|would|will|how|what"
    r"|why|which|where|when|is|are|do|does|should|shall)\b",
    re.I,
)
# A question that still says what was done: "..., like I did on March 10th?", "how do I apply
# the strategies I learned from the online course?"
_SAYS_DONE = re.compile(
    r"\b(?:like|as)\s+(?:i|we)\s+did\b|\b(?:i|we)\s+(?:just\s+|already\s+|recently\s+)?"
    r"(?!(?:want|need|hop|plan|wonder|expect|intend|consider|lik|lov|prefer|ask|wish|guess"
    r"|suppos|assum|imagin|decid|mention|not)ed\b)(?:[a-z]{2,}ed|learned|took|did|went|made"
    r"|met|saw|wrote|built|ran|began|bought|gave|taught|sent|spent|won)\b",
    re.I,
)
# A date after a verb: "(my API key) obtained on March 10", "fixed last week".
_DATED = (
    r"\s+(?:on|in|back\s+in)\s+(?:" + MONTH + r"\.?\s+\d|\d)|\s+(?:last|this\s+past)\s+"
    r"(?:week|month|year|spring|summer|fall|autumn|winter)\b|\s+yesterday\b"
)
# Where a question says what was done: "How can I ... when I attend her lecture, like I did?"
_DEED_CLAUSE = re.compile(r"\b(?:when|whenever|after|since|because|as)\s+(?:i|we)\b", re.I)
# Where an affirming sentence's clauses part (not "March 10, 2024").
_PARTS = re.compile(r",\s+(?!\d)|;\s*|\s+but\s+", re.I)
# Verbs too light to say which deed a statement is about ("never had", "never done it").
_LIGHT_VERBS = frozenset(
    stem(v) for v in "be been had have done do did got get made make used use tried try".split()
)
_HEAD_END = re.compile(
    r",|\s(?:or|and|related|in|for|with|through|after|before|since|because|like|to|from|at|on"
    r"|of|so|but|during|until|while|as|this|that|which|yet|ever|anymore|either)\b",
    re.I,
)
_NAME = re.compile(r"(?<![\w.])(?!I\b)[A-Z][\w.+-]*[\w+]|(?<![\w.])[A-Z]{2,}\b")
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|my|we|we're|we've|our|me)\b", re.I)
_WISH = re.compile(
    r"\b(?:want to|wanted to|would like to|'d like to|plan to|planning to|hope to|hoping to"
    r"|going to learn|how (?:do|can|should) (?:i|we) (?:start|begin|get started)|never\b"
    r"|haven't|have not|not yet)",
    re.I,
)
_VAGUE = frozenset(
    """any anything some project this these those before ever actually really kind sort type
    types lot lots thing things stuff one ones""".split()
)


@dataclass(frozen=True)
class Statement:
    """One side of a contradiction: where it was said and what it says."""

    index: int  # the position of its sentence among the sentences given
    text: str


@dataclass(frozen=True)
class Contradiction:
    """A "never" statement, what it is about, and the affirmed statements it contradicts."""

    never: Statement
    about: str
    affirmed: tuple[Statement, ...]


def _key(obj: str) -> tuple[frozenset[str], frozenset[str], str, tuple[str, ...]]:
    """The names in an object (its first conjunct, to a comma that gives no example), its
    head's content stems, the head's words, and the words a sentence affirming it holds (the
    names', else the head's)."""
    first = re.split(_FIRST_END, obj, maxsplit=1)[0]
    found = _NAME.findall(first)
    names = frozenset(stem(n.lower()) for n in found)
    cut = _HEAD_END.search(obj)
    head = obj[: cut.start()] if cut else obj
    words = [t for t in tokens(head) if t not in FUNCTION_WORDS and t not in _VAGUE]
    search = [t for n in found for t in tokens(n)] if names else words
    return names, frozenset(stem(w) for w in words), " ".join(words), tuple(dict.fromkeys(search))


@dataclass(frozen=True)
class Negation:
    """A "never" statement: where it was said, its words, what it is about and its keys."""

    index: int  # the position of its sentence among the sentences given
    text: str  # the statement's own words ("I've never used Zotero")
    about: str  # its subject: its names, else its head's words
    names: frozenset[str]  # the stems of the names in its object
    head: frozenset[str]  # the stems of its head's content words
    rest: str  # the rest of its sentence, which may affirm it ("Flask-Login, which I've never")
    search: tuple[str, ...]  # the words a sentence affirming it holds: its names, else head's
    object_words: tuple[str, ...]  # its object's content words ("guy raymond tech event")
    verb: str  # what was never done ("apologized")

    @property
    def deed(self) -> bool:
        """Whether its verb says which deed it denies (not "never had", "never done")."""
        return stem(self.verb) not in _LIGHT_VERBS

    @property
    def detail(self) -> frozenset[str]:
        """The stems of its object's content words."""
        return frozenset(stem(w) for w in self.object_words)


def _affirms(text: str, never: Negation) -> int:
    """How strongly a sentence affirms what a "never" statement denies (0: it does not). A wish
    counts where it is in the clause that names what was denied ("I've completed 3 induction
    problems, so I want to make sure I understand induction" affirms)."""
    if not _FIRST_PERSON.search(text):
        return 0
    if _WISH.search(text) and _WISH.search(_naming_clause(text, never)):
        return 0
    if _ASKING.search(text) and not _SAYS_DONE.search(text) and not _dated_deed(text, never):
        return 0
    stems = _stems(text)
    if never.names and never.names <= stems:
        return len(never.names | never.head & stems)
    shared = len(never.head & stems)
    if not never.names and shared >= min(2, len(never.head)):
        return shared
    if never.deed and stem(never.verb) in stems:
        deed = len(never.detail & stems)
        return deed if deed >= 2 else 0
    return 0


def _dated_deed(text: str, never: Negation) -> re.Match[str] | None:
    """Where a sentence says the "never"'s own deed with a date ("how can I handle the rate
    limits of my OpenWeather API key obtained on March 10, 2024?" against "I've never obtained
    an API key"): a question that says what was done."""
    if not never.deed:
        return None
    return re.search(rf"\b{re.escape(never.verb)}(?:{_DATED})", text, re.I)


def negations(sentences: Sequence[str]) -> list[Negation]:
    """The first-person "never" statements among `sentences` that name what they are about."""
    found: list[Negation] = []
    for i, sentence in enumerate(sentences):
        if "ever" not in sentence.lower():
            continue  # both patterns need "never" or "ever": spare their scans of the rest
        match = _WHICH_NEVER.search(sentence) or _NEVER.search(sentence)
        if match is None:
            continue
        end = _OBJ_END.search(match.group("obj"))
        obj = match.group("obj")[: end.start()] if end else match.group("obj")
        names, head, about, search = _key(obj)
        if not head and not names:
            continue
        which = match.re is _WHICH_NEVER
        rest = (sentence[match.end() :] if which else "") or sentence[
            match.start("obj") + len(obj) :
        ]
        said = sentence[match.start() : match.end()] if which else ""
        text = " ".join((said or sentence[match.start() : match.start("obj") + len(obj)]).split())
        about = " ".join(sorted(names)) or about
        detail = tuple(dict.fromkeys(t for t in tokens(obj) if t not in FUNCTION_WORDS))
        verb = match.group("verb").lower()
        found.append(Negation(i, text, about, names, head, rest, search, detail, verb))
    return found


def _deed(text: str, never: Negation) -> str:
    """What an affirming sentence says was done: of its clauses (a question's from the one that
    says what was done), the first that has most of the "never"'s words ("I'm worried about
    Troy, we just attended couples therapy on April 20": the second)."""
    done = _SAYS_DONE.search(text)
    if done is not None and _ASKING.search(text):
        starts = [m.start() for m in _DEED_CLAUSE.finditer(text, 0, done.start())]
        text = text[starts[-1] :] if starts else text
    elif (dated := _dated_deed(text, never)) and _ASKING.search(text):
        # from the owner of what the deed was done to: "my OpenWeather API key obtained on ..."
        owners = [m.start() for m in re.finditer(r"\b(?:my|our)\s", text[: dated.start()], re.I)]
        text = text[owners[-1] :] if owners else text
    return _naming_clause(text, never)


def _naming_clause(text: str, never: Negation) -> str:
    """The first of a sentence's clauses that has most of a "never" statement's words."""
    keys = never.detail | never.head | never.names | {stem(never.verb)}
    parts = [part for part in _PARTS.split(text) if part.strip()]
    return max(parts, key=lambda part: _shared(part, keys)) if parts else text


def _shared(text: str, stems: frozenset[str]) -> int:
    """How many of `stems` the text's words have."""
    return len(stems & _stems(text))


def _stems(text: str) -> set[str]:
    return {stem(t) for t in tokens(text)}


def contradictions(sentences: Sequence[str], earlier: Sequence[str] = ()) -> list[Contradiction]:
    """The "never" statements among `sentences` (a batch's user sentences, in order) that
    another of them, or one of `earlier` (the user's sentences of other sessions), affirms,
    with the affirmed ones: the strongest first, then those sharing most of what the statement
    names, then the closest (an earlier sentence's index is its position in `earlier` after
    all of `sentences`)."""
    found: list[Contradiction] = []
    others = [*sentences, *earlier]
    for never in negations(sentences):
        i = never.index
        pool = [(j, s) for j, s in enumerate(others) if j != i] + [(i, never.rest)]
        detail = never.detail
        scored = [(_affirms(s, never), _shared(s, detail), -abs(j - i), j, s) for j, s in pool]
        ranked = sorted((x for x in scored if x[0]), reverse=True)
        best = ranked[:MAX_AFFIRMED]
        # and the strongest that says its deed with its verb, where the closer ones only name
        # what it is about ("I just completed 6 geometric sequence problems", a hundred
        # messages before, among many "I'm working on geometric sequence problems")
        verb = stem(never.verb)
        did = next((x for x in ranked if never.deed and verb in _stems(x[-1])), None)
        if did is not None and did not in best:
            best.append(did)
        if best:
            affirmed = tuple(Statement(j, _deed(s, never).strip(" ,;")) for *_, j, s in best)
            found.append(Contradiction(Statement(i, never.text), never.about, affirmed))
    return found
