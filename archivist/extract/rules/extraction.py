"""The rules extractor's fold: version N+1 = version N + the new messages, without an LLM.

Each message is read by `analysis.analyse` into ordered findings, and the findings are folded
one by one into lists kept in the `Extraction` itself (decisions, actions, entities,
preferences). Because the fold's whole state is part of the extraction, extending a version in
several batches gives the same decisions, actions, entities and preferences as one batch; caps
are applied at every step for the same reason. The extractive summary keeps its opening (the
first user request) in the summary text, so it is batch-independent too. Topics: see `topics`.

The result depends only on the arguments: no clock, no randomness, no iteration over sets.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Generic, TypeVar

from archivist.extract.rules.analysis import analyse
from archivist.extract.rules.entities import entity_key
from archivist.extract.rules.findings import (
    ActionHit,
    Completion,
    DecisionHit,
    EntityHit,
    Finding,
    PreferenceHit,
)
from archivist.extract.rules.phrases import has_substance, request_phrase
from archivist.extract.rules.text import ascii_fold, clean_text, clip
from archivist.extract.rules.topics import TopicCounts, merge_topics
from archivist.extract.rules.vocabulary import KNOWN_NAMES
from archivist.models import (
    NON_CONVERSATIONAL_ROLES,
    USER_ROLES,
    Action,
    Decision,
    Entity,
    Extraction,
    Message,
    SessionSummary,
    Span,
)
from archivist.words import completed_index, identity

EXTRACTOR_NAME = "rules"
EXTRACTOR_VERSION = "1"

MAX_DECISIONS = 50
MAX_ACTIONS = 50
MAX_ENTITIES = 50
MAX_ENTITY_REFS = 4  # the first message that named an entity and the latest three
MAX_PREFERENCES = 20
MAX_SUMMARY_CHARS = 1_000
SUMMARY_ITEMS = 3
_CHOICE_VERBS = re.compile(
    r"^(?:use|go with|go for|pick|choose|adopt|settle on|standardi[sz]e on)\s+", re.I
)
_T = TypeVar("_T")
_LEAD = re.compile(r'^(User asked|Started with): "([^"]*)"')

_KNOWN_KEYS = frozenset(entity_key(k.type, k.name) for k in KNOWN_NAMES)


def _norm(text: str) -> str:
    """Text compared for duplicates: lowercase words without punctuation or articles."""
    found = re.findall(r"[a-z0-9]+", ascii_fold(text).lower())
    return " ".join(w for w in found if w not in {"a", "an", "the"})


def _action_key(text: str) -> str:
    """One TODO, one action: "I'll set up the CI runners" duplicates "Set up CI runners"
    (`words.identity`, the key reconciliation merges state items by)."""
    return " ".join(sorted(identity(text))) or _norm(text)


def _decision_norm(text: str) -> str:
    """Choosing verbs are equivalent: "Go with Vercel" duplicates "Use Vercel"."""
    return _norm(_CHOICE_VERBS.sub("use ", text))


@dataclass
class _Capped(Generic[_T]):
    """A list with the duplicate key of each item, capped by dropping the oldest items."""

    cap: int
    items: list[_T] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)

    def find(self, key: str) -> int:
        """The index of the item with `key`, or -1."""
        return self.keys.index(key) if key in self.keys else -1

    def add(self, key: str, item: _T) -> None:
        self.items.append(item)
        self.keys.append(key)
        excess = max(0, len(self.items) - self.cap)
        del self.items[:excess], self.keys[:excess]


@dataclass
class _Facts:
    """The lists a version accumulates: the complete state of the fold."""

    decisions: _Capped[Decision] = field(default_factory=lambda: _Capped(MAX_DECISIONS))
    actions: _Capped[Action] = field(default_factory=lambda: _Capped(MAX_ACTIONS))
    entities: _Capped[Entity] = field(default_factory=lambda: _Capped(MAX_ENTITIES))
    preferences: _Capped[str] = field(default_factory=lambda: _Capped(MAX_PREFERENCES))

    @classmethod
    def of(cls, previous: Extraction | None) -> _Facts:
        """The previous version's lists, copied so that it is never mutated."""
        facts = cls()
        if previous is None:
            return facts
        for decision in previous.decisions:
            facts.decisions.add(_decision_norm(decision.text), decision.model_copy())
        for action in previous.actions:
            facts.actions.add(_action_key(action.description), action.model_copy())
        for entity in previous.entities:
            # Keys are recomputed, so versions written before URL keys became readable
            # carry the new key forward instead of holding the entity twice.
            key = entity_key(entity.type, entity.name)
            if facts.entities.find(key) < 0:
                facts.entities.add(key, entity.model_copy(update={"key": key}))
        for preference in previous.preferences_inferred:
            facts.preferences.add(_norm(preference), preference)
        return facts

    def absorb(self, finding: Finding, message_id: str) -> None:
        if isinstance(finding, EntityHit):
            self._add_entity(finding, message_id)
        elif isinstance(finding, DecisionHit):
            self._add_decision(finding, message_id)
        elif isinstance(finding, ActionHit):
            self._add_action(finding.text, finding.outcome, message_id)
        elif isinstance(finding, Completion):
            self._complete(finding, message_id)
        elif isinstance(finding, PreferenceHit):
            self._add_preference(finding.text)

    def _add_entity(self, hit: EntityHit, message_id: str) -> None:
        """Add a new entity, or the message to a known one's refs; a project also named as a
        product (or back) is one entity."""
        key = entity_key(hit.type, hit.name)
        slug = key.partition(":")[2]
        same = [key]
        if hit.type in ("project", "product"):
            same = [f"project:{slug}", f"product:{slug}"]
        if not slug:
            return
        known = next((i for k in same if (i := self.entities.find(k)) >= 0), None)
        if known is None:
            self.entities.add(key, Entity(type=hit.type, name=hit.name, key=key, refs=[message_id]))
            return
        entity = self.entities.items[known]
        if message_id not in entity.refs:
            refs = [*entity.refs[:1], *entity.refs[1:][-(MAX_ENTITY_REFS - 2) :], message_id]
            self.entities.items[known] = entity.model_copy(update={"refs": refs})

    def _current_project(self) -> str | None:
        """The latest project or product the conversation itself named (not a known tool)."""
        for entity in reversed(self.entities.items):
            if entity.type in ("project", "product") and entity.key not in _KNOWN_KEYS:
                return entity.name
        return None

    def _add_decision(self, hit: DecisionHit, message_id: str) -> None:
        """A new decision, with the message that stated it (its text is that message's)."""
        key = _decision_norm(hit.text)
        if self.decisions.find(key) < 0:
            context = self._current_project() or hit.domain
            self.decisions.add(key, Decision(text=hit.text, context=context, refs=[message_id]))

    def _add_action(self, text: str, outcome: str, message_id: str) -> None:
        key = _action_key(text)
        index = self.actions.find(key)
        if index < 0:
            self.actions.add(key, Action(description=text, outcome=outcome, refs=[message_id]))
        elif outcome == "done":
            self._mark_done(index, message_id)

    def _mark_done(self, index: int, message_id: str) -> None:
        """The action done, and the message that said so beside the one that stated it."""
        action = self.actions.items[index]
        if action.outcome != "done":
            refs = list(dict.fromkeys([*action.refs, message_id]))
            self.actions.items[index] = action.model_copy(update={"outcome": "done", "refs": refs})

    def _complete(self, done: Completion, message_id: str) -> None:
        """Mark the matching open action done, or record what was done as a new action."""
        open_actions = [None if a.outcome == "done" else a.description for a in self.actions.items]
        index = completed_index(done.stems, open_actions)
        if index is not None:
            self._mark_done(index, message_id)
        elif has_substance(done.text):
            self._add_action(done.text, "done", message_id)

    def _add_preference(self, text: str) -> None:
        key = _norm(text)
        if self.preferences.find(key) < 0:
            self.preferences.add(key, text)


def _role(message: Message) -> str:
    return (message.role or "").strip().lower()


def _utc(moment: datetime) -> datetime:
    """Naive times are taken as UTC, so that mixed inputs still compare."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def extend_span(previous: Extraction | None, messages: Sequence[Message]) -> Span:
    """The previous version's span extended by the new messages."""
    span = previous.span if previous else Span()
    first, last = span.first_turn_at, span.last_turn_at
    for message in messages:
        first = first or message.created_at
        if last is None or _utc(message.created_at) > _utc(last):
            last = message.created_at
    return Span(first_turn_at=first, last_turn_at=last, turn_count=span.turn_count + len(messages))


def _blank(text: str) -> bool:
    return not clean_text(text or "").strip()


@dataclass(frozen=True)
class _Lead:
    label: str  # "User asked" or "Started with"
    phrase: str
    ref: str | None  # the message it was taken from (None: a version before refs were kept)


def _lead(previous: Extraction | None, messages: Sequence[Message]) -> _Lead | None:
    """The opening of an extractive summary: the first user request, carried across versions.

    It is stored in the summary itself (`User asked: "..."`), so a later batch keeps it, and
    the message it was taken from in `opening_ref`; a lead taken from a non-user message is
    replaced once a user message arrives.
    """
    kept = _LEAD.match(previous.summary) if previous else None
    kept_ref = previous.opening_ref if previous else None
    if kept and kept.group(1) == "User asked":
        return _Lead("User asked", kept.group(2), kept_ref)
    for message in messages:
        if _role(message) in USER_ROLES and not _blank(message.content):
            return _Lead("User asked", request_phrase(message.content), message.id)
    if kept:
        return _Lead("Started with", kept.group(2), kept_ref)
    for message in messages:
        if not _blank(message.content):
            return _Lead("Started with", request_phrase(message.content), message.id)
    return None


@dataclass(frozen=True)
class _Summary:
    text: str
    refs: list[str]  # the messages its text was taken from (Extraction.summary_refs)
    opening_ref: str | None


def _summary(
    previous: Extraction | None,
    messages: Sequence[Message],
    summary: SessionSummary | None,
    facts: _Facts,
) -> _Summary:
    """The session summary when the bot wrote one, else "User asked ... Decided ... Next ...".

    Its refs are the messages its words were taken from: the request it opens with, and those
    that stated each decision and action it names (an action done: the one that said so too),
    of those the clip to MAX_SUMMARY_CHARS left in. The bot's summary names none: it was
    written from the conversation so far, and which messages it restates it does not say.
    """
    text = " ".join(clean_text(summary.summary_text or "").split()) if summary else ""
    if text:
        return _Summary(clip(text, MAX_SUMMARY_CHARS), [], None)
    written = ""
    sources: list[tuple[int, list[str]]] = []  # where each taken text starts, and its messages

    def put(fragment: str, refs: Sequence[str | None] = ()) -> None:
        nonlocal written
        if refs:
            sources.append((len(written), [r for r in refs if r]))
        written += fragment

    lead = _lead(previous, messages)
    if lead:
        end = "" if lead.phrase.endswith((".", "!", "?", "\u2026")) else "."
        put(f'{lead.label}: "', [lead.ref])
        put(f'{lead.phrase}"{end}')
    actions = facts.actions.items
    decided = [(d.text, d.refs) for d in facts.decisions.items[-SUMMARY_ITEMS:]]
    planned = [(a.description, a.refs) for a in actions if a.outcome == "planned"]
    done = [(a.description, a.refs) for a in actions if a.outcome == "done"]
    for label, items in (
        ("Decided", decided),
        ("Next", planned[-SUMMARY_ITEMS:]),
        ("Done", done[-SUMMARY_ITEMS:]),
    ):
        if items:
            put(f"{' ' if written else ''}{label}: ")
            for n, (item, refs) in enumerate(items):
                put("; " if n else "")
                put(item, refs)
            put(".")
    if not written and previous is not None:
        return _Summary(previous.summary, previous.summary_refs, previous.opening_ref)
    clipped = clip(written, MAX_SUMMARY_CHARS)
    kept = len(clipped) if clipped == written else len(clipped) - 1  # the ellipsis is not theirs
    refs = [r for start, taken in sources if start < kept for r in taken]
    return _Summary(clipped, list(dict.fromkeys(refs)), lead.ref if lead else None)


def without_decisions(
    extraction: Extraction,
    replaced: Sequence[Decision],
    previous: Extraction | None,
    messages: Sequence[Message],
    summary: SessionSummary | None,
) -> Extraction:
    """The extraction without the decisions its session's state replaced ("scratch that, keep
    Kibana" after "we picked Grafana"), its summary written again from what is left, as
    `extend_extraction` wrote it from the same `previous`, `messages` and `summary`."""
    decisions = [d for d in extraction.decisions if d not in replaced]
    facts = _Facts.of(extraction.model_copy(update={"decisions": decisions}))
    written = _summary(previous, messages, summary, facts)
    return extraction.model_copy(
        update={
            "decisions": decisions,
            "summary": written.text,
            "summary_refs": written.refs,
            "opening_ref": written.opening_ref,
        }
    )


def extend_extraction(
    previous: Extraction | None,
    session_id: str,
    messages: Sequence[Message],
    summary: SessionSummary | None,
) -> Extraction:
    """Version N+1 from version N (`previous`, None for the first) and the new `messages`.

    `messages` are ordered by `(created_at, id)`. Only roles `user`/`human` (any case) count
    as the user; system and tool messages contribute entities only.
    """
    facts = _Facts.of(previous)
    topics = TopicCounts()
    for message in messages:
        role = _role(message)
        conversational = role not in NON_CONVERSATIONAL_ROLES
        analysis = analyse(
            message.content or "", user=role in USER_ROLES, conversational=conversational
        )
        for finding in analysis.findings:
            facts.absorb(finding, message.id)
        topics.add(analysis)
    summarised = _summary(previous, messages, summary, facts)
    return Extraction(
        session_id=session_id,
        span=extend_span(previous, messages),
        summary=summarised.text,
        summary_refs=summarised.refs,
        opening_ref=summarised.opening_ref,
        topics=merge_topics(previous.topics if previous else [], topics.ranked()),
        decisions=facts.decisions.items,
        entities=facts.entities.items,
        actions=facts.actions.items,
        preferences_inferred=facts.preferences.items,
    )
