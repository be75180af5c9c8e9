"""Candidate state items from chat text, by rules: deterministic, fast, conservative.

Decisions and actions come from the same patterns as the v1 extraction (`analysis.analyse`),
so the two never disagree about what was decided; constraints, risks and questions have their
own sentence patterns here. Each candidate refs the message it was found in and keeps its
sentence (`CandidateItem.signal_text`), where reconciliation looks for change language.
Statuses: an action is `done` when a checkbox is ticked or a later sentence of the batch says
it was done, `blocked` on blocking language; a question is `answered` when a later user
message says so. Nothing here knows the previous items: that is reconciliation's job.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from archivist.extract.rules.analysis import analyse
from archivist.extract.rules.entities import entities_in
from archivist.extract.rules.experience import contradictions
from archivist.extract.rules.findings import ActionHit, Completion, DecisionHit, EntityHit
from archivist.extract.rules.guards import is_question
from archivist.extract.rules.phrases import clause, has_substance, strip_fillers, tidy
from archivist.extract.rules.plans import LIMIT_NOUNS, arrangement, limits
from archivist.extract.rules.settled import (
    SettledList,
    bare_choice,
    entries_of,
    fragment_choice,
    labelled,
    settled_list,
)
from archivist.extract.rules.text import clip, units
from archivist.extract.rules.vocabulary import COMMON_VERBS, TOPIC_STOPWORDS, domain_of
from archivist.models import NON_CONVERSATIONAL_ROLES, USER_ROLES, Message
from archivist.prefilter import Gated
from archivist.state.frames import (
    NO_FRAME,
    ChangeKind,
    Frame,
    aside,
    choice_text,
    concrete,
    failed,
    frame,
    is_choice,
    joined,
    named_value,
    same_subject,
    same_value,
    statement,
    subject_key,
    tentative,
    two_sides,
    value_kind,
    value_side,
)
from archivist.state.items import (
    NAME_CHARS,
    CandidateItem,
    ItemType,
    is_standing_rule,
    resolve_status_merge,
)
from archivist.words import completed_index, content_stems, identity, stem, tokens

MAX_ITEM_WORDS = 16

_CONSTRAINT = Gated(
    # (not an obligation denied: "so they don't have to be responsible")
    r"\b(?:must(?:n't| not)?(?! have been)|(?<!n't )(?<!dont )(?<!not )(?<!never )(?:has|have)"
    r" to be|needs to be|need to stay"
    r"|has to stay|have to stay|cannot exceed|can't exceed|can not exceed|no more than|at most"
    r"|no later than|hard limit|hard requirement|is a requirement|are required|is required"
    r"|\bcap(?:s|ping)?\s+(?:\w+\s+){0,3}at\s+\$?\d+"
    r"|not allowed|only allowed|capped at|limited to|budget is|budget of|deadline is|sla is"
    r"|budget (?:for|of) (?:the |our |my )?[\w-]+ is"
    r"|no exceptions"
    r"|(?:limit|quota|cap|ceiling|maximum|minimum|max|min|allowance)(?:\s+\w+){0,2}\s+(?:is|of)"
    r"|(?:max|maximum|min|minimum)\s+\$?\d[\d,.]*|won't go (?:any )?(?:higher|lower|over|above)"
    r"|has to run|have to run|has to support|have to support|required to|mandatory"
    r"|(?:needs|requires)\s+(?:at least\s+)?\d"
    r"|\brequires\s+(?!(?:some|a lot|more|less|thought|time|work|effort|patience|practice)\b)"
    r"|can(?:'t|not| not) go (?:over|above|beyond)|not (?:to )?exceed|never exceed"
    r"|\bcan (?:now )?go (?:up|down) to\s+\$?\d"
    r"|(?:stay|stays|staying|keep|keeps|keeping)\b[^.;!?]{0,40}\b(?:under|below)\s+\$?\d[\d,.]*"
    r"|\d[\d,.]*\s*(?:[a-z]+\s+)?(?:max|tops)(?!\w))\b"
    # a prohibition said first: "no synthetic pesticides", "nothing with peanuts"; what the
    # speaker cannot take or eat
    r"|^(?:(?:oh|and|also|plus|but)[\s,]+)*(?:no|nothing with)\s+(?!(?:problem|problems"
    r"|worries|way|idea|rush|need|thanks|one|pressure|stress|doubt|offense|clue|luck|wonder|wait"
    r"|matter|big|regrets|complaints|excuses|hurry|harm|kidding|chance|choice|comment|point"
    r"|sense|reason)\b)"
    r"[a-z]{3,}|\bi\s+(?:can't|cannot|can not)\s+(?:take|eat|have|drink)\b"
    # the same in a list of what was settled: "..., NO ads", "under 5 minutes, ..."
    r"|(?:^|[,:;\u2014]\s*|\s-\s)(?:under|below|less than)\s+\$?\d"
    r"|(?:[,:;\u2014]\s*|\s-\s)no\s+(?:mention of\s+)?(?!(?:problem|worries|way|idea|rush"
    r"|need|longer|thanks|one|pressure|stress|doubt|clue|luck|big|regrets|hurry|harm|kidding"
    r"|chance|point|sense|reason)\b)[a-z]{3,}"
    r"|(?-i:\bNO\s+[a-z]{3,})",
    re.I,
)
# What reads as a limit but is not one: an inference ("it must be a long drive", "that
# must've been fun", "the view must feel amazing"), a favourite ("my favourite city has to be
# Lisbon", "the oddest would have to be the durian") or a "no" that answers ("No but I'll ask
# them tomorrow", "No the film was too long"). In casual chat between two people (REALTALK's
# tuning chats) these were nearly all the constraints the rules found.
_NO_LIMIT = Gated(
    r"\bmust(?:'ve|\s+have)\s+(?:been|had|\w+ed|made|spent|felt|taken|seen|done|gone|got"
    r"|gotten|known|thought|heard|found|kept|left|met|brought|given)\b"
    r"|\bmust\s+(?:feel|sound|look|seem|suck|make for|involve|mean|keep things|be\s+(?:so|such"
    r"|really|very|pretty|quite|incredibly|absolutely|truly|an?\s+(?:\w+\s+)?(?:experience|place"
    r"|time|job|thing|one|feeling|day|accomplishment|choice|sight|view)\b|\w+(?:ing|ful|ous|ive"
    r"|ible|able|ic)\b|fun|nice|great|hard|tough|tiring|tired|popular|smart|lovely|amazing))"
    r"|(?:^|[,;]\s*|\b(?:man|oh|wow|and|but|so|yeah)\s+)(?:it|that|this|he|she|they|you|those"
    r"|these|there)\s+must\b(?![^.;!?]*\d)"
    r"|\b(?:favou?rite|\w+est|best|worst)\b[^.;!?]{0,60}\b(?:has|have|would have)\s+to\s+be\b"
    r"|\bwould\s+have\s+to\s+be\b"
    r"|\b(?:has|have)\s+to\s+be\s+(?:my|our|his|her|their|the)\s+(?:\w+\s+)?(?:favou?rite|top)\b"
    # a guess with its subject left out ("Must be a busy day"), or an opinion of what must be
    # ("I don't think everything has to be a conspiracy")
    r"|^must\s+be\b|\b(?:don't|dont|do not)\s+think\b"
    r"|^(?:\W*(?:oh|and|also|but)\W+)*no[\s,]+(?:but|why|not|don't|dont|definitely|actually|like"
    r"|the|that|thats|that's|it|its|it's|i|you|your|youre|you're|they|theyre|they're|he|she|we"
    r"|probs|news|two|2)\b",
    re.I,
)


def states_a_limit(text: str) -> bool:
    """Whether `text` states a limit or a requirement (_CONSTRAINT), and not as an inference,
    a favourite or an answer (_NO_LIMIT)."""
    return _CONSTRAINT.search(text) is not None and _NO_LIMIT.search(text) is None


# Where a sentence's clauses part: "Redis for the queue; Memcached for sessions", "X, and Y",
# " - " between listed items.
_CLAUSE = re.compile(
    r"\s*[;\u2022]\s*|,\s+(?:and|plus|then|also|so)\s+|\s+[-+\u2013\u2014]\s+"
    r"|\s+(?:and|so)\s+(?=(?:the|our|my|we|i)\b)|,\s+",
    re.I,
)
# An assistant's sentence that notes what the user said ("Noted, the report must be 12 pages
# or fewer"): the user's sentence holds the constraint already.
_NOTED = re.compile(
    r"^(?:noted|got it|understood|updated|ok(?:ay)?|sure|will do|done|great|perfect|confirmed"
    r"|i've noted|i'll note|i've updated|i've added|added|saved)\b",
    re.I,
)
# An assistant's reply that restates what the user settled, as a short list after an
# acknowledgement: "Got it: Stripe for payments, pickup only.", "Fun! Saturday the 21st,
# 7pm, Lucia's Trattoria." (a bot confirms what it heard in fewer words than the user said it).
_RESTATING = re.compile(
    r"^(?:got it|noted|updated|understood|confirmed|perfect|great|lovely|sounds good|done|fun"
    r"|nice|ok(?:ay)?|all set)(?:\s*[:,\u2014]\s*|\s*[!.]+\s+)(?P<list>[^.!?\n]+)",
    re.I,
)
RESTATED_ENTRIES = 5  # a longer list is a summary or advice, not a confirmation
RESTATED_WORDS = 8  # the longest entry read
# A restated limit ("a $2k ceiling", "1 approval required"): the user's sentence gives it.
_RESTATED_LIMIT = re.compile(
    r"\b(?:caps?|capped|limits?|ceiling|budget|quota|max(?:imum)?|min(?:imum)?|required|no)\b",
    re.I,
)
# A name or a number: what an entry must take from the user's message to restate it.
_NAME_OR_NUMBER = re.compile(r"\b(?:\d[\w./:-]*|(?!I\b)[A-Z][\w&'.-]*)")


def _numbers(text: str) -> list[str]:
    """The numbers a text names, as it writes them ("100", "8gb", "req/s" is none)."""
    return [n.lower() for n in _NAME_OR_NUMBER.findall(text) if n[:1].isdigit()]


# A clause that only stresses the one before it ("..., hard limit", "..., no more").
_EMPHASIS = re.compile(
    r"^(?:no exceptions?|no excuses|period|full stop|final|that's final|no more"
    r"|(?:a\s+)?hard (?:limit|cap|ceiling|stop)|non-negotiable|tops|max)\W*$",
    re.I,
)
# A bullet inside a sentence: "plan: • router: X • SSID: Y", "so far: - name: X - weekly".
_BULLET = re.compile(r"\u2022|\s-\s")
_RISK = Gated(
    r"\b(?:risk|risky|risks|danger(?:ous)?|concern(?:ed)?|worried|worry|could break|might break"
    r"|may break|could fail|might fail|may fail|could lose|might lose|single point of failure"
    r"|vulnerab\w*|exposed|leak(?:s|ing)?|bottleneck|could go down|might go down|at stake"
    r"|caveat|downside|gotcha|could hit|might hit|rate.limit\w*)\b",
    re.I,
)
_NOT_RISK = re.compile(r"\b(?:no risk|not worried|no concern|don't worry|no worries)\b", re.I)
_BLOCKED = Gated(
    r"\b(?:blocked|blocking|stuck on|stuck|waiting (?:on|for)|can't (?:\w+ ){0,3}until"
    r"|cannot (?:\w+ ){0,3}until|on hold|held up)\b",
    re.I,
)
_ANSWERED = re.compile(
    r"\b(?:that answers|answers my question|question answered|answered|that settles it"
    r"|got my answer|that clears it up)\b",
    re.I,
)
_REQUEST = re.compile(
    r"^(?:can|could|would|will) you\b|^(?:any thoughts|thoughts)\b"
    r"|\b(?:how are you|how's it going|how is it going|what's up|how have you been)\b",
    re.I,
)
_QUESTION_WORDS = 4
# A standing rule (state.items.is_standing_rule) is kept whole: its "when I ask about ..." part
# names the matter it governs.
MAX_RULE_WORDS = 32

# What the assistant proposes: "I'd suggest Buttondown", "Tuesday at 10am or Thursday at 3pm",
# "Dr. Lee has Friday at 11am", a numbered or bulleted list.
_PROPOSAL = Gated(
    r"\b(?:i'd suggest|i suggest|i'd recommend|i recommend|i'd go with|i would go with|how about"
    r"|what about|you could (?:use|try|go with|book|pick|do)|my pick is|my recommendation is"
    r"|consider|there's|there is|i found|(?:has|have|offers?) (?:a slot|an opening|openings|slots)?"
    r"|has|have|offers?|options?(?: are| is)?\s*:|choices?\s*:)\s+(?P<what>[^.!?;]{2,160})",
    re.I,
)
# A proposal's lead that only says an option exists.
_EXISTS = re.compile(r"(?:there's|there is|has|have|offers?)\s", re.I)
# More options than this is a guide to follow (a long list of tips or steps), not a choice
# offered: a word of the user's next sentence that one of them shares chooses nothing.
MAX_OPTIONS = 8
TABLE_VALUES = 3  # values of one subject in one message that make it a table
# What a limit is called: an update of one is a limit too ("we raised the cap to 48k").
_LIMIT = re.compile(rf"\b(?:{LIMIT_NOUNS}|target)s?$", re.I)
# The words that bound a limit's value: "keep weekly mileage under 30 miles".
_BOUND = r"\b(?:under|below|over|above|at most|at least|no more than|no less than|max(?:imum)?"
_BOUND += r"|min(?:imum)?|up to|within)\s+"
CLAUSED_WORDS = 45  # the longest sentence read for a choice in each clause (but for a list)
CLAUSE_WORDS = 12  # and the longest of its clauses read so
# Code or markup in a sentence, or a question: its "x = y" and "**Claim**: ..." are no choices.
_CODE = re.compile(r"[`(){}\[\]<>*]|\w\.\w+\(|\?")
# A clause led by a gerund, an adverb or a preposition continues the one before it ("...,
# focusing on layout consistency", "..., especially when it comes to ...").
_NOT_A_CLAUSE = re.compile(
    r"[a-z]+(?:ing|ly)$|(?:for|with|to|from|of|in|on|at|by|about|like|as|which|who|that|so"
    r"|because|since|but|or|if|when|while|then)$",
    re.I,
)
_OPTION_SPLIT = re.compile(r"\s*,\s*or\s+|\s+or\s+|\s*;\s*|\s*,\s*(?=[A-Z0-9$])")
_ENUMERATOR = re.compile(r"^\s*(?:(?:\d{1,2}|[a-e])[.)]\s*|(?:a|an|the)\s+)", re.I)
_LISTED = re.compile(r"^\s*(?:[-*\u2022]|\d{1,2}[.)])\s+(?P<what>\S.{1,120})$", re.M)
_ORDINALS = {
    "first": 0,
    "1st": 0,
    "one": 0,
    "second": 1,
    "2nd": 1,
    "two": 1,
    "third": 2,
    "3rd": 2,
    "three": 2,
    "fourth": 3,
    "4th": 3,
    "last": -1,
    "latter": -1,
    "former": 0,
}
_ORDINAL = re.compile(
    r"\b(?:the\s+)?(?P<n>first|1st|second|2nd|third|3rd|fourth|4th|last|latter|former)"
    r"(?:\s+(?:one|option|choice|slot|suggestion))?\b|\boption\s+(?P<k>\d|one|two|three)\b",
    re.I,
)
_THE_ONE = re.compile(r"\bthe\s+(?P<which>[\w$:.-]+(?:\s+[\w$:.-]+)?)\s+(?:one|option)\b", re.I)
_CONFIRM = re.compile(
    r"^(?:yes|yeah|yep|yup|ok(?:ay)?|sure|sounds good|perfect|great|deal|agreed|fine|good"
    r"|that works|works for me|let's do (?:it|that)|do it|go ahead|go for it|let's go|please"
    r"|book it|take it|i'll take it|we'll take it|that one|love it|alright)\b",
    re.I,
)
_SUITS = re.compile(
    r"\b(?:works|work for|is better|sounds better|sounds good|is fine|is perfect|suits|please"
    r"|i'll take|we'll take|let's do|go with|book|take)\b",
    re.I,
)
# A request to the assistant, and a reply that says it is done.
_ASKS = re.compile(
    r"^(?:\W*(?:hey|hi|ok(?:ay)?|so|and|also|actually|hmm+)\b[\s,]*)*(?:can|could|would|will)\s+"
    r"(?:you|we)\b|\bplease\b",
    re.I,
)
_DONE = re.compile(
    r"^\W*(?:done|moved|updated|changed|switched|booked|rescheduled|cancell?ed|noted|got it"
    r"|will do|sure|of course|absolutely|no problem|ok(?:ay)?|all set|confirmed)\b(?!\s+(?:but"
    r"|however))",
    re.I,
)
_TAKE_THAT = re.compile(
    r"\b(?:book|take|do|grab|go with|pick|use|reserve|order|buy) (?:it|that|this|that one|this one"
    r"|your suggestion|yours)\b",
    re.I,
)
# Not a yes: "hmm, let me think about it", "not that one", "maybe later".
_NOT_YES = re.compile(
    r"\b(?:not|no|never|don't|doesn't|won't|maybe|perhaps|think about|let me think|later|unsure"
    r"|not sure|hmm+|wait)\b|n't\b|\?",
    re.I,
)


# A count of things ("19 rooms", "two pools"): what a place has, not an option to take.
_COUNTED = re.compile(
    r"(?:\d[\d,]*|two|three|four|five|six|seven|eight|nine|ten|a few|several|many)\s+\w+s",
    re.I,
)


def _steps(options: Sequence[str]) -> bool:
    """Whether listed options are steps to do: each led by a verb, and not all by the same one
    (alternatives share theirs: "book the 9am flight" / "book the 11am one")."""
    verbs = [o.split()[0].lower() for o in options if o.split()]
    return (
        len(verbs) >= 2
        and len(verbs) == len(options)
        and all(v in COMMON_VERBS for v in verbs)
        and len(set(verbs)) > 1
    )


# What starts a clause, not an option's name: "You ...", "To pace yourself a bit".
_NOT_AN_OPTION = re.compile(r"(?:you|i|we|they|he|she|it|to)\b", re.I)


@dataclass(frozen=True)
class Offer:
    """The options an assistant message proposed, in order."""

    options: tuple[str, ...] = ()
    # Whether the assistant proposed them ("I'd suggest", "how about", a list) rather than
    # only said that they exist ("there's a slot at 3", "Luigi's has a patio")
    proposed: bool = False

    @classmethod
    def of(cls, message: Message) -> Offer:
        text = " ".join(message.content.split("\n")[:40])
        listed = [m.group("what") for m in _LISTED.finditer(message.content)]
        found = _PROPOSAL.search(text)
        parts = listed or (_OPTION_SPLIT.split(found.group("what")) if found else [])
        options = [tidy(_ENUMERATOR.sub("", clause_of(_heading(p))), 10) for p in parts]
        offered = tuple(o for o in options if concrete(o) and not _NOT_AN_OPTION.match(o))
        exists = found is not None and _EXISTS.match(found.group(0)) is not None
        proposed = bool(listed) or (found is not None and not exists)
        if not listed and exists and all(_COUNTED.fullmatch(o) for o in offered):
            return cls()  # "Santiago ... has 19 rooms": what a thing has, not an option
        if listed and _steps(offered):
            return cls()  # a to-do list: "I'll take the DAG" takes a task, chooses nothing
        return cls(offered, proposed) if len(offered) <= MAX_OPTIONS else cls()

    def accepted(self, sentence: str, said: Frame) -> Frame | None:
        """The option the user's sentence takes ("ok, go with the second option", "yes, book
        the Thursday one", "sounds good, let's do that"), or None."""
        if not self.options or len(sentence.split()) > 14 or _NOT_YES.search(sentence):
            return None
        ordinal = _ORDINAL.search(sentence)
        the_one = _THE_ONE.search(sentence)
        option: str | None = None
        if ordinal is not None:
            n = _ORDINALS.get((ordinal.group("n") or ordinal.group("k") or "").lower())
            if n is None and (ordinal.group("k") or "").isdigit():
                n = int(ordinal.group("k")) - 1
            if n is not None and -len(self.options) <= n < len(self.options):
                option = self.options[n]
        elif the_one is not None:
            words = set(tokens(the_one.group("which")))
            named = [o for o in self.options if words & set(tokens(o))]
            option = named[0] if len(named) == 1 else None
        elif said.value is None and len(self.options) == 1:
            # a bare yes takes only a proposal: after "there's a slot at 3" it may answer
            # anything else the assistant said or asked ("yeah" to "any plans for dinner?")
            agree = self.proposed and (
                _CONFIRM.match(sentence) or _CONFIRM.match(strip_fillers(sentence))
            )
            option = self.options[0] if agree or _TAKE_THAT.search(sentence) else None
        elif _SUITS.search(sentence):
            # "Thursday works", "the 3pm slot is better": a word of exactly one option
            words = {t for t in tokens(sentence) if t not in TOPIC_STOPWORDS}
            named = [o for o in self.options if words & set(tokens(o))]
            option = named[0] if len(named) == 1 else None
        if option is None:
            return None
        value = " ".join(option.split()[:5])
        return Frame(value=value, commit=True, said=f"go with {option}")


# What the user asks to have chosen: "I need a hotel in Lisbon", "what should we use for the
# newsletter?", "can you move the dentist appointment to Friday?".
_WANT = re.compile(
    r"\b(?:i|we)\s+(?:still\s+)?(?:need|want|'re looking for|are looking for|'m looking for"
    r"|am looking for)\s+(?:a|an|some|the|to book a|to find a|to pick a|to choose a)\s+"
    r"(?P<what>[a-z][\w' -]{1,60})|\b(?:what|which)\s+(?:\w+\s+)?should\s+(?:we|i)\s+"
    r"(?:use|pick|choose|book|get|do)\s+for\s+(?:the|our|my)?\s*(?P<for>[\w' -]{2,60})"
    r"|\bfind\s+(?:me|us)\s+(?:a|an|some)\s+(?P<find>[a-z][\w' -]{1,60})"
    r"|\b(?:what|which)\s+(?P<which>[a-z]+(?:\s+[a-z]+)?)\s+should\s+(?:we|i)\s+(?:take|book|get"
    r"|pick|choose|use|go with|do)\b",
    re.I,
)
_WANT_CUT = re.compile(
    r"\s(?:in|on|at|for|from|to|near|with|by|next|this|tomorrow|tonight|today|that|which|so"
    r"|because|and|or|if|asap|soon)\b",
    re.I,
)


@dataclass(frozen=True)
class Wanted:
    """The subject the user asked to have chosen, and whether asking changes an earlier one."""

    subject: str | None = None
    change: ChangeKind | None = None
    asked_in: str | None = None

    @classmethod
    def of(cls, sentence: str) -> Wanted | None:
        asked = frame(sentence) if is_question(sentence) else NO_FRAME
        if asked.subject and asked.change in ("replace", "update"):
            return cls(asked.subject, asked.change)
        match = _WANT.search(sentence)
        if match is None:
            return None
        what = next(g for g in match.group("what", "for", "find", "which") if g)
        cut = _WANT_CUT.search(" " + what)
        what = (" " + what)[: cut.start()].strip() if cut else what.strip()
        words = what.split()
        return cls(" ".join(words[:3])) if words else None


def _heading(option: str) -> str:
    """A listed option's name where it is a heading ("**Time zones**: since you ...")."""
    bold = re.match(r"\s*\*\*(?P<name>[^*]{1,60})\*\*", option)
    return bold.group("name").rstrip(" :") if bold else option


def _choice_clause(sentence: str, choice: Frame) -> str:
    """The clause of a sentence that states its choice, else the whole sentence: a limit in
    another clause is one of its own ("we're adding an Enterprise tier, minimum 20 seats")."""
    value = (choice.value or "").lower()
    if not value or not _CLAUSE.search(sentence):
        return sentence
    return next((p for p in _CLAUSE.split(sentence) if value in p.lower()), sentence)


def _beside_a_change(said: Frame, clause: str, *, added: bool) -> bool:
    """A clause said beside a change that is a choice of its own: another replacement or
    update, a choice on its own subject of something concrete ("keep State Farm for auto,
    move home insurance to Lemonade"), or, `added` after the first clause, one the speaker
    makes in a clause of their own ("cap comes down to $3,000, and I'm adding a Tiffen ND
    filter"; not "we're parting ways with Northwind, Lumen is the new agency")."""
    if said.change is not None:
        return said.change in ("replace", "update")
    if added and said.subject is None and said.commit and _OWN_CLAUSE.match(clause):
        return concrete(said.value)
    return said.subject is not None and concrete(said.value)


# A sentence that ends on the alternative it turns down: ", not my phone", ", not with email".
_NOT_THE_OTHER = re.compile(
    r",\s+not\s+(?:(?:with|on|in|from|by|via|the|my|our|a|an)\s+)*[\w'-]+(?:\s+[\w'-]+)?"
    r"\s*[.!]?\s*$",
    re.I,
)
# A clause the speaker opens with what they (will) do: no reason for the change beside it.
_OWN_CLAUSE = re.compile(
    r"^(?:and\s+|also\s+|plus\s+)?(?:i'm|i am|we're|we are|i'll|i will|we'll|we will)\s+"
    r"(?:also\s+)?[a-z]+ing\b",
    re.I,
)


# A thing said to be out, as a constraint of its own: "No lasagna", "no more Friday deploys".
_NO_MORE = re.compile(r"^no\s+(?:more\s+)?(?P<thing>[\w'&.-]+(?:\s+[\w'&.-]+){0,3})$", re.I)


def _with_what_failed(choice: Frame, text: str, sentence: str) -> Frame:
    """A choice made because something failed, said before it in the message ("the Oak Barn
    double-booked our date, so we moved to Willow Creek Farm") or after it in its sentence
    ("going with CockroachDB instead, postgres just can't handle the writes"), replaces that
    thing."""
    start = text.find(sentence)
    said = text[: start + len(sentence)] if start >= 0 else sentence
    value = said.lower().rfind((choice.value or "").lower())
    old = failed(said[:value] if value > 0 else said)  # the reason first, else after
    if old is None and value > 0:
        old = failed(said[value + len(choice.value or "") :], after=True)
    if old is None and choice.change == "replace" and choice.subject is None:
        old = _named_before(sentence, choice.value or "")
    if old is None or same_value(old, choice.value):
        return choice
    # What failed is out for everything it was chosen for, whatever each sentence called
    # that ("Oakwood double-booked us, so the party's moving to the Riverside Pavilion" after
    # "the reception will be at the Oakwood Barn"): the change is on no subject of its own.
    changed = choice.replacing(old, choice.change or "replace")
    return replace(changed, subject=None, said=choice_text(changed) or changed.said)


# A name in a sentence: capitalised words (not the sentence's first, not "I").
_NAME = re.compile(r"(?<=[\s\"'\u201c])(?-i:[A-Z])[\w&'.-]*(?:\s+(?-i:[A-Z])[\w&'.-]*){0,3}")
_NOT_NAMES = frozenset({"I", "I'm", "I've", "I'll", "I'd"})


def _named_before(sentence: str, value: str) -> str | None:
    """The last name said before a replacement's value in its sentence ("half the class read
    Holes last year, so we're reading Wonder instead"): what a change without a subject
    replaces."""
    end = sentence.lower().rfind(value.lower())
    names = [
        n.group(0) for n in _NAME.finditer(sentence, 0, max(end, 0)) if n.group(0) not in _NOT_NAMES
    ]
    return names[-1].strip(" .'\"") if names else None


def _fitted(name: str | None) -> str | None:
    """A subject or value cut to what an item holds ("Abstract: <a paragraph>")."""
    return None if name is None else clip(name, NAME_CHARS)


def clause_of(text: str) -> str:
    """An option's own words: before "which", "because", "it's ...", a dash or a parenthesis."""
    return re.split(
        r"\s(?:which|because|since|so|but|-|\u2014)\s|\(|,\s+(?:it|it's|they|they're|that|that's"
        r"|which|this|since|as|and)\b",
        text.strip(),
        maxsplit=1,
    )[0]


def user_sentences(messages: Sequence[Message]) -> list[tuple[Message, str]]:
    """The sentences of the user's messages (not list items), each with its message."""
    return [
        (message, sentence)
        for message in messages
        if message.role.strip().lower() in USER_ROLES
        for sentence, outcome in units(message.content)
        if outcome is None
    ]


def earlier_contradictions(
    messages: Sequence[Message], earlier: Sequence[Message]
) -> list[CandidateItem]:
    """The batch's "never" statements that a user turn of another session (`earlier`)
    affirms: a fact each, citing the turns it contradicts beside its own message."""
    found = _Found()
    found.facts(messages, earlier)
    cited = {m.id for m in earlier}
    return [item for item in found.items if cited & set(item.refs)]


def rules_candidates(messages: Sequence[Message]) -> list[CandidateItem]:
    """The candidate items the messages state, in message order (duplicates collapsed)."""
    found = _Found()
    said: Message | None = None  # the user's message an assistant's reply answers
    for message in messages:
        role = message.role.strip().lower()
        if role in NON_CONVERSATIONAL_ROLES:
            continue
        user = role in USER_ROLES
        if not user:
            found.acknowledged(message)
            found.restated(message, said)
            found.replied(message, said)
            found.offer = Offer.of(message)
        first = len(found.items)
        found.replying_to = None if user else said
        for sentence, list_outcome in units(message.content):
            found.sentence(message, sentence, list_outcome, user=user)
        if user and len(found.items) == first:
            found.arrangements(message)
        found.drop_tables(first)
        found.fold_cancels(first)
        said = message if user else None
    found.facts(messages)
    return found.items


class _Found:
    def __init__(self) -> None:
        self.items: list[CandidateItem] = []
        self._keys: dict[tuple[str, str], int] = {}
        # What the assistant last proposed, and what the user last asked to have chosen:
        # "yes, book the Thursday one" chooses the assistant's Thursday slot for it.
        self.offer = Offer()
        self._wanted = Wanted()
        self._requested: tuple[Message, str, Frame] | None = None
        self._last_user: str | None = None
        self._current_user: str | None = None
        # The user's message an assistant's message replies to (None while reading the user's)
        self.replying_to: Message | None = None

    def add(
        self,
        item_type: ItemType,
        text: str,
        message: Message,
        sentence: str,
        choice: Frame = NO_FRAME,
        **kw: str,
    ) -> CandidateItem:
        """The item of `text` (a new one, or the one of the same words it is merged into)."""
        key = (item_type, " ".join(sorted(identity(text))) or text.lower())
        if key in self._keys and self._changed_since(self._keys[key], choice):
            del self._keys[key]  # "back to Redis" after a move off it: said anew, not merged
        if key in self._keys:
            item = self.items[self._keys[key]]
            # (an event held somewhere is no subject for what replaces a named value: see
            # Frame.replacing)
            held = choice.held and item.replaces is not None
            if item.subject is None and choice.subject is not None and not held:
                item.subject = _fitted(choice.subject)
                item.value = _fitted(choice.value) or item.value
            if message.id not in item.refs:
                item.refs.append(message.id)
            if "status" in kw:
                status = kw["status"]
                item.status = resolve_status_merge(item_type, item.status or status, status)
            return item
        candidate = CandidateItem(
            type=item_type,
            text=text,
            status=kw.get("status"),
            confidence="high" if item_type == "decision" else "medium",
            topic_tags=topic_tags(f"{text} {sentence}"),
            refs=[message.id],
            subject=_fitted(choice.subject),
            value=_fitted(choice.value or (choice.old if choice.change == "cancel" else None)),
            change=choice.change,
            replaces=_fitted(choice.old),
        ).with_context(sentence)
        self._keys[key] = len(self.items)
        self.items.append(candidate)
        return candidate

    def drop_tables(self, first: int) -> None:
        """Drop the decisions a message added from `first` on when TABLE_VALUES or more of
        them give one subject different values with no change between them: that is a
        table or a schedule pasted into the message ("Activity: team meeting", "Activity:
        one-on-one with Greg", ...), not a choice."""
        values: dict[tuple[str, ...], set[str]] = defaultdict(set)
        for item in self.items[first:]:
            if item.type == "decision" and item.subject and item.value and not item.change:
                values[subject_key(item.subject)].add(item.value.lower())
        tables = {k for k, v in values.items() if len(v) >= TABLE_VALUES}
        if tables:
            self._drop(
                first,
                lambda i: (
                    i.type == "decision" and bool(i.subject) and subject_key(i.subject) in tables
                ),
            )

    def fold_cancels(self, first: int) -> None:
        """Drop a cancel a message added from `first` on when the message also replaces what
        it cancels ("twoguys cancelled on us, swapping them for Bellhop"): the replacement
        says it, and a "Drop twoguys" beside it would be a second current decision. A "no X"
        beside the message's one replacement that names nothing is what it replaces."""
        added = self.items[first:]
        swaps = [i for i in added if i.change in ("replace", "update")]
        said_no = [
            (i, m["thing"])
            for i in added
            if i.type == "constraint" and (m := _NO_MORE.match(i.text))
        ]
        swap = swaps[0] if len(swaps) == 1 else None
        if (
            said_no
            and swap is not None
            and swap.replaces is None
            and swap.subject is None  # "no dairy for me. we moved dinner to 8pm": two things
            and value_kind(said_no[0][1]) == value_kind(swap.value or "")
        ):
            # "no lasagna, doing a big paella instead": the paella replaces the lasagna
            swap.replaces = said_no[0][1]
            self._drop(first, lambda i: i is said_no[0][0])
        replaced = [i.replaces for i in swaps if i.replaces]
        self._drop(
            first,
            lambda i: (
                i.change == "cancel"
                and len(i.refs) == 1
                and any(same_value(i.replaces or i.value, r) for r in replaced)
            ),
        )

    def _drop(self, first: int, gone: Callable[[CandidateItem], bool]) -> None:
        """Remove the items from `first` on that `gone` says, keeping `_keys` in step."""
        kept = [n for n, i in enumerate(self.items) if n < first or not gone(i)]
        if len(kept) == len(self.items):
            return
        moved = {old: new for new, old in enumerate(kept)}
        self.items = [self.items[n] for n in kept]
        self._keys = {k: moved[n] for k, n in self._keys.items() if n in moved}

    def facts(self, messages: Sequence[Message], earlier: Sequence[Message] = ()) -> None:
        """The user's experience facts that contradict each other in the batch ("I've never
        used Zotero" against "I just downloaded Zotero"): a fact item for the "never" and one
        for what affirms it, on the same subject, "never" against "yes" (reconciliation flags
        the pair as a conflict). The "yes" item is worded as the strongest affirmation and cites
        every message that affirms, in message order, so a person reviews one pair per "never".
        A "never" that a user turn of `earlier` (other sessions) affirms cites that turn too; no
        item is made of the earlier turn, whose session holds its own words."""
        said, before = user_sentences(messages), user_sentences(earlier)
        sentences = [sentence for _, sentence in said]
        order = {message.id: n for n, message in enumerate(messages)}
        for found in contradictions(sentences, [sentence for _, sentence in before]):
            message, sentence = said[found.never.index]
            never = Frame(found.about, "never")
            text = _fact_text(found.never.text)
            self.add("fact", text, message, sentence, never)
            yes: CandidateItem | None = None
            for affirmed in found.affirmed:
                if affirmed.index >= len(said):
                    cited = before[affirmed.index - len(said)][0]
                    self.add("fact", text, cited, sentence, never)
                    continue
                message, sentence = said[affirmed.index]
                if yes is None:
                    affirms = Frame(found.about, "yes")
                    yes = self.add("fact", _fact_text(affirmed.text), message, sentence, affirms)
                elif message.id not in yes.refs:
                    yes.refs.append(message.id)
            if yes is not None:
                yes.refs.sort(key=lambda ref: order.get(ref, -1))

    def arrangements(self, message: Message) -> None:
        """A user message no rule found anything in: its sentences that state an arrangement
        (archivist.extract.rules.plans) are decisions, or constraints where they state a limit."""
        for sentence, list_outcome in units(message.content):
            if list_outcome is None and arrangement(sentence):
                limit = states_a_limit(sentence) or limits(sentence)
                kind: ItemType = "constraint" if limit else "decision"
                said = statement(sentence)
                if said.subject is None and (label := labelled(sentence.strip(" -*"))):
                    said = Frame(label[0], label[1].rstrip(" ."), said=sentence)
                self.add(kind, _phrase(sentence), message, sentence, said)

    def _request(self, message: Message, sentence: str) -> None:
        """Note a change the user asks the assistant to make ("can you move the dentist
        appointment to Friday?"): it is chosen once the assistant says it is done."""
        asked = frame(sentence) if _ASKS.search(sentence) and not tentative(sentence) else NO_FRAME
        if is_choice(asked) and asked.change is not None:
            self._requested = (message, sentence, asked)
        elif self._requested is not None and self._requested[0].id != message.id:
            self._requested = None

    def acknowledged(self, message: Message) -> None:
        """The user's requested change, once the assistant's reply says it is done."""
        requested, self._requested = self._requested, None
        first = next(iter(units(message.content)), ("", None))[0]
        if requested is None or not _DONE.match(first) or len(message.content.split()) > 30:
            return
        asked_in, sentence, asked = requested
        if chosen := choice_text(asked):
            self.add("decision", chosen, asked_in, sentence, asked)
            self.items[-1].refs.append(message.id)

    def restated(self, reply: Message, said: Message | None) -> None:
        """The choices of the user's message `said` that the assistant's `reply` restates as a
        list after an acknowledgement (_RESTATING) and the user's own words were not read as:
        an entry counts when every name and number in it is in the user's message and it
        names something (bare_choice, concrete). The item cites both messages."""
        lead = _RESTATING.match(reply.content.strip())
        if said is None or lead is None or "?" in said.content:
            return
        entries = entries_of(lead["list"])
        if len(entries) > RESTATED_ENTRIES:
            return
        heard = said.content.lower()
        words = {stem(t) for t in tokens(heard)}  # (a whole message: not cached)
        cited = [i.text.lower() for i in self.items if said.id in i.refs]
        known = {w for text in cited for w in identity(text)}
        for entry in entries:
            named = [n.lower() for n in _NAME_OR_NUMBER.findall(entry)]
            stems = identity(entry)
            if (
                len(entry.split()) > RESTATED_WORDS
                or not stems & words
                or not all(n in heard for n in named)
                or not (named or concrete(entry))
                or states_a_limit(entry)
                or _RESTATED_LIMIT.search(entry)
                # what the user's own words were read as already, in other words
                or (named and any(n in text for n in named for text in cited))
                or (not named and stems & known)
            ):
                continue
            chosen = bare_choice(entry)
            if text := choice_text(chosen):
                before = len(self.items)
                self.add("decision", text, said, entry, chosen)
                if len(self.items) > before:  # (not merged into an item said before)
                    self.items[-1].refs.append(reply.id)
                cited.append(text.lower())
                known |= stems

    def replied(self, reply: Message, said: Message | None) -> None:
        """The user's questions in `said` that the assistant's `reply` answers: a reply that
        says something on the question's matter (a word of it) and does not only ask back.
        A bot answers most questions at once; left open, every question ever asked was read
        as still waiting ("How much does Memcached cost?" beside the reply that gave the
        price)."""
        if said is None or not any(
            not sentence.rstrip().endswith("?") for sentence, _ in units(reply.content)
        ):
            return
        heard = {stem(t) for t in tokens(reply.content)}  # (a whole message: not cached)
        for item in self.items:
            if (
                item.type == "question"
                and item.status in (None, "open")
                and said.id in item.refs
                and identity(item.text) & heard
            ):
                item.status = "answered"
                item.refs.append(reply.id)

    def _ask(self, message: Message, sentence: str) -> None:
        """Note what the user asks to have chosen; it holds until the user's next message."""
        if self._current_user != message.id:
            self._last_user, self._current_user = self._current_user, message.id
        wanted = Wanted.of(sentence)
        if wanted is not None:
            self._wanted = replace(wanted, asked_in=message.id)
        elif self._wanted.asked_in not in (message.id, self._last_user):
            self._wanted = Wanted()

    def _echoes(self, finding: object, message: Message) -> bool:
        """An assistant's decision that repeats the user's ("Postgres it is" after the user
        chose Postgres): the user's item gets the message as a ref instead."""
        if not isinstance(finding, DecisionHit):
            return False
        said = content_stems(finding.text)
        for item in reversed(self.items):
            if item.type == "decision" and item.value and content_stems(item.value) <= said:
                if message.id not in item.refs:
                    item.refs.append(message.id)
                return True
        return False

    def _changed_since(self, index: int, choice: Frame) -> bool:
        """Whether a change goes back to the candidate at `index`: a later candidate of the
        batch chose another value on its subject."""
        if choice.change is None:
            return False
        subject = self.items[index].subject
        return any(
            later.type in ("decision", "constraint")
            and same_subject(later.subject, subject)
            and not same_value(later.value, self.items[index].value)
            for later in self.items[index + 1 :]
        )

    def sentence(
        self, message: Message, sentence: str, list_outcome: str | None, *, user: bool
    ) -> None:
        if list_outcome is not None:
            text = tidy(clause(sentence), MAX_ITEM_WORDS)
            if has_substance(text):
                status = "done" if list_outcome == "done" else "open"
                self.add("action", text, message, sentence, status=status)
            return
        if user and (listed := settled_list(sentence)) is not None:
            self._settled(message, listed)
            return
        findings = analyse(sentence, user=user, conversational=True).findings
        blocked = bool(_BLOCKED.search(sentence))
        # What the user's sentence chooses, by its structure: it gives every decision here its
        # subject, and is a decision itself where no decision pattern matched.
        chose = user and not is_question(sentence) and not tentative(sentence)
        choice = frame(sentence) if chose else aside(sentence) if user else Frame()
        if user:
            self._ask(message, sentence)
            self._request(message, sentence)
        takes = user and not is_question(sentence)
        accepted = self.offer.accepted(sentence, choice) if takes else None
        if accepted is not None:
            # The user takes what the assistant proposed: the proposal is the choice.
            choice = replace(
                accepted,
                subject=self._wanted.subject,
                change=self._wanted.change,
                commit=True,
            )
            findings = [f for f in findings if not isinstance(f, (DecisionHit, ActionHit))]
            self._wanted = Wanted()
            self.offer = Offer()
        elif chose and choice.commit and choice.subject is None and self._wanted.subject:
            choice = replace(choice, subject=self._wanted.subject)
            self._wanted = Wanted()
        if user and is_choice(choice) and choice.old is None and choice.change != "cancel":
            choice = _with_what_failed(choice, message.content, sentence)
        if not user:
            findings = [f for f in findings if not self._echoes(f, message)]
        typed = decided = False
        stated_limit = states_a_limit(_choice_clause(sentence, choice))
        # (a limit's subject given a value in words that state no limit: "SLA: 7am ET")
        bounds = not stated_limit and _names_a_limit(choice)
        limits = (
            stated_limit
            or bounds
            or (
                choice.change == "update"
                and _LIMIT.search(choice.subject or "") is not None
                and value_side(choice.value) != "thing"  # "my budget is in a Google Sheet now"
            )
        )
        for finding in findings:
            if isinstance(finding, DecisionHit):
                # "keep weekly mileage under 30 miles": a decision that sets a limit is one
                kind: ItemType = "constraint" if limits and choice.value else "decision"
                decided_anew = (
                    user and choice.change is None and choice.subject and _DECIDING.search(sentence)
                )
                # ("we're going with MySQL for inventory": whatever was chosen for it before is
                # replaced, in a later session as in this one)
                made = replace(choice, change="update") if decided_anew else choice
                if is_choice(made) and not _says(finding.text, made.value):
                    # "we'll use n=24 per group, and imaging is on the Zeiss": two choices
                    self.add(kind, finding.text, message, sentence)
                    if chosen := choice_text(made):
                        self.add("decision", chosen, message, sentence, made)
                else:
                    self.add(kind, finding.text, message, sentence, made)
                typed = decided = True
            elif isinstance(finding, (ActionHit, Completion)) and is_choice(choice):
                continue  # "move the session cache to Memcached": a choice, not a task
            elif isinstance(finding, ActionHit) and user and _NOT_THE_OTHER.search(sentence):
                # "I'll read it off index cards, not my phone": a way chosen over another
                self.add("decision", finding.text, message, sentence, choice)
                typed = decided = True
            elif isinstance(finding, ActionHit):
                status = "blocked" if blocked else "open"
                self.add("action", finding.text, message, sentence, status=status)
                typed = True
            elif isinstance(finding, Completion):
                typed = self._complete(finding, message, sentence) or typed
        limit = choice.change is None and limits
        if not decided and is_choice(choice) and (chosen := choice_text(choice)):
            if (choice.change == "update" or bounds) and limits:  # "the ad budget is now $800"
                bound = choice.value and re.search(_BOUND + re.escape(choice.value), sentence, re.I)
                if not bound and choice.subject:  # "Deadline for submit: 30 May"
                    chosen = choice_text(replace(choice, change="update")) or chosen
                text = _phrase(sentence) if bound else chosen  # keep "under 30 miles" whole
                self.add("constraint", text, message, sentence, choice)
                typed = True
            elif not limit:
                for side in two_sides(choice) or (choice,):
                    self.add("decision", choice_text(side) or chosen, message, sentence, side)
                typed = True
                also = joined(sentence, choice)
                if is_choice(also) and (second := choice_text(also)):
                    self.add("decision", second, message, sentence, also)
        if (
            chose
            and accepted is None
            and (len(sentence.split()) <= CLAUSED_WORDS or len(_BULLET.findall(sentence)) >= 2)
            and not _CODE.search(sentence)
        ):
            typed = self._other_clauses(message, sentence, choice, limits=typed or limit) or typed
        if typed:
            return
        if blocked and self._block(message, sentence):
            return
        if is_question(sentence):
            self._question(message, sentence, user=user)
            return
        if user and _ANSWERED.search(sentence):
            self._answer(message)
            return
        if user and is_standing_rule(strip_fillers(sentence)):
            self.add("constraint", _phrase(sentence, MAX_RULE_WORDS), message, sentence)
        elif states_a_limit(sentence) and (user or not _NOTED.match(sentence)):
            if not user and self._credited(message, sentence):
                return
            stated = statement(sentence) if chose else Frame()
            self.add("constraint", _limit_phrase(sentence), message, sentence, stated)
            said = self.replying_to
            if not user and said is not None and self._restates(sentence):
                self.items[-1].refs.insert(0, said.id)
        elif _RISK.search(sentence) and not _NOT_RISK.search(sentence):
            self.add("risk", _phrase(sentence), message, sentence)

    def _settled(self, message: Message, listed: SettledList) -> None:
        """Each entry of a user's list of what is settled as a sentence of its own; an entry
        that states no choice so is one by being listed (`bare_choice`), if the list says so."""
        for entry in listed.entries:
            before = len(self.items)
            label = labelled(entry)
            said = frame(label[1]) if label else NO_FRAME
            if label and said.subject is None and (chosen := choice_text(said)):
                # "my mic: returned the MV7, got a Rode PodMic instead"
                said = replace(said, subject=label[0])
                self.add("decision", chosen, message, entry, said)
                continue
            self.sentence(message, entry, None, user=True)
            if len(self.items) > before or not listed.bare:
                continue
            said = bare_choice(entry)
            if chosen := choice_text(said):
                self.add("decision", chosen, message, entry, said)

    def _other_clauses(
        self, message: Message, sentence: str, choice: Frame, *, limits: bool
    ) -> bool:
        """The choices of a sentence's other clauses ("job queue runs on Redis; deploys go
        through GitHub Actions", "standups at 9:30 - 2-week sprints"): a sentence frames
        as one choice, a list of them says several. Beside a change, only what
        `_beside_a_change` admits: a change's other clauses give its reasons and what it
        replaces. With `limits` (the sentence chose or limits something), a clause stating a limit
        is a constraint of its own ("hosting on Buzzsprout - episodes max 45 min")."""
        added = False
        last = choice  # what a verbless clause adds to: the sentence's choice, or the last one's
        for n, part in enumerate(_CLAUSE.split(sentence) if _CLAUSE.search(sentence) else []):
            words = part.split()
            fragment = fragment_choice(part, last) if choice.change is None else NO_FRAME
            if same_value(fragment.value, choice.value):
                fragment = NO_FRAME  # the sentence's own value, said again in a clause
            if (chosen := choice_text(fragment)) and not _CONSTRAINT.search(part):
                self.add("decision", chosen, message, part, fragment)
                added = True
                continue
            # (but for a change said so, "re: the analytics db — scrapping postgres", or a
            # gerund that is a subject: "..., styling is Tailwind")
            led = bool(words) and _NOT_A_CLAUSE.match(words[0]) is not None
            if led:
                read = frame(part)
                led = read.change not in ("cancel", "replace") and read.subject is None
            if len(words) > CLAUSE_WORDS or led or is_question(part) or tentative(part):
                continue
            if _EMPHASIS.match(part):
                continue  # "30 min a day, no exceptions": the sentence is the limit
            if limits and states_a_limit(part):
                stated = statement(part)
                if not (choice.change and same_value(stated.value, choice.value)):
                    self.add("constraint", _phrase(part), message, part, stated)  # not twice
                    added = True
                continue
            said = frame(part)
            if (
                not is_choice(said)
                or (choice.change is not None and not _beside_a_change(said, part, added=n > 0))
                or same_value(said.value, choice.value)
                or same_value(said.value, choice.subject)  # "we picked our DJ, Sam Rivera"
                # "photographer is now her associate, Marco Ruiz": who the chosen name is
                or (said.value and named_value(sentence, said.value) == choice.value)
                or _CONSTRAINT.search(part)
            ):
                continue
            if chosen := choice_text(said):
                self.add("decision", chosen, message, part, said)
                added = True
                last = said if last.subject is None else last
        return added

    def _restates(self, sentence: str) -> bool:
        """Whether an assistant's sentence only says again what the user's message it replies
        to said: every number of it is in that message ("8GB max memory, noted")."""
        said = self.replying_to
        numbers = _numbers(sentence)
        return (
            said is not None and bool(numbers) and all(n in said.content.lower() for n in numbers)
        )

    def _credited(self, message: Message, sentence: str) -> bool:
        """An assistant's restated limit that an item of the user's message holds already
        (its number in the item's text): that item cites the reply too, and no second item is
        made."""
        said = self.replying_to
        if said is None or not self._restates(sentence):
            return False
        numbers = _numbers(sentence)
        for item in self.items:
            if said.id in item.refs and item.type in ("constraint", "decision"):
                if any(n in item.text.lower() for n in numbers):
                    if message.id not in item.refs:
                        item.refs.append(message.id)
                    return True
        return False

    def _complete(self, done: Completion, message: Message, sentence: str) -> bool:
        """Mark the batch's matching planned action done (as the extraction does), or note a
        done action."""
        planned = [
            i.text if i.type == "action" and i.status != "done" else None for i in self.items
        ]
        index = completed_index(done.stems, planned)
        if index is not None:
            item = self.items[index]
            item.status = "done"
            if message.id not in item.refs:
                item.refs.append(message.id)
            return True
        if has_substance(done.text):
            self.add("action", done.text, message, sentence, status="done")
            return True
        return False

    def _block(self, message: Message, sentence: str) -> bool:
        stems = content_stems(sentence)
        for item in reversed(self.items):
            if item.type == "action" and len(stems & content_stems(item.text)) >= 1:
                item.status = "blocked"
                if message.id not in item.refs:
                    item.refs.append(message.id)
                return True
        if has_substance(_phrase(sentence)):
            self.add("action", _phrase(sentence), message, sentence, status="blocked")
            return True
        return False

    def _question(self, message: Message, sentence: str, *, user: bool) -> None:
        body = strip_fillers(sentence)
        if not user or _REQUEST.search(body) or len(body.split()) < _QUESTION_WORDS:
            return
        text = _phrase(body, keep_mark=True)
        if has_substance(text):
            self.add("question", text, message, sentence)

    def _answer(self, message: Message) -> None:
        for item in reversed(self.items):
            if item.type == "question" and item.status in (None, "open"):
                item.status = "answered"
                item.refs.append(message.id)
                return


_FIRST_PERSON_LEAD = re.compile(
    r"^(?:(?:so|and|but|well|ok(?:ay)?|hmm+|also)\b[\s,]*)*(?:i|we)(?:'ve|'m|'d|\s+have|\s+am"
    r"|\s+had)?\s+",
    re.I,
)


def _fact_text(said: str) -> str:
    """An experience as an item text: "I've never used Zotero" -> "Never used Zotero"."""
    text = tidy(clause(_FIRST_PERSON_LEAD.sub("", strip_fillers(said))), MAX_ITEM_WORDS)
    return text if has_substance(text) else tidy(said, MAX_ITEM_WORDS)


def _phrase(sentence: str, max_words: int = MAX_ITEM_WORDS, *, keep_mark: bool = False) -> str:
    """A sentence as an item text: fillers off, at most `max_words` words."""
    body = strip_fillers(sentence)
    words = body.split()
    text = " ".join(words[:max_words]).rstrip(" .,;:!")
    if not keep_mark:
        text = text.rstrip("?")
    elif len(words) > max_words and not text.endswith("?"):
        text += "?"
    return text[:1].upper() + text[1:]


def _limit_phrase(sentence: str) -> str:
    """A limit as an item text: a long sentence's clause that states it ("..., and honestly I
    want to cap it at 12 kids because ..."), else the sentence (`_phrase`)."""
    found = _CONSTRAINT.search(sentence)
    if found is None or len(sentence.split()) <= MAX_ITEM_WORDS:
        return _phrase(sentence)
    start = 0
    for part in _CLAUSE.finditer(sentence):
        if part.start() > found.start():
            return _phrase(sentence[start : part.start()])
        start = part.end()
    return _phrase(sentence[start:])


def topic_tags(text: str) -> list[str]:
    """1-3 short labels: the sentence's broad area, then the tools it names, then a key word."""
    tags: list[str] = []
    domain = domain_of(text)
    if domain:
        tags.append(domain)
    for finding in entities_in(text):
        if isinstance(finding, EntityHit) and finding.type in ("tool", "product", "org"):
            tags.append(finding.name.lower())
    if not tags:
        words = [
            t
            for t in tokens(text)
            if len(t) >= 4 and t not in TOPIC_STOPWORDS and t not in COMMON_VERBS
        ]
        tags += sorted(words, key=len, reverse=True)[:1]
    unique = list(dict.fromkeys(tags))
    return unique[:3]


# A subject that is itself a limit, a floor or a time allowed, by its head word: what it is
# given is a constraint ("SLA: tables ready by 6am ET", "min iOS version 15", "retention bumped
# to 30 days", "presentation time: 15 minutes per paper"); "the budget appendix" is none.
_LIMIT_HEAD = re.compile(
    rf"(?:^(?:max|maximum|min|minimum)\b.*|\b(?:(?:{LIMIT_NOUNS})s?|sla|slo|retention(?: period)?"
    r"|deadlines?|due date|criteri(?:on|a)|payment terms"
    r"|threshold|(?:presentation|speaking|talk|response|time)\s+(?:time|slot|limit))$)",
    re.I,
)
_SLOT = re.compile(r"\bslots?$", re.I)
_HEAD_ENDS = re.compile(r"\s+(?:for|of|on|in|at)\s+.*$", re.I)


def _names_a_limit(choice: Frame) -> bool:
    """Whether a choice gives a limit its value: its subject's head names one and its value
    is a time or an amount, or has a number ("my budget is in a Google Sheet" is no limit)."""
    head = _HEAD_ENDS.sub("", choice.subject or "").strip()
    return (
        choice.change != "cancel"
        and (
            _LIMIT_HEAD.search(head) is not None
            # ("the Tuesday slot" is a time of the slot, "a 45 minute slot" its length)
            or (_SLOT.search(head) is not None and value_side(choice.value) == "amount")
        )
        and (value_side(choice.value) != "thing" or bool(re.search(r"\d", choice.value or "")))
    )


# Words of a choice made now, by the speaker: a later one on the same subject replaces an
# earlier one rather than disagreeing with it.
_DECIDING = re.compile(
    r"\b(?:(?:we're|we are|i'm|i am|we'll|we will|i'll|i will)\s+(?:now\s+)?(?:going with|go with)"
    r"|went with|decided (?:on|to use|to go with)|settled on|opted for|opting for)\b",
    re.I,
)


def _says(text: str, value: str | None) -> bool:
    """Whether `text` names every word of `value` (a finding's words hold its choice)."""
    return identity(value or "") <= identity(text)
