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
from collections.abc import Sequence

from archivist.extract.rules.analysis import analyse
from archivist.extract.rules.entities import entities_in
from archivist.extract.rules.findings import ActionHit, Completion, DecisionHit, EntityHit
from archivist.extract.rules.guards import is_question
from archivist.extract.rules.phrases import clause, has_substance, strip_fillers, tidy
from archivist.extract.rules.text import units
from archivist.extract.rules.vocabulary import COMMON_VERBS, TOPIC_STOPWORDS, domain_of
from archivist.models import NON_CONVERSATIONAL_ROLES, USER_ROLES, Message
from archivist.state.frames import (
    NO_FRAME,
    Frame,
    aside,
    choice_text,
    frame,
    is_choice,
    same_subject,
    same_value,
    statement,
    tentative,
)
from archivist.state.items import CandidateItem, ItemType, resolve_status_merge
from archivist.words import completed_index, content_stems, identity, tokens

MAX_ITEM_WORDS = 16

_CONSTRAINT = re.compile(
    r"\b(?:must(?:n't| not)?(?! have been)|has to be|have to be|needs to be|need to stay"
    r"|has to stay|have to stay|cannot exceed|can't exceed|can not exceed|no more than|at most"
    r"|no later than|hard limit|hard requirement|is a requirement|are required|is required"
    r"|not allowed|only allowed|(?:is|are)(?: now)? capped at|budget is|budget of|deadline is"
    r"|has to run|have to run|has to support|have to support|required to|mandatory)\b",
    re.I,
)
_RISK = re.compile(
    r"\b(?:risk|risky|risks|danger(?:ous)?|concern(?:ed)?|worried|worry|could break|might break"
    r"|may break|could fail|might fail|may fail|could lose|might lose|single point of failure"
    r"|vulnerab\w*|exposed|leak(?:s|ing)?|bottleneck|could go down|might go down|at stake"
    r"|caveat|downside|gotcha|could hit|might hit|rate.limit\w*)\b",
    re.I,
)
_NOT_RISK = re.compile(r"\b(?:no risk|not worried|no concern|don't worry|no worries)\b", re.I)
_BLOCKED = re.compile(
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
# A standing rule for the assistant: "Always format code with syntax highlighting when I ask
# about implementation details", "Never round the figures". It constrains every later answer
# on its matter, which its "when I ask about ..." part names: the whole sentence is the item.
_STANDING_RULE = re.compile(
    r"^(?:please\s+)?(?:always|never|(?:don't|do not) ever)\s+(?!mind\b)\w", re.I
)
MAX_RULE_WORDS = 32


def rules_candidates(messages: Sequence[Message]) -> list[CandidateItem]:
    """The candidate items the messages state, in message order (duplicates collapsed)."""
    found = _Found()
    for message in messages:
        role = message.role.strip().lower()
        if role in NON_CONVERSATIONAL_ROLES:
            continue
        user = role in USER_ROLES
        for sentence, list_outcome in units(message.content):
            found.sentence(message, sentence, list_outcome, user=user)
    return found.items


class _Found:
    def __init__(self) -> None:
        self.items: list[CandidateItem] = []
        self._keys: dict[tuple[str, str], int] = {}

    def add(
        self,
        item_type: ItemType,
        text: str,
        message: Message,
        sentence: str,
        choice: Frame = NO_FRAME,
        **kw: str,
    ) -> None:
        key = (item_type, " ".join(sorted(identity(text))) or text.lower())
        if key in self._keys and self._changed_since(self._keys[key], choice):
            del self._keys[key]  # "back to Redis" after a move off it: said anew, not merged
        if key in self._keys:
            item = self.items[self._keys[key]]
            if item.subject is None and choice.subject is not None:
                item.subject = choice.subject
                item.value = choice.value or item.value
            if message.id not in item.refs:
                item.refs.append(message.id)
            if "status" in kw:
                status = kw["status"]
                item.status = resolve_status_merge(item_type, item.status or status, status)
            return
        candidate = CandidateItem(
            type=item_type,
            text=text,
            status=kw.get("status"),
            confidence="high" if item_type == "decision" else "medium",
            topic_tags=topic_tags(f"{text} {sentence}"),
            refs=[message.id],
            subject=choice.subject,
            value=choice.value or (choice.old if choice.change == "cancel" else None),
            change=choice.change,
            replaces=choice.old,
        ).with_context(sentence)
        self._keys[key] = len(self.items)
        self.items.append(candidate)

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
        findings = analyse(sentence, user=user, conversational=True).findings
        blocked = bool(_BLOCKED.search(sentence))
        # What the user's sentence chooses, by its structure: it gives every decision here its
        # subject, and is a decision itself where no decision pattern matched.
        chose = user and not is_question(sentence) and not tentative(sentence)
        choice = frame(sentence) if chose else aside(sentence) if user else Frame()
        typed = decided = False
        for finding in findings:
            if isinstance(finding, DecisionHit):
                self.add("decision", finding.text, message, sentence, choice)
                typed = decided = True
            elif isinstance(finding, (ActionHit, Completion)) and is_choice(choice):
                continue  # "move the session cache to Memcached": a choice, not a task
            elif isinstance(finding, ActionHit):
                status = "blocked" if blocked else "open"
                self.add("action", finding.text, message, sentence, status=status)
                typed = True
            elif isinstance(finding, Completion):
                typed = self._complete(finding, message, sentence) or typed
        limit = choice.change is None and bool(_CONSTRAINT.search(sentence))
        if not decided and not limit and is_choice(choice) and (chosen := choice_text(choice)):
            self.add("decision", chosen, message, sentence, choice)
            typed = True
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
        if user and _STANDING_RULE.match(strip_fillers(sentence)):
            self.add("constraint", _phrase(sentence, MAX_RULE_WORDS), message, sentence)
        elif _CONSTRAINT.search(sentence):
            stated = statement(sentence) if chose else Frame()
            self.add("constraint", _phrase(sentence), message, sentence, stated)
        elif _RISK.search(sentence) and not _NOT_RISK.search(sentence):
            self.add("risk", _phrase(sentence), message, sentence)

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
