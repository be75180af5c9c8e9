"""The next version of a session, planned from what one read returned: pure, no I/O.

`plan_version(read, ...)` cleans the messages the read returned, extracts, reconciles the state
items, builds the chunks and decides which texts need an embedding. It reads nothing and writes
nothing: the only outside call is `vectors`, the function that embeds the state-item candidates
reconciliation compares (the embedder in a run; any deterministic function in a test). With
`embed_chunks`, that one call also carries the new chunks' texts (all but the state items', which
reconciliation decides and the candidates' vectors cover): a run makes one request per session,
not two, and the embedding server answers a batch sized by the session rather than a few
candidates.

A text needs no embedding when a stored chunk of the session (same model) already has that
content: the commit copies that chunk's vector (by content hash) in the database. So an item
whose status changed, an extraction piece that moved, or a window rewritten with the same text
is never embedded again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from archivist.chunking import (
    DEFAULT_SPEAKERS,
    EXTRACTION_SLOT,
    STATE_SLOT,
    SUMMARY_SLOT,
    edit_slot,
    extraction_chunks,
    late_slot,
    state_item_chunks,
    summary_chunks,
    undated_slot,
    window_chunks,
    window_slot,
)
from archivist.embed.base import Vector
from archivist.extract.base import Extractor, ExtractorRecord
from archivist.extract.rules import earlier_contradictions, without_decisions
from archivist.models import (
    Chunk,
    Decision,
    Extraction,
    Message,
    SessionSummary,
    StateChange,
    Watermark,
)
from archivist.pipeline.reading import SessionRead
from archivist.sanitize import clean_message
from archivist.state.items import CandidateItem, StateItem
from archivist.state.reconcile import Admitted, Reconciliation, Thresholds, admit, reconcile
from archivist.words import content_stems, identity

# Embeds texts (in order) and returns their vectors; the planner's one outside call.
Vectors = Callable[[list[str]], list[Vector]]
# Told when a step of planning is done: its name and a detail (the run logs them with `-v`).
Phase = Callable[[str, str], None]


def _no_phase(step: str, detail: str) -> None:
    return None


@dataclass(frozen=True)
class PlanSettings:
    """The settings planning depends on."""

    model: str
    chunk_chars: int  # summary and extraction pieces: what the model reads at once
    window_chars: int  # a turn window: read whole by full text, embedded in pieces
    turns_per_window: int
    speaker_labels: Mapping[str, str]
    max_message_chars: int
    state_max_candidates: int
    thresholds: Thresholds


@dataclass
class StatePlan:
    """The state items of the next version: what reconciliation did, and the vectors it made."""

    result: Reconciliation
    admitted: Admitted
    # text -> vector: the items' (stored, and the candidates') and the chunks' texts embedded
    # with the candidates; the new chunks with these texts reuse them
    vectors: dict[str, Vector]
    texts_embedded: list[str] = field(default_factory=list)


@dataclass
class VersionPlan:
    """The next version of one session: what it covers and which chunks it writes."""

    session_id: str
    model: str
    from_version: int
    new_messages: list[Message]
    extraction: Extraction
    watermark: Watermark | None
    message_count: int
    archived: list[dict[str, Any]]  # what the version archives of each message (its hashes)
    summary: SessionSummary | None
    chunks: list[Chunk]
    slots: list[str] | None  # None: every slot (a rebuild)
    existing: dict[str, str]  # chunk id -> slot, already stored in those slots
    reusable: frozenset[str]  # content hashes whose stored vector the commit copies
    repairs: Counter[str]
    record: ExtractorRecord
    state: StatePlan
    # The distinct user ids of the session's messages (ARCHIVIST_MESSAGE_USER_ID; at most 3).
    users: list[str] = field(default_factory=list)
    # How turns are labelled in its chunks (Settings.speaker_labels).
    speakers: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_SPEAKERS))
    # What tying its changes to earlier sessions did (pipeline.across), once done: earlier
    # items its changes supersede, earlier choices recalled.
    across: list[StateChange] = field(default_factory=list)

    @property
    def user_id(self) -> str | None:
        """The session's user: its messages' one user id; none with none, or with several."""
        return self.users[0] if len(self.users) == 1 else None

    @property
    def multi_user(self) -> bool:
        return len(self.users) > 1

    @property
    def to_write(self) -> list[Chunk]:
        """The chunks the table does not hold yet (by id)."""
        return [c for c in self.chunks if c.id not in self.existing]

    @property
    def to_embed(self) -> list[Chunk]:
        """The new chunks whose text has no vector at hand: neither stored nor made this
        version (with the state candidates)."""
        return [
            c
            for c in self.to_write
            if c.content_hash not in self.reusable and c.content not in self.state.vectors
        ]

    @property
    def texts_to_embed(self) -> list[str]:
        """The distinct texts of `to_embed`, in order."""
        return list(dict.fromkeys(c.content for c in self.to_embed))

    @property
    def to_remove(self) -> set[str]:
        return set(self.existing) - {c.id for c in self.chunks}


def summary_changed(read: SessionRead) -> bool:
    """Whether the bot's summary is newer than the one the base version holds."""
    base, summary = read.base, read.summary
    if summary is None:
        return False
    if base is None:
        return True
    return summary.updated_at is not None and (
        base.summary_at is None or summary.updated_at > base.summary_at
    )


def has_work(read: SessionRead) -> bool:
    """Whether the read holds anything a next version would archive."""
    return bool(read.new or read.late or read.edited or read.undated or summary_changed(read))


def plan_version(
    read: SessionRead,
    settings: PlanSettings,
    extractor: Extractor,
    vectors: Vectors,
    phase: Phase = _no_phase,
    embed_chunks: bool = False,
) -> VersionPlan | None:
    """The next version of the session, or None when there is nothing new to archive.

    `embed_chunks`: embed the new chunks' texts in the state candidates' call to `vectors`
    (when there are candidates to embed); else they are left in `texts_to_embed` (a dry run
    embeds none of them).
    """
    if not has_work(read):
        return None
    base, session_id = read.base, read.session_id
    repairs: Counter[str] = Counter()
    messages = _clean(read.new, settings, repairs)
    late = _clean(read.late, settings, repairs)
    edited = _clean(read.edited, settings, repairs)
    undated = _clean(read.undated, settings, repairs)
    for name, moved in (("late_arrivals", late), ("edited", edited), ("undated", undated)):
        if moved:
            repairs[name] += len(moved)
    from_version = read.state.version if read.state else 0
    version = from_version + 1
    batch = late + edited + messages + undated
    result = extractor.extract(
        base.extraction if base else None,
        session_id,
        batch,
        read.summary,
        base.extraction.state_items if base else (),
    )
    extraction = result.extraction
    if result.dropped_items:
        repairs["llm_items_dropped"] += result.dropped_items
    phase("extract", result.record.name)

    # Every chunk but the state items' (reconciliation decides those), in the order written.
    model, size, speakers = settings.model, settings.chunk_chars, settings.speaker_labels
    made = extraction_chunks(session_id, extraction, model, version, size)
    windows, window_slots = _window_chunks(read, messages, settings, version)
    head = made + windows
    tail: list[Chunk] = []
    tail_slots: list[str] = []
    for slot, moved in ((late_slot(version), late), (edit_slot(version), edited)):
        if moved:
            parts = window_chunks(
                session_id, slot, moved, model, version, settings.window_chars, speakers=speakers
            )
            if moved is edited:  # (archived cut, now whole: its pieces up to the cut are there)
                parts = [c for c in parts if c.content_hash not in read.stored_hashes]
            tail += parts
            tail_slots.append(slot)
    if undated:
        slot = undated_slot(version)
        tail += window_chunks(
            session_id, slot, undated, model, version, settings.window_chars, speakers=speakers
        )
        tail_slots.append(slot)
    if summary_changed(read):
        tail += summary_chunks(
            session_id,
            read.summary.summary_text if read.summary else None,
            extraction.span,
            model,
            version,
            size,
        )
    phase("chunk", f"{len(head) + len(tail)} chunks")

    early = _new_texts(read, head + tail) if embed_chunks else []
    contradicting = earlier_contradictions(batch, read.earlier) if read.earlier else []
    candidates = [*result.candidates, *contradicting]
    state = plan_state(read, batch, candidates, settings, vectors, early)
    _cite_earlier(state.result.items, contradicting, {m.id for m in batch})
    phase("reconcile", f"{len(result.candidates)} candidates")
    extraction.state_items = state.result.items
    if replaced := replaced_decisions(extraction.decisions, extraction.state_items):
        extraction = without_decisions(
            extraction, replaced, base.extraction if base else None, batch, read.summary
        )
        head = extraction_chunks(session_id, extraction, model, version, size) + windows
    chunks = head + state_item_chunks(session_id, extraction.state_items, model, version) + tail
    slots = [EXTRACTION_SLOT, *window_slots, STATE_SLOT, *tail_slots]
    if summary_changed(read):
        slots.insert(0, SUMMARY_SLOT)
    rewritten = None if read.rebuild else set(slots)
    existing = {
        i: slot for i, slot in read.stored.items() if rewritten is None or slot in rewritten
    }
    return VersionPlan(
        session_id=session_id,
        model=model,
        from_version=from_version,
        new_messages=batch,
        extraction=extraction,
        watermark=(
            Watermark(created_at=messages[-1].created_at, message_id=messages[-1].id)
            if messages
            else (base.watermark if base else None)
        ),
        message_count=(base.message_count if base else 0) + len(late) + len(messages),
        archived=archived_texts(batch, settings.max_message_chars),
        summary=read.summary,
        chunks=chunks,
        slots=None if read.rebuild else slots,
        existing=existing,
        reusable=read.stored_hashes,
        repairs=repairs,
        record=result.record,
        state=state,
        users=read.users,
        speakers=settings.speaker_labels,
    )


def replaced_decisions(decisions: Sequence[Decision], items: Sequence[StateItem]) -> list[Decision]:
    """The decisions (of the rules extractor, which cites the message that stated each) that
    the session's state replaced: their message stated a decision item the session superseded
    and that names what the decision names, and no live item of that message does ("Go with
    Grafana" after "scratch that, keep Kibana"). Without this, archive-search --decision and the
    summary ("Decided: Go with Grafana") kept serving a choice taken back."""
    replaced = []
    for decision in decisions:
        words = content_stems(decision.text)
        said = [
            i
            for i in items
            if i.type == "decision"
            and i.value
            and set(i.refs) & set(decision.refs)
            and content_stems(i.value) & words
        ]
        if said and all(i.status == "superseded" for i in said):
            replaced.append(decision)
    return replaced


def plan_state(
    read: SessionRead,
    batch: list[Message],
    candidates: list[CandidateItem],
    settings: PlanSettings,
    vectors: Vectors,
    also: Sequence[str] = (),
) -> StatePlan:
    """Reconcile the batch's candidates with the previous version's state items.

    Only admitted candidates' texts are embedded, and only those no stored item chunk holds;
    the previous items' vectors come with the read. `also`: texts to embed in the same call,
    if there is one.
    """
    base = read.base
    previous = list(base.extraction.state_items) if base else []
    admitted = admit(candidates, batch, settings.state_max_candidates)
    if not admitted.candidates:
        return StatePlan(Reconciliation(previous), admitted, {})
    stored = read.item_vectors
    by_text = {text: vector for _, text, vector in stored}
    texts = list(dict.fromkeys(c.text.strip() for c in admitted.candidates))
    unknown = [t for t in texts if t not in by_text]
    if unknown:
        unknown = list(dict.fromkeys([*unknown, *(t for t in also if t not in by_text)]))
        by_text.update(zip(unknown, vectors(unknown), strict=True))
    wanted = [by_text[c.text.strip()] for c in admitted.candidates]
    by_uid = {uid: vector for uid, _, vector in stored} if previous else {}
    result = reconcile(previous, admitted.candidates, batch, by_uid, wanted, settings.thresholds)
    # Every vector at hand, stored or new: an item whose status changed keeps its text.
    return StatePlan(result, admitted, by_text, unknown)


def _cite_earlier(
    items: Sequence[StateItem], contradicting: Sequence[CandidateItem], batch_ids: set[str]
) -> None:
    """Give each fact that contradicts another session's turns (`earlier_contradictions`) those
    turns' ids among its refs, and flag it as a conflict. They are added after reconciliation:
    what it admits and when an item was said are the batch's messages alone."""
    for candidate in contradicting:
        cited = [r for r in candidate.refs if r not in batch_ids]
        own, key = set(candidate.refs) - set(cited), identity(candidate.text)
        for item in items:
            if item.type == "fact" and own & set(item.refs) and identity(item.text) == key:
                item.refs = [*item.refs, *(r for r in cited if r not in item.refs)]
                item.conflict = True


def _new_texts(read: SessionRead, chunks: list[Chunk]) -> list[str]:
    """The distinct texts of the chunks that the table does not hold and whose vector no stored
    chunk has."""
    return list(
        dict.fromkeys(
            c.content
            for c in chunks
            if c.id not in read.stored and c.content_hash not in read.stored_hashes
        )
    )


def _window_chunks(
    read: SessionRead, messages: list[Message], settings: PlanSettings, version: int
) -> tuple[list[Chunk], list[str]]:
    """The turn windows' chunks this version writes, and their slots.

    New messages first fill the session's last window if it is not full (with its messages as
    the read found them), then open new windows. A window some of whose messages were pruned or
    edited meanwhile is left as archived: rewriting it would lose their archived text.
    """
    if not messages:
        return [], []
    width = settings.turns_per_window
    first_window, head = 0, []
    last = read.last_window if read.base is not None else None
    if last is not None:
        first_window = last.index + 1
        if len(last.covered) < width:
            present = last.present
            # Rewritten only if every message is there as archived: an edited one keeps its
            # archived text in this window (its new text goes to an `edit:` slot).
            if len(present) == len(last.covered) and all(m.archived_as_is for m in present):
                first_window, head = last.index, _clean(present, settings, Counter())
    turns = head + messages
    chunks: list[Chunk] = []
    slots: list[str] = []
    for offset in range(0, len(turns), width):
        index = first_window + offset // width
        slot = window_slot(index)
        chunks += window_chunks(
            read.session_id,
            slot,
            turns[offset : offset + width],
            settings.model,
            version,
            settings.window_chars,
            index,
            settings.speaker_labels,
        )
        slots.append(slot)
    return chunks, slots


def archived_texts(messages: Sequence[Message], max_chars: int) -> list[dict[str, Any]]:
    """What a version archives of each message: the md5 and length of the source text read,
    and how much of it the archive holds (less when it was cut)."""
    texts = {
        m.id: {
            "id": m.id,
            "md5": m.source_md5,
            "chars": m.source_chars,
            "archived_chars": min(m.source_chars, max_chars),
        }
        for m in messages
        if m.source_md5 is not None and m.source_chars is not None
    }
    return list(texts.values())


def _clean(
    messages: Sequence[Message], settings: PlanSettings, repairs: Counter[str]
) -> list[Message]:
    cleaned = []
    for message in messages:
        message, fixes = clean_message(message, settings.max_message_chars)
        repairs.update(fixes)
        cleaned.append(message)
    return cleaned
