"""Deterministic reconciliation: the previous version's items + one batch's candidates -> items.

Pure: no I/O, no clock. The caller drops what cannot be trusted (`admit`: refs outside the
batch, the candidate cap), embeds the admitted candidates' texts, and hands over the vectors of
the previous items (read back from their `state_item` chunks, so an unchanged item is never
embedded twice). Per candidate, in order, against the items of the same type that are not
superseded (those of earlier candidates of this run included), the first rule that applies:

1. the same UID, or the same `words.identity` ("I'll write the script tomorrow" = "Write the
   script"): merge (refs and tags united, status by precedence, the higher confidence,
   `last_seen_at` never older than before). Equal to a superseded item: ignored, superseded
   items never come back;
2. a `done` action that reports an open or blocked action done (`words.completed_index`, the
   rule the rules extractor uses within a batch): merge into it;
3. an explicit change cue (`state.change`: "instead of X", "switch from X to Y", "no longer
   X", "replace X with Y", ...) said by the user: supersede the live item that names X, if
   one does and its purpose does not contradict the candidate's ("Keep Redis for the job
   queue" is not replaced by "Memcached instead of Redis for sessions"). The most words of X
   wins, then the most shared purpose, then the cosine: the vectors only break ties. An LLM
   candidate's `supersedes` names the item directly. Then insert;
4. by vectors: score = cosine + `topic_bonus` when a topic tag is shared (at most 1.0).
   score >= merge threshold: merge. conflict threshold <= score < merge threshold: supersede
   the old item when the candidate carries a weak change cue ("actually", "switched to") next
   to a replacement verb and a ref to a user message, else flag both as `conflict`. Below:
   insert.

Facts ("I've never used Zotero", "I downloaded Zotero") never merge by vectors: one that
answers a live fact on its subject the other way conflicts with it.

Rules 1-3 read words, not vectors, so they give the same items with any embedder.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from archivist.embed.base import Vector
from archivist.models import USER_ROLES, Message
from archivist.state.change import Cue, change_cue
from archivist.state.frames import (
    counted_per,
    head_phrase,
    key,
    same_side,
    same_subject,
    same_value,
    subject_key,
    value_kind,
)
from archivist.state.items import (
    CandidateItem,
    ChangeKind,
    StateChange,
    StateItem,
    compute_uid,
    default_status,
    max_confidence,
    resolve_status_merge,
    validated_status,
)
from archivist.words import CHOICE_STEMS, completed_index, content_stems, identity

# Types an explicit cue may supersede: what was chosen, required or planned.
REPLACEABLE = frozenset({"decision", "constraint", "action"})
# Types whose items carry a subject (`state.frames`) and replace each other by it.
SUBJECT_TYPES = frozenset({"decision", "constraint"})

MAX_TAGS = 3


@dataclass(frozen=True)
class Thresholds:
    """The reconciliation bounds (settings `state_merge_threshold` and the others)."""

    merge: float = 0.92
    conflict: float = 0.85
    topic_bonus: float = 0.02


@dataclass
class Admitted:
    """The candidates reconciliation may use, and how many were dropped or over the cap."""

    candidates: list[CandidateItem]
    dropped_refs: int = 0
    over_cap: int = 0


@dataclass
class Reconciliation:
    items: list[StateItem]
    changes: list[StateChange] = field(default_factory=list)

    def count(self, kind: ChangeKind) -> int:
        return sum(1 for c in self.changes if c.kind == kind)


def admit(
    candidates: Sequence[CandidateItem], batch: Sequence[Message], max_candidates: int
) -> Admitted:
    """Keep the refs that are ids of the batch; drop candidates left without one; cap the
    rest, the user's first, the latest first."""
    ids = {m.id for m in batch}
    users = {m.id for m in batch if m.role.strip().lower() in USER_ROLES}
    kept: list[CandidateItem] = []
    dropped = 0
    for candidate in candidates:
        refs = list(dict.fromkeys(r for r in candidate.refs if r in ids))
        if not refs:
            dropped += 1
            continue
        kept.append(candidate.model_copy(update={"refs": refs}))
    if len(kept) > max_candidates:
        # Over the cap, what the user said (the evidence a change needs) goes first, and of
        # it changes and facts, then choices, then the rest: the state is what was chosen and
        # what changed. Within a rank the latest go first: what holds at the batch's end is
        # what was said last (an update comes after what it updates). The order of the kept
        # ones stays the conversation's.
        first = sorted(
            range(len(kept)), key=lambda i: (not set(kept[i].refs) & users, _rank(kept[i]), -i)
        )
        chosen = sorted(first[:max_candidates])
        return Admitted([kept[i] for i in chosen], dropped, len(kept) - max_candidates)
    return Admitted(kept, dropped, 0)


_RANK = {"decision": 1, "constraint": 1, "risk": 2, "action": 3, "question": 4}


def _rank(candidate: CandidateItem) -> int:
    """Which candidates a capped batch keeps first (lowest first)."""
    if candidate.change is not None or candidate.type == "fact":
        return 0
    return _RANK.get(candidate.type, 4)


def cosine(a: Vector, b: Vector) -> float:
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(np.dot(a, b) / norm) if norm else 0.0


def reconcile(
    previous: Sequence[StateItem],
    candidates: Sequence[CandidateItem],
    batch: Sequence[Message],
    item_vectors: Mapping[str, Vector],
    candidate_vectors: Sequence[Vector],
    thresholds: Thresholds = Thresholds(),
) -> Reconciliation:
    """The next items and what changed (candidates must come from `admit`)."""
    items = [item.model_copy(deep=True) for item in previous]
    vectors = dict(item_vectors)
    by_id = {m.id: m for m in batch}
    result = Reconciliation(items)
    for candidate, vector in zip(candidates, candidate_vectors, strict=True):
        _one(result, candidate, vector, vectors, by_id, thresholds)
    return result


def _one(
    result: Reconciliation,
    candidate: CandidateItem,
    vector: Vector,
    vectors: dict[str, Vector],
    by_id: Mapping[str, Message],
    thresholds: Thresholds,
) -> None:
    new = _item(candidate, by_id)
    items = result.items
    same = _same(new, items)
    if _by_subject(result, candidate, new, same, by_id):
        return
    if new.type == "fact" and same is None:
        _fact(result, new, vector, vectors)
        return
    if same is not None and same.status == "superseded":
        result.changes.append(_change("ignored", new, other=same.uid))
        return
    if same is None and (done := _completed(new, items)) is not None:
        _merge(result, done, new, None)
        return
    evidence = supersession_evidence(candidate, new.uid, by_id)
    if same is None and evidence is not None:
        cue = change_cue(candidate.signal_text())
        old = _replaced(candidate, new, cue, items, vector, vectors)
        if old is not None:
            _supersede(result, old, new, evidence, None)
            items.append(new)
            vectors[new.uid] = vector
            result.changes.append(_change("added", new))
            return
        if cue is not None and cue.old is not None:
            evidence = None  # it names what it replaces, and no live item is that
    best, score = same, 1.0
    if best is None:
        best, score = _nearest(new, vector, items, vectors, thresholds.topic_bonus)
    if best is not None and score >= thresholds.merge:
        _merge(result, best, new, score)
        return
    if best is not None and score >= thresholds.conflict:
        if evidence is not None:
            _supersede(result, best, new, evidence, score)
        else:
            _flag(best, new)
            result.changes.append(_change("conflict", new, other=best.uid, score=score))
    items.append(new)
    vectors[new.uid] = vector
    result.changes.append(_change("added", new))


def _by_subject(
    result: Reconciliation,
    candidate: CandidateItem,
    new: StateItem,
    same: StateItem | None,
    by_id: Mapping[str, Message],
) -> bool:
    """Rule 0: a decision or constraint that names its subject (`state.frames`), said by the
    user, replaces the live items on that subject whose value differs, with its change
    language (or, without any, as the same speaker's later word in one session: items get a
    subject only from the user's sentences). "Keep Redis for the job queue" never touches "Use
    Memcached for the session cache": the subjects differ. An update of a time or an amount
    whose subject no item has replaces the latest of its kind on a subject that shares a word
    with it besides what both name (`_near_subject`). A reversal ("back to Redis", "keep Redis
    after all") brings back the superseded item it names. True when it placed `new`."""
    if new.type not in SUBJECT_TYPES or (new.subject is None and new.change is None):
        return False
    user_ref = _user_ref(candidate.refs, by_id)
    if user_ref is None:
        return False
    subject = new.subject or _subject_of(new, result.items)
    others = [
        i
        for i in result.items
        if i.type in SUBJECT_TYPES
        and i.status != "superseded"
        and i.uid != new.uid
        and not set(i.refs) & set(new.refs)
        and (new.change == "cancel" or not same_value(i.value, new.value))
    ]
    if subject is not None:
        live = [
            i
            for i in others
            if same_subject(i.subject, subject)
            and (new.change == "cancel" or same_side(i.value, new.value))
        ]
        bare = [i for i in others if i.subject is None]
        swapped = new.change in ("replace", "update")  # a cancel names only what it drops
        if not live and swapped and (named := _named_value(new, bare)) is not None:
            # "Blue Oak fell through, going with Harvest Table for catering" after "we picked
            # Blue Oak Catering": the old item has no subject, the change names its value (an
            # item on another subject is never one: "Keep Redis for the job queue" stays)
            live = [named]
        if not live and new.change == "update" and (near := _near_subject(new, others)):
            live = [near]
    else:
        target = _target(new, others, result.items)
        live = [target] if target is not None else []
        subject = target.subject if target is not None else None
    if not live:
        return False
    evidence = supersession_evidence(candidate, new.uid, by_id) or {
        "trigger": new.change or "restated",
        "ref_msg_id": user_ref,
        "candidate_uid": new.uid,
        **({"subject": subject} if subject else {}),
    }
    placed = same if same is not None and same.status == "superseded" else new
    if placed is same:
        placed.status = default_status(placed.type)
        placed.replaced_by = None
        placed.supersession_evidence = None
        placed.refs = list(dict.fromkeys([*placed.refs, *new.refs]))
        placed.last_seen_at = _latest(placed.last_seen_at, new.last_seen_at)
        result.changes.append(
            _change("status", placed, status_from="superseded", status_to=placed.status)
        )
    for old in live:
        _supersede(result, old, placed, {**evidence, "candidate_uid": placed.uid}, None)
    if placed is new:
        new.subject = subject or new.subject
        result.items.append(new)
        result.changes.append(_change("added", new))
    return True


def _fact(
    result: Reconciliation, new: StateItem, vector: Vector, vectors: dict[str, Vector]
) -> None:
    """A fact on a subject that a live fact answers the other way ("never" against "yes")
    conflicts with it: both are flagged, neither replaces the other. Then it is added."""
    for other in result.items:
        if (
            other.type == "fact"
            and other.status != "superseded"
            and same_subject(other.subject, new.subject)
            and other.value != new.value
        ):
            _flag(other, new)
            result.changes.append(_change("conflict", new, other=other.uid))
    result.items.append(new)
    vectors[new.uid] = vector
    result.changes.append(_change("added", new))


def _flag(a: StateItem, b: StateItem) -> None:
    """Mark two items of a session as conflicting with each other."""
    a.conflict = b.conflict = True
    for item, other in ((a, b), (b, a)):
        if other.uid not in item.conflict_with:
            item.conflict_with.append(other.uid)


def _user_ref(refs: Sequence[str], by_id: Mapping[str, Message]) -> str | None:
    """The first ref that is a user's message of the batch."""
    return next(
        (r for r in refs if r in by_id and by_id[r].role.strip().lower() in USER_ROLES), None
    )


def _subject_of(new: StateItem, items: Sequence[StateItem]) -> str | None:
    """The subject of a change that names only values: the subject of the latest item whose
    value, or subject, is the one replaced ("from RabbitMQ to SQS"; "swapped the tent for the
    4-person one"), or, for a reversal, the one it goes back to ("back to Redis")."""
    named = new.value if new.change == "reverse" else None
    replaced = _replaced_value(new)
    for item in reversed(items):
        if item.type not in SUBJECT_TYPES or item.subject is None:
            continue
        if replaced and (same_value(item.value, replaced) or same_subject(item.subject, replaced)):
            return item.subject
        if named and same_value(item.value, named):
            return item.subject
    return None


def _target(
    new: StateItem, live: Sequence[StateItem], items: Sequence[StateItem]
) -> StateItem | None:
    """The live item a change that names no subject replaces, when no subject can be found
    for it: the item whose value it names as replaced ("drop Hulu"); for a reversal, the live
    item that replaced the one it goes back to ("never mind, keep the sage green"); else the
    latest item whose value is of the same kind ("make it 8pm" after "at 7pm"; "let's do the
    Italian place instead" after "book Nopa")."""
    if _replaced_value(new):
        return _named_value(new, live)
    if new.value is None:
        return None
    if new.change == "reverse":
        moved = next(
            (
                i
                for i in reversed(live)
                if i.change in ("replace", "update", "cancel")
                and i.replaces
                and same_value(i.replaces, new.value)
            ),
            None,
        )
        if moved is not None:
            return moved  # "we're keeping REST" after "moving the API from REST to GraphQL"
        back = next(
            (
                i
                for i in reversed(items)
                if i.status == "superseded" and same_value(i.value, new.value)
            ),
            None,
        )
        by_uid = {i.uid: i for i in items}
        seen: set[str] = set()
        while back is not None and back.status == "superseded" and back.uid not in seen:
            seen.add(back.uid)
            back = by_uid.get(back.replaced_by or "")
        return back if back is not None and back in live else None
    kind = value_kind(new.value)
    alike = [i for i in live if i.value and value_kind(i.value) == kind]
    # Among things, one chosen with the same verb ("get her the pottery class instead" after
    # "get her the Kindle") before the latest.
    verb = new.text.split()[0].lower()
    same_verb = [i for i in alike if i.text.split()[0].lower() == verb and verb != "use"]
    return next(reversed(same_verb or alike), None)


def _near_subject(new: StateItem, live: Sequence[StateItem]) -> StateItem | None:
    """The latest live item an update of a time or an amount replaces when no item is on its
    subject: one whose value is of the same kind and whose subject shares a word with it that
    is not what either names ("the kitchen cap is now 32k" after "the budget for the kitchen
    reno is $25,000": the kitchen's; "the flight budget" is not "the hotel budget"), or an
    item without a subject whose text says a value of that kind and a word of the update's
    subject besides its head ("my driving test is now on 28 of May" after "take my driving
    exam on 21 of May")."""
    if not new.value or (kind := value_kind(new.value)) == "thing":
        return None
    words = set(subject_key(new.subject)) - _head(new.subject)
    per = counted_per(new.value)
    return next(
        (
            i
            for i in reversed(live)
            if (
                i.value
                and value_kind(i.value) == kind
                and (
                    (words & set(subject_key(i.subject))) - _head(i.subject)
                    or (per and per == counted_per(i.value))  # "$120/month" after "$200 a month"
                )
            )
            or (i.subject is None and value_kind(i.text) == kind and words & set(key(i.text)))
        ),
        None,
    )


def _head(subject: str | None) -> set[str]:
    """The stems of what a subject names: the last word of its head ("budget" of "budget for
    the kitchen reno", "cap" of "kitchen cap")."""
    words = (head_phrase(subject) or "").split()
    return set(subject_key(words[-1])) if words else set()


def _named_value(new: StateItem, live: Sequence[StateItem]) -> StateItem | None:
    """The latest live item whose value a change names as what it replaces, else the latest
    whose words hold every word of it ("scrap the guesthouse, we're going with an Airbnb"
    after "staying at that little guesthouse in Alfama", whose value is Alfama)."""
    replaced = _replaced_value(new)
    if not replaced:
        return None
    valued = next((i for i in reversed(live) if same_value(i.value, replaced)), None)
    if valued is not None:
        return valued
    words = content_stems(replaced) - CHOICE_STEMS
    return next((i for i in reversed(live) if words and words <= content_stems(i.text)), None)


def _replaced_value(new: StateItem) -> str | None:
    """What a change names as replaced: its `replaces`, or a cancel's value."""
    return new.replaces or (new.value if new.change == "cancel" else None)


def _same(new: StateItem, items: Sequence[StateItem]) -> StateItem | None:
    """The item with the new one's UID, else a live item of its type with its identity."""
    same = next((i for i in items if i.uid == new.uid), None)
    if same is not None:
        return same
    key = identity(new.text)
    if not key:
        return None
    alike = [i for i in items if i.type == new.type and identity(i.text) == key]
    live = [i for i in alike if i.status != "superseded"]
    return next(iter(live or alike), None)


def _replaced(
    candidate: CandidateItem,
    new: StateItem,
    cue: Cue | None,
    items: Sequence[StateItem],
    vector: Vector,
    vectors: Mapping[str, Vector],
) -> StateItem | None:
    """The live item an explicit change cue (or an LLM's `supersedes`) replaces, if any.

    Never an item the candidate's own messages stated: "switch to X and keep Y" replaces
    neither of its halves.
    """
    if new.type not in REPLACEABLE:
        return None
    pool = [
        i
        for i in items
        if i.type == new.type
        and i.status != "superseded"
        and i.uid != new.uid
        and not set(i.refs) & set(new.refs)
    ]
    if candidate.supersedes:
        return next((i for i in pool if i.uid == candidate.supersedes), None)
    if cue is None or cue.old is None:
        return None
    old = content_stems(cue.old) - CHOICE_STEMS
    # (what it is for, not what it picks: the new value's words are never the old item's)
    purpose = content_stems(new.text) - old - content_stems(new.value or "") - CHOICE_STEMS
    best: StateItem | None = None
    best_key: tuple[int, int, float] = (0, 0, -2.0)
    for item in pool:
        stems = content_stems(item.text)
        named = len(old & stems)
        its_purpose = stems - old - CHOICE_STEMS
        if not named or (purpose and its_purpose and not purpose & its_purpose):
            continue
        tie = cosine(vector, vectors[item.uid]) if item.uid in vectors else -1.0
        key = (named, len(purpose & its_purpose), tie)
        if key > best_key:
            best, best_key = item, key
    return best


def _supersede(
    result: Reconciliation,
    old: StateItem,
    new: StateItem,
    evidence: dict[str, str],
    score: float | None,
) -> None:
    old.status = "superseded"
    old.replaced_by = new.uid
    old.supersession_evidence = evidence
    result.changes.append(_change("superseded", old, other=new.uid, score=score))
    result.changes[-1].evidence = evidence


def _nearest(
    new: StateItem,
    vector: Vector,
    items: Sequence[StateItem],
    vectors: Mapping[str, Vector],
    bonus: float,
) -> tuple[StateItem | None, float]:
    best: StateItem | None = None
    best_score = -1.0
    for item in items:
        if item.type != new.type or item.status == "superseded" or item.uid not in vectors:
            continue
        score = cosine(vector, vectors[item.uid])
        if set(item.topic_tags) & set(new.topic_tags):
            score = min(1.0, score + bonus)
        if score > best_score:
            best, best_score = item, score
    return best, best_score


def _completed(new: StateItem, items: Sequence[StateItem]) -> StateItem | None:
    """The open or blocked action a `done` action reports done, if any."""
    if new.type != "action" or new.status != "done":
        return None
    planned = [
        i.text if i.type == "action" and i.status in ("open", "blocked") else None for i in items
    ]
    index = completed_index(content_stems(new.text), planned)
    return None if index is None else items[index]


def _merge(result: Reconciliation, old: StateItem, new: StateItem, score: float | None) -> None:
    status = resolve_status_merge(old.type, old.status, new.status)
    if status != old.status:
        result.changes.append(
            _change("status", old, status_from=old.status, status_to=status, other=new.uid)
        )
    old.status = status
    old.refs = list(dict.fromkeys([*old.refs, *new.refs]))
    old.topic_tags = list(dict.fromkeys([*old.topic_tags, *new.topic_tags]))[:MAX_TAGS]
    old.confidence = max_confidence(old.confidence, new.confidence)
    old.last_seen_at = _latest(old.last_seen_at, new.last_seen_at)
    result.changes.append(_change("merged", old, other=new.uid, score=score))


def supersession_evidence(
    candidate: CandidateItem, uid: str, by_id: Mapping[str, Message]
) -> dict[str, str] | None:
    """The evidence for a supersession: the change cue's trigger, the user message that said
    it and the new item; None without change language (`state.change.change_cue`) or without
    a user message among the refs.

    `candidate` must be admitted (its refs are ids of `by_id`).
    """
    cue = change_cue(candidate.signal_text())
    if cue is None:
        return None
    user_ref = next(
        (r for r in candidate.refs if by_id[r].role.strip().lower() in USER_ROLES),
        None,
    )
    if user_ref is None:
        return None
    return {"trigger": cue.trigger, "ref_msg_id": user_ref, "candidate_uid": uid}


def _item(candidate: CandidateItem, by_id: Mapping[str, Message]) -> StateItem:
    status, valid = validated_status(candidate.type, candidate.status)
    times = [by_id[r].created_at for r in candidate.refs]
    tags = [" ".join(t.lower().split()) for t in candidate.topic_tags]
    return StateItem(
        uid=compute_uid(candidate.type, candidate.text),
        type=candidate.type,
        text=candidate.text.strip(),
        status=status,
        confidence=candidate.confidence if valid else "low",
        topic_tags=list(dict.fromkeys(t for t in tags if t))[:MAX_TAGS],
        refs=list(candidate.refs),
        created_at=min(times),
        last_seen_at=max(times),
        subject=candidate.subject,
        value=candidate.value,
        change=candidate.change,
        replaces=candidate.replaces,
    )


def _latest(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None or b is None:
        return a or b
    return max(a, b)


def _change(
    kind: ChangeKind,
    item: StateItem,
    *,
    other: str | None = None,
    score: float | None = None,
    status_from: str | None = None,
    status_to: str | None = None,
) -> StateChange:
    return StateChange(
        kind=kind,
        uid=item.uid,
        type=item.type,
        text=item.text,
        other_uid=other,
        score=round(score, 4) if score is not None else None,
        status_from=status_from,
        status_to=status_to,
    )
