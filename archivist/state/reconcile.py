"""Deterministic reconciliation: the previous version's items + one batch's candidates -> items.

Pure: no I/O, no clock. The caller drops what cannot be trusted (`admit`: refs outside the
batch, the candidate cap), embeds the admitted candidates' texts, and hands over the vectors of
the previous items (read back from their `state_item` chunks, so an unchanged item is never
embedded twice). Per candidate, in order, against the items of the same type that are not
superseded (those of earlier candidates of this run included):

- a `done` action that reports an open or blocked action done (`words.completed_index`, the
  rule the rules extractor uses within a batch) merges into it, whatever the vectors say;
- score = cosine + `topic_bonus` when a topic tag is shared (at most 1.0);
- score >= merge threshold (or the same UID): merge (refs and tags united, status by
  precedence, the higher confidence, `last_seen_at` never older than before);
- conflict threshold <= score < merge threshold: supersede the old item when the candidate
  carries a supersession signal (a trigger word and a replacement verb in its text or its
  sentence, and a ref to a user message), else flag both as `conflict`;
- below: insert.

A candidate equal to a superseded item (same UID) is ignored: superseded items never come back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from archivist.embed.base import Vector
from archivist.models import USER_ROLES, Message
from archivist.state.items import (
    CandidateItem,
    ChangeKind,
    StateChange,
    StateItem,
    compute_uid,
    max_confidence,
    replacement_verb,
    resolve_status_merge,
    supersession_trigger,
    validated_status,
)
from archivist.words import completed_index, content_stems

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
    """Keep the refs that are ids of the batch; drop candidates left without one; cap the rest."""
    ids = {m.id for m in batch}
    kept: list[CandidateItem] = []
    dropped = 0
    for candidate in candidates:
        refs = list(dict.fromkeys(r for r in candidate.refs if r in ids))
        if not refs:
            dropped += 1
            continue
        kept.append(candidate.model_copy(update={"refs": refs}))
    return Admitted(kept[:max_candidates], dropped, max(0, len(kept) - max_candidates))


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
    same = next((i for i in items if i.uid == new.uid), None)
    if same is not None and same.status == "superseded":
        result.changes.append(_change("ignored", new, other=same.uid))
        return
    if same is None and (done := _completed(new, items)) is not None:
        _merge(result, done, new, None)
        return
    best, score = same, 1.0
    if best is None:
        best, score = _nearest(new, vector, items, vectors, thresholds.topic_bonus)
    if best is not None and score >= thresholds.merge:
        _merge(result, best, new, score)
        return
    if best is not None and score >= thresholds.conflict:
        evidence = supersession_evidence(candidate, new.uid, by_id)
        if evidence is not None:
            best.status = "superseded"
            best.replaced_by = new.uid
            best.supersession_evidence = evidence
            result.changes.append(_change("superseded", best, other=new.uid, score=score))
            result.changes[-1].evidence = evidence
        else:
            best.conflict = new.conflict = True
            result.changes.append(_change("conflict", new, other=best.uid, score=score))
    items.append(new)
    vectors[new.uid] = vector
    result.changes.append(_change("added", new))


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
    """The evidence for a supersession, or None unless all three signals are there.

    `candidate` must be admitted (its refs are ids of `by_id`).
    """
    text = candidate.signal_text()
    trigger = supersession_trigger(text)
    if trigger is None or replacement_verb(text) is None:
        return None
    user_ref = next(
        (r for r in candidate.refs if by_id[r].role.strip().lower() in USER_ROLES),
        None,
    )
    if user_ref is None:
        return None
    return {"trigger": trigger, "ref_msg_id": user_ref, "candidate_uid": uid}


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
