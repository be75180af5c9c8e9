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
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Literal, cast

from archivist.prefilter import Gated, Needs, folded
from archivist.words import FUNCTION_WORDS, stem, tokens

ChangeKind = Literal["replace", "reverse", "cancel", "update"]

# A noun phrase: up to five words, no clause punctuation. Cut further by `_phrase`.
_WORD = (
    r"(?:[^\s,.;:!?()\[\]\"\u2013\u2014]|[.,](?=[\w$])|(?<=\d):(?=\d)|(?<=\b(?-i:Dr))\.(?=\s[A-Z])"
    r"|(?<=\b(?-i:Mr))\.(?=\s[A-Z])|(?<=\b(?-i:Ms))\.(?=\s[A-Z])|(?<=\b(?-i:Mrs))\.(?=\s[A-Z])"
    r"|(?<=\b(?-i:St))\.(?=\s[A-Z])|(?<=\b(?-i:Prof))\.(?=\s[A-Z])|(?<=\b(?-i:Jr))\.(?=\s[A-Z])"
    r"|(?<=\b(?-i:Sr))\.(?=\s[A-Z])|(?<=\b(?-i:Rev))\.(?=\s[A-Z]))+"
)
_NP = _WORD + r"(?:\s+" + _WORD + r"){0,5}?"
_NP4 = _WORD + r"(?:\s+" + _WORD + r"){0,3}?"
_UPDATED = (
    r"(?:improved|increased|decreased|grown|grew|dropped|reached|extended|risen|rose|moved|changed"
    r"|updated|bumped|raised|lowered|reduced|gone up|gone down|climbed|fallen|fell|jumped"
    r"|shrunk|expanded|doubled|halved|slipped|rescheduled|adjusted|postponed|pushed back"
    r"|revised|amended|crept up|edged up|ticked up|inched up|shot up|went up|went down"
    r"|came down|upped|trimmed|slashed|shortened|lengthened|renegotiated|pushed|set)"
)
# A period after a title ("Dr. Patel") ends no phrase.
_NOT_TITLE = (
    r"(?<!\b(?-i:Dr))(?<!\b(?-i:Mr))(?<!\b(?-i:Ms))(?<!\b(?-i:Mrs))(?<!\b(?-i:St))"
    r"(?<!\b(?-i:Prof))(?<!\b(?-i:Jr))(?<!\b(?-i:Sr))(?<!\b(?-i:Rev))"
)
# A purpose said with "to", not a place: "we're keeping the floor tile to save money".
_PURPOSE = (
    r"(?:save|avoid|reduce|cut|keep|make|get|help|speed|simplify|stay|be|have|cover|support"
    r"|handle|free|limit|match|lower|spare|protect|prevent|test|try|see|check)\b"
)
_END = (
    r"(?=\s*(?:,(?![\w$])|[;!?()\n\u2013\u2014]|:(?!\d)|"
    + _NOT_TITLE
    + r"[.,](?![\w$])|$|\s(?:for|instead|after all|now|over"
    r"|anymore|any more|last (?:week|month|year|night)|yesterday"
    r"|this (?:semester|term|season|sprint)"
    r"|from now|going forward|for now|again|please|too|as well|because|since|so|but|and"
    r"|though|then|which|when|if|until|after|before|while|thanks|due|bc|cuz|coz|starting"
    r"|effective|works|sounds|to\s+" + _PURPOSE + r")\b))"
)
_DETERMINERS = frozenset("the our my a an their your its this that his her".split())
# (not "The" of a name: "at The Oak Room")
_DET = r"(?:(?!(?-i:The)\s+(?-i:[A-Z]))(?:" + "|".join(sorted(_DETERMINERS)) + r")\s+)?"
_ARTICLE = re.compile(
    r"^(?:the|our|my|a|an|their|your|its|this|that|his|her|all|all of|each|every)\s+", re.I
)
_TRAILING = re.compile(
    r"\s+(?:instead|now|anymore|any more|again|too|then|please|for now|after all|as well"
    r"|going forward|from now on|for good|here|there|though|too|next (?:week|month|year|quarter)"
    r"|last (?:week|month|year|night)|yesterday"
    r"|this (?:week|month|year|quarter|semester|term|season|sprint)|tomorrow|today|soon"
    r"|itself|themselves|himself|herself|ourselves|myself|yourself|entirely|altogether"
    r"|completely|for the time being|every)$",
    re.I,
)
_NOT_SUBJECT = (
    frozenset(
        """it this that we i you they he she we're i'm let's lets we'll i'll they're you're
    i'd we'd you'd they'd it's that's there's me us him her them my our your
    everything something anything nothing one which
    what who there here thing stuff all both either away how why where when whether
    mind is are was were be been indoors outdoors inside outside""".split()
    )
    | {"way to go", "best bet", "best option", "winner"}  # "X is the way to go": X is chosen
    # "for the same day": the same as before, no subject of a choice
    | {f"same {w}" for w in "day date time place spot venue week slot".split()}
)
_NOT_VALUE = frozenset(
    """it this that them those these one something anything everything nothing stuff things
    same so well too now back random""".split()
)
# Being away is no value of anyone: "Sarah's on leave till March" chooses nothing.
_AWAY = re.compile(
    r"(?i)^(?:(?:sick|maternity|paternity|parental|medical|annual)\s+)?(?:leave|vacation|holidays?"
    r"|sabbatical|pto|furlough)(?:\s+(?:till|until|through|for|from|since|this|next)\b.*)?$"
)
# A value never starts with these: "scratch that, we need more time" chooses nothing.
_VERBISH = frozenset(
    """to with them need needs want let go do does did is are was were be have has had can
    could should would will shall may might must not no don't didn't isn't out off away""".split()
)
# Words that say how or how much, not what: a value that starts or ends with one is a manner
# or a comparison ("more compelling", "currently taking 500ms", "the API correctly").
_HOW = frozenset(
    """more less better worse easier harder faster slower bigger smaller currently actually
    really probably definitely correctly properly efficiently effectively smoothly accurately
    based such""".split()
)

# Verbs that make a captured phrase a clause rather than a value.
_CLAUSE_VERBS = frozenset(
    """is are was were be been feels feel felt seems seem looks sounds has have had does did
    can could will would should must might gets got need needs wants keeps came doesn't
    don't didn't isn't aren't won't can't""".split()
)
_PREPOSITIONS = frozenset("of in on at to from with by for about into over under".split())
_REVERSAL = re.compile(
    r"\b(?:after all|on second thought|on reflection|scratch that|never ?mind|forget (?:that|what"
    r" i said)|change of plans?|i take (?:that|it) back|back to|revert(?:ing|ed)? to"
    r"|roll(?:ing|ed)? back to|go(?:ing)? back|went back|return(?:ing)? to|as (?:it was|before)"
    r"|undo (?:that|the switch)|(?:scratch|forget|cancel|scrap|drop) the (?:[\w.-]+\s+){0,3}?"
    r"(?:move|switch|migration|change|plan)\b)\b",
    re.I,
)
# Keeping what is: "we're keeping REST". A reversal of a change that replaced it, if one did;
# nothing otherwise (it replaces only what moved it away). Not "I'll stick with X": on BEAM that
# is mostly a choice confirmed, not a change undone.
_KEEPING = re.compile(r"\b(?:we're|we are|i'm|i am)\s+(?:just\s+)?keeping\b", re.I)
_CANCEL = re.compile(
    r"\b(?:no longer (?:use|using|need|run|running|rely on|have|want)|stop(?:ped)? using"
    r"|(?:are|is|'re|'s) not using|aren't using|isn't using|not using|drop(?:ping|ped)?"
    r"|get(?:ting)? rid of|got rid of|ditch(?:ing|ed)?|retir(?:e|ing|ed)|sunset(?:ting)?"
    r"|kill(?:ing|ed)? off|remov(?:e|ing|ed)|cancel(?:l?ing|l?ed)?|scrap(?:ping|ped)?"
    r"|ax(?:e|ed|ing)|discontinu(?:e|ed|ing)|pull(?:ed|ing)? the plug"
    r"|(?:we're|we are|we'll|we will)\s+(?:be\s+)?killing)\b",
    re.I,
)
_UPDATE_VERBS = (
    r"(?:moved|pushed|pushed back|changed|bumped|shifted|postponed|rescheduled|delayed|updated"
    r"|raised|lowered|increased|decreased|reduced|cut|dropped|went up|went down|slipped"
    r"|brought forward|moved up|grew|fell|rose|climbed|goes up|goes down|drops|rises|slips"
    r"|increases|decreases|shifts|jumps|falls|grows|extended|upgraded|downgraded|switched"
    r"|tightened|loosened|relaxed|shortened|lengthened|dropping|moving|going up|going down"
    r"|increasing|decreasing|rising|slipping|shifting|changing|growing|climbing|falling"
    r"|comes down|came down|comes up|came up|pulled in|pulled forward|brought in|pushed out"
    r"|revised|amended|crept up|creeping up|edged up|ticked up|inched up|shot up|upped|trimmed"
    r"|slashed|renegotiated)"
)


@dataclass(frozen=True)
class Frame:
    """One sentence's choice: what about (`subject`), what (`value`), what it replaces (`old`)
    and how (`change`: None for a plain choice)."""

    subject: str | None = None
    value: str | None = None
    old: str | None = None
    change: ChangeKind | None = None
    # A commitment that chooses even without a subject ("we're hiring Priya", "book the
    # Thursday one"), and the words it was said in, for its item text.
    commit: bool = field(default=False, compare=False)
    said: str | None = field(default=None, compare=False)
    # The subject is an event and the value where it is held ("doing the offsite in Porto").
    held: bool = field(default=False, compare=False)

    @property
    def empty(self) -> bool:
        return self.subject is None and self.value is None and self.old is None

    def replacing(self, old: str | None, change: ChangeKind | None) -> Frame:
        """This choice as a change that replaces `old`. An event held somewhere replaces it
        as a whole ("we stopped using Instacart, we do pickup at Safeway now": pickup at
        Safeway is the new value, not a place for a pickup that Instacart never was)."""
        if self.held and old is not None:
            return replace(
                self, subject=None, value=self.subject, old=old, change=change, held=False
            )
        return replace(self, old=old, change=change)


NO_FRAME = Frame()


# Where a subject-first statement starts: the sentence, or after a lead-in clause ("Heads
# up, the launch moved to the 17th").
_START = (
    # or after what was agreed, wherever it is said: "after a lot of back and forth with Ana we
    # agreed orchestration goes on Airflow"; or after what made it so: "the park flooded so the
    # run is relocating to Lincoln Field"
    r"(?:(?<=\bwe agreed )|(?<=\bwe decided )|(?<=\bwe agreed that )|(?<=\bwe decided that )"
    r"|(?<=\w so )"
    r"|(?:^|(?<=[,:;\u2014] )|(?<=[,:;\u2014]))(?:and\s+|so\s+|also\s+|but\s+)?"
    r"(?:(?:we|i|they|the team)\s+(?:(?:have|'ve)\s+)?(?:decided|agreed|confirmed)\s+"
    r"(?:that\s+)?)?)"
    # reported: "Ms. Ruiz told me that the page limit is now 25 pages"
    r"(?:[^,;:!?]{0,60}?\b(?:told|tells|informed|informs|said|says|mentioned|announced|wrote"
    r"|note|advised|confirm)"
    r"\s+(?:(?:me|us|everyone|the team)\s+)?(?:that\s+)?"
    # or what someone wants done: "Legal wants retention cut to 30 days"
    r"|[^,;:!?]{0,40}?\b(?:wants|asked for|requested|insists on)\s+)?"
)
_LEAD = re.compile(
    r"^(?:(?:yes|yeah|yep|ok(?:ay)?|k|kk|so|alright|right|fine|sure|well|great|cool|good|heads up"
    r"|update|quick update|fyi|btw|also|and|but|then|hmm+|ugh|oh|ah|agreed|deal|perfect|wait"
    r"|lol|lmao|haha+|omg|welp|meh"
    r"|hold on"
    r"|excellent|nice|awesome|got it|hi|hello|hey|(?:just\s+)?confirming(?:\s+that)?|to confirm"
    r"|(?:please\s+)?(?:note|record)(?:\s+for the (?:record|minutes))?|for the (?:record|minutes)"
    r"|change(?=\s*:)|change of plans?|correction|actually|ok so|okay so|re(?=\s*:))\b"
    r"[\s,:!.\u2014-]*)+",
    re.I,
)
# Emoji and pictographs: chat decoration, no word of a choice ("vet is Dr. Alvarez 🏥").
_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f\u200d\u2b50\u2b55\u2764]")
# A clause before a subject that a pattern took in with it: "neighbors complained so practice".
_CLAUSE_BEFORE = re.compile(r"^.*\b(?:so|because|since|then|therefore)\s+", re.I)
# A modal verb a subject was cut before: "CI should run on GitHub Actions".
_MODAL_AFTER = re.compile(r"\s+(?:should|will|would|must|can|could|shall|might|may)$", re.I)
# A verb inside what was read as a subject: a clause was taken for one.
_VERB_IN_SUBJECT = re.compile(r"\s(?:is|are|was|were)\s", re.I)
# A lead-in that takes back what was said before: said first, it is no part of the choice.
_UNDOING_LEAD = re.compile(
    r"^(?:nvm|nevermind|never mind|scratch that|on second thought|on reflection)\b[\s,:!.\u2014-]*",
    re.I,
)
# A plain choice said as news ("search runs on Typesense now") is an update of its subject.
# Words that make a plain choice a change of an earlier one it does not name ("actually, let's
# do the Italian place instead"; "Change: tomatoes go in the greenhouse").
_INSTEAD = re.compile(
    r"\b(?:instead|actually|rather|change of plans?|correction|changed my mind)\b"
    r"|^\s*(?:change|correction|edit)\s*:",
    re.I,
)
_NOW = re.compile(
    r"\b(?:now|from now on|going forward|from today|these days|nowadays|as of today"
    r"|starting (?:today|tomorrow|monday|tuesday|wednesday|thursday|friday|next week))\b",
    re.I,
)


# Participles that do not end in -ed: "invoices are sent via Stripe", "will be held at".
_PARTS = r"(?:sent|held|built|kept|run|set|paid|made|done|given|taken|put|shown|written|sold)"


# An amount something goes to, with its unit, and where it ends ("$55 in March").
_AMOUNT = (
    r"(?P<val>[$€£]?\d+(?:[,.:]\d+)*(?:\s*%|[km]\b)?(?:\s+(?:ms|seconds?|minutes?|hours?"
    r"|days?|weeks?|months?|years?|pages?|words?|seats?|users?|people|guests|approvals?|gb|mb"
    r"|tb|miles?|km|kg|lbs?)\b)?(?:\s+(?:a|per)\s+\w+)?)(?=\s*(?:[,;.!?]|$)|\s+(?:in|on|at"
    r"|from|starting|next|this|by|after|since|because|as of|for|if|until)\b)"
)


# A date said day first: "21 of May", "3rd of June", "14 March".
_DAY_MONTH = (
    r"\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may"
    r"|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b"
)
# A day or a date said as when something happens: "Tuesdays", "March 4", "the 21st".
_WHEN_SAID = (
    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|(?:jan|feb|mar|apr|may|jun|jul|aug|sep"
    r"|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?\b|(?:the\s+)?"
    + _DAY_MONTH
    + r"|(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b)"
)


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(
        pattern.replace("START ", _START)
        .replace("AMOUNT", _AMOUNT)
        .replace("WHEN", _WHEN_SAID)
        .replace("PARTS", _PARTS)
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
        # a subject said first, then where it moves from and to: "payments move from A to B"
        (
            r"START DET(?P<subj>NP4)\s+(?:moves?|is moving|are moving|will move|moved"
            r"|switch(?:es|ed)?|is switching|migrat(?:es|ed|e)|goes|go|went)\s+(?:over\s+)?from\s+"
            r"DET(?P<old>NP)\s+"
            r"(?:over\s+)?to\s+DET(?P<val>NP)END",
            "replace",
        ),
        (
            r"\breplac(?:e|ed|es|ing)\s+DET(?P<old>NP)\s+(?:with|by)\s+DET(?P<val>NP)"
            r"(?:\s+(?:for|on|in)\s+DET(?P<subj>NP))?END",
            "replace",
        ),
        (
            r"\b(?:swap(?:ping|ped)?|trad(?:e|ing|ed))\s+(?:out\s+)?DET(?P<old>NP)\s+(?:out\s+)?for\s+DET"
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
            r"\s+(?:over\s+|away\s+)?(?:from|off(?: of)?)\s+DET(?P<old>NP)\s+(?:over\s+)?"
            r"(?:to|onto)\s+DET(?P<val>NP)(?:\s+(?:for|on|in)\s+DET(?P<subj>NP))?END",
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
        # the new value of what was being talked about: "so it's Tuesday 10am now"
        (
            r"(?:^|[,;:]\s*|\b(?:so|and|but)\s+)(?:it's|its|it is|it'll be|that's)\s+"
            r"(?:(?:gonna|going to)\s+be\s+)?(?P<val>(?:[$\u20ac\u00a3]|\d|(?-i:[A-Z]))"
            r"[^,;.!?]{0,30}?)\s+now\b",
            "update",
        ),
        # what took the place of a thing taken out: "we ripped it out, Zustand now"
        (
            r"\b(?:ripped|ditched|dropped|scrapped|tossed|pulled|yanked|killed|axed)\s+"
            r"(?:it|them|that)(?:\s+out)?\s*[,;]\s*(?:and\s+)?(?P<val>(?-i:[A-Z])[^,;.!?]{0,30}?)"
            r"\s+now\b",
            "replace",
        ),
        # back to a value: "we're back on April 9", "the board reinstated the original $150"
        (
            r"\b(?:we're|we are|we|i'm|i am|it's|it is)\s+back\s+(?:on|to|with|at)\s+DET"
            r"(?P<val>(?:[$\u20ac\u00a3]|\d|(?-i:[A-Z]))NP)END",
            "reverse",
        ),
        (
            r"\breinstat(?:e|es|ed|ing)\s+DET(?:(?:original|old|previous|former)\s+)?"
            r"(?P<val>[$\u20ac\u00a3]?\d[\w.,/%-]*)\s+(?P<subj>NP4)END",
            "reverse",
        ),
        (
            r"\breinstat(?:e|es|ed|ing)\s+DET(?:(?:original|old|previous|former)\s+)?"
            r"(?P<val>NP)END",
            "reverse",
        ),
        # one thing changed for another: "I change the paella for lasagna"
        (
            r"\b(?:i|we)(?:'m|'re|\s+am|\s+are)?\s+(?:change|changed|changing|swap|swapped"
            r"|swapping|exchange|exchanged)\s+DET(?P<old>NP4)\s+for\s+DET(?P<val>NP)END",
            "replace",
        ),
        # what something is going to be: "the beds are going to be galvanized steel"
        (
            r"START DET(?P<subj>NP4)\s+(?:is|are|'s|'re)\s+(?:going to|gonna)\s+be\s+DET"
            r"(?P<val>NP)END",
            None,
        ),
        # what was chosen in the end: "we ended up going with Linear"
        (
            r"\bended up\s+(?:going with|picking|choosing|using|booking|getting|buying|hiring"
            r"|with)\s+DET(?P<val>NP)END",
            None,
        ),
        # "we decide finally for the Montessori"
        (
            r"\b(?:we|i)\s+(?:have\s+|'ve\s+)?(?:finally\s+)?decid(?:e|ed)\s+(?:finally\s+)?"
            r"for\s+DET(?P<val>NP)END",
            None,
        ),
        # the speaker moved onto a new value: "bump us to Node 22", "move me to the 9am class"
        (
            r"\b(?:bump|move|switch|put|upgrade|downgrade|shift|migrate)\s+(?:us|me|everyone"
            r"|everybody|the team)\s+(?:over\s+|up\s+|down\s+)?(?:to|onto)\s+DET(?P<val>NP)END",
            "replace",
        ),
        # a handover: "I've handed the onboarding redesign to Aisha", "reassigned QA to Lee"
        (
            r"\b(?:hand(?:ed|ing|s)?|reassign(?:ed|ing|s)?)"
            r"\s+DET(?P<subj>NP4)\s+(?:over\s+)?to\s+(?P<val>(?-i:[A-Z])[\w.'-]*"
            r"(?:\s+(?-i:[A-Z])[\w.'-]*){0,2})END",
            "replace",
        ),
        # who leads what: "let's have Marcus lead the onboarding redesign"
        (
            r"\b(?:have|having|let)\s+(?P<val>(?-i:[A-Z])[\w.'-]*(?:\s+(?-i:[A-Z])[\w.'-]*)?)\s+"
            r"(?:lead|run|own|handle|manage|drive|coordinate|take)\s+DET(?P<subj>NP)END",
            None,
        ),
        # one out, the other in: "PagerDuty is out, Opsgenie in"
        (
            r"^DET(?P<old>NP4)\s+(?:is\s+|are\s+|'s\s+)?out\s*[,;]\s*(?:and\s+)?DET(?P<val>NP4)"
            r"\s+(?:is\s+|are\s+|'s\s+)?in\b",
            "replace",
        ),
        # the old value first: "Mailchimp got replaced by ConvertKit", "A was swapped for B"
        (
            r"^DET(?P<old>NP4)\s+(?:got|was|were|has been|have been|is being|is|will be)\s+"
            r"(?:replaced|swapped(?:\s+out)?|superseded)\s+(?:by|with|for)\s+DET(?P<val>NP)"
            r"(?:\s+(?:for|in|on|as)\s+DET(?P<subj>NP))?END",
            "replace",
        ),
        # the new value named as what it now is: "Lumen Studio is the new agency", "Priya is
        # the new designer for the website" (what it is for is part of the subject)
        (
            r"START (?P<val>(?-i:[A-Z])[\w.+&-]*(?:\s+(?-i:[A-Z0-9])[\w.+&-]*){0,2})\s+(?:is|are"
            r"|will be|becomes)\s+(?:the|our|my)\s+new\s+(?P<subj>NP4(?:\s+for\s+DET"
            r"[\w'-]+(?:\s+[\w'-]+)?)?)END",
            "update",
        ),
        # a name said first as what something is for: "Sarah is the designer for the app"
        (
            r"START (?P<val>(?-i:[A-Z])[\w.+&-]*(?:\s+(?-i:[A-Z0-9])[\w.+&-]*){0,2})\s+(?:is|are"
            r"|will be)\s+the\s+(?P<subj>[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+for\s+DET"
            r"[\w'-]+(?:\s+[\w'-]+)?)END",
            None,
        ),
        # a name said first as what a subject is: "Notion is our wiki"
        (
            r"START (?P<val>(?-i:[A-Z])[\w.+&-]*(?:\s+(?-i:[A-Z0-9])[\w.+&-]*){0,2})\s+(?:is|are"
            r"|will be|has been|have been)\s+(?:our|my|the team's|the)\s+(?P<subj>NP4)END",
            None,
        ),
        (r"^(?:it's|it is|it'll be|it will be)\s+DET(?P<val>NP)\s+for\s+DET(?P<subj>NP)END", None),
        # a thing given its date or place: "my defence has been scheduled for 12 June", "the
        # presentation takes place in the Main Boardroom"
        (
            r"START DET(?P<subj>NP4)\s+(?:is|are|was|were|has been|have been|will be|'s|got)\s+"
            r"(?:scheduled|booked|set|planned|fixed)\s+(?:for|on)\s+DET(?P<val>NP)"
            r"(?:(?=\s+(?:at|in|on|with)\b)|END)",
            None,
        ),
        (
            r"START DET(?P<subj>NP4)\s+(?:takes|will take|is taking|will now take|now takes"
            r"|is now taking)\s+place\s+(?:in|at|on)\s+"
            r"DET(?P<val>NP)(?:(?=\s+(?:at|in|on|with)\b)|END)",
            None,
        ),
        # the new value first: "Adyen replaces Stripe for payments"
        (
            r"^DET(?P<val>NP4)\s+(?:replaces|replaced|has replaced|will replace|is replacing"
            r"|takes over from|took over from"
            r"|supersedes)\s+DET(?P<old>NP)(?:\s+(?:for|in|on|as)\s+DET(?P<subj>NP))?END",
            "replace",
        ),
        # a handover: "Priya is taking over the code review rotation from Sam"
        (
            r"^DET(?P<val>NP4)\s+(?:is|'s|will be)?\s*(?:taking|takes|took|take|has taken)"
            r"\s+over\s+DET(?P<subj>NP)(?:\s+from\s+DET(?P<old>NP))?END",
            "replace",
        ),
        # "Stripe is back", "Stripe after all"
        (r"START DET(?P<val>NP4)\s+(?:is|are|'s)\s+back\b", "reverse"),
        (
            r"^(?!(?:keep|use|go|stick|stay|switch|move|let's|back)\b)DET(?P<val>\S+(?:\s+\S+)?)"
            r"\s+(?:after all|again)\s*[.!]*$",
            "reverse",
        ),
        # "let's not use Adyen", "we won't use Adyen anymore"
        (
            r"\b(?:let's not|let us not|we won't|we will not|i won't|i will not|don't|do not)\s+"
            r"(?:use|do|go with|book|take|keep|renew|need)\s+DET(?P<old>NP)(?:\s+(?:for|on|in)\s+"
            r"DET(?P<subj>NP))?END",
            "cancel",
        ),
        # the agent first: "Stripe handles payments", "Netlify will host the docs"
        (
            r"(?:^(?:(?:going forward|from now on|now),?\s+)?(?:(?:our|my)\s+[a-z]+\s+)?"
            r"|(?<=[,:;] )|(?<=\bso ))"
            r"(?P<val>(?-i:[A-Z])[\w.+&'-]*(?:\s+(?-i:[A-Z0-9])[\w.+&'-]*){0,2})"
            r"(?:\s+(?:from|of|at)\s+(?:the\s+)?(?-i:[A-Z])[\w.+&-]*)?\s+"
            r"(?:now\s+|also\s+)?"
            r"(?:will\s+(?:handle|power|run|host|serve|store|process|manage|cover|take care of"
            r"|cater|review|lead|own|coordinate|organi[sz]e|design|photograph|officiate|sponsor"
            r"|deliver|build|clean|teach|do|give|take|drive)|handles|powers|processes|manages"
            r"|takes care of|caters"
            r"|delivers|teaches|runs|hosts|serves|stores|owns|covers|does"
            r"|(?:is|are)\s+(?:handling|catering|hosting|leading|running|doing|taking|giving"
            r"|teaching|driving"
            r"|reviewing|organi[sz]ing|coordinating|designing|photographing|officiating"
            r"|sponsoring|providing|baking|bringing|covering))\s+DET(?P<subj>NP)END",
            None,
        ),
        # money put towards something: "I'm putting $500 a month into the index fund"
        (
            r"\b(?:we|i)(?:'re|'m|'ll|\s+are|\s+am|\s+will)?\s+(?:now\s+)?(?:put|putting|invest"
            r"|investing|save|saving|contribute|contributing|pay|paying|spend|spending|allocate"
            r"|allocating|set aside|setting aside)\s+(?P<val>[$\u20ac\u00a3]\s?\d[\d.,]*\s*[km]?"
            r"(?:\s+(?:a|per|each|every)\s+(?:month|week|year|quarter))?)\s+(?:into|in|to|on"
            r"|towards|toward|for)\s+DET(?P<subj>NP)END",
            None,
        ),
        # "we launch on March 3", "I fly out on Friday": the act is the subject
        (
            r"(?:\b(?:we|i|they|he|she|(?:the\s+)?plan\s+is\s+to)(?:'ll|\s+will|'re|\s+are|'m"
            r"|\s+am)?\s+|^)"
            r"(?P<subj>launch|ship|release|start|deploy|publish|practice|rehearse|train"
            r"|begin|leave|fly out|fly|arrive|move in|move out|meet|close|open|go live|present|demo"
            r"|depart|return|wrap up|kick off|check in|check out)(?:ing)?"
            r"(?:\s+(?:clients|customers|the team|everyone|them))?\s+(?:on|at|in|by|into)\s+"
            r"(?![a-z]+ing\b)DET(?P<val>NP)END",
            None,
        ),
        # a name given in quotes: 'my talk title is "Typing the Untypable"'
        (
            r"START DET(?P<subj>NP4)\s+(?:is|will be|'s)\s+[\"\u201c](?P<val>[^\"\u201d]{2,60})"
            r"[\"\u201d]",
            None,
        ),
        # someone signed up: "I signed Maya up for the summer swim camp at the Y"
        (
            r"\b(?:i|we)(?:'ve|\s+have)?\s+(?:just\s+|also\s+)?signed\s+(?:[\w'-]+\s+){1,2}?up"
            r"\s+for\s+DET(?P<val>NP4)(?:\s+(?:at|in|on|with)\s+[^,;.!?]{1,30}?)?END",
            None,
        ),
        # the same act said with its date alone: "they start March 4", "we leave Friday"
        (
            r"\b(?:we|i|they|he|she)(?:'ll|\s+will|'re|\s+are|'m|\s+am)?\s+"
            r"(?P<subj>launch|ship|release|start|begin|leave|fly out|arrive|move in|move out"
            r"|depart|return|wrap up|kick off)(?:s|ing)?\s+"
            r"(?P<val>(?:on\s+)?WHEN[^,;.!?]{0,20}?)END",
            None,
        ),
        # an act said with how often: "we ship releases every two weeks", "ship weekly"
        (
            r"\b(?:we|i|they)(?:'ll|\s+will|'re\s+going\s+to|\s+are\s+going\s+to|'re|\s+are)?\s+"
            r"(?P<subj>ship|release|deploy|publish|post|meet|train|run|back up|pay|invoice"
            r"|water|review)(?:s|ing)?(?:\s+(?:releases|updates|builds|it|them|invoices|backups))?"
            r"\s+(?P<val>every\s+(?:other\s+)?(?:\w+\s+)?(?:day|week|month|quarter|year|monday"
            r"|tuesday|wednesday|thursday|friday|saturday|sunday)s?|daily|weekly|bi-?weekly|monthly"
            r"|quarterly|nightly|yearly|annually|twice a (?:week|month|day))END",
            None,
        ),
        # someone's standing appointment: "Maya has soccer practice Tuesdays at 5"
        (
            r"START (?P<who>(?-i:[A-Z])[\w'-]*|(?:my|our)\s+[a-z]+)\s+(?:has|have)\s+"
            r"(?P<subj>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)\s+(?P<val>(?:on\s+|every\s+)?"
            r"WHEN[^,;.!?]{0,20}?)END",
            None,
        ),
        # an outing to a place on a date: "the field trip is to the Science Museum on Nov 20"
        (
            r"START DET(?P<subj>NP4)\s+(?:is|are|will be)\s+(?:going\s+)?to\s+DET"
            r"(?P<val>[^,;.!?]{2,40}?\s+on\s+WHEN[^,;.!?]{0,12}?)END",
            None,
        ),
        # reversals that name the subject or the value: "home insurance is going back to
        # State Farm", "go back to Redis for the cache"
        (
            r"START DET(?P<subj>NP4)\s+(?:is\s+|are\s+)?(?:going|goes|went|moving|moves|moved"
            r"|switching|switched)\s+back\s+to\s+DET(?P<val>NP)END",
            "reverse",
        ),
        (
            r"\b(?:go(?:ing)?|went|switch(?:ing)?|mov(?:e|ing)|revert(?:ing)?|return(?:ing)?"
            r"|roll(?:ing)?)\s+(?:DET(?P<subj>NP)\s+)?back\s+to\s+DET(?P<val>NP)"
            r"(?:\s+(?:for|on|in)\s+DET(?P<subj2>NP))?END",
            "reverse",
        ),
        (r"\brevert(?:ing|ed)?\s+(?:DET(?P<subj>NP)\s+)?to\s+DET(?P<val>NP)END", "reverse"),
        # a bare "back to" after a reason: "OVH was flaky, back to Hetzner for the build servers"
        (
            r"(?:^|[,;:\u2014]\s*)(?:and\s+|so\s+)?(?:(?:we're|we are|i'm|i am)\s+)?back\s+to\s+DET"
            r"(?P<val>NP4)(?:\s+for\s+DET(?P<subj>NP))?END",
            "reverse",
        ),
        # a change said by its verb, then the new value: "product tightened checkout p95, it's
        # 250 ms", "they moved the demo, now it's Friday"
        (
            r"\b(?:tightened|loosened|relaxed|raised|lowered|bumped|changed|moved|pushed|cut"
            r"|increased|decreased|reduced|extended|shortened|rescheduled|updated|adjusted)\s+DET"
            r"(?P<subj>NP4)\s*[,:;\u2014-]\s*(?:so\s+)?(?:it's|it is|now it's|it's now|now)\s+"
            r"(?:at\s+|to\s+)?(?P<val>[^,;.!?]{1,25}?)END",
            "update",
        ),
        # value updates: "the launch moved to the 17th", "response time is now 250 ms"
        (
            r"START DET(?P<subj>NP)\s+(?:has\s+|have\s+|got\s+|was\s+|is\s+|are\s+|were\s+|has"
            r" been\s+|just\s+)*" + _UPDATE_VERBS + r"\s+(?:(?:us|it|them|me|things)\s+)?"
            r"(?:to|until|till|back to|up to|down to)\s+DET(?P<val>NP)END",
            "update",
        ),
        (
            r"START DET(?P<subj>NP)\s+(?:(?:is|are|'s)\s+now|(?:should|will)\s+now\s+be)\s+"
            r"(?:at\s+|on\s+|set to\s+)?DET(?P<val>NP)END",
            "update",
        ),
        (
            r"START DET(?P<subj>NP)\s+(?:is|are|'s)\s+(?:at\s+|on\s+)?DET"
            r"(?P<val>NP)(?<! from)\s+now\b",
            "update",
        ),
        # a terse line: "region now us-east-1", "rent now $2,100 since the lease renewed"
        (
            r"^(?P<subj>[\w-]+(?:\s+[\w-]+)?)(?<!\bfrom)\s+now\s+(?!on\b)"
            r"(?P<val>[\w$.,:/-]+(?:\s+[\w$.,:/-]+)?)"
            r"(?:[.!]*$|,?\s+(?:since|because|as|after|due to|so)\b)",
            "update",
        ),
        # a new amount: "membership goes to $55 in March", "the limit went up to 50", "budget
        # can go to 35000", and in a note: "reviews back down to 1 approval"
        (
            r"START DET(?P<subj>NP4)\s+(?:goes|went|is going|will go|can go|could go)\s+"
            r"(?:up\s+|down\s+)?to\s+AMOUNT",
            "update",
        ),
        (
            r"START DET(?P<subj>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}?)\s+(?:back\s+)?(?:up|down)"
            r"\s+to\s+AMOUNT",
            "update",
        ),
        (
            r"START DET(?P<subj>NP)\s+(?:has|have)\s+(?:now\s+)?(?:changed|been"
            r" changed|been updated|been moved)\s+to\s+DET(?P<val>NP)END",
            "update",
        ),
        # a rewrite: "we're rewriting the API in Go"
        (
            r"\b(?:rewrit|rebuild|re-?implement|re-?writ)\w*\s+DET(?P<subj>NP4)\s+(?:in|on|with"
            r"|using)\s+DET(?P<val>NP)END",
            "replace",
        ),
        # a habit taken up in place of another: "started catching the 7:50 train instead"
        (
            r"\b(?:started|began|begun|starting)\s+(?:to\s+\w+|\w+ing)\s+DET(?P<val>NP)"
            r"\s+instead\b",
            "replace",
        ),
        # a name that is better, then "that instead": "the Hilton is closer to the venue, book
        # that instead"
        (
            r"^DET(?P<val>(?-i:[A-Z])[\w.+&'-]*(?:\s+(?-i:[A-Z0-9])[\w.+&'-]*){0,2})\s+(?:is|'s)\s+"
            r"(?:\w+er|better|nicer|more \w+)\b[^,;]{0,40}[,;]\s*(?:so\s+)?(?:let's\s+|we'll\s+)?"
            r"(?:book|take|use|get|do|pick|choose|go with)\s+(?:that|it|that one|them)\s+instead\b",
            "replace",
        ),
        # or "put X there": "GitHub Pages is cheaper, let's put the docs there"
        (
            r"^DET(?P<val>(?-i:[A-Z])[\w.+&'-]*(?:\s+(?-i:[A-Z0-9])[\w.+&'-]*){0,2})\s+(?:is|'s)\s+"
            r"(?:\w+er|better|nicer|more \w+)\b[^,;]{0,40}[,;]\s*(?:so\s+)?(?:let's\s+|we'll\s+)?"
            r"(?:put|move|host|keep|run|store)\s+DET(?P<subj>NP4)\s+there\b",
            "replace",
        ),
        # moves that name the subject: "move the session cache to Memcached"
        (
            r"\b(?:mov(?:e|es|ed|ing)|switch(?:es|ed|ing)?|migrat(?:e|es|ed|ing)|port(?:s|ed|ing)?"
            r"|relocat(?:e|es|ed|ing)|transferr(?:ed|ing)|transfers?"
            r"|shift(?:s|ed|ing)?|flip(?:s|ped|ping)?|transition(?:s|ed|ing)?)\s+(?:over\s+)?DET"
            r"(?P<subj>NP)\s+(?:over\s+)?(?:to|onto)\s+DET(?P<val>NP)END",
            "replace",
        ),
        # a subject said first, then where it moves: "experiment tracking moves to MLflow"
        (
            r"START DET(?P<subj>NP)\s+(?:moves|move|is moving|are moving|will move|switches"
            r"|is switching|switched|migrated|has moved|has switched"
            r"|relocates|relocated|is relocating|are relocating|will relocate|has relocated"
            r"|will switch|migrates|is migrating)\s+(?:over\s+|indoors\s+|outdoors\s+|inside\s+"
            r"|outside\s+)?(?:to|onto)"
            r"\s+DET(?P<val>NP)END",
            "replace",
        ),
        # a value set by a verb that names its subject: "bump the upload limit to 10 MB",
        # "the funder extended the report deadline to May 16", "upgrade my plan to 20 GB"
        (
            r"\b(?:bump|rais|lower|increas|decreas|reduc|cut|extend|shorten|upgrad|downgrad|push"
            r"|reschedul|shift|chang|set|doubl|halv|expand|adjust|up|drop|cap|limit|revis|amend"
            r")\w*\s+"
            r"(?:up\s+|down\s+|back\s+)?DET(?P<subj>NP)\s+(?:up\s+|down\s+|back\s+)?(?:to|until"
            r"|till)\s+DET(?P<val>NP)END",
            "update",
        ),
        # a subject decided on, then its value: "we finally decided on the paint for the living
        # room, it's going to be Swiss Coffee", "we changed our minds on the paint, going with
        # Alabaster"
        (
            r"\b(?:changed\s+(?:our|my)\s+minds?|chang(?:e|ed|ing)\s+(?:the|our|my)\s+plans?)"
            r"\s+(?:on|about|for)\s+DET(?P<subj>NP)\s*[,:;\u2014-]\s*(?:and\s+|so\s+|now\s+)?"
            r"(?:(?:it's|it is|it'll be|it will be|we're|we are|i'm|we'll|we will|i'll)\s+)?"
            r"(?:going to be|going with|go with|getting|taking|picking|choosing|using)\s+DET"
            r"(?P<val>NP)END",
            "replace",
        ),
        (
            r"\b(?:decided|settled|agreed)\s+on\s+DET(?P<subj>NP)\s*[,:;\u2014-]\s*"
            r"(?:it's going to be|it is going to be|it's|it is|it'll be|it will be|we're going with"
            r"|we are going with|we're getting|we're taking|we're using)\s+DET(?P<val>NP)END",
            None,
        ),
        # a changed subject, then its new value: "we change the hotel, now is Hotel Sacher"
        # "give Pathfinder 2e a shot over 5e", "we picked Bellhop over TwoGuys"
        (
            r"\b(?:give|giving|gave|picked|picking|pick|chose|choosing|prefer|went with|going with"
            r"|go with)\s+DET(?P<val>NP4)\s+(?:a\s+(?:shot|try|go|whirl)\s+)?over\s+DET"
            r"(?P<old>NP)END",
            "replace",
        ),
        # "changed my mind, turkey chili": a new value for what was just chosen
        (
            r"\bchang\w*\s+(?:my|our)\s+minds?\s*[,:;\u2014-]\s*(?:(?:let's|we'll|i'll)\s+"
            r"(?:do|go with|use|get|make)\s+)?DET(?P<val>NP)END",
            "replace",
        ),
        (
            r"\b(?:chang|switch|swap)\w*\s+DET(?P<subj>NP)\s*[,:;\u2014-]\s*(?:(?:it|it's|it is"
            r"|now|the new one|new one)\s+)*(?:is|will be|becomes)?\s*DET(?P<val>NP)END",
            "replace",
        ),
        # a value that replaces the one just said: "make it 8pm", "change that to Friday"
        (
            r"\b(?:make|change|switch|move|set|bump|push|put)\s+(?:it|that|this|them|those)\s+"
            r"(?!(?:up|down|off|out|aside|away|back|in)\b)"
            r"(?:to\s+|into\s+)?DET(?P<val>NP)END",
            "update",
        ),
        (
            r"\b(?:switch|mov|migrat)\w*\s+(?:over\s+)?(?:(?:me|us|them|him|her)\s+)?(?:to|onto)\s+DET"
            r"(?P<val>NP)"
            r"(?:\s+(?:for|on|in)\s+DET(?P<subj>NP))?END",
            "replace",
        ),
        # "ditching Mailgun for Postmark": dropped for a name is replaced by it ("drop Stripe
        # for payments" drops it there)
        (
            r"\b(?:ditch|drop|dump|scrap|trad|swap|left|leav|abandon|quit)\w*\s+DET(?P<old>NP4)\s+"
            r"(?:for|in favou?r of)\s+"
            r"(?P<val>(?-i:[A-Z0-9])[\w.+&'-]*(?:\s+(?-i:[A-Z0-9])[\w.+&'-]*){0,2})END",
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
            r"\b(?:drop(?:s|ped|ping)?|ditch(?:es|ed|ing)?|scrap(?:s|ped|ping)?|retir(?:e|es|ed|ing)"
            r"|rip(?:s|ped|ping)? out|dump(?:s|ed|ing)?|shelv(?:e|es|ed|ing)|abandon(?:s|ed|ing)?"
            r"|gave up on|give up on|giving up on|decided against|rul(?:e|ed|ing) out"
            r"|veto(?:es|ed)?"
            r"|kill(?:s|ed|ing)? off|get(?:ting)? rid of|got rid of|stop(?:ped|ping)? using"
            r"|cancel(?:s|led|ling|ed|ing)?|skip(?:s|ped|ping)?|nix(?:es|ed|ing)?|forget about"
            r"|ax(?:e|es|ed|ing)|discontinu(?:e|es|ed|ing)|pull(?:s|ed|ing)? the plug on"
            r"|(?:we're|we are|we'll|we will)\s+(?:be\s+)?kill(?:ing)?"
            # (but "the show drops Tuesdays" releases it then)
            # (nor does "I forget the name", which is memory)
            r"|(?<!\bi )forget)(?!\s+(?:on\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b)"
            r"\s+DET(?P<old>NP)(?:\s+(?:for|from)\s+DET(?P<subj>NP))?END",
            "cancel",
        ),
        (
            r"\b(?:we|i|they)?\s*(?:'re|'m|\s+are|\s+am|'ll|\s+will)?\s*(?:not|no longer)\s+"
            r"(?:be\s+)?(?:going with|doing|keeping|taking|getting|having|booking|renting|using)"
            r"\s+DET(?P<old>NP)\s+(?:any\s?more|any longer)\b",
            "cancel",
        ),
        # "we're not doing a DJ": a choice against it
        (
            r"\b(?:we're|we are|i'm|i am|we|i)\s+(?:not|never)\s+(?:doing|having|getting|booking"
            r"|hiring|using|going with|taking)\s+DET(?P<old>NP)END",
            "cancel",
        ),
        (
            r"START DET(?P<old>NP)\s+(?:is\s+(?:out|gone|dead|off the table|cancell?ed"
            r"|off(?!\s+(?:on|to|for|until|from|at|in)\b))"
            r"|(?:was\s+|got\s+)?cancell?ed(?:\s+on\s+(?:us|me))?"
            r"|(?:has\s+|have\s+)?(?:fell|fallen) (?:through|apart)"
            r"|(?:has\s+|have\s+)?(?:backed|pulled|dropped) out|bailed(?:\s+on\s+(?:us|me))?)END",
            "cancel",
        ),
        # "the docs moved off GitBook", "we're migrating away from Heroku": left, for what next
        (
            r"START DET(?P<subj>NP)\s+(?:has\s+|have\s+|is\s+|are\s+|'s\s+|'re\s+)?"
            r"(?:moved|moving|migrated|migrating|switched|switching)\s+(?:off(?:\s+of)?|away from)"
            r"\s+DET(?P<old>NP)END",
            "cancel",
        ),
        (
            r"\b(?:we|i)\s*(?:'re|'ve|'m|\s+are|\s+have|\s+am)?\s*(?:moved|moving|migrated"
            r"|migrating|switched|switching)\s+(?:off(?:\s+of)?|away from)\s+DET(?P<old>NP)END",
            "cancel",
        ),
        # "never mind the Fully desk, ...": the thing named is dropped (a choice may follow)
        (r"\bnever ?mind\s+(?:about\s+)?DET(?P<old>NP)\s*[,;\u2014]", "cancel"),
        # "scratch Figma, we're using Penpot", "returned the blue sofa, went with the green one"
        # (scratching a move or a switch takes the change back: a reversal, below)
        (
            r"^(?:scratch|scrap|nix|forget|ditch|returned|return|dropped|drop)\s+(?!that\b)DET"
            r"(?P<old>NP)(?<!move)(?<!switch)(?<!change)(?<!migration)(?<!plan)\s*[,;\u2014]",
            "cancel",
        ),
        # a reversal that keeps a thing where it was: "never mind, keep the docs on Netlify",
        # "scratch that, nightly jobs stay on cron"
        (
            r"\b(?:scratch that|never ?mind|on second thought|on reflection|change of plans?)\s*"
            r"[,:;\u2014-]?\s*(?:let's\s+|we'll\s+|we\s+will\s+)?(?:just\s+)?(?:keep|leave)\s+DET"
            r"(?P<subj>NP4)\s+(?:on|in|at|with)\s+DET(?P<val>NP)END",
            "reverse",
        ),
        (
            r"\b(?:scratch that|never ?mind|on second thought|on reflection|change of plans?)\s*"
            r"[,:;\u2014-]?\s*DET(?P<subj>NP4)\s+(?:stays?|remains?|(?:will|should)\s+stay)\s+"
            r"(?:on|in|at|with)\s+DET(?P<val>NP)END",
            "reverse",
        ),
        # a reversal then the choice: "scratch that, Heroku", "on second thought: Postgres"
        (
            r"\b(?:scratch that|never ?mind|on second thought|on reflection|change of plans?)\s*"
            r"[,:;\u2014-]?\s*(?:let's\s+|we'll\s+|we\s+will\s+)?(?:just\s+)?(?:use\s+|go with\s+"
            r"|keep\s+|stick with\s+|(?:go\s+)?back\s+to\s+)?DET(?P<val>NP)(?:\s+(?:for|on|in)"
            r"\s+DET(?P<subj>NP))?END",
            "reverse",
        ),
        # "final answer: Postgres", "decision: the 3-bedroom"
        (
            r"^(?:(?:the|our|my)\s+)?(?:final\s+)?(?:answer|decision|verdict|winner|pick|choice"
            r"|conclusion)(?:\s+(?:on|for|about)\s+DET(?P<subj2>NP4))?\s*[:\u2014-]\s*DET(?P<val>NP)END",
            None,
        ),
        # "Rome instead of Florence", "Thursday rather than Wednesday"
        (
            r"^DET(?P<val>NP4)\s+(?:instead of|rather than|in place of)\s+DET(?P<old>NP)END",
            "replace",
        ),
        # "make the font 14px", "set the cap to 20 users", "cap uploads at 25 MB"
        (
            r"\b(?:make|set|keep|cap|limit|fix|peg|hold)\s+DET(?P<subj>[a-z][\w-]*(?:\s+[a-z][\w-]*)"
            r"{0,2}?)\s+(?:to\s+|at\s+|under\s+|below\s+|at most\s+)?"
            r"(?P<val>[$\u20ac\u00a3]?\d[\w.,:%$-]*(?:\s+[a-zA-Z%]+)?)END",
            "update",
        ),
        # ("no more than 3 miles a run" is a limit, not a cancel)
        (r"\bno more\s+(?!than\b)DET(?P<old>NP)END", "cancel"),
        # plain choices
        # what someone gave for a subject: "they gave us 30 minutes for the talk"
        (
            r"\b(?:gave|give|gives|giving|granted|allotted|allocated|assigned)\s+(?:us|me|them)\s+"
            r"DET(?P<val>NP4)\s+for\s+DET(?P<subj>NP)END",
            None,
        ),
        # what something is learnt or kept with: "I'm learning Spanish with Duolingo"
        (
            r"\b(?:learning|studying|practicing|practising|tracking|budgeting|journaling"
            r"|managing|monitor|monitoring|track|measure|measuring|test|testing)\s+DET"
            r"(?P<subj>NP4)\s+(?:with|on|in|using|via|through)\s+"
            r"(?P<val>(?-i:[A-Z])[\w.+&'-]*(?:\s+(?-i:[A-Z0-9])[\w.+&'-]*){0,2})END",
            None,
        ),
        # how a thing is done now, with what: "doing my budget in a Google Sheet now", "I write
        # the thesis in Word now"
        (
            r"START (?:(?:i|we)(?:'m|'re|\s+am|\s+are)?\s+)?(?:do|doing|write|writing|keep|keeping"
            r"|track|tracking|run|running|manage|managing|host|hosting|store|storing|make|making"
            r"|plan|planning|edit|editing)\s+DET(?P<subj>NP4)\s+(?:in|on|with|using|through|via)\s+"
            r"DET(?P<val>(?-i:[A-Z])[\w.+&'-]*(?:\s+(?-i:[A-Z0-9])[\w.+&'-]*){0,2})\s+now\b",
            "update",
        ),
        # a name given: "we're calling the app Pocketly", "the app is now called Stashr"
        (
            r"\b(?:calling|naming|call|name)\s+DET(?P<subj>NP4)\s+"
            r"(?P<val>(?-i:[A-Z])[\w.+&'-]*(?:\s+(?-i:[A-Z0-9])[\w.+&'-]*){0,2})END",
            None,
        ),
        (
            r"START DET(?P<subj>NP4)\s+(?:is|'s|will be|was|got)\s+(?:now\s+)?(?:called|named"
            r"|renamed(?:\s+to)?)\s+(?P<val>(?-i:[A-Z0-9])[\w.+&'-]*(?:\s+(?-i:[A-Z0-9])[\w.+&'-]*)"
            r"{0,2})END",
            None,
        ),
        # a colour painted: "let's paint the nursery yellow"
        (
            r"\bpaint(?:ing|ed)?\s+DET(?P<subj>NP4)\s+(?P<val>(?:sage\s+|dark\s+|light\s+|pale\s+"
            r"|navy\s+)?(?:white|black|red|blue|green|yellow|orange|purple|pink|grey|gray|brown|beige"
            r"|cream|navy|teal|sage|charcoal|ivory|lavender|mint))END",
            None,
        ),
        # the subject said first: "for the wedding cake we picked chocolate"
        (
            r"^for\s+DET(?P<subj>NP4)\s*,?\s+(?:we|i|they)(?:'ve|'re|'ll|\s+have|\s+are|\s+will)?\s+"
            r"(?:finally\s+|just\s+)?(?:picked|chose|went with|going with|go with|decided on"
            r"|settled on|use|are using|using|booked|got|ordered)\s+DET(?P<val>NP)END",
            None,
        ),
        # a name said to do for a subject: "Google Meet is enough for client calls"
        (
            r"START (?P<val>(?-i:[A-Z])[\w.+&-]*(?:\s+(?-i:[A-Z0-9])[\w.+&-]*){0,2})\s+(?:is|are)"
            r"\s+(?:enough|good enough|fine|all we need)\s+for\s+DET(?P<subj>NP)END",
            None,
        ),
        (
            r"START DET(?P<subj>NP)\s+(?:goes|go|going|will go|is going|routes?"
            r"|is routed|gets routed|runs|run|will run|is running|lives|will live|sits|is deployed"
            r"|gets deployed|will be deployed|is hosted|will be hosted|is handled|is managed"
            r"|is powered|is built|is stored|gets stored|will be stored|is backed|is served"
            r"|is done|is tracked|happens|meets|meet|gathers|gather|is held|are held"
            r"|(?:is|are|gets?|will be)\s+(?!not\b)(?:[a-z]+ed|PARTS))\s+"
            r"(?:out\s+|live\s+)?(?:through|on|in|into|via|by|with|to|from|at|using|under)\s+DET"
            r"(?P<val>NP)END",
            None,
        ),
        (
            r"START DET(?P<subj>NP)\s+(?:uses|will use|is using|relies on"
            r"|should use|must use|stays on|stays with|stay on|stay with|is on|are on|will be on"
            r"|is at|are at"
            r"|(?:is|are)\s+staying\s+(?:on|with)"
            r"|is due(?: on| by)?|are due(?: on| by)?)\s+DET(?P<val>NP)END",
            None,
        ),
        (
            r"\b(?:we|i|they|the team)\s*(?:now\s+|currently\s+|still\s+|already\s+|just\s+)?"
            r"(?:use|'re using|are using|am using|'m using|rely on|run|are running|'re running"
            r"|went with|picked|chose|settled on|decided on|agreed on|opted for|landed on"
            r"|deploy to|host on|standardi[sz]ed on|stick with"
            r"|stay with|keep|are keeping|'re keeping|'ll keep|will keep|'ll use|will use"
            r"|'re going with|are going with|'ll go with|will go with)\s+DET(?P<val>NP)\s+"
            r"(?:for|as)\s+DET(?P<subj>NP)END",
            None,
        ),
        (
            r"\b(?:we|i|they|the team|let's|lets|let us)(?:'re|'ll|'ve|\s+are|\s+will|\s+have)?\s+"
            r"(?:now\s+|currently\s+|still\s+|already\s+|just\s+)?(?:deploy|deploying|deployed"
            r"|host|hosting|hosted|store|storing|stored|put|putting|run|running|serve|serving"
            r"|keep|keeping|send|sending|ship|shipping|build|building|publish|publishing|cater"
            r"|catering|order|ordering|source|sourcing)\s+DET"
            r"(?P<subj>NP)\s+(?:on|in|to(?!\s+" + _PURPOSE + r")|at|with|via|through|on top of"
            r"|from)\s+DET(?P<val>NP)END",
            None,
        ),
        (
            r"\b(?:keep using|keep running|use|go with|pick|choose|adopt|stick with|stick to"
            r"|stay with|keep|settle on"
            r"|standardi[sz]e on|going with|sticking with|sticking to|keeping|using)\s+DET"
            r"(?P<val>NP)\s+(?:for|as)\s+DET"
            r"(?P<subj>NP)END",
            None,
        ),
        (
            r"(?:^|(?<=\bso ))(?:ok(?:ay)?|fine|alright|right|so|then)?[\s,]*(?:the\s+)?"
            r"(?P<val>[A-Z0-9$][\w.+#'-]*(?:\s+"
            r"[\w.+#'-]+){0,2})\s+(?:it\s+is|is\s+the\s+(?:way\s+to\s+go|winner|best\s+bet))\b"
            r"(?:\s+for\s+DET(?P<subj>NP)END)?",
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
        # a setting said as a clause: "timer set to 6am every other day"
        (
            r"START DET(?P<subj>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?:set|scheduled|booked|fixed)"
            r"\s+(?:to|for)\s+(?P<val>(?:[$\u20ac\u00a3]?\d|WHEN)[^,;.!?]{0,20}?)END",
            None,
        ),
    )
)


# Updates said in passing, inside a longer sentence that may ask something else: "the response
# time, which has recently improved to 250ms, ... can you help?", "I've extended my study
# sessions to 4 hours", "the new deadline of May 5". Read even in questions and hedged
# sentences: the update itself is stated, not asked.
_ASIDES: tuple[Gated, ...] = tuple(
    Gated(_rx(p))
    for p, _ in (
        (
            r"\b(?:the|my|our)\s+(?P<subj>NP4)\s*,?\s+(?:which|that)\s+(?:has\s+|have\s+|had\s+)?"
            r"(?:now\s+|recently\s+|just\s+|further\s+|since\s+)*UPDATED(?:\s+further)?"
            r"(?:\s+(?:to|at))?\s+DET(?P<val>NP)END",
            "update",
        ),
        (
            # (a place named after the subject: "the weekly spending at Whole Foods has ...")
            r"\b(?:my|our|the)\s+(?P<subj>NP4(?:\s+(?:at|of|in|for)\s+(?-i:[A-Z])[\w'&-]*"
            r"(?:\s+(?-i:[A-Z])[\w'&-]*)?)?)\s+(?:has|have|had|was|is|got)\s+(?:been\s+)?(?:now\s+"
            r"|recently\s+|just\s+|further\s+)*UPDATED(?:\s+further)?(?:\s+(?:to|at))?\s+DET"
            r"(?P<val>NP)END",
            "update",
        ),
        (
            r"\b(?:i|we)(?:'ve|\s+have)?\s+(?:now\s+|recently\s+|just\s+|since\s+)*(?:extended"
            r"|increased|raised|reduced|cut|lowered|bumped|moved|changed|updated|pushed|shifted"
            r"|expanded|upped|doubled|halved|stabilized|stabilised|capped)\s+(?:my|our|the)\s+"
            r"(?P<subj>NP4)\s+(?:to|up to|down to|at)\s+DET(?P<val>NP)END",
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


# Commitments: a speaker (or "let's") and a verb that commits to its object, in any tense
# ("we're hiring Priya", "I booked the Thursday one", "we'll rent a car", "let's do the Italian
# place"). The inventory is of verbs that choose, each matched in all its forms (`_forms`);
# multi-word verbs keep their particle ("sign with", "stay at").
_COMMIT_VERBS: tuple[str, ...] = (
    "book",
    "reserve",
    "take",
    "get",
    "buy",
    "order",
    "hire",
    "lease",
    "rent",
    "pick",
    "choose",
    "do",
    "have",
    "keep",
    "paint",
    "serve",
    "schedule",
    "use",
    "try",
    "bring",
    "fly",
    "drive",
    "adopt",
    "host",
    "cook",
    "plant",
    "hold",
    "throw",
    "grab",
    "sign with",
    "book with",
    "sign up for",
    "sign up with",
    "go with",
    "go for",
    "stay at",
    "stay in",
    "stay with",
    "subscribe to",
    "opt for",
    "settle on",
    "switch to",
    "eat at",
    "meet at",
    "enroll in",
    "register for",
    "land on",
    "contract",
    "engage",
    "retain",
    "offer",
    "hand",
    "give",
    "send",
    "ship",
    "launch",
    "ride",
    "wear",
    "make",
    "fly with",
    "travel by",
    "go to",
    "pay for",
    "lock in",
    "confirm",
    "finalize",
    "finalise",
    "pencil in",
    "pre-order",
)
_IRREGULAR = {
    "take": "took taken",
    "get": "got gotten",
    "buy": "bought",
    "choose": "chose chosen",
    "do": "did done",
    "have": "had",
    "keep": "kept",
    "bring": "brought",
    "fly": "flew flown",
    "drive": "drove driven",
    "hold": "held",
    "throw": "threw thrown",
    "eat": "ate",
    "meet": "met",
    "go": "went gone goes",
    "make": "made",
    "ride": "rode",
    "wear": "wore",
    "give": "gave given",
    "send": "sent",
    "land": "landed",
    "sign": "signed",
    "stay": "stayed",
}


def _forms(base: str) -> list[str]:
    """A verb's forms: base, -s, -ing, past (regular spelling rules, then the irregulars)."""
    head, _, rest = base.partition(" ")
    tail = f" {rest}" if rest else ""
    stem_e = head[:-1] if head.endswith("e") and not head.endswith("ee") else head
    short = len(head) <= 4 and re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwy]", head) is not None
    double = head + head[-1] if short else head
    forms = {head, f"{double}ing" if short else f"{stem_e}ing"}
    if head.endswith("y") and head[-2:-1] not in "aeiou":
        forms |= {f"{head[:-1]}ies", f"{head[:-1]}ied"}
    else:
        forms |= {f"{head}es" if head.endswith(("s", "sh", "ch", "x", "o")) else f"{head}s"}
        forms |= {f"{stem_e}ed" if not short else f"{double}ed"}
    forms |= set(_IRREGULAR.get(head, "").split())
    return sorted(f + tail for f in forms)


_COMMIT_VERB = (
    "(?:(?<='re )on|(?<='m )on|(?<=are )on|(?<=am )on|"
    + "|".join(
        sorted({re.escape(f) for v in _COMMIT_VERBS for f in _forms(v)}, key=lambda f: (-len(f), f))
    )
    + ")"
)
_WHO = (
    r"\b(?:we|i|they|the team|let's|lets|let us)(?:'re|'ll|'ve|'d|'m|\s+are|\s+will|\s+have"
    r"|\s+am|\s+shall|\s+had|\s+would)?(?:\s+(?:going to|gonna|be|now|just|also|finally"
    r"|definitely|rather|still|already|then|officially|all|both))*\s+"
)
_OBJECT_PRONOUN = r"(?:(?:her|him|them|us|me|you|ourselves|myself)\s+)?"
_COMMIT = re.compile(
    rf"(?:{_WHO}|^(?:please\s+|just\s+|then\s+)*)(?P<verb>{_COMMIT_VERB})\s+"
    rf"{_OBJECT_PRONOUN}(?P<obj>(?:[^,;:!?()\[\]\"]|(?<=\d):(?=\d)){{1,120}})",
    re.I,
)
_AFTER_COLON = re.compile(r"\s*:\s*(?P<val>[^,;:!?]{1,80})")
# A copula in the object of an imperative at the start: the verb was a noun of its subject.
_IS_AFTER = re.compile(r"\s(?:is|are)\s+\S")
# A name after a comma that ends the sentence: "we picked our DJ, Sam Rivera!"
_APPOSITIVE = re.compile(
    r",\s+(?P<val>(?-i:[A-Z])[\w.&'-]*(?:\s+(?:(?:and|&|of|the)\s+)?(?-i:[A-Z])[\w.&'-]*){0,3})"
    r"\s*[.!]*\s*$"
)
# Where a commitment's value ends: before a preposition or clause word ("a taxi from the
# airport" -> taxi; "the hotel Krone in Salzburg" -> hotel Krone).
_VALUE_CUT = re.compile(
    r"\s(?:from|to|on|in|at|for|with|by|near|via|because|bc|cuz|since|so|but|and|or|instead|now"
    r"|then|over|not|rather|which|that|when|if|after|before|until|as|this|next|tonight|tomorrow"
    r"|today|again|too|please|anyway|though)\b|" + _NOT_TITLE + r"\.(?:\s|$)",
    re.I,
)
# A subject fronted before the choice: "For Saturday's dinner, let's book Nopa".
_FRONTED = re.compile(
    r"^(?:for|as for|regarding|about|re)\s+(?P<subj>(?:the|our|my|a|an|this|that)?\s*"
    r"[^,;:!?]{1,60}?)(?:\s*,\s*|\s+(?=(?:we|i|let's|lets|let us|they)\b))",
    re.I,
)
# Nouns a choice is never "of": "take a look", "have a question", "make sure".
_ABSTRACT = frozenset(
    """look break care sure time moment note step chance risk decision call stab shot pass
    picture question problem issue point idea guess deal try go bit while second minute sec
    mistake difference sense effort progress notes look-see peek walk seat rest lot trouble
    error errors difficulty difficulties issues problems doubt doubts concern concerns
    headache feeling started""".split()
)
# What a value says there is of its noun, not which: "some issues", "a few doubts".
_QUANTIFIER = re.compile(
    r"^(?:some|any|several|many|more|few|a few|a couple of|a lot of|lots of|a bit of)\s+", re.I
)
# Nouns that, heading a value, say something went wrong: "I'm getting CORS errors".
_TROUBLE = frozenset(
    """trouble error errors issue issues problem problems bug bugs warning warnings crash
    crashes glitch glitches behavior behaviour""".split()
)
# A lowercase head followed by a name ("the hotel Krone"): the head says what is chosen.
_HEAD_NAME = re.compile(r"^(?P<head>[a-z][a-z-]+(?:\s+[a-z][a-z-]+)?)\s+(?=[A-Z0-9])")
_ADJECTIVE_END = re.compile(
    r"(?:ful|ous|ive|able|ible|ish|less|ly|ed|ing|est|er)$|^(?:good|bad|great|fine|nice|ok"
    r"|okay|cool|fast|slow|cheap|expensive|ready|done|big|small|high|low|new|old|hard|easy"
    r"|free|late|early|long|short|busy|full|empty|open|closed|right|wrong|safe|clear|sure"
    r"|happy|sad|weird|fun|real|true|false|live|broken|down|up|off|on|out|better|worse|best"
    r"|worst|fine|same|different|important|necessary|possible|likely|tight|close|far)$",
    re.I,
)
_DAY = re.compile(
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep"
    r"|sept|oct|nov|dec)[a-z]*\.?\s+\d|\b\d{1,2}(?:st|nd|rd|th)\b|\b(?:noon|midnight|weekend"
    r"|morning|evening|afternoon|tomorrow|tonight|today)\b|\b(?:january|february|march|april"
    r"|june|july|august|september|october|november|december)\b|\b(?:next|this|last)\s+(?:week"
    r"|month|year|quarter|sprint)\b",
    re.I,
)
# Words that place a phrase in time, not name a value ("nice today").
_WHEN = frozenset("today tonight now yet again anymore still already soon almost very".split())
_NUMBER_WORDS = frozenset(
    """one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty
    forty fifty hundred thousand half single double dozen""".split()
)


def concrete(value: str | None) -> bool:
    """A value that names something: a number, a date or time, a name (a capital past the
    first letter of the sentence), or a noun phrase of two or more words not ending in an
    adjective ("lamb tagine", "checkout conversion"), rather than an opinion ("great")."""
    if not value:
        return False
    words = value.split()
    if re.search(r"\d", value) or _DAY.search(value) or any(w[:1].isupper() for w in words):
        return True
    if any(w.lower() in _NUMBER_WORDS for w in words):
        return True
    lowered = [w.lower().strip(".,") for w in words]
    return (
        len(words) >= 2
        and not any(_ADJECTIVE_END.search(w) or w in _WHEN for w in lowered)
        and not any(w in _VERBISH or w in _NOT_VALUE or w in _ABSTRACT for w in lowered)
    )


# Verbs that choose only when said as a plan, not as something that happened.
_WEAK_VERBS = frozenset(
    "get|have|do|go to|take|make|bring|try|eat at|meet at|ride|wear|give|send|drive|fly|cook"
    "|plant|hold|throw|grab|hand|offer|serve|ship|launch|travel by|fly with|stay at|stay in"
    "|stay with|be on|paint".split("|")
)
_PAST = re.compile(
    r"(?:ed|\b(?:got|gotten|had|did|done|went|gone|took|taken|made|brought|rode|wore|gave|sent"
    r"|drove|flew|held|threw|kept|ate|met))\b",
    re.I,
)


_LEADING_ADVERBS = re.compile(
    r"^(?:(?:also|just|already|never|ever|recently|finally|since|now)\s+)+", re.I
)
# What says a weak verb's present is a plan: a future, "let's", or a decision to.
_PLANNED = re.compile(
    r"'ll\b|\b(?:will|shall|going to|gonna|let's|lets|let us|plan(?:ning)? to|decided to)\b", re.I
)
# What names a thing: a number, or a name (a capital, but for "I").
_NAMED = re.compile(r"\d|\b(?!I\b)[A-Z]")
# A speaker's conditional: what they would do, not what they do.
_WOULD = re.compile(r"(?:'d|\bwould)\s+(?!rather\b|prefer\b|like\b|love\b)", re.I)


def _unplanned(
    match: re.Match[str], verb: str, *, gerund: bool, imperative: bool, text: str
) -> bool:
    """A weak verb said in the present by its speaker, neither as a plan nor as news: "I have
    a few errands to run", "usually we get takeout" state what is, not what is chosen
    ("we'll have the party at Nopa", "we do pickup at Safeway now" do choose; so do a habit
    that names what it is, "we take the dog to Paws & Claws", and an appointment with its day,
    "I have a meeting tomorrow")."""
    return (
        verb in _WEAK_VERBS
        and not gerund
        and not imperative
        and _PLANNED.search(match.group(0)) is None
        and _NOW.search(text) is None
    )


def _no_object(value: str) -> bool:
    """A commitment's value that names nothing chosen: an abstract noun ("take a look"), or
    what went wrong ("having some issues with the deploy", "getting CORS errors")."""
    words = _QUANTIFIER.sub("", value).lower().split()
    return not words or words[0] in _ABSTRACT or words[-1] in _TROUBLE


def _base(verb: str) -> str:
    """A commitment verb's base form ("booked" -> "book", "staying at" -> "stay at")."""
    lowered = " ".join(verb.lower().split())
    if lowered == "on":
        return "be on"
    return next((v for v in _COMMIT_VERBS if lowered in _forms(v)), lowered)


def _commitment(text: str) -> Frame:
    """A speaker's commitment to an object ("we're hiring Priya", "let's do the Italian
    place instead"): its value, and its subject where the sentence names one."""
    fronted = _FRONTED.match(text)
    body = text[fronted.end() :] if fronted else text
    for match in _COMMIT.finditer(body):
        obj = match.group("obj").strip().rstrip(" .")
        subject = None
        after = _AFTER_COLON.match(body, match.end())
        filled = None if after else _who_fills(obj, body, match.end())
        if after:  # "we picked the venue: the Glasshouse"
            subject, obj = _phrase(obj), after.group("val").strip().rstrip(" .")
        elif filled:  # "we hired a new designer, Priya"
            subject, obj = _phrase(obj), filled.rstrip(" .!")
        counted = _OF_NUMBER.search(obj)
        if counted and (of := _terse(obj)).value:
            return of  # "we have a budget of $30k"
        said_obj = " ".join(obj.split()[:10])
        cut = _VALUE_CUT.search(" " + obj)
        head = (" " + obj)[: cut.start()].strip() if cut else obj
        value = _phrase(head, value=True)
        if value is None or _no_object(value):
            continue
        verb = _base(match.group("verb"))
        if verb == "keep" and value.split()[0].lower().endswith(("ing", "ed")):
            continue  # "I kept asking", "I'll keep you posted": going on, not a choice
        imperative = not re.match(r"\s*(?:we|i|they|the team|let)", match.group(0), re.I)
        gerund = match.group("verb").lower().endswith("ing")
        # A line that starts with a plan's gerund and its object says what the speaker does
        # ("renting a sprinter from Roadie Rentals", "adding a heat-shock control"); other
        # gerunds and participles do not ("hosting stays Vercel", "given my workload").
        planned = (
            gerund
            and match.start() == 0
            and verb not in _WEAK_VERBS
            and _ARTICLE.match(obj) is not None
        )
        if imperative and not planned:
            if gerund or match.group("verb").lower().endswith("en") or not concrete(value):
                continue
            if match.start() == 0 and _IS_AFTER.search(obj):
                continue  # "Book club pick for April is Piranesi": a noun, not "book ..."
        named = _HEAD_NAME.match(_ARTICLE.sub("", value))
        purpose = re.search(r"\s(?:for|as)\s+(?P<subj>[^,;.!?]{2,60})$", " " + obj)
        if subject is not None:
            pass
        elif named:
            subject = _phrase(named.group("head"))
        elif purpose and _purpose(purpose.group("subj")):
            subject = _phrase(purpose.group("subj"))
        if subject is None and fronted:
            subject = _phrase(fronted.group("subj"))
        when = _SET_FOR.search(obj) if subject is None and verb in _SETS_A_DATE else None
        where = _HELD_AT.search(obj) if subject is None and verb in _HOLDS else None
        source = _SOURCE.search(obj) if subject is None and verb in _SOURCING else None
        held = False
        known = _ARTICLE.match(obj) is not None or verb in _HOLDS  # "doing sprint reviews"
        if when and known and (verb in _HOLDS or not concrete(value)) and _DAY.search(when[1]):
            # "we booked the flight for May 3rd": the thing is known, its date is chosen
            subject, value = value, _phrase(when[1], value=True)
        elif where and where.start() > 0 and (place := _phrase(where["place"], value=True)):
            # "we're doing the offsite in Porto": the event is known, where it is is chosen
            subject, value, held = value, place, True
        elif source and not concrete(value):
            # "order the standing desk from Fully": who it comes from is what is chosen
            subject, value = value, source[1]
        if verb in _WEAK_VERBS and _PAST.search(match.group("verb")):
            continue  # "we had pizza for lunch", "I got a new laptop": told, not chosen
        if _unplanned(match, verb, gerund=gerund, imperative=imperative, text=text) and not (
            _NAMED.search(obj) or _DAY.search(obj)
        ):
            continue  # "I have a few errands", "usually I just have cereal": no choice
        if _WOULD.search(match.group(0)):
            continue  # "I would take my grandmother to the ocean": what one would do, if
        if verb == "have" and _PAST.search((_LEADING_ADVERBS.sub("", obj) or obj).split()[0]):
            continue  # "which we have accepted", "I have also visited": the tense, no choice
        said = (
            f"{verb} {said_obj} for {subject}"
            if subject and (after or filled)
            else f"{verb} {said_obj}"
        )
        return Frame(subject, value, commit=True, said=said, held=held)
    return Frame()


# The date or time a commitment sets for its object: "the flight to Lisbon for May 3rd".
_SET_FOR = re.compile(
    r"\s(?:for|on)\s+(?:the\s+)?([^,;.!?]{1,30}?)(?:\s+(?:now|from now on|going forward))?$", re.I
)
_SCHEDULING = frozenset({"book", "reserve", "schedule", "confirm", "pencil in", "lock in"})
# Verbs whose object is an event and whose "on DATE" is what is chosen: "we're doing the move
# on March 14", "we're holding the party on Friday" (but "take the train on Friday" takes the
# train).
_SETS_A_DATE = _SCHEDULING | {"do", "have", "hold", "host", "throw"}
# Of those, the verbs whose object is an event held somewhere: "we're doing the offsite in
# Porto", "let's do design handoff in Penpot", "hold the retreat at Lake Tahoe" choose the
# place (a name), not the event.
_HOLDS = _SETS_A_DATE - _SCHEDULING
_HELD_AT = re.compile(
    r"\s(?:in|at)\s+(?P<place>(?-i:[A-Z])[\w.&'-]*(?:\s+(?-i:[A-Z])[\w.&'-]*){0,3}"
    r"(?:'s\s+(?:place|house|flat|apartment))?)",
    re.I,
)
# The vendor of a thing acquired: "rent a car from Blue Car Rental", "get groceries
# delivered by Instacart".
_SOURCE = re.compile(
    r"\s(?:from|by|through|via)\s+(?:the\s+)?((?-i:[A-Z])[\w.&'-]*(?:\s+(?-i:[A-Z])[\w.&'-]*){0,3})",
    re.I,
)
_SOURCING = frozenset({"order", "buy", "rent", "lease", "get", "hire", "pre-order"})


def _purpose(said: str) -> bool:
    """Whether what a commitment is "for" is its subject: "for Friday dinner" is, "for 7pm",
    "for two" and "for the Acme account" are not (a time, a number, a name)."""
    if not concrete(said):
        return True
    words = said.split()
    return (
        not re.search(r"\d", said)
        and not any(w.lower() in _NUMBER_WORDS for w in words)
        and not any(w[:1].isupper() for w in words[1:])
        and _DAY.search(words[-1]) is None
    )


# A subject said first, then what it is: "the reservation is at 7pm", "the vet is Dr. Patel",
# "internet will be with Free", "the movers are booked for the 28th". The value must name
# something (`concrete`): "the food is great" chooses nothing.
# Verbs that place a subject ("raw events land in S3", "the A/B test runs for 14 days").
_PLACED = (
    "go|run|live|sit|land|ship|happen|start|begin|end|stay|move|come|leave|depart|arriv|open"
    "|close|fall|meet|launch|fly|sail|travel|report|route|deploy|sync|log|post|publish|air"
    "|stream|print|settle|rest|hang|sleep|train|practic|play|work|study|last|expir|renew|repeat"
    "|recur|belong|point|feed|flow|lead|pass|ride|drive|park|dock|grow|sleep|eat|sing|teach"
)
# What a subject is for or of, after it: "the agency for the Q3 campaign", "the team lunch
# spot on Fridays".
_OF = r"(?:\s+(?:for|of|on|at|in)\s+DET" + _WORD + r"(?:\s+" + _WORD + r")?)?"
_COPULA = _rx(
    r"START DET(?P<subj>NP4SUBJECT_OF)\s+"
    r"(?:(?:still|also|now|already|always|usually|currently|just)\s+)?"
    r"(?P<verb>(?:is|are|will be|shall be|gets?|was|were)\s+(?!not\b)(?:[a-z]+ed|PARTS)"
    r"|(?:is|are|will be)\s+due|(?:is|are)\s+(?:happening|taking place)"
    r"|(?:PLACED)(?:s|es)?(?=\s+(?:in|on|at|to|from|with|by|for|through|via|into)\s)|is|are|'s"
    r"|will be|shall be|stays|lasts|costs|takes"
    r"|remain|remains|is still|are still|is going to be|gets|get|will have)\s+"
    r"(?:(?:at|on|in|with|from|by|for|to|through|via|into)\s+)?DET(?P<val>NP)END".replace(
        "PLACED", _PLACED
    ).replace("SUBJECT_OF", _OF)
)
# Subjects that are talk about the conversation, not a thing decided.
_NOT_TOPIC = frozenset(
    """problem issue question thing point reason catch difference error bug trouble worry
    concern idea answer result output thought guess feeling impression hope worst best good
    bad weather name sister brother mom dad mum mother father kids kid son daughter wife
    husband baby cat dog traffic boss""".split()
)


# Participles that say how a subject is, not what was chosen for it.
_STATES = frozenset(
    """blocked stuck delayed broken based caused affected worried concerned interested excited
    finished confused surprised related involved tied held limited focused stalled waiting
    pinned crashed failed hit hurt annoyed impressed disappointed bottlenecked gated closed shut
    flooded packed""".split()
)
_COPULAR = frozenset(
    """is are will be gets get has have will have stays remain remains 's""".split()
)


# "a NOUN" that says what kind of thing a subject is, not which: "a crucial tool", "a form of
# self-expression", "a popular choice among ..." (but "a beet salad", "a half marathon").
_KIND_HEAD = re.compile(
    r"^(?:[\w'-]+\s+)?(?:tool|form|way|part|kind|type|sort|example|choice|option|source|thing"
    r"|piece|sign|matter|means|skill|art|experience|journey|lesson|reminder|testament|staple"
    r"|classic|mix|blend|combination)s?(?:\s+(?:of|for|among|in|to|that|which)\b.*)?$",
    re.I,
)


def _copula(text: str) -> Frame:
    """The first clause of the sentence that says what a subject is ("Sweet Lily is closing,
    so cake now comes from Marta's Pastry": the second)."""
    for match in _COPULA.finditer(text):
        found = _copula_of(match, text)
        if found.value:
            return found
    return Frame()


def _copula_of(match: re.Match[str], text: str) -> Frame:
    subject = _phrase(match.group("subj"))
    verb = match.group("verb").lower()
    if subject is None or verb in _CLAUSE_VERBS - _COPULAR or verb in _VERBISH - _COPULAR:
        return Frame()
    if " " not in verb and verb not in _COPULAR and not verb.endswith("s"):
        # a verb without -s needs a plural subject ("raw events land in S3")
        if not subject.endswith("s") or verb.endswith(("ed", "ing")):
            return Frame()
    if verb.split()[-1] in _STATES:
        return Frame()  # "the deploy is blocked on the DNS change": a state, not a choice
    if verb in _COPULAR and re.match(r"\s*to\s", text[match.end("verb") :]):
        return Frame()  # "the next step is to ask Priya": a purpose, not a value
    said = match.group("val")
    if verb in _COPULAR and re.match(r"\s*for\s", text[match.end("verb") :]):
        # "Zoom stays for video calls": what it is for is the subject
        subject, said = _phrase(said), match.group("subj")
        if subject is None:
            return Frame()
    value = _phrase(said, value=True)
    if value is None:  # "Dr. Patel at Westside Animal Clinic": the value is the name
        cut = _VALUE_CUT.search(" " + said)
        value = _phrase((" " + said)[: cut.start()], value=True) if cut else None
    if value is None or not concrete(value):
        return Frame()
    led = text[match.end("verb") : match.start("val")]
    if (re.search(r"\b(?:a|an)\s+$", led, re.I) or verb == "are") and _KIND_HEAD.match(value):
        # "fashion is a form of self-expression", "Friends and The Office are classic choices
        # for relaxation": what it is like, no choice
        return Frame()
    words = subject.lower().split()
    if words[-1] in _NOT_TOPIC or words[0] in FUNCTION_WORDS or words[0] in _VERBISH:
        return Frame()
    head = next((n for n, w in enumerate(words) if n and w in _PREPOSITIONS), len(words))
    if words[head - 1] in _NOT_TOPIC:
        return Frame()  # "the problem with the API is ...": talk about it, not its value
    return Frame(subject, value)


_ARROW = re.compile("\u2192|->|=>|\u27f6")
_ARROWS = next(p for p, _ in _PATTERNS if "\\u2192" in p.pattern)
_IT_IS = next(p for p, _ in _PATTERNS if "it\\s+is" in p.pattern)
_NAMINGS = tuple(p for p, _ in _PATTERNS if re.search(r"calling\||called\|", p.pattern))
_NEEDS = tuple(Needs.of(p) for p, _ in _PATTERNS)


# Words before a value that are not of it: "called Stashr", "due May 15", "using Jenkins",
# "only Fridays".
_VALUE_LEAD = re.compile(
    r"^(?:called|named|renamed(?:\s+to)?|using|agreed (?:to|on)|settled on"
    # "sites are confirmed as Boston" (a title's own "For" or "As" stays: "For Whom the Bell...")
    r"|(?:confirmed\s+)?(?-i:as|for)(?=\s+(?-i:[A-Z]))"
    r"|like(?=\s+[$\u20ac\u00a3]?\d)"  # "the lead time is like 14 weeks"
    r"|it\s+(?:on|at)(?=\s+\S)"  # "we're doing it on Sunday the 15th instead"
    r"|due(?:\s+(?:on|by))?(?=\s+[^,;]*\d)"
    # what is done when: "plants are now watered on Wednesdays"
    r"|[a-z]+ed\s+(?:on|at)(?=\s+(?:\d|(?:mon|tues|wednes|thurs|fri|satur|sun)day))"
    r"|(?:only|just)(?=\s+(?:\d|(?:mon|tues|wednes|thurs|fri|satur|sun)day)))\s+(?=\S)",
    re.I,
)


_CODE = re.compile(r"//|\w\s*=\s*\w|[{}]")


_REPORTED = re.compile(r"\b(?:pointed out|said|says|noticed|realized|realised|mentioned)\b", re.I)
_NAMED_THE = re.compile(r"^(?-i:The)\s+(?-i:[A-Z])\w*(?:\s+(?-i:[A-Z])\w*)*$")
_NOW_FIRST = re.compile(r"^(?:now|currently)\s+", re.I)


def _phrase(text: str | None, *, value: bool = False) -> str | None:
    """A captured phrase without articles, trailing fillers or an empty core; None if vague."""
    if not text:
        return None
    phrase = " ".join(text.split()).strip(" '\"*")
    if _CODE.search(phrase):
        return None  # "Formatter = logging.Formatter(...", "'1h', // 1 hour": code, no phrase
    if value:
        phrase = _VALUE_LEAD.sub("", phrase)  # "is now called Stashr": Stashr
    for _ in range(3):
        if value and _NAMED_THE.match(phrase):
            break  # "The Oak Room": the article is part of the name
        phrase = _ARTICLE.sub("", phrase)
        phrase = _TRAILING.sub("", phrase)
        if not value:  # "now deadline is 15 June": the deadline, said as news
            phrase = _NOW_FIRST.sub("", phrase)
    words = phrase.lower().split()
    if not words or len(words) > 5:
        return None
    phrase = phrase.rstrip(".,") if value else phrase
    # a name, every word capitalised: "Go", "Better Stack" (not "I")
    named = all(w[:1].isupper() for w in phrase.split()) and words[0] not in _NOT_SUBJECT
    if value and (
        all(w in FUNCTION_WORDS for w in words)
        or (words[0] in _HOW and not named)
        or (words[-1].rstrip(".,") in _HOW and not named)
    ):
        return None  # "register for the", "make it more compelling", "using the API correctly"
    counted = bool(re.search(r"\d", phrase)) or (words[0] in _NUMBER_WORDS and len(words) > 1)
    if value and not counted and not named:
        if phrase.lower() in _NOT_VALUE or words[0] in _NOT_SUBJECT or words[0] in _VERBISH:
            return None
    if value:
        if words[0] in _PREPOSITIONS or _AWAY.match(phrase):
            return None
        if any(w in _CLAUSE_VERBS for w in words):
            return None  # "scratch that, the e-reader feels impersonal": a clause, no value
    if not value and len(words) > 1 and words[-1] in _PREPOSITIONS:
        phrase, words = phrase.rsplit(None, 1)[0], words[:-1]  # "a deadline of April 1"
    if (
        not value
        and (
            phrase.lower() in _NOT_SUBJECT | _WHEN | _DETERMINERS
            or words[0] in _NOT_SUBJECT
            or words[0] in _PREPOSITIONS
            # a verb and what it went to: "stared at both", no thing
            or (len(words) > 1 and words[0].endswith("ed") and words[1] in _PREPOSITIONS)
            or _REPORTED.search(phrase) is not None  # "Kenji pointed out Monday"
            or {"that", "which"} & set(words[1:])
        )
    ):
        return None  # "pharmacist flagged that meloxicam": a clause, not what is decided
    return phrase


def _change_of(sentence: str, change: ChangeKind | None) -> ChangeKind | None:
    if (_REVERSAL.search(sentence) or _KEEPING.search(sentence)) and change in (None, "reverse"):
        return "reverse"
    return change


@lru_cache(maxsize=4096)
def aside(sentence: str) -> Frame:
    """An update said in passing (`_ASIDES`, `_COUNTS`), or an empty frame."""
    text = " ".join(sentence.replace("\u2019", "'").split())
    for pattern in _ASIDES + _COUNTS:
        match = pattern.search(text)
        if match is None:
            continue
        value = _phrase(match.group("val"), value=True)
        subject = _phrase(head_phrase(match.group("subj")))
        if subject is None and "it" in match.groupdict():
            subject = _phrase(head_phrase(_first_thing(text[: match.start()]) or ""))
        if value is not None and subject is not None:
            old = match.groupdict().get("old")
            return Frame(subject, value, old and _phrase(old, value=True), "update")
    return Frame()


# A concrete value said in passing: a date (and time), a sum, a percentage, a number and its
# unit ("April 22 at 11 AM", "$1,200", "78%", "1,350 words", "5 interviews").
MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_CLOCK = r"\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)"
_RUN = (
    r"(?:"
    + MONTH
    + r"\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?(?:,?\s+at\s+"
    + _CLOCK
    + r")?|"
    + _CLOCK
    + r"|\d{1,2}:\d{2}\b|[$\u20ac\u00a3]\s?\d+(?:[.,]\d+)*(?:\s*[km]\b)?"
    r"|\d+(?:[.,]\d+)*\s*(?:%|percent)|\d{2,3}/\d{2,3}(?:\s*mm\s?hg)?\b"
    r"|(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(?:full\s+|whole\s+)?"
    r"(?:minutes|hours|days|weeks|months|years|sessions)\b"
    r"|\d+(?:[.,]\d+)*(?:ms|mb|gb|kb|tb|fps|hz|khz|mhz|ghz|rpm|kg|km|cm|mm|lbs?)\b"
    r"(?:\s+per\s+[a-z]+)?"
    r"|\d+(?:[.,]\d+)*[kKmM]?\b(?:\s+(?!(?:to|and|or|of|in|on|at|by|for|the|a|with|from|per"
    r"|this|that|these|those|last|next|now|so|but|after|before|since|because|when|which|while"
    r"|if)\b)[a-z][\w-]*){0,1}(?:\s+per\s+[a-z]+)?)"
)
_COUNTS: tuple[Gated, ...] = tuple(
    Gated(p, re.I)
    for p in (
        # "the number of mentees I've worked with has increased to 7"
        r"\b(?:the|my|our)\s+(?P<subj>(?:number|count|total|amount) of [\w' -]{2,40}?)\s+(?:has"
        r"|have|had)\s+(?:now\s+|recently\s+|just\s+)*"
        + _UPDATED
        + r"\s+(?:from\s+(?P<old>"
        + _RUN
        + r")\s+to\s+|to\s+)?(?P<val>"
        + _RUN
        + r")",
        # "my final draft reached 4,700 words", "the API's quota was adjusted to 1,200 calls",
        # "my practice test score has improved from 82% to 93%"
        r"\b(?:the|my|our)\s+(?P<subj>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+(?:has\s+|have\s+|had\s+"
        r"|was\s+|is\s+|got\s+|has been\s+|had been\s+|now\s+|recently\s+|just\s+|further\s+"
        r"|only\s+|already\s+|finally\s+|being\s+)*"
        + _UPDATED
        + r"\s+(?:further\s+)?(?:from\s+(?P<old>"
        + _RUN
        + r")\s+to\s+|to\s+|at\s+)?(?P<val>"
        + _RUN
        + r")",
        # "it's rescheduled to March 22 at 4:30 PM", "it was adjusted to 1,350 words"
        r"\b(?P<it>it|that|this)(?:'s\s+been|'s|\s+is|\s+was|\s+has been|\s+had been|\s+got)"
        r"\s+(?:now\s+|just\s+|since\s+)*(?P<subj>)"
        + _UPDATED
        + r"\s+(?:from\s+(?P<old>"
        + _RUN
        + r")\s+to\s+|to\s+)?(?P<val>"
        + _RUN
        + r")",
        # a change said as a noun: "the internet speed upgrade to 250 Mbps", "the rent increase
        # from $1,800 to $2,100"
        r"\b(?:the|my|our)\s+(?P<subj>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+(?:upgrade|downgrade"
        r"|increase|raise|bump|extension|reduction|cut|change|adjustment)\s+(?:from\s+(?P<old>"
        + _RUN
        + r")\s+)?to\s+(?P<val>"
        + _RUN
        + r")",
        # "the training got longer, it's now 10 hours weekly": an amount, not the time of day
        r"\b(?P<it>it|that)(?:'s|\s+is)\s+now\s+(?:at\s+|up\s+to\s+|down\s+to\s+)?(?P<subj>)"
        r"(?!" + _CLOCK + r"|\d{1,2}:\d{2}|" + MONTH + r"\b)(?P<val>" + _RUN + r")",
        # the amount said before the thing, and that it changed after: "my $200 emergency fund
        # ..., since I just increased it"
        r"\b(?:my|our)\s+(?P<val>[$\u20ac\u00a3]\s?\d+(?:[.,]\d+)*|\d+(?:[.,]\d+)*\s*%)\s+"
        r"(?P<subj>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\b[^.;!?]*\b(?:i|we)(?:'ve|\s+have)?\s+"
        r"(?:just\s+|recently\s+)?" + _UPDATED + r"\s+it\b",
        # "it showed a slight improvement to 135/82 mmHg"
        r"\b(?P<it>it|that|this)\s+(?:showed|shows|saw|had|got|made)\s+(?:a|an)\s+(?:[a-z]+\s+)?"
        r"(?P<subj>)(?:improvement|increase|decrease|drop|rise|jump|reduction)\s+to\s+(?P<val>"
        + _RUN
        + r")",
        # "moving the Zoom call with the creative director to April 22 at 11 AM"
        r"\b(?:mov|reschedul|push|shift|postpon|delay|bump|extend|rais|increas|lower|reduc|cut"
        r"|swap|switch"
        r"|chang|adjust|upgrad|downgrad)\w*\s+(?:back\s+|up\s+)?(?:the|my|our)\s+(?P<subj>[\w' -]"
        r"{2,60}?)\s+(?:back\s+|up\s+|down\s+)?to\s+(?P<val>" + _RUN + r")",
        # "the new April 25 deadline", "my new 1,350-word target", "the expanded 7-page guide"
        r"\b(?:the|my|our)\s+(?:new|updated|revised|latest|expanded|extended|adjusted|increased"
        r"|reduced)\s+(?P<val>\d+-[a-z]+|" + _RUN + r")\s+"
        r"(?P<subj>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\b",
        # "my API response time, which is currently at 180ms", "the memory usage, which is
        # currently averaging around 140MB per session": the value as it stands now
        r"\b(?:the|my|our)\s+(?P<subj>[\w'-]+(?:\s+[\w'-]+){0,4}?)\s*,?\s+(?:which|that)\s+"
        r"(?:is|are|'s)\s+(?:now\s+)?currently\s+(?:(?:at|around|about|roughly|approximately"
        r"|averaging|running at|sitting at)\s+)*(?P<val>" + _RUN + r")",
        # "my API response time is currently 180ms", "the average response time is around 220ms"
        r"\b(?:the|my|our)\s+(?P<subj>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+(?:is|are)\s+(?:currently\s+"
        r"(?:(?:at|around|about|roughly|approximately|averaging)\s+)*|(?:now\s+)?(?:around|about"
        r"|roughly|approximately|averaging)\s+)(?P<val>" + _RUN + r")",
        # "his current homework completion rate of 92%", "his recent math test score of 68%"
        r"\b(?:my|our|the|his|her|their)\s+(?:current|recent|latest)\s+(?P<subj>[a-z][\w'-]*(?:\s+[a-z][\w'-]*)"
        r"{0,3}?)\s+(?:of|at)\s+(?:(?:about|around|roughly|approximately)\s+)?(?P<val>"
        + _RUN
        + r")",
        # "I've got a portfolio review coming up on June 20": when a planned thing is
        r"\b(?:i|we)(?:'ve|\s+have)?\s+(?:got\s+)?(?:a|an|my|our|the)\s+(?P<subj>[a-z][\w'-]*"
        r"(?:\s+[a-z][\w'-]*){0,2}?)\s+(?:coming up|scheduled|planned|booked|set)\s+(?:on|for)\s+"
        r"(?P<val>" + _RUN + r")",
        # "my LDL cholesterol, which recently measured 102 mg/dL": a reading
        r"\b(?:the|my|our)\s+(?P<subj>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s*,?\s+(?:which|that)\s+"
        r"(?:now\s+|recently\s+|just\s+|last\s+)*(?:measured|read|came (?:in|back) at)\s+"
        r"(?:at\s+)?(?P<val>" + _RUN + r")",
        # "I secured 5 interviews", "I've completed 15 classification problems"
        r"\b(?:i|we)(?:'ve|\s+have|\s+had|'d)?\s+(?:now\s+|recently\s+|just\s+|already\s+|only"
        r"\s+|finally\s+|also\s+|since\s+)*(?:completed|secured|finished|solved|written|wrote"
        r"|published|reached|hit|added|landed|collected|saved|sold|mentored|read|attended"
        r"|interviewed|hired|booked|closed|signed|onboarded|run|ran|logged|passed)\s+(?:a total"
        r" of\s+|over\s+|about\s+|around\s+)?(?P<val>\d+(?:[.,]\d+)*)\s+(?P<subj>[a-z][\w-]*"
        r"(?:\s+(?!(?:and|or|with|in|on|at|for|to|of|by|from|so|but|the|a|my|our)\b)[a-z][\w-]*)?)",
    )
)
_FIRST_THING = re.compile(
    r"\b(?:the|my|our)\s+(?P<np>[\w'-]+(?:\s+(?!(?:is|was|are|were|got|gets|has|had|have|went"
    r"|goes|became|keeps|kept|checked|measured|tested|showed|seems|looks)\b)[\w'-]+){0,2})",
    re.I,
)


def _first_thing(text: str) -> str | None:
    """The first noun phrase after "the", "my" or "our", to a verb ("my commute got longer"):
    what an "it" stands for."""
    match = _FIRST_THING.search(text)
    return match.group("np") if match else None


_HEAD_CUT = re.compile(
    r"\s(?:with|for|from|to|on|in|at|by|of(?! \w+ of)|that|which|who|i|i've|we|we've)\b", re.I
)


def head_phrase(phrase: str | None) -> str | None:
    """A subject without what qualifies it ("Zoom call with the creative director": Zoom
    call), keeping "number of X"."""
    if not phrase:
        return phrase
    if re.match(r"(?:number|count|total|amount) of ", phrase, re.I):
        rest = _HEAD_CUT.search(phrase, phrase.index(" of ") + 4)
        return phrase[: rest.start()] if rest else phrase
    cut = _HEAD_CUT.search(" " + phrase)
    return (" " + phrase)[: cut.start()].strip() if cut else phrase


# "the deadline's now March 3", "the party's moved to Saturday": the 's is "is" (or "has").
# (not a name's after a preposition: "the dinner is at Giorgio's on Friday")
_IS = re.compile(
    r"(?<!\bat )(?<!\bin )(?<!\bon )(?<!\bto )(?<!\bby )(?<!\bfrom )(?<!\bwith )"
    r"\b(\w+)'s\s+(?=(?:now|moved|going|due|at|on|in|set|scheduled|booked|pushed|changed"
    r"|rescheduled|postponed|delayed|back|still|with|out|gone|off|cancell?ed|canceled)\b(?!-))",
    re.I,
)
_HAS_BEEN = re.compile(r"(\w)'s\s+(?=been\b)", re.I)  # "standup's been pushed to 10"


# "Keep" that keeps something going, not a choice kept: "keep these tips in mind", "keep an
# eye out for jargon", "keep the ideas flowing", "keep tracking my progress".
_KEEP_IDIOM = re.compile(
    r"\bkeep(?:s|ing)?\s+(?:(?!using\b|running\b)[a-z]+ing\b|an eye\b[^,.;!?]*|track of\b"
    r"|(?:[\w']+\s+){0,3}?(?:in mind"
    r"|going|flowing|moving|rolling|coming|up|on track|in check|in the loop|in touch)\b)",
    re.I,
)


# A deed before the choice, joined by "and": "we gave up and switched to Postgres", "I caved and
# went with the blue one" choose as "we switched to Postgres" does.
_AND_CHOSE = re.compile(
    r"\b(we|i|they)\s+(?:[a-z']+\s+){1,2}?and\s+(?=(?:switched|went with|moved|picked|chose"
    r"|settled on|opted for|booked|hired|ordered)\b)",
    re.I,
)
# A choice said as a verb and a label: "We set the wedding date: October 12", "we picked the
# venue: Hawthorne Barn" say the date and the venue are those (read as "the venue is ..."; one
# with an article after the colon is read as its own pattern: "picked the venue: the Glasshouse").
_CHOSE_LABEL = re.compile(
    r"\b(?:we|i)\s+(?:just\s+|finally\s+|officially\s+)?(?:set|picked|chose|decided on"
    r"|locked(?:\s+in)?|booked|confirmed|finali[sz]ed|settled on|fixed)\s+((?:the|our|my)\s+"
    r"[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3})\s*:\s+(?=\S)(?!(?:the|a|an)\s)",
    re.I,
)
# Texting's spelling of "through" ("deploys go thru github actions").
_THRU = re.compile(r"\bthru\b", re.I)
# A rate said as a count of a thing per period ("3 meals a day", "8000 steps a day"): the thing
# counted is what it is about, so "switch to 2 meals a day" changes it (a unit is no thing:
# "30 min a day" is a time allowed).
RATE = re.compile(
    r"^\d[\d,.]*\s+(?!(?:mins?|minutes?|hours?|hrs?|secs?|seconds?|miles?|km|kms|kg|lbs?"
    r"|pages?|words?|times)\b)(?P<what>[a-z]{3,})\s+(?:a|an|per|each)\s+"
    r"(?:day|week|month|year|night|morning|evening|weekday)\b\W*$",
    re.I,
)
# A name in quotes is a name: "we're reading \"Wonder\" instead" (no quote ends a phrase).
_QUOTED = re.compile('["\u201c]([^"\u201c\u201d,.;:!?]{1,60})["\u201d]')


@lru_cache(maxsize=4096)
def frame(sentence: str) -> Frame:
    """The choice a sentence states, or an empty frame (cached: a run reads a sentence for
    its decisions and its constraints, and chat repeats itself)."""
    plain = _QUOTED.sub(r"\1", _EMOJI.sub(" ", sentence.replace("\u2019", "'")))
    text = _LEAD.sub("", _THRU.sub("through", " ".join(plain.split())))
    text = _KEEP_IDIOM.sub("", _IS.sub(r"\1 is ", _HAS_BEEN.sub(r"\1 has ", text)))
    text = _AND_CHOSE.sub(r"\1 ", text)
    text = _CHOSE_LABEL.sub(r"\1 is ", text)
    found = _frame(sentence, text)
    if found.subject and (clause := _CLAUSE_BEFORE.match(found.subject)) is not None:
        # "marcos neighbors complained so practice is at ...": what is at it is the practice
        found = replace(found, subject=found.subject[clause.end() :] or None)
    if found.subject and _VERB_IN_SUBJECT.search(found.subject) and not found.change:
        return Frame()  # "Marcus is heads-down on the migration": told, not chosen
    if found.subject and (modal := _MODAL_AFTER.search(found.subject)) is not None:
        found = replace(found, subject=found.subject[: modal.start()] or None)  # "CI should"
    undone = _UNDOING_LEAD.match(text)
    if undone and (found.empty or _UNDOING_LEAD.match(found.value or "")):
        # "nvm foundry is back": the lead-in is no part of the value
        found = _frame(sentence, text[undone.end() :])
        found = replace(found, change=found.change or ("reverse" if found.value else None))
    found = replace(found, value=_with_date(text, found.value))
    if found.subject:  # (without one, a name after a comma is who is spoken to: "pizza, Mike")
        found = replace(found, value=named_value(text, found.value))
    if found.subject is None and found.value and (rate := RATE.match(found.value)):
        found = replace(found, subject=rate["what"])  # "switch to 2 meals a day": the meals
    if (
        found.subject
        and found.change in ("update", "replace")
        and found.old is None
        and _ONLY_VALUE.match(found.subject)
        and value_kind(found.subject) == value_kind(found.value or "") != "thing"
    ):
        # "the 22nd got pushed to the 29th": the choice the 22nd was the value of changed
        return replace(found, subject=None, old=_ARTICLE.sub("", found.subject))
    return found


def _frame(sentence: str, text: str) -> Frame:
    """`frame` of a sentence, given its text with its lead-in words taken off."""
    found = aside(text)
    if not found.empty:
        return found
    found = _by_pattern(text)
    if found.empty:
        found = _switched(text)
    if found.empty:
        found = next(
            (f for f in (_commitment(text), _copula(text), _terse(text), _plan(text)) if f.value),
            found,
        )
    if found.change is None and (set_at := _set_at(text)) is not None:
        # (over a frame without a subject, one whose value ran on into the amount: "set the
        # budget for the kitchen reno at $25,000 max" is no budget of "kitchen reno at ...", or
        # one with less of it: "held on Friday, June 7" is not only "Friday")
        told, settled = set_at.value or "", found.value or ""
        if found.subject is None or told in settled or (settled and settled in told):
            found = set_at
    if found.empty:
        found = _moved_value(text)
        if found.empty and (better := _BETTER_TAKEN.search(text)) is not None:
            found = Frame(
                value=_phrase(better.group("val"), value=True),
                old=_phrase(better.group("old"), value=True),
                change="replace",
            )
        instead = _DOING_INSTEAD.search(text)
        if found.empty and instead is not None:
            value = _phrase(instead.group("val"), value=True)
            old = _instead_of(text[instead.start("val") :], value) if value else None
            found = Frame(value=value, old=old, change="replace") if value else Frame()
        if found.empty:
            found = _named_over(text)
        if found.value:
            return found
        if _REVERSAL.search(text):
            return Frame(change="reverse")
        if _CANCEL.search(text):
            return Frame(change="cancel")
        return found
    change = found.change
    if change in (None, "reverse"):
        change = _change_of(text, change)
    if change is None and _INSTEAD.search(sentence):
        change = "replace"
    if change is None and found.subject and found.value and _NOW.search(text):
        change = "update"
    old = found.old or _instead_of(text, found.value)
    subject = found.subject
    split = _FROM.match(subject or "") if change in ("update", "replace") else None
    if split is not None and concrete(split.group("old")):
        # "increased my weekly word count from 1,200 to 1,500 words"
        subject, old = split.group("subj"), old or split.group("old")
    # "going to 20-minute slots": slots, 20-minute; "Organizers moved me to 45 minute slot":
    # the slot's value, not the organizers' (but "the movers pushed us to the 30th")
    unnamed = subject is None or _MOVED_US.search(text) is not None
    counted = _COUNTED.match(found.value or "") if unnamed else None
    if counted is not None:
        subject, found = counted["noun"], replace(found, value=counted["count"])
        if change is None and _GOING_TO.search(text):
            change = "update"  # "we're going to 20-minute slots": from another size
    named = _NAMED_OLD.match(old or "") if subject is None and found.value else None
    if named and value_kind(named["old"]) == value_kind(found.value or "") != "thing":
        subject, old = named["subj"], named["old"]  # "release day Tuesday → Thursday"
    renewed = _RENEWED.match(subject or "") if _THE_NEW.search(text) else None
    if renewed is not None:  # "our new photographer is Ben Cho": the photographer changed
        subject, change = renewed["rest"], change or "update"
    if subject and old and subject.lower() in _EVERYONE:
        subject = None  # "moved the team off 1Password onto Bitwarden": who moved, not what
    verbish = subject is not None and subject.lower().split()[0] in _VERBISH
    if subject and (
        (verbish and not _IS_TIME.match(subject)) or _SPEAKERS & set(subject.lower().split())
    ):
        # "the 25,000 cap can stretch to 32k": a verb, not what changed; "after the
        # benchmarks we're going with CockroachDB": who chose, not what
        subject = None
    if subject is None and old and _ARROW.search(text) and _KEYED.match(old):
        if value_kind(old) == "thing" != value_kind(found.value or ""):
            subject, old, change = old, None, "update"  # "ttl -> 15m": the TTL's new value
    modified = _MODIFIED.match(found.value or "") if subject is None else None
    if modified is not None:
        subject = modified["noun"]  # "the 8:15 train", then "the 7:40 train": the train's time
    found = replace(found, subject=subject)
    if change is None and old is not None:
        change = "replace"  # "Rome it is, not Florence"
    return found.replacing(old, change)


# A weekday and the date after it, which a comma does not part: "Wednesday, June 12".
_WEEKDAY_DATE = re.compile(
    r"\b(?P<day>(?:mon|tues|wednes|thurs|fri|satur|sun)day),?\s+(?P<date>(?:jan|feb|mar|apr"
    r"|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?)\b",
    re.I,
)


def _with_date(text: str, value: str | None) -> str | None:
    """A value that is a weekday, with the date said after it ("rescheduled to Wednesday,
    June 12": the value ended at the comma)."""
    dated = _WEEKDAY_DATE.search(text) if value else None
    if dated is None or dated["day"].lower() != (value or "").lower():
        return value
    return dated.group(0)


def named_value(text: str, value: str | None) -> str | None:
    """A value that says who someone is, with the name said after it at the end of the
    sentence ("our photographer is now her associate, Marco Ruiz": the value ended at the
    comma): the name."""
    if not value or not value.islower() or len(value.split()) > 3:
        return value
    said = re.search(
        rf"\b(?:her|his|their|my|our|your|a|an|the)\s+{re.escape(value)}(?=,)", text, re.I
    )
    named = _APPOSITIVE.match(text, said.end()) if said else None
    return named["val"].rstrip(" .!") if named else value


# A subject that is only a value (a date, a time, an amount, with an article at most): "the
# 22nd", "Tuesday", "$85/hour". What changed is the choice it was the value of.
_ONLY_VALUE = re.compile(
    r"^(?:the\s+|that\s+|this\s+)?(?:[$\u20ac\u00a3]?\d[\w:.,/$%-]*(?:\s*(?:am|pm))?"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?)$",
    re.I,
)
# Who moved the speaker, said first, may not be what was moved.
_MOVED_US = re.compile(
    r"\b(?:moved|bumped|switched|put|pushed|upgraded|downgraded|shifted)\s+(?:me|us)\s+"
    r"(?:up\s+|down\s+|over\s+)?(?:to|onto|into)\b",
    re.I,
)
_RENEWED = re.compile(r"^(?:new|updated|revised)\s+(?P<rest>\S.*)$", re.I)
# (a new one of a role said as ours: "we hired a new designer" may add one)
_THE_NEW = re.compile(
    r"(?:\b(?:our|my|the|their)\s+|(?:^|[,;:]\s*|\bso\s+|\band\s+))(?:new|updated|revised)\s", re.I
)
# A thing named by when, how often or which size of it is chosen ("the 8:15 train", "monthly
# billing", "the large plan"): what it is of is its subject, so another time, frequency or
# size of it replaces it.
_MODIFIED = re.compile(
    r"^(?:\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2}|daily|weekly|bi-?weekly|monthly"
    r"|bi-?monthly|quarterly|annual|yearly|nightly|hourly|morning|afternoon|evening|overnight"
    r"|small|medium|large|basic|standard|premium|free|paid)\s+(?P<noun>[a-z]{3,})$",
    re.I,
)
# Going to a count of a unit is leaving the count before it.
_GOING_TO = re.compile(r"\b(?:go|goes|going|went|gone)\s+(?:back\s+)?to\b", re.I)
# What a change replaces, said after what it is about: "release day Tuesday".
_NAMED_OLD = re.compile(r"^(?P<subj>[a-z][a-z ]*?)\s+(?P<old>\S+)$")
# A count of a unit said with what it counts: "20-minute slots", "45 minute slot".
_COUNTED = re.compile(
    r"^(?:a\s+)?(?P<count>(?:\d[\d.,]*|one|two|three|four|five|six|seven|eight|nine|ten"
    r"|twelve|fifteen|twenty|thirty|forty|forty-five|sixty|ninety)[\s-](?:minute|hour|day"
    r"|week|month|year|page|seat|person"
    r"|mile|gb|mb|tb)s?)\s+(?!ones?$)(?P<noun>[a-z]{3,}s?)$",
    re.I,
)


def _cut(value: str | None) -> str | None:
    """A value too long to be one, cut where a clause about it begins ("the Leica SP8 in the
    core facility" -> "the Leica SP8")."""
    if value is None or len(value.split()) <= 5:
        return None
    cut = _VALUE_CUT.search(" " + value)
    head = (" " + value)[: cut.start()].strip() if cut else None
    return head if concrete(head) else None  # "capped at 50 MB per file": no value first


def _by_pattern(text: str) -> Frame:
    """The first of `_PATTERNS` that matches with a usable phrase."""
    arrows = _ARROW.search(text) is not None
    lowered = folded(text)
    for (pattern, change), needs in zip(_PATTERNS, _NEEDS, strict=True):
        if (pattern is _ARROWS and not arrows) or not needs.may_match(lowered):
            continue
        match = _leftmost_with_a_subject(pattern, text)
        if match is None:
            continue
        groups = match.groupdict()
        value = _phrase(groups.get("val"), value=True)
        if value is None and change in ("update", "replace"):
            value = _phrase(_cut(groups.get("val")), value=True)  # "moved to X in the lab"
        old = _phrase(groups.get("old"), value=True)
        subject = _phrase(groups.get("subj") or groups.get("subj2"))
        if change == "cancel" and old is None and _PRONOUN.fullmatch(groups.get("old") or ""):
            # "the chili was too spicy so I'm ditching it, lentil soup for lunches": what it
            # drops was said before; what comes after replaces it
            then = _then(text[match.end() :])
            if then.value:
                return replace(then, change="replace")
        if value is None and (old is None or groups.get("val")):
            continue  # no value, or a value that is no phrase ("We'll rent a car instead...")
        if groups.get("subj") and subject is None:
            continue  # "We'll go with X": "we" is who chose, not what about
        if (
            subject is not None
            and subject.lower().split()[-1] in _NOT_TOPIC
            and pattern not in _NAMINGS  # "the cat is called Biscuit": a name is chosen
        ):
            continue  # "my sister lives in Boston": told, not chosen
        if change == "cancel" and old is None:
            continue
        if change == "cancel":
            # "drop Free, we're taking Orange", "we don't use Jira anymore, bugs go into Linear
            # now": the cancel names what the choice after it replaces
            then = _then(text[match.end() :])
            if then.value:
                then = then.replacing(old, "replace")
                return replace(then, subject=subject or then.subject)
        # A plain choice that names no subject still commits ("we'll stick with the vendor").
        commit = pattern is _IT_IS or (change is None and "subj" not in pattern.groupindex)
        filled = _who_fills(value, text, match.end()) if subject is None and value else None
        if filled and (name := _phrase(filled, value=True)):
            subject, value = value, name  # "we picked our DJ, Sam Rivera": the DJ is Sam Rivera
        return Frame(subject, value, old, change, commit=commit)
    return Frame()


def _leftmost_with_a_subject(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first match of `pattern` whose subject, if it names one, is a phrase: a match from
    the start of "the park flooded so the run is relocating to X" has a clause for its subject,
    the one after "so" the run. (A few tries: each is a search of the sentence.)"""
    match = pattern.search(text)
    for _ in range(SUBJECT_TRIES):
        if match is None or not (subject := match.groupdict().get("subj")):
            break
        # (nor a clause whose verb comes later: "rent went up so the savings thing has to drop
        # to $120" is no raise of "so the savings thing has"; "the gala is relocated to the
        # Grand Hall" is the gala's)
        later_verb = _AUXILIARY_END.search(subject) and _VERB_TO.match(match["val"] or "")
        if _phrase(subject) and not later_verb:
            break
        match = pattern.search(text, match.start() + 1)
    return match


SUBJECT_TRIES = 3
_VERB_TO = re.compile(r"[a-z]+\s+to\b")  # "drop to $120", "go to 32k"


def _who_fills(role: str, text: str, end: int) -> str | None:
    """The name after a comma that ends `text` at `end`, when what was chosen is a role ("our
    DJ, Sam Rivera", "a new designer, Priya"), not a thing with a name of its own ("Postgres,
    Heroku")."""
    named = _APPOSITIVE.match(text, end)
    if named is None or (concrete(role) and not (role.isupper() and len(role) <= 4)):
        return None  # a short acronym ("DJ", "CTO") is a role
    return named["val"]


# "I switched gyms, I'm at Planet Fitness now": a plural names the subject, the rest the value;
# "the kids renamed the puppy, he's Waffles now", "we renamed the app to Tally".
_SWITCHED = re.compile(
    r"\b(?:switch(?:ed|ing)?|chang(?:ed|ing)|swapp(?:ed|ing))\s+(?!(?:my|our|their)\s+minds\b)"
    r"(?P<subj>(?:[a-z]{3,}\s+)?[a-z]{3,}s)"
    r"\b\s*"
    r"(?:[,;:\u2014-]\s*|\s+and\s+)(?P<rest>.+)$",
    re.I,
)
_RENAMED = re.compile(
    r"\brenam(?:ed|ing|e)\s+(?P<subj>DETNP4)(?:\s+to\s+|\s*[,;:\u2014-]\s*(?:(?:he|she|it|they)"
    r"(?:'s|\s+is|'re|\s+are)\s+(?:now\s+|called\s+)?))(?P<val>(?-i:[A-Z])[\w.+&'-]*"
    r"(?:\s+(?-i:[A-Z0-9])[\w.+&'-]*){0,2})".replace("DET", _DET).replace("NP4", _NP4),
    re.I,
)
_AT_NOW = re.compile(
    r"\b(?:i'm|i am|we're|we are|it's|it is|they're|they are|(?:he|she)(?:'s|\s+is)"
    r"|(?:the|my|our)\s+[a-z]+\s+(?:is|are))\s+(?:at|with|on|using)\s+(?P<val>(?-i:[A-Z])[\w.+&'-]*"
    r"(?:\s+(?-i:[A-Z0-9])[\w.+&'-]*){0,2})\s+now\b",
    re.I,
)


# A change of mind about a subject, the new value first after it: "changed my mind about date
# night, Saturday works better".
_MIND = re.compile(
    r"\bchanged?\s+(?:my|our)\s+minds?\s+(?:about|on)\s+(?P<subj>DETNP4)\s*[,;:\u2014-]\s*"
    r"(?P<rest>.+)$".replace("DET", _DET).replace("NP4", _NP4),
    re.I,
)


# A value moved by any verb of change, with what it was when said: "kickoff slid from 10am to
# 1pm", "moved it from 8:30 to 8pm", "dropping that from 15% to 8%", "pushed to the 17th".
_MOVED_VALUE = Gated(
    r"(?:^|[,;:]\s+|\b(?:and|so|but)\s+)(?:(?:the|our|my)\s+)?"
    r"(?P<subj>[\w'-]+(?:\s+[\w'-]+){0,2}?)?"
    r"\s*\b(?:(?:got|has been|have been|was|were|is|are|just|been|gets|will be|can|could|'s"
    r"|has to|have to|had to|needs? to|will|should|must|'ll)\s+)*"
    r"(?P<verb>mov\w*|push\w*|sl[iu]d\w*|slipp?\w*|shift\w*|bump\w*|chang\w*|switch\w*"
    r"|go(?:es|ing)?\s+(?:up|down)|went\s+(?:up|down)|c[ao]me\s+down"
    r"|reschedul\w*|postpon\w*|delay\w*|rais\w*|lower\w*|dropp?\w*|cut\w*|upp?ed|increas\w*"
    r"|decreas\w*|reduc\w*|stretch\w*|extend\w*|jump\w*)"
    r"(?:\s+(?:it|that|this|them|those|things|ours|mine))?(?:\s+(?:back|up|down|out|over|forward))?"
    r"(?:\s+from\s+(?:the\s+)?(?P<old>(?:[^,;:.!?]|(?<=\d)[:.,](?=\d))+?))?"
    r"\s+to\s+(?:the\s+)?(?P<val>(?:[^,;:.!?]|(?<=\d)[:.,](?=\d))+?)"
    r"(?=\s*(?:[;!?]|[,:.](?!\d)|$)|\s+(?:since|because|as|so|for|and|but|starting|from now"
    r"|now|instead|btw|sharp|this|next|if|going forward|during|by|after|before|when|while"
    r"|thanks|due|with|in|on|per|to|over the|over a)\b)",
    re.I,
)


# What is done instead, said with no subject: "no lasagna, doing a big paella instead".
_DOING_INSTEAD = Gated(
    _rx(
        r"(?:^|[,;]\s*|\b(?:and|so|but)\s+)(?:(?:i|we|i'm|we're|i am|we are|i'll|we'll|let's"
        r"|gonna|just)\s+)*(?:doing|using|getting|taking|trying|making|having|ordering|picking"
        r"|booking|buying|choosing|hiring|going with|do|get|use|take|try|make|have|order|pick"
        r"|book|it's|it is|it'll be|joined|got|picked|booked|ordered|chose|bought|hired"
        r"|signed up for|went with|serving|running|driving"
        r"|flying|staying at|staying in|wearing|hosting|building|learning|studying"
        r"|renting|leasing|switching to|moving to|going to|heading to|meeting at|giving us"
        r"|gave us|given us|giving me|gave me|given me|grabbed|grab|grabbing|went for|going for"
        r"|opted for|opting for|settled on|bought|buying"
        # any verb of what the speakers are doing now: "so we're reading Wonder instead"
        r"|(?<=\bwe're )[a-z]{3,}ing|(?<=\bi'm )[a-z]{3,}ing|(?<=\bwe are )[a-z]{3,}ing)"
        r"\s+DET(?P<val>NP)\s+instead\b"
    )
)
# A name chosen over another, whatever the verb before it: "the organizer has given us hall 9
# instead of hall 7", "Ana will report to Sarah Lindgren rather than Michael".
_NAMED_OVER = re.compile(
    r"(?P<val>(?-i:[A-Z])[\w.&'+-]*(?:\s+(?-i:[A-Z0-9])[\w.&'+-]*){0,2}|[\w-]+\s+\d[\w.-]*"
    r"|[$\u20ac\u00a3]?\d[\w.,:/$%-]*(?:\s+[a-z]+)?)\s+(?:instead of|rather than|in place of)\s+"
)


# What offers or weighs an option rather than taking it: "you could use X instead of Y".
_OFFERED = re.compile(
    r"\b(?:could|would|might|may|maybe|should|perhaps|consider|considering|suggest|recommend"
    r"|how about|what about|prefer|if|whether)\b|\?|^\W*you\b",
    re.I,
)


def _named_over(text: str) -> Frame:
    """A change that names its value and what it replaces around "instead of" (`_NAMED_OVER`),
    the value a name, a number or a numbered thing ("hall 9"); or an empty frame."""
    match = _NAMED_OVER.search(text)
    if match is None or _OFFERED.search(text[: match.end()]):
        return Frame()
    value = _phrase(match.group("val"), value=True)
    old = _instead_of(text[match.start("val") :], value) if value else None
    if (
        value is None
        or old is None
        or value.split()[0].lower() in _NOT_SUBJECT | _VERBISH
        or not _NAMED_OVER.match(f"{old} instead of ")  # a name or a number for a name or one
        or value_kind(old) != value_kind(value)
    ):
        return Frame()
    return Frame(value=value, old=old, change="replace")


# One option found better than the other, and taken: "the walnut looked way better than the
# white oak, so that's what we ordered".
_BETTER_TAKEN = Gated(
    _rx(
        r"(?:^|[,;]\s*|\b(?:and|but|so)\s+)(?:the\s+)?(?P<val>NP4)\s+(?:looked|looks|was|is"
        r"|felt|feels|worked|works|seemed|seems|tested|sounded|sounds)"
        r"\s+(?:way\s+|much\s+|a lot\s+|far\s+|so much\s+)?"
        r"(?:better|nicer|cheaper|faster|easier)\s+than\s+DET(?P<old>NP4)\s*,?\s+so\s+"
        r"(?:that's|that is|thats|it's|it is)\s+what\s+(?:we|i)\b"
    )
)


# A thing set to a date, a time or an amount, said with a verb first or as a passive: "I'm
# setting my monthly savings transfer at $500", "capping the wedding guest list at 150
# people", "the quarterly review will be held on Friday, June 7".
_SET_AT = Gated(
    _rx(
        r"(?:\b(?:(?:set|setting)(?:\s+up)?|cap|capping|fix|fixing|limit|limiting"
        r"|(?<!the )(?<!a )(?<!my )(?<!our )schedul(?:e|ing))\s+(?:the|a|an|our|my|his|her"
        r"|their|those|these)\s+(?P<subj>NP)"
        r"|\b(?:the|our|my)\s+(?P<subj2>NP4)\s+(?:will be|is|are|has been|was|'s)\s+"
        r"(?:held|scheduled|set|booked|fixed|capped|limited))"
        r"\s+(?:at|on|to)\s+(?P<val>[^;!?]+)"
    )
)
# Where a value said after "at" or "on" ends: before what it goes into or why.
_VALUE_END = re.compile(
    r"\s+(?:into|in|for|with|from|because|since|so|and|but|at (?:an?|the)|on (?:an?|the|my|our)"
    r"|per head)\b"
    r"|,\s+(?!\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)|\.(?!\d)",
    re.I,
)


def _set_at(text: str) -> Frame | None:
    """The subject and the date, time or amount it is set to (`_SET_AT`), if the value is one
    of those: a thing after "at" is a place, not a setting."""
    found = _SET_AT.search(text)
    if found is None:
        return None
    subject = _phrase(found.group("subj") or found.group("subj2"))
    value = _phrase(_VALUE_END.split(found.group("val"), maxsplit=1)[0], value=True)
    if subject is None or value is None:
        return None
    if value_side(value) not in ("time", "amount") and not re.match(r"[$\u20ac\u00a3]?\d", value):
        return None
    if not _names_a_thing(subject):
        return None
    return Frame(subject, value)


def _moved_value(text: str) -> Frame:
    """A date, time or amount moved to another ("pushed to the 17th"), with the value it was
    when the sentence says it and it is of the same kind, and the subject said before the
    verb when it is one (not "it", not who moved it)."""
    moved = _MOVED_VALUE.search(text)
    if moved is None:
        return Frame()
    value = _phrase(moved.group("val"), value=True)
    if value is None or not _A_SETTING.match(value):
        return Frame()
    old = _phrase(moved.group("old"), value=True) if moved.group("old") else None
    if old is not None and value_kind(old) != value_kind(value):
        return Frame()
    subject = _phrase(_AUXILIARY_END.sub("", moved.group("subj") or ""))
    if subject is not None and not _names_a_thing(subject):
        subject = None
    return Frame(subject, value, old, "update")


# How a change happened, said before its verb: no subject ("gradually increase to 3 liters").
_ADVERBS = frozenset(
    "gradually finally recently actually basically probably eventually slowly quickly suddenly"
    " really totally already officially apparently".split()
)
# A verb's helper after its subject: "our ratings have (increased)", "episodes have (dropped)".
_AUXILIARY_END = re.compile(r"\s+(?:have|has|had|is|are|was|were)$", re.I)


# A value that is a date, a time or an amount from its first word: "the 17th", "1pm", "8%",
# "$300", "90", "Friday" (not "a concert on July 22", "GitHub repository with 150 commits").
_A_SETTING = re.compile(
    r"(?:[$\u20ac\u00a3]\s?\d|\d|(?:mon|tues|wednes|thurs|fri|satur|sun)day"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d|noon\b|midnight\b"
    r"|(?:next|this)\s+(?:week|month|year|quarter|sprint)\b)",
    re.I,
)


def _names_a_thing(subject: str) -> bool:
    """Whether words said before a verb are what changed, not who changed it or how ("I've
    managed to", "we", "can stretch")."""
    words = subject.lower().split()
    return not (
        words[0] in _NOT_SUBJECT | _VERBISH
        or words[-1] in _VERBISH
        or (len(words) == 1 and words[0] in _ADVERBS)  # "gradually"
        or subject.lower() in _EVERYONE
        or _SPEAKERS & set(words)
    )


def _switched(text: str) -> Frame:
    """A change said of a kind of thing ("switched gyms"), a name ("renamed the puppy") or a
    subject one changed one's mind about."""
    mind = _MIND.search(text)
    if mind is not None:
        rest = mind.group("rest")
        first = _CONCRETE.match(rest)
        value = _then(rest).value or (_phrase(first.group(0), value=True) if first else None)
        subject = _phrase(_ARTICLE.sub("", mind.group("subj")))
        if subject is not None and value is not None:
            return Frame(subject, value, None, "replace")
    renamed = _RENAMED.search(text)
    if renamed is not None:
        subject = _phrase(_ARTICLE.sub("", renamed.group("subj")))
        value = _phrase(renamed.group("val"), value=True)
        if subject is not None and value is not None:
            return Frame(f"name of {subject}", value, None, "update")
    switched = _SWITCHED.search(text)
    if switched is None:
        return Frame()
    rest = switched.group("rest")
    at = _AT_NOW.search(rest)
    then = Frame(value=_phrase(at.group("val"), value=True)) if at else _then(rest)
    if then.value is None:
        return Frame()
    return Frame(switched.group("subj")[:-1], then.value, then.old, "replace")


def _then(rest: str) -> Frame:
    """The plain choice said after a cancellation, in the same sentence."""
    rest = re.sub(r"^(?:[\s,;:\u2014-]|\b(?:and|then|so)\b)+", "", rest)
    rest = _FROM_NOW_ON.sub("", rest)  # "Jira's gone, Linear from now on"
    found = _by_pattern(rest)
    if found.change in (None, "update") and found.value:
        who = (found.subject or "").lower() in _EVERYONE
        return replace(found, subject=None, change=None) if who else replace(found, change=None)
    found = next((f for f in (_commitment(rest), _copula(rest), _plan(rest)) if f.value), Frame())
    if not found.value and (instead := _FOR_WHAT.match(rest)):
        # "dropping the chili, lentil soup for lunches": what replaces it, and for what
        found = Frame(_phrase(instead["subj"]), _phrase(instead["val"], value=True))
    if not found.value and (everything := _ALL_IN.search(rest) or _GOT.match(rest)):
        found = Frame(value=_phrase(everything.group("val"), value=True))
    named = (
        (_LAST_NAME.search(rest) or _GOING_WITH.search(rest) or _WORKING_FROM.search(rest))
        if not found.value
        else None
    )
    # "we're dropping Buttondown, we need better analytics, so Beehiiv": the name it ends on
    return Frame(value=_phrase(named.group("val"), value=True)) if named else found


_FROM_NOW_ON = re.compile(
    r"\s+(?:from now on|from here on(?: out)?|going forward|moving forward|for good)\s*[.!]*$", re.I
)
_PRONOUN = re.compile(r"(?:it|that|this|them|those)", re.I)
# A replacement said without a verb, after what it replaces was dropped: "lentil soup for lunches".
_FOR_WHAT = _rx(r"^DET(?P<val>NP4)\s+for\s+DET(?P<subj>NP4)END")
# An arrow from an old value to a new one: "pickup day Monday → Wednesday", "ttl -> 15m".
_ARROW = re.compile(r"\u2192|->|=>|\u27f6")
# A setting's name: one to three words, no digits ("ttl", "cache TTL", "max retries").
_KEYED = re.compile(r"^[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2}$")
# Who speaks, never what a choice is about: "after the benchmarks we're going with X".
_SPEAKERS = frozenset({"i", "i'm", "we", "we're", "we've", "i've", "they", "they're", "you"})
# Who uses a choice or moved to it, never what it is about: "everyone is on Teams now",
# "moved the team off 1Password onto Bitwarden".
_EVERYONE = frozenset(
    {"everyone", "everybody", "all of us", "the whole team", "the team", "team", "us"}
)
# Where everything (or what was dropped) is now: "we ditched Jira, everything is in Linear now",
# "the docs moved off GitBook, they live on Mintlify now".
_ALL_IN = _rx(
    r"(?:^|[,;]\s*)(?:(?:everything|it all|all of it|all our \w+|they|it)\s+(?:is|'s|are|'re"
    r"|goes|go|lives|live|runs|run)\s+"
    r"(?:now\s+)?(?:in|on|through|via)|(?:we|i)\s+(?:moved|migrated|switched|put)\s+"
    r"(?:everything|it all|all of it)\s+(?:over\s+)?(?:to|into|onto|in|on))\s+DET(?P<val>NP)END"
)
# What was got in its place: "returned the MV7, got a Rode PodMic instead".
_GOT = re.compile(
    r"(?:(?:we|i)\s+)?(?:got|bought|ordered|grabbed|picked up|went with)\s+"
    r"(?:(?:a|an|the|some)\s+)?(?P<val>[^,;.!?]{2,40}?)(?:\s+instead)?\s*[.!]*$",
    re.I,
)
# What is gone with instead: "dropping React Native and going native with Swift".
_GOING_WITH = re.compile(
    r"\b(?:going|go|went|moving|switching)\s+(?:\w+\s+)?(?:with|to)\s+(?P<val>(?-i:[A-Z])[\w.+&-]*"
    r"(?:\s+(?-i:[A-Z0-9])[\w.+&-]*){0,2})",
    re.I,
)
# Where the speaker is now: "I cancelled WeWork, working from the library now".
_WORKING_FROM = re.compile(
    r"\b(?:working|studying|staying|living|based)\s+(?:from|at|in|out of)\s+(?:the\s+|a\s+|my\s+)?"
    r"(?P<val>[\w'-]+(?:\s+(?!now\b)[\w'-]+)?)",
    re.I,
)
# A name that ends a sentence as its last clause: ", so Beehiiv."
_LAST_NAME = re.compile(
    r"(?:^|[,;:\u2014]\s*)(?:so|then|now|and)?\s*(?P<val>(?-i:[A-Z])[\w.+&-]*"
    r"(?:\s+(?-i:[A-Z0-9])[\w.+&-]*){0,2})(?:\s+(?:now|instead|it is))?\s*[.!]*$",
    re.I,
)


_FROM = re.compile(r"^(?P<subj>.+?)\s+from\s+(?P<old>.+)$", re.I)
# What is set aside, after the words that set it aside.
_OLD = (
    r"\s+(?:(?:the|our|my|a|an)\s+)?(?P<old>[^,;.!?]{1,40}?)"
    r"(?=\s*(?:[,;.!?]|$)|\s(?:for|because|bc|cuz|since|so|but|and)\b)"
)
_INSTEAD_OF = re.compile(
    r"(?:\b(?:instead of|rather than|in place of)|,\s*not|\bover(?=\s+(?:the\s+)?(?-i:[A-Z])))"
    + _OLD,
    re.I,
)
# The alternative set aside right after the value, with no comma: "a podcast not a poster".
_NOT_AFTER = r"\s+not" + _OLD


def _instead_of(text: str, value: str | None) -> str | None:
    """What a choice says it replaces ("rent a car instead of the train": the train; "a
    podcast not a poster": the poster)."""
    match = _INSTEAD_OF.search(text)
    if match is None and value:
        match = re.search(re.escape(value) + _NOT_AFTER, text, re.I)
    if match is None:
        return None
    old = _phrase(match.group("old"), value=True)
    return None if old is None or same_value(old, value) else old


# A short "subject: value" line ("db: mysql", "venue: the Glasshouse").
_TERSE = re.compile(
    r"^(?P<subj>[A-Za-z][\w'&/-]*(?:\s+[\w'&/-]+){0,2})(?<!\d)\s*:\s*[\"'\u201c]?"
    r"(?P<val>[\w$\u20ac\u00a3][^:;!?\"\u201d]{0,40}?)[\"'\u201d]?[.!]*$"
)
_SETTLED_STATE = re.compile(
    r"\s+(?:is|are)\s+(?:booked|set|confirmed|final|locked(?:\s+in)?|decided|settled)$", re.I
)
# A short line that names a subject and what serves it: "payments through Stripe", "session
# cache on memcached", "deploys go thru github actions", "breakfasts = overnight oats",
# "Friday dinner catered by Smoky Joe's BBQ" (who does it: a name).
_TERSE_VIA = re.compile(
    r"^(?P<subj>[A-Za-z][\w'&/-]*(?:\s+[\w'&/-]+){0,2}?)\s+(?:(?:runs?|goes?|go|is|are)\s+)?"
    r"(?:(?:on|through|thru|via|=)\s+(?P<val>[\w$][\w$' &+-]{0,40}?)"
    r"|[a-z]+ed\s+by\s+(?P<by>(?-i:[A-Z])[\w$' &+-]{0,40}?))[.!]*$",
    re.I,
)
TERSE_WORDS = 8  # the longest line read as a terse "subject via value"
# A short line that names a thing and what it is for: "Redis for the session cache",
# "WaniKani for kanji". The thing is a name (capitalised words); what it is for, lowercase.
_NAME_FOR = re.compile(
    r"^(?P<val>(?-i:[A-Z])[\w.&'+-]*(?:\s+(?-i:[A-Z0-9])[\w.&'+-]*){0,2})\s+for\s+"
    r"(?:(?:the|our|my|all|every)\s+)?(?P<subj>(?:(?-i:[a-z])[\w'-]*|(?-i:[A-Z]{2,}))"
    r"(?:\s+(?:(?-i:[a-z])[\w'-]*|(?-i:[A-Z]{2,}))){0,2})"
    r"[.!]*$"
)
# Words a short "X for Y" line starts with that are no name: "Thanks for the help".
_NOT_A_NAME = frozenset(
    """thanks thank sorry ready good great perfect nice time excited grateful happy enough
    same ok okay yes no plans set cheers congrats kudos props shoutout reasons""".split()
)
# A short clause that names a thing and its amount: "Pro $49/mo", "fundraising goal $10k",
# "minimum 20 seats" (an amount has a currency or a unit: "turn 5" is a name).
_NAMED_NUMBER = re.compile(
    r"^(?P<subj>[A-Za-z][\w'&/-]*(?:\s+[\w'&/-]+){0,2}?)\s+"
    r"(?P<val>[$\u20ac\u00a3]\d[\w.,:/%$-]*|\d[\d.,]*(?:k|%|/[a-z]+|\s+[a-z%]+)\b[\w/]*)[.!]*$"
)
NAMED_NUMBER_WORDS = 5  # the longest such clause
# A value given as "a NOUN of NUMBER": "with a learning rate of 3e-4", "a budget of 20k"; not
# a count or a measure that only describes ("a group of 23", "a status of 404", "an angle
# of 30°").
_DESCRIBED = "group|set|sum|total|status|angle|side|pair|couple|product|ratio|probability|chance"
_OF_NUMBER = re.compile(
    r"\b(?:a|an|the)\s+(?P<subj>(?!(?:" + _DESCRIBED + r")\s+of\s)"
    r"[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})\s+of\s+"
    r"(?P<val>[$\u20ac\u00a3]?\d[\w.,:%$-]*(?:\s+[a-zA-Z%]+)?)",
    re.I,
)


# A label that says its subject changed: "Offsite location changed: Austin", "Venue update: X".
_CHANGED_LABEL = re.compile(
    r"(?P<rest>.+?)\s+(?:changed|change|changes|update|updated|moved|switched)$", re.I
)
_LABELS = frozenset(
    """next note notes todo to-do update status question answer summary tldr edit ps fyi
    reminder goal idea problem issue context background step steps result results plan
    options option pros cons why reason example warning tip eta then now later done""".split()
)


def _terse(text: str) -> Frame:
    """A "subject: value" line, or a "NOUN of NUMBER" value."""
    via = _TERSE_VIA.match(text) if len(text.split()) <= TERSE_WORDS else None
    via = via or (_NAMED_NUMBER.match(text) if len(text.split()) <= NAMED_NUMBER_WORDS else None)
    # (or its first clause, a reason after it: "Confluence for the wiki, IT already pays")
    first = text.split(",")[0]
    named = _NAME_FOR.match(first) if len(first.split()) <= TERSE_WORDS else None
    if named and named["val"].split()[0].lower() not in _NOT_A_NAME | _NOT_SUBJECT:
        via = via or named
    match = _TERSE.match(text) or _OF_NUMBER.search(text) or via
    if match is None:
        return Frame()
    words = match.group("subj").lower().split()
    first, last = words[0], words[-1]
    if (
        via is not None
        and via.re is not _NAME_FOR
        and (
            first in _NOT_SUBJECT | _VERBISH | FUNCTION_WORDS
            or first.endswith("ing")
            or (len(words) == 1 and len(first) > 4 and first.endswith("ed"))  # "practiced on X"
            or _DAY.search(f"{last} 1")  # "starts June 24": a date, not a June of 24
        )
    ):
        return Frame()  # "we go on Friday", "it runs on Redis": no subject line
    subject = _phrase(_SETTLED_STATE.sub("", match.group("subj")))  # "Venue is booked: ..."
    said = match.group("val") if match.re is not _TERSE_VIA else match["val"] or match["by"]
    value = _phrase(said, value=True)
    if subject is None or value is None or subject.lower().split()[-1] in _NOT_TOPIC:
        return Frame()
    if match.re is _TERSE and subject.lower().split()[0] in _LABELS:
        return Frame()  # "Next: phase 2 tasks": a heading, not a subject
    renewed = re.match(r"(?:new|updated|revised|final)\s+(?P<rest>.+)", subject, re.I) or (
        _CHANGED_LABEL.match(subject)  # "Offsite location changed: Austin"
    )
    if renewed and match.re is _TERSE:
        return Frame(renewed.group("rest"), value, None, "update")  # "New launch date: March 10"
    if match.re is _OF_NUMBER:
        value = (
            value.split()[0].rstrip(".,;:") if not re.search(r"\d\s+[a-zA-Z%]", value) else value
        )
    return Frame(subject, value)


# A plan said with any verb, in the speaker's present ("we're imaging on the Zeiss
# LSM 880", "I'm adding a day trip to Sintra on the 17th"): a choice when its object names
# something concrete, which is the value.  A verb without an object, its place or means
# following ("imaging on", "meeting at"), is what the plan is about: its subject, so that a
# later "imaging has moved to the Leica SP8" replaces it.
_PLAN = re.compile(
    r"\b(?:we|i)(?:'re|\s+are|'m|\s+am|\s+r)\s+(?:also\s+|now\s+|just\s+|still\s+)*"
    r"(?P<ing>[a-z]+ing)\s+(?P<obj>(?:[^,;.!?()]|[.,](?=\d)){2,120})",
    re.I,
)
# Verbs of talk, thought, effort or feeling: what follows them is no plan.
_NOT_PLANS = frozenset(
    """try think wonder look hope plan work struggle have get feel ask go learn read study
    consider debate lean check wait worry need want make sure be help figure deal start
    finish stick keep love like enjoy mean say tell guess know see find leaning kind sort
    curious starting running compare evaluate weigh research explore decide experience
    encounter face expect receive notice observe suffer""".split()
)
PLAN_WORDS = 25  # the longest sentence read as a plan with any verb
_HELP = re.compile(
    r"\b(?:make sure|ensure|trying|try to|help|how|want|need|wondering|not sure|struggling"
    r"|having trouble|stuck|can you|could you)\b",
    re.I,
)
# What in a plan's object is concrete: a name, a number with its unit, or a day.
_CONCRETE = re.compile(
    r"(?-i:(?<![\w'])[A-Z][\w.&'+-]*(?:\s+(?:(?:of|de|la|the|&)\s+)?[A-Z0-9][\w.&'+-]*){0,3})"
    r"|(?<![\w.])\d[\d,.:/]*(?:\s*(?:%|(?!(?:a|an|the|per|to|of|in|on|at|and|or|for|with|from"
    r"|by)\b)[a-z]{1,8}\b))?|" + _DAY.pattern,
    re.I,
)


def _plan(text: str) -> Frame:
    """A plan with any verb whose object names something concrete (see `_PLAN`), said in a
    sentence of its own: in a long one, or one that asks for help, a verb in -ing tells what
    the speaker is working on ("I'm handling the 429 errors, can you ...")."""
    if len(text.split()) > PLAN_WORDS or _HELP.search(text):
        return Frame()
    for match in _PLAN.finditer(text):
        verb = match.group("ing").lower()
        base = verb[:-3]
        base = base[:-1] if len(base) > 2 and base[-1] == base[-2] else base  # planning: plan
        if {verb, base, f"{base}e"} & _NOT_PLANS or verb in FUNCTION_WORDS:
            continue
        obj = match.group("obj").strip()
        found = next((m for m in _CONCRETE.finditer(obj) if m.group(0).strip() != "I"), None)
        value = _phrase(found.group(0), value=True) if found else None
        if value is not None:
            said = f"{verb} {' '.join(obj.split()[:10])}"
            subject = verb if _PLACE_OR_MEANS.match(obj) else None
            if found is not None and found.group(0)[0].isdigit():
                into = _AMOUNT_INTO.match(obj[found.end() :]) or _AMOUNT_FOR.match(
                    obj[found.end() :]
                )
                subject = _phrase(into.group("what")) if into else subject
            return Frame(subject, value, commit=True, said=said)
    return Frame()


_PLACE_OR_MEANS = re.compile(r"(?:on|at|in|with|through|via|from)\s", re.I)
# What an amount is paid for: "paying the contractor $4,000 for the deck".
_AMOUNT_FOR = re.compile(
    r"\s+for\s+(?:my|our|the|his|her|their)?\s*(?P<what>[a-z][\w'-]*(?:\s+(?!(?:at|in|on|with"
    r"|for|from|by|and|or|so|but)\b)[a-z][\w'-]*){0,2})\s*$",
    re.I,
)
# Where an amount goes each period ("putting 500 a month into my Roth IRA at Fidelity",
# "spending 200 a week on groceries"): the subject, which a later "bumping the Roth up to 583"
# changes. ("adding 2 days to the trip" adds to it: no subject.)
_AMOUNT_INTO = re.compile(
    r"[^,;]{0,20}?\s(?:a|an|per|each|every)\s+(?:day|week|month|year|quarter)\s+"
    r"(?:into|toward|towards|on|to)\s+(?:my|our|the|his|her|their)?\s*"
    r"(?P<what>[a-z][\w'-]*(?:\s+(?!(?:at|in|on|with|for|from|by|and|or|so|but)\b)"
    r"[a-z][\w'-]*){0,3})",
    re.I,
)


_STATEMENT = _rx(
    r"START DET(?P<subj>NP)\s+(?:is|are|will be|must be|has to be|needs to be"
    r"|have to be|should be|must stay|has to stay|needs to stay|can't exceed|cannot exceed"
    r"|must not exceed|is capped at|are capped at|is set to|are set to|is due|is scheduled for"
    r"|can't go over|cannot go over|not exceed|fits|holds|tops out at)"
    r"\s+(?:at most\s+|at least\s+|under\s+|below\s+|above\s+|on\s+|by\s+|in\s+)?DET"
    r"(?P<val>NP)END"
)
_TENTATIVE = Gated(
    r"\b(?:maybe|perhaps|might|could we|should we|would it|what if|if|whether|unless|not sure"
    r"|thinking (?:about|of)|considering|wondering|suppose|option|options|alternatively"
    r"|or maybe|do you think|i wonder|in case)\b",
    re.I,
)
# What someone else wants or suggests ("jess wants to switch to X", "Sam suggested Y"; not
# "nobody wants to"), and what settles it after all ("..., but we settled on Z").
_WISH = Gated(
    r"(?<!\bi )(?<!\bwe )(?<!\bnobody )(?<!\bno one )\b(?:wants to|wanted to"
    r"|would (?:like|prefer) to|would rather|suggested|suggests|keeps (?:telling|pushing|saying)"
    r"|thinks we should)\b",
    re.I,
)
_SETTLED = re.compile(
    r"\b(?:settled on|decided|agreed|(?:are|'re|were) going with|went with|(?:are|'re) staying"
    r"|staying with|sticking with|we'll|we will)\b",
    re.I,
)


def tentative(sentence: str) -> bool:
    """A hedge, a condition or someone else's wish not settled after it: "maybe we move X to
    Y", "Jess wants to switch to Y" choose nothing yet."""
    if _TENTATIVE.search(sentence):
        return True
    wish = _WISH.search(sentence)
    return wish is not None and _SETTLED.search(sentence, wish.end()) is None


# A requirement noted without a verb: "guest list capped at 120", "inference latency budget
# 50 ms p99", "rate limit of 100 req/s per IP". The words before the number are its subject.
_NOTED = _rx(
    r"^DET(?P<subj>NP4)\s+(?:(?:capped at|limited to|maxed out at)\s+|of\s+)?"
    r"(?P<val>[$\u20ac\u00a3]?\d(?:[^,;:!?]|,(?=\d))*?)\s*[.!]?$"
)
# Words that start no subject of a noted requirement ("under 5 minutes", "max 8 people",
# "use $700 each", "up to 20 kids") or end none ("quiet hours after 11pm", "due on the 22nd"):
# the number is no value of what they name.
_NOT_NOTED = _PREPOSITIONS | frozenset("up max min maximum minimum use using about around".split())
_NOT_NOTED_END = _PREPOSITIONS | _DETERMINERS | frozenset("after before until till".split())
# A month or a day: "June 21", "week of March 10" are dates, not a subject and its number.
_CALENDAR_WORD = re.compile(
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?$"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)days?$",
    re.I,
)


def _noted(sentence: str) -> Frame:
    """The subject and amount of a requirement noted without a verb (`_NOTED`)."""
    match = _NOTED.match(" ".join(sentence.split()))
    if match is None:
        return Frame()
    subject = _phrase(match.group("subj"))
    words = (subject or "").lower().split()
    said = match.group("subj").lower().split()
    if (
        subject is None
        or words[0] in _NOT_NOTED
        or said[-1] in _NOT_NOTED_END
        or any(_CALENDAR_WORD.match(w) for w in said)
        or set(words) & _VERBISH
        or any(w.endswith("ing") for w in words)  # "trying to stay", "approving": an act
        or not _names_a_thing(subject)
    ):
        return Frame()
    return Frame(subject, _phrase(match.group("val"), value=True))


def statement(sentence: str) -> Frame:
    """The subject and value of a stated requirement ("the deadline is March 1"): what a
    constraint is about, so that a later update of the same subject replaces it."""
    found = frame(sentence)
    if found.empty:
        match = _STATEMENT.search(" ".join(sentence.split()))
        if match is None:
            found = _noted(sentence)
        else:
            found = Frame(_phrase(match.group("subj")), _phrase(match.group("val"), value=True))
        if found.empty:
            return Frame()
    if found.subject and _BOUND_VERB.search(sentence) and "limit" not in subject_key(found.subject):
        return replace(found, subject=f"{found.subject} limit")
    return found


# A requirement said as a bound on its subject: "the guest list can't go over 120" is the guest
# limit a later "the guest cap is bumped up to 150" changes.
_BOUND_VERB = re.compile(
    r"\b(?:can't|cannot|can not|must not|mustn't|shouldn't|should not|won't|will not)\s+"
    r"(?:go over|exceed|be more than|be over)\b|\b(?:capped|limited)\s+(?:at|to)\b|\btops out at\b",
    re.I,
)


# What a change gives as its reason, naming what it replaces: "the Oak Barn double-booked our
# date, so we moved to Willow Creek", "twoguys cancelled on us. swapping them for Bellhop",
# "the oak cabinet quote came back insane, so we're going with maple".
_FAILED_OLD = (
    r"(?:^|[.!;,]\s+|\b(?:said|says|say|think|thinks)\s+(?:that\s+)?)"
    r"(?:(?:so|but|and|ugh|well|ok|okay|oh|hey|again|also|update|lol|yeah|hmm|wait|sigh)\W+)*(?:the\s+|our\s+|my\s+|that\s+)?"
    r"(?P<old>[\w&'.-]+(?:\s+[\w&'.-]+){0,2}?)"
)
# Failures only the replaced thing has, never a reason for the change ("the variance is too
# high" and "half the team is out" are reasons): it can't cope, or looked too something.
_PLAIN_FAILURE = (
    r"(?:\s+just)?\s+(?:(?:can't|cannot|couldn't|could not)\s+(?:handle|keep up|cope)"
    r"|(?:doesn't|didn't|does not|did not)\s+scale|(?:keeps|kept) (?:crashing|failing|breaking))"
    r"|\s+(?:looked|looks|seemed|seems|felt|feels|sounded|sounds)\s+(?:(?:way|far)\s+)?too\s+\w+"
    r"|\s+(?:felt|feels|was|is|got)\s+(?:(?:super|really|so|way|crazy|far)\s+)(?:heavy|slow"
    r"|expensive|complicated|clunky|buggy|bloated|flaky)"
)
_FAILED = Gated(
    _FAILED_OLD + r"(?:"
    # what happened to it
    r"(?:\s+(?:has|have|had|just|also))?\s+(?:double-booked|overbooked|cancell?ed|canceled"
    r"|fell through|flaked|bailed|backed out|dropped out|sold out|booked up|shut down|broke"
    r"|came back\s+(?:insane|too|way)|(?:didn't|doesn't|won't|did not|does not)\s+work"
    r"|raised (?:their|its) prices|no longer|flooded|burn[et] down|closed down|went (?:bust|under"
    r"|out of business)|folded|priced (?:us|me|them) out|killed it|stopped working|fell apart"
    r"|(?:didn't|did not) pan out|turned (?:us|me) down|said no|ran out|broke down"
    r"|shut (?:its|their) doors)"
    # or what it is now
    r"|(?:'s|\s+(?:is|was|got|are|were))\s+(?:(?:totally|completely|way|just|also|now|already)\s+)*"
    r"(?:down\b|dead|out\b|off the table|axed|scrapped|closed|broken|done|full|too\s+\w+"
    r"|already taken|unavailable|(?:no longer |not )available|gone\b|discontinued|deprecated"
    r"|sold out|out of stock|backordered|a no\b|a no-go|a bust|a disaster|vetoed|rejected"
    r"|(?:such\s+)?a (?:pain|nightmare|hassle|mess)\b(?!\s+to\b)|overkill"
    r"|denied|cancell?ed|flooded|shelved|(?:(?:crazy|insanely|ridiculously|super|really|so)\s+)?"
    r"(?:expensive|pricey|overpriced|unreliable|flaky|buggy))"
    r"|\s+(?:(?:way|far)\s+)?too\s+\w+|" + _PLAIN_FAILURE + ")",
    re.I,
)
_FAILED_AFTER = Gated(_FAILED_OLD + r"(?:" + _PLAIN_FAILURE + ")", re.I)


# Words after a thing that name what about it failed: "the oak cabinet quote" is the oak
# cabinets'.
_ABOUT_IT = re.compile(
    r"\s+(?:quote|quotes|price|prices|pricing|bill|cost|costs|fee|fees|estimate|booking|reservation"
    r"|plan|option|idea|thing|one)$",
    re.I,
)


def failed(text: str, after: bool = False) -> str | None:
    """The thing a message says failed or is out ("the Oak Barn double-booked"), said before a
    change that does not name what it replaces: that is what it replaces. Said `after` the
    change, only a thing that can't cope or looked too something is one: "make it 5 seeds, the
    variance is too high" gives a reason."""
    for match in (_FAILED_AFTER if after else _FAILED).finditer(text):
        old = _phrase(_ABOUT_IT.sub("", match.group("old")))
        if old and old.lower().split()[0] not in _NOT_SUBJECT | _VERBISH:
            return old
    return None


# A second choice joined to a first: "use Flutter for the app and Firebase for the backend".
_AND_FOR = _rx(
    r"\s+and\s+(?P<val>(?-i:[A-Z])[\w.+&-]*(?:\s+(?-i:[A-Z0-9])[\w.+&-]*){0,2})\s+for\s+"
    r"DET(?P<subj>NP4)END"
)


def joined(sentence: str, first: Frame) -> Frame:
    """The choice joined to `first` in its sentence by "and NAME for SUBJECT", or none: "we use
    Redis for the job queue and Memcached for sessions" chooses Memcached for sessions too."""
    if first.change is not None or not (first.subject and first.value):
        return Frame()
    at = sentence.find(first.value)
    found = _AND_FOR.search(sentence, at + len(first.value)) if at >= 0 else None
    if found is None:
        return Frame()
    return Frame(_phrase(found["subj"]), _phrase(found["val"], value=True), commit=first.commit)


# A value that gives a subject's place and its time at once: "Lakeview Lodge on May 3rd",
# "Friday at Nopa", "May 3 at the Roxy".
_PLACE_AND_TIME = re.compile(r"^(?P<first>.+?)\s+(?:on|at|in)\s+(?:the\s+)?(?P<second>.+)$", re.I)
# A time and nothing else: "May 3rd", "Saturday the 21st", "Friday mornings" (not "5th street").
_ONLY_TIME = re.compile(
    r"^(?:(?:on|the|this|next|every|each|other)\s+)*(?:[\w:.,-]*\d[\w:.,-]*|(?:mon|tues|wednes"
    r"|thurs|fri|satur|sun)days?|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
    r"|noon|midnight|(?:morning|afternoon|evening|night)s?|am|pm|a\.m\.|p\.m\.)"
    r"(?:\s+(?:[\w:.,-]*\d[\w:.,-]*|am|pm|a\.m\.|p\.m\.|at|of|the|(?:morning|afternoon"
    r"|evening|night)s?|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?))*$",
    re.I,
)


def two_sides(found: Frame) -> tuple[Frame, Frame] | None:
    """A choice whose value gives its subject's time and a thing (a place, a person) as two
    choices, one per side ("the offsite is at Lakeview Lodge on May 3rd": the offsite's place,
    and its date), so that a later "the offsite moved to May 10th" replaces the date alone;
    else None."""
    split = _PLACE_AND_TIME.match(found.value or "") if found.subject else None
    if split is None or found.change not in (None, "update") or found.said:
        return None
    first, second = split["first"].strip(" ,"), split["second"].strip(" ,.")
    when = first if is_time(first) else second
    if (
        is_time(first) == is_time(second)
        or not (concrete(first) and concrete(second))
        or any(_BARE_NUMBER.match(part) for part in (first, second))  # "Thursdays at 4"
        or not _ONLY_TIME.match(when)  # "the gym on 5th street"
    ):
        return None
    return replace(found, value=first), replace(found, value=second)


def is_choice(found: Frame) -> bool:
    """A frame that states a choice on its own: a subject and a value, or a change that names
    what it picks or drops; not one whose subject is a speaker or an exclamation ("you're now
    my favourite person", "congrats on the new job") or whose value is an opinion ("tiramisu
    is a fantastic choice", "the lasagna is pretty awesome")."""
    if idle_subject(found.subject) or _opinion(found.value):
        return False
    if found.change is not None:
        return found.value is not None or found.old is not None
    return found.value is not None and (found.subject is not None or found.commit)


# Words a subject does not start with: who speaks, and what exclaims.
_NOT_A_SUBJECT = frozenset(
    """i im i'm ive i've you youre you're u he she it its it's they we this that there here
    mine yours ours theirs congratulations congrats imagine hows how's yeah yes no ok okay oh
    wow man lol haha omg bro dude hey luckily unfortunately fortunately hopefully honestly
    basically actually specifically especially definitely seriously literally apparently
    obviously personally recently anyway anyways btw went got even including excluding
    featuring besides except""".split()
)
# Words that make a value an opinion when it starts with one, or precede its last word.
_OPINION = frozenset(
    """pretty quite very really so super too totally absolutely fantastic brilliant great good
    nice amazing awesome cute lovely beautiful perfect wonderful fun tough interesting
    exciting delicious incredible terrible awful horrible excellent cool neat terrific
    fabulous stunning gorgeous unforgettable best correct right proper appropriate""".split()
)


def idle_subject(subject: str | None) -> bool:
    """Whether a phrase starts with who speaks, what exclaims or a word that only leads in
    ("specifically", "even"): no subject."""
    words = (subject or "").lower().split()
    return bool(words) and words[0].strip(",.!") in _NOT_A_SUBJECT


def _opinion(value: str | None) -> bool:
    """A value led by an intensifier or a judgement, or a judgement before its last word,
    unless it names something ("Sweet Layers" the bakery, "a great 4K monitor")."""
    words = [w.strip(",.!") for w in (value or "").split()]
    if not words or _NAMED.search(" ".join(words[1:])) or _NAMED.search(words[0][1:]):
        return False
    lowered = [w.lower() for w in words]
    return lowered[0] in _OPINION or (len(words) > 1 and lowered[-2] in _OPINION)


def choice_text(found: Frame) -> str | None:
    """A choice as a short decision text ("Use SQS for order queue instead of RabbitMQ")."""
    if found.change == "cancel" and found.old:
        return f"Drop {found.old}" + (f" for {found.subject}" if found.subject else "")
    if found.value is None:
        return None
    if found.change == "update" and found.subject:
        return f"{found.subject[:1].upper()}{found.subject[1:]}: {found.value}"
    if found.said:
        said = found.said.rstrip(" .!")
        trimmed = _TRAILING.sub("", said)
        # (not the value itself: "first pick: Tomorrow", the novel)
        value = found.value.lower()
        said = said if value in said.lower() and value not in trimmed.lower() else trimmed
        return (
            said[:1].upper()
            + said[1:]
            + (
                f" for {found.subject}"
                if found.subject and found.subject.lower() not in said.lower()
                else ""
            )
        )
    named = found.subject and found.subject.lower() not in found.value.lower()
    text = f"Use {found.value}" + (f" for {found.subject}" if named else "")
    return text + (f" instead of {found.old}" if found.old else "")


@lru_cache(maxsize=8192)
def key(phrase: str | None) -> tuple[str, ...]:
    """A phrase's comparable form: its content-word stems, sorted (`subject_key` in SQL).
    Cached: subjects and values are compared pairwise, each read many times."""
    if not phrase:
        return ()
    # a hyphenated word is itself and its parts, as to_tsvector has it: "final-round
    # interviews" holds "final rounds"
    parts = [p for t in tokens(phrase) for p in (t, *(t.split("-") if "-" in t else ()))]
    words = [stem(t) for t in parts if t not in FUNCTION_WORDS]
    return tuple(sorted({w for w in words if w}))


# Words that name which side of a subject is decided, not what it is: "offsite venue" and
# "team offsite" are one subject (`is_time` tells a time from a thing).
_SIDES = frozenset(stem(w) for w in ("time", "date", "day", "venue", "location", "place"))
# Words that call a value an upper bound, all one word in a key: "upload limit" and "max
# upload count", "budget cap" and "the cap".
_BOUNDS = frozenset(stem(w) for w in ("cap", "ceiling", "max", "maximum", "quota", "limit"))


def subject_key(phrase: str | None) -> tuple[str, ...]:
    """A subject's comparable form: `key` with its bounds one word and without the words that
    name a side of it, when others are left (archivist_subject_key in SQL)."""
    words = tuple(sorted({"limit" if w in _BOUNDS else w for w in key(phrase)}))
    rest = tuple(w for w in words if w not in _SIDES)
    return rest or words


def same_subject(a: str | None, b: str | None) -> bool:
    """Two subjects are one when the words of one are all words of the other ("sessions" and
    "session cache", "pickup time" and "school pickup"); "job queue" and "session cache" are
    not."""
    ka, kb = set(subject_key(a)), set(subject_key(b))
    return bool(ka and kb) and (ka <= kb or kb <= ka)


_IS_TIME = re.compile(
    r"^(?:(?:on|at|by|in|from|until|the|every|each|other|first|second|third|fourth|last)\s+)*"
    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d"
    r"|(?:january|february|march|april|june|july|august|september|october|november|december)\b"
    r"|" + _DAY_MONTH + r"|\d{1,2}(?:st|nd|rd|th)\b|\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)"
    r"|\d{1,2}:\d{2}\b"
    r"|q[1-4]\b|\d{4}-\d{2}-\d{2}|noon\b|midnight\b|tomorrow\b|tonight\b|today\b"
    r"|(?:next|this|last)\s+(?:week|month|year|quarter|sprint)\b"
    r"|(?:early|mid|late|end of)\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))",
    re.I,
)
# A bare number: an hour ("standup's now at 10") or a count ("batch size: 64"), either side.
_BARE_NUMBER = re.compile(r"^(?:(?:at|to|by)\s+)?\d+(?:[.,]\d+)?$")


_BOUND_WORD = r"(?:up to|under|over|about|around|at most|at least|max|min)"
# (not an ordinal: "the rehearsal space on 5th st" is a place)
_AN_AMOUNT = (
    r"(?:[$\u20ac\u00a3]\s?\d|\d[\d.,]*[\s-]*(?:%|(?:k|m|bn|(?!(?:st|nd|rd|th)\b)[a-z]{2,})\b))"
)
_IS_AMOUNT = re.compile(
    rf"^(?:(?:{_BOUND_WORD[3:-1]}|to|by)\s+)?{_AN_AMOUNT}|^{_BOUND_WORD}\s+\d", re.I
)
_HAS_AMOUNT = re.compile(r"(?<!\w)" + _AN_AMOUNT, re.I)


def is_time(value: str | None) -> bool:
    """Whether a value is a time, said first ("Wednesdays", "July 15", "3:30", "Q2")."""
    return bool(value and _IS_TIME.match(value))


def value_side(value: str | None) -> str | None:
    """Which side of its subject a value gives: a time, an amount ("$500", "10k", "30 min",
    "up to 150") or a thing; a bare number or a thing with an amount in it ("Mint 15 GB", a
    plan changed by its size) may be either (None). On one subject they are sides of it, and
    none replaces another (archivist_value_side in SQL)."""
    if value and _BARE_NUMBER.match(value):
        return None
    if is_time(value):
        return "time"
    if value and _IS_AMOUNT.match(value):
        return "amount"
    return None if value and _HAS_AMOUNT.search(value) else "thing"


def same_side(a: str | None, b: str | None) -> bool:
    """Whether two values of one subject are on the same side of it (`value_side`)."""
    side_a, side_b = value_side(a), value_side(b)
    return side_a is None or side_b is None or side_a == side_b


def same_value(a: str | None, b: str | None) -> bool:
    """Two values are one when their words are ("Memcached" = "memcached cluster" is not), and
    the letters that name one of a kind with them ("Hall A" is not "Hall C")."""
    ka, kb = set(key(a)), set(key(b))
    la, lb = _LETTERED.findall(a or ""), _LETTERED.findall(b or "")
    if la and lb and la != lb:
        return False
    return bool(ka and kb) and (ka <= kb or kb <= ka)


# A capital letter after a word, naming which one of a kind: "Hall A", "Plan B", "Room C".
_LETTERED = re.compile(r"(?<=\w )(?-i:[A-Z])\b")


_TIME = re.compile(
    r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|\b\d{1,2}:\d{2}\b|\b(?:noon|midnight)\b", re.I
)
_MONEY = re.compile(
    r"[$\u20ac\u00a3]|\b\d[\d.,]*\s*k\b|\b(?:usd|eur|gbp|dollars?|euros?|pounds?|bucks)\b", re.I
)
_QUANTITY = re.compile(
    r"(?:\d[\d.,]*|\b(?:" + "|".join(sorted(_NUMBER_WORDS)) + r"))\s*(?P<unit>[a-z%]+)", re.I
)


# A name with a version or model number: "Postgres 14", "Python 3.12", "iPhone 15", "Dell
# Latitude 5450" are things.
_VERSIONED = re.compile(
    r"^[A-Za-z][\w.+-]*[A-Za-z][\w.+-]*(?:\s+[A-Z][\w.+-]*){0,2}\s+v?\d+(?:\.\d+)*$"
)
# A model or part code, letters then digits in one word ("Yamaha FG800", "ThinkPad T14", "Sony
# WH-1000XM5 headphones", "Fujifilm X-T5"): part of a name, not a number or a quantity ("Q3"
# and "H2" are times).
_MODEL_CODE = re.compile(r"(?<![\w$])(?![QqHh][1-4]\b)[A-Za-z][A-Za-z-]*\d[\w-]*")


# What an amount is counted per: "$85/hour", "$650 each", "3 runs a week".
_PER = re.compile(r"(?:/\s*|\bper\s+|\ban?\s+)([a-z]+)|\b(each)\b", re.I)


def counted_per(value: str | None) -> set[str]:
    """What an amount is counted per ("month" of "$200 a month" and "$120/month")."""
    return {(m.group(1) or m.group(2)).lower() for m in _PER.finditer(value or "")}


def value_kind(value: str) -> str:
    """What sort of value a choice gives: a date, a time, money, a quantity of a unit
    ("quantity:seed"), a number, or a thing. A change that names no subject ("make it 8pm")
    replaces the latest choice whose value is of its kind."""
    if _DAY.search(value):
        return "date"
    if _TIME.search(value):
        return "time"
    if _MONEY.search(value):
        return "money"
    if "%" in value or "percent" in value.lower():
        return "percent"
    value = _MODEL_CODE.sub(" ", value)
    quantity = _QUANTITY.search(value)
    if quantity is not None:
        return f"quantity:{stem(quantity.group('unit').lower())}"
    if re.search(r"\d", value) and not _VERSIONED.match(value.strip()):
        return "number"
    return "thing"
