"""A session's new changes tied to what they change in the user's earlier sessions when the
two are said in other words.

Across sessions the reconciliation (sql/functions/current_state.sql) pairs items by their
subjects' words, or by a change naming the earlier value it replaces. People name the same
thing differently from one week to the next: "rent split 3 ways, $650 each", then "landlord
raised rent so its $700 each now"; "My newsletter runs on Mailchimp", then "Moving the
newsletter off Mailchimp ... Going to Buttondown". Before a
version is written, each of its new decisions and constraints that no earlier item pairs with
is compared with the user's current items of other sessions, said before it: one whose value
is of the same kind (a date, a time, money, a quantity of the same unit, a thing) and
different, and whose subject or value the new item's own messages name, is what it changes.
Where no such item is found, the names in the clause of an earlier item's own user message
that names its value count as its words ("Dr. Patel's office called, the cleaning got moved
to Wednesday" after "Dentist is Tuesday at 3pm with Dr. Patel."), read back from its turn
chunk. The new item then takes that item's subject (or, when that has none, names its value as
what it replaces), so the reconciliation pairs them by its rules; a new item without change
language becomes a change only when its message says one ("now", "instead", "moved", ...)
or names, whole, an earlier value of its kind ("..., so SignUpGenius is done").
An item the reconciliation pairs with an earlier one by subject but would only flag as a
conflict (it carries no change) is a change when its message says one or names the earlier
value (`said_changes`). Nothing of the earlier session is copied into the new item but its
subject or value.

A change can also name what it replaces when the earlier statement never became an item: "also
moved the emergency fund from Marcus to Ally" after "emergency fund ... parked in a Marcus
high-yield savings account", a sentence of several facts that extraction did not take as a
decision. The user's earlier turn naming the replaced value is then found in the turn chunks
(archivist/pipeline/across.py), and the version records the earlier choice as an item of its
own, superseded by the change (`recalled`): its text is made of the change's words (its
subject and the value it replaces), it cites the earlier message and dates from it, so the
history and `--as-of` show what was true before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime

from archivist.models import Message, StateItem
from archivist.state.current import CurrentItem
from archivist.state.frames import (
    counted_per,
    key,
    same_side,
    same_subject,
    same_value,
    value_kind,
)
from archivist.state.items import compute_uid
from archivist.words import CHOICE_STEMS, content_stems

CHANGEABLE = frozenset({"decision", "constraint"})

# A message that says a value changed, when its item carries no change of its own.
_MOVED = re.compile(
    r"\b(?:now|instead|any ?more|no longer|moved|moving|pushed|slipped|changed|switch(?:ed|ing)?"
    r"|swapped|replaced|reduced|raised|bumped|dropp(?:ed|ing)|renegotiated|rescheduled"
    r"|postponed|delayed|declined|cancell?ed|bailed|fell through)\b",
    re.I,
)
_DIGITS = re.compile(r"^\d+$")
# A name: a capitalised word (not the first of its clause, nor "I"), or an acronym.
_NAME = re.compile(r"(?<![\w.])(?!I\b)[A-Z][\w.+-]*[\w+]|(?<![\w.])[A-Z]{2,}\b")
_CALENDAR = re.compile(
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|mon|tue|tues|wed|thu|thur|thurs"
    r"|fri|sat|sun)\.?|(?:january|february|march|april|june|july|august|september|october"
    r"|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?",
    re.I,
)
# Where a statement of several facts divides: "hosting on Buzzsprout - weekly, drops Tuesdays".
_CLAUSE = re.compile(r"(?<=[.!?;,])\s+|\s+[-+&]\s+|\n+")


def link_earlier(
    items: Sequence[StateItem],
    earlier: Sequence[CurrentItem],
    said: Mapping[str, str],
    said_before: Mapping[str, str] | None = None,
) -> list[tuple[StateItem, CurrentItem]]:
    """Tie each new item of `items` (one citing a message of `said`: the version's user
    messages by id) to the earlier item it changes, if any; returns the pairs tied.
    `said_before`: the earlier items' own user messages by id, where known, whose names said
    with an item's value count as its words."""
    tied = []
    for item, before, message in _open_changes(items, earlier, said):
        old = _changed(item, before, message, said_before or {})
        if old is None:
            continue
        if old.subject:
            item.subject = old.subject
        else:
            item.replaces = old.value
        item.change = item.change or "update"
        tied.append((item, old))
    return tied


def said_changes(
    items: Sequence[StateItem], earlier: Sequence[CurrentItem], said: Mapping[str, str]
) -> list[tuple[StateItem, CurrentItem]]:
    """Mark as changes the new items the reconciliation pairs with an earlier one by subject
    but, carrying no change, would only flag as its conflict, where the message says a change
    ("now", "instead", ...) or names the earlier value ("a region Stripe doesn't support yet,
    so checkout goes through Adyen" after "Use Stripe for the checkout integration");
    returns the pairs marked."""
    pool = _changeable(earlier)
    marked = []
    for item, message in _said_choices(items, said):
        if item.change is not None:
            continue
        named = content_stems(message) - set(key(item.value)) - set(key(item.subject))
        for old in pool:
            if (
                _before(old.became_at, item.created_at)
                and same_subject(item.subject, old.subject)
                and same_side(item.value, old.value)
                and not same_value(item.value, old.value)
                and (_MOVED.search(message) or named & (set(key(old.value)) - CHOICE_STEMS))
            ):
                item.change = "update"
                marked.append((item, old))
                break
    return marked


def untied_candidates(
    items: Sequence[StateItem], earlier: Sequence[CurrentItem], said: Mapping[str, str]
) -> list[CurrentItem]:
    """The earlier items a change of `items` left untied could still be tied to by the words
    of their own messages: of the change's kind of value and side, another value."""
    found: dict[str, CurrentItem] = {}
    for item, before, _ in _open_changes(items, earlier, said):
        found.update((old.uid, old) for old in _comparable(item, before))
    return list(found.values())


def _open_changes(
    items: Sequence[StateItem], earlier: Sequence[CurrentItem], said: Mapping[str, str]
) -> list[tuple[StateItem, list[CurrentItem], str]]:
    """The new changes no earlier item pairs with yet, each with the current items said
    before it and its own user messages' text: a decision or constraint with a value, its
    message saying a change where the item carries none."""
    pool = _changeable(earlier)
    replacing = {i.replaced_by for i in items if i.replaced_by}
    found = []
    for item, message in _said_choices(items, said):
        if item.uid in replacing:  # it changes an item of its own session
            continue
        before = [e for e in pool if _before(e.became_at, item.created_at)]
        says_change = _MOVED.search(message) or _names_other(item, before, message)
        if item.change is None and not says_change:
            continue
        if any(_paired(item, e) or same_value(item.value, e.value) for e in before):
            continue  # the reconciliation pairs them already, or it says an earlier value
        found.append((item, before, message))
    return found


def _said_choices(
    items: Sequence[StateItem], said: Mapping[str, str]
) -> list[tuple[StateItem, str]]:
    """The version's live decisions and constraints with a value that its user messages
    (`said`) say, each with their text."""
    found = []
    for item in items:
        message = " ".join(said[r] for r in item.refs if r in said)
        if message and item.type in CHANGEABLE and item.status != "superseded" and item.value:
            found.append((item, message))
    return found


def _changeable(earlier: Sequence[CurrentItem]) -> list[CurrentItem]:
    """The current decisions and constraints with a value: what a new item can change."""
    return [e for e in earlier if e.current and e.type in CHANGEABLE and e.value]


def _before(earlier: datetime | None, new: datetime | None) -> bool:
    return earlier is not None and new is not None and earlier < new


def _paired(item: StateItem, earlier: CurrentItem) -> bool:
    """Whether the reconciliation pairs the two by its own rules: one subject, or a change
    naming the earlier value."""
    if same_subject(item.subject, earlier.subject) and same_side(item.value, earlier.value):
        return True
    return (
        item.change is not None
        and (item.subject is None or earlier.subject is None)
        and same_value(item.replaces, earlier.value)
    )


def _comparable(item: StateItem, before: Sequence[CurrentItem]) -> list[CurrentItem]:
    """The earlier items of the new one's kind of value and side (`same_side`), another value;
    for a date, a time or an amount, also an item without a subject whose text says one ("Take
    my driving exam on 21 of May", whose value is the exam)."""
    assert item.value is not None
    kind = value_kind(item.value)
    return [
        old
        for old in before
        if old.value is not None
        and not same_value(old.value, item.value)
        and (
            (value_kind(old.value) == kind and same_side(old.value, item.value))
            or (kind != "thing" and old.subject is None and value_kind(old.text) == kind)
        )
    ]


def _changed(
    item: StateItem, before: Sequence[CurrentItem], message: str, said_before: Mapping[str, str]
) -> CurrentItem | None:
    """The latest comparable earlier item (`_comparable`) whose subject or value the message
    names (the most of their words; with `said_before`, also the names in the clauses of its
    own messages that name its value), or, of amounts, counted per the same thing ("$700 each"
    after "$650 each"), or, for an item saying a change, the only one of its unit, if one is."""
    assert item.value is not None
    kind = value_kind(item.value)
    # (not the words of its own value or subject: "Frontend tests moved to Playwright" does not
    # name "Backend tests")
    own = set(key(item.value)) | set(key(item.subject))
    named = content_stems(message) - own - CHOICE_STEMS
    per = counted_per(item.value) if kind != "thing" else set()
    # a change that says only a value of its kind ("we can go up to 8 people now", "pushed to
    # the 17th"): the latest value of that kind changes, as within a session
    counted = kind not in ("thing", "number") and item.subject is None and item.change is not None
    subject = {w for w in key(item.subject) if not _DIGITS.match(w)}
    best: CurrentItem | None = None
    best_key: tuple[int, datetime] | None = None
    comparable = _comparable(item, before)
    # a change to a quantity of a unit only one earlier item counts in ("reduced presentation
    # time to 15 minutes per paper" after "a strict limit of 20 minutes each"), or to the only
    # date, time or amount of its kind, said without a subject ("pickup is 3:45 now" after "i
    # pick up the kids at 3:15"; "the gym fee drops to $30" leaves "the emergency fund: $200")
    sole = (
        item.change is not None
        and len(comparable) == 1
        and (
            kind.startswith("quantity:")
            or (kind not in ("thing", "number") and comparable[0].subject is None)
        )
    )
    for old in comparable:
        assert old.value is not None and old.became_at is not None
        words = {w for w in (*key(old.subject), *key(old.value)) if not _DIGITS.match(w)}
        if not item.replaces:  # (one that names what it replaces is about that value)
            words |= _said_of(old, said_before)
        shared = (
            len(words & named)
            + bool(subject and subject <= words)  # "science fair" of "science fair on May 2"
            + bool(per and per == counted_per(old.value))
            + counted
            + sole
        )
        if not shared:
            continue
        rank = (shared, old.became_at)
        if best_key is None or rank > best_key:
            best, best_key = old, rank
    return best


def _said_of(old: CurrentItem, said_before: Mapping[str, str]) -> set[str]:
    """The names in the clauses of the item's own messages that name its value ("Dr. Patel"
    in "Dentist is Tuesday at 3pm with Dr. Patel."), as stems. Names only: the other words of
    a long message ("added", "essay") are shared by anything the user says next."""
    value = set(key(old.value))
    return {
        w
        for r in old.refs
        if r in said_before
        for clause in _CLAUSE.split(said_before[r])
        if value <= set(key(clause))
        for name in _NAME.findall(clause.strip()[1:])
        if not _CALENDAR.fullmatch(name)
        for w in key(name)
        if not _DIGITS.match(w)
    }


def unknown_replaced(
    items: Sequence[StateItem], earlier: Sequence[CurrentItem], said: Mapping[str, str]
) -> list[StateItem]:
    """The version's changes, said in its user messages, naming a value they replace
    (`replaces`) that no item holds: neither one of the version nor an earlier current one,
    and no earlier item the reconciliation pairs the change with."""
    found = []
    for item in items:
        if (
            item.type not in CHANGEABLE
            or item.change is None
            or not item.replaces
            or not key(item.replaces)
            or item.status == "superseded"
            or not any(r in said for r in item.refs)
            or any(same_value(i.value, item.replaces) for i in items if i is not item)
            or any(
                _paired(item, e) or same_value(e.value, item.replaces)
                for e in earlier
                if _before(e.became_at, item.created_at)
            )
        ):
            continue
        found.append(item)
    return found


def naming(value: str, turns: Sequence[Message], before: datetime | None) -> Message | None:
    """The latest of `turns` said before `before` that names `value` (its words, in order)."""
    phrase = re.compile(r"(?<!\w)" + r"\W+".join(map(re.escape, value.split())) + r"(?!\w)", re.I)
    named = [t for t in turns if _before(t.created_at, before) and phrase.search(t.content)]
    return max(named, key=lambda t: t.created_at, default=None)


def recalled(change: StateItem, turn: Message, cited: str) -> StateItem:
    """The earlier choice `change` (said in message `cited`) replaces, as said in `turn`: an
    item superseded by it."""
    assert change.replaces is not None
    value = change.replaces
    if change.type == "decision":
        text = f"Use {value}" + (f" for {change.subject}" if change.subject else "")
    else:
        text = f"{change.subject}: {value}" if change.subject else value
    return StateItem(
        uid=compute_uid(change.type, text),
        type=change.type,
        text=text,
        status="superseded",
        confidence="low",
        topic_tags=list(change.topic_tags),
        refs=[turn.id],
        replaced_by=change.uid,
        supersession_evidence={
            "trigger": change.change or "replace",
            "ref_msg_id": cited,
            "candidate_uid": change.uid,
        },
        created_at=turn.created_at,
        last_seen_at=turn.created_at,
        subject=change.subject,
        value=value,
    )


def _names_other(item: StateItem, before: Sequence[CurrentItem], message: str) -> bool:
    """Whether the message names, whole, another value of the item's kind said before, on a
    subject that shares a word with the item's if both have one: "Admin wants everyone on
    ParentSquare for conference sign-ups, so SignUpGenius is done" after "parents sign up
    through SignUpGenius". "For analytics we'll use ClickHouse, not Postgres" leaves
    "Postgres for billing" alone."""
    assert item.value is not None
    own = set(key(item.value)) | set(key(item.subject))
    named = content_stems(message) - own - CHOICE_STEMS
    subject = set(key(item.subject))
    return any(
        (words := {w for w in key(old.value) if not _DIGITS.match(w)} - CHOICE_STEMS)
        and words <= named
        and (not subject or not old.subject or subject & set(key(old.subject)))
        for old in _comparable(item, before)
    )
