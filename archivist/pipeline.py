"""One archive run: pick sessions, then per session load -> extract -> chunk -> embed -> commit.

A dry run builds exactly the same plan and stops before embedding and writing. Each session is
processed under its advisory lock, from its committed watermark, and committed in one
transaction; a session with more new messages than `max_messages_per_version` gets several
consecutive versions in the same run, so memory stays bounded whatever the session's size.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Protocol, get_args

import numpy as np
import psycopg

from archivist.chunking import (
    EXTRACTION_SLOT,
    STATE_SLOT,
    SUMMARY_SLOT,
    chunk_chars,
    edit_slot,
    extraction_chunks,
    late_slot,
    state_item_chunks,
    summary_chunks,
    undated_slot,
    window_chunks,
    window_slot,
)
from archivist.config import Settings, redact
from archivist.embed.base import Embedder, Vector, embed_documents
from archivist.errors import (
    ArchivistError,
    ConcurrentUpdateError,
    ConfigError,
    DimensionMismatchError,
    EmbedError,
    EmbedUnavailableError,
)
from archivist.extract.base import Extractor, ExtractorRecord, RulesExtractor
from archivist.failures import FailedSession, refuse_unarchivable
from archivist.models import (
    Chunk,
    Extraction,
    Message,
    RunReport,
    SessionOutcome,
    SessionState,
    SessionStatus,
    SessionSummary,
    Watermark,
)
from archivist.sanitize import clean_message
from archivist.state.items import CandidateItem
from archivist.state.reconcile import Admitted, Reconciliation, Thresholds, admit, reconcile
from archivist.store.postgres import EmbeddingConfig, SessionSelection, Store
from archivist.store.rpc import LockTimeoutError

log = logging.getLogger(__name__)

# What the embedder is asked when a session's texts got an unusable answer: is it the texts?
_PROBE_TEXT = "dimension probe"


class _Phases:
    """Logs (at INFO, shown by `-v`) each phase of a session's work with the time it took."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._mark = time.perf_counter()

    def done(self, phase: str, detail: str = "") -> None:
        now = time.perf_counter()
        if log.isEnabledFor(logging.INFO):
            extra = f" ({detail})" if detail else ""
            log.info("%s: %s%s %.0f ms", self.session_id, phase, extra, (now - self._mark) * 1000)
        self._mark = now


class Progress(Protocol):
    def start(self, total: int) -> None: ...

    def advance(self, outcome: SessionOutcome) -> None: ...


@dataclass(frozen=True)
class ArchiveRequest:
    selection: SessionSelection = field(default_factory=SessionSelection)
    dry_run: bool = False
    rebuild: bool = False
    delay_ms: int = 500


@dataclass
class StatePlan:
    """The state items of the next version: what reconciliation did, and the vectors it made."""

    result: Reconciliation
    admitted: Admitted
    vectors: dict[str, Vector]  # item text -> vector, reused for the new items' chunks
    embed_calls: int = 0
    texts_embedded: int = 0


@dataclass
class VersionPlan:
    """The next version of one session: what it covers and which chunks it writes."""

    session_id: str
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
    repairs: Counter[str]
    record: ExtractorRecord
    state: StatePlan
    # The distinct user ids of the session's messages (ARCHIVIST_MESSAGE_USER_ID; at most 3).
    users: list[str] = field(default_factory=list)

    @property
    def user_id(self) -> str | None:
        """The session's user: its messages' one user id; none with none, or with several."""
        return self.users[0] if len(self.users) == 1 else None

    @property
    def multi_user(self) -> bool:
        return len(self.users) > 1

    @property
    def to_embed(self) -> list[Chunk]:
        return [c for c in self.chunks if c.id not in self.existing]

    @property
    def to_remove(self) -> set[str]:
        return set(self.existing) - {c.id for c in self.chunks}


class Archiver:
    """Archives sessions from the bot's tables into versions and embedded chunks."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: Settings,
        extractor: Extractor | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.extractor: Extractor = extractor or RulesExtractor()
        self._embedding: EmbeddingConfig | None = None
        # Sessions in a row that failed for a fault every session meets (the embedder down).
        self._global_failures = 0
        self._failed: dict[str, FailedSession] = {}  # sessions with failed runs in a row

    def run(self, request: ArchiveRequest, progress: Progress | None = None) -> RunReport:
        """Archive (or plan) every selected session.

        One session's failure never stops the rest (it is held back, see archivist.failures);
        faults every session meets stop the run after `stop_after_embed_failures` sessions in a
        row, and a configuration error (a model that is missing or of the wrong dimension) at
        once, before it writes anything more.
        """
        refuse_unarchivable(request.selection.session_ids)
        self._embedding = self.store.check_ready(self.embedder.model)
        report = RunReport(
            dry_run=request.dry_run,
            embedder=self.embedder.name,
            embedding_model=self.embedder.model,
            started_at=datetime.now(UTC),
        )
        queue, report.unarchivable = self.store.pending_work(request.selection)
        self._note_held(report, request.selection)
        if request.rebuild:
            self._refuse_rebuild_of_pruned(queue)
        # A dry run writes nothing, not even its log row.
        run_id = None
        if not request.dry_run:
            self.store.adopt_archived_messages()
            run_id = self.store.start_run(_arguments(request))
        if progress:
            progress.start(len(queue))
        seen: set[str] = set()
        attempted = 0
        while queue:
            session_id = queue.pop(0)
            seen.add(session_id)
            outcome = self._archive_one(session_id, request)
            report.sessions.append(outcome)
            if progress:
                progress.advance(outcome)
            if self.store.broken:
                report.notes.append(
                    f"lost the database connection; {len(queue)} sessions not attempted"
                )
                break
            if self._global_failures >= self.settings.stop_after_embed_failures:
                report.notes.append(
                    f"embedding failed for {self._global_failures} sessions in a row; stopped, "
                    f"{len(queue)} sessions not attempted"
                )
                break
            worked = outcome.status in ("archived", "failed", "planned")
            attempted += worked
            if attempted >= request.selection.limit:
                break
            if not queue:
                queue = self._more_sessions(request.selection, seen, attempted)
            if worked and not request.dry_run and request.delay_ms and queue:
                time.sleep(request.delay_ms / 1000)
        report.finished_at = datetime.now(UTC)
        if run_id is not None and not self.store.broken:
            counts = {status: report.count(status) for status in get_args(SessionStatus)}
            failures = {s.session_id: s.reason or "" for s in report.failed}
            self.store.finish_run(run_id, counts, failures)
        return report

    def _note_held(self, report: RunReport, selection: SessionSelection) -> None:
        """Load who failed before; list the sessions the run leaves out after failed runs.

        They are not this run's failures (the runs that failed them said so), so they do not
        make its exit code; the report, `status` and `doctor` show them.
        """
        self._failed = {f.session_id: f for f in self.store.failed_sessions()}
        now = datetime.now(UTC)
        named = set(selection.session_ids)
        report.held = [
            f for f in self._failed.values() if f.held(now) and f.session_id not in named
        ]

    def _refuse_rebuild_of_pruned(self, session_ids: Sequence[str]) -> None:
        """Stop before anything is written if a rebuild would lose archived messages.

        A rebuild recomputes a session from its source messages alone; where the prune job
        deleted some of them, their archived text and facts would be dropped.
        """
        pruned = {s: n for s in session_ids if (n := self.store.pruned_count(s))}
        if pruned:
            listed = ", ".join(f"{s} ({n})" for s, n in list(pruned.items())[:5])
            more = f" and {len(pruned) - 5} more" if len(pruned) > 5 else ""
            raise ConfigError(
                f"--rebuild refused: {sum(pruned.values())} archived messages of "
                f"{len(pruned)} sessions are no longer in the source table (pruned): "
                f"{listed}{more}; a rebuild would drop what they said, so it was not started "
                "for them. Edited messages need no rebuild: archivist archive archives their "
                "new text"
            )

    def _more_sessions(
        self, selection: SessionSelection, seen: set[str], attempted: int
    ) -> list[str]:
        """Pending sessions not seen yet, when some seen ones did not count against the limit.

        A session another worker holds (skipped) or has just archived (unchanged) is no work
        done, so a run with `--max-sessions N` looks further to do N sessions of work.
        """
        if selection.session_ids or len(seen) == attempted:
            return []
        wider = replace(selection, limit=selection.limit - attempted + len(seen))
        return [s for s in self.store.pending_sessions(wider) if s not in seen]

    def _archive_one(self, session_id: str, request: ArchiveRequest) -> SessionOutcome:
        started = time.perf_counter()
        outcome = self._attempt(session_id, request)
        outcome.seconds = round(time.perf_counter() - started, 3)
        return outcome

    def _attempt(self, session_id: str, request: ArchiveRequest) -> SessionOutcome:
        try:
            with self.store.session_lock(session_id) as locked:
                if not locked:
                    return SessionOutcome(
                        session_id=session_id,
                        status="skipped",
                        reason="another archivist run is working on this session",
                    )
                outcome = self.archive_session(session_id, request.dry_run, request.rebuild)
        except ConfigError:
            raise  # wrong for every session alike: stop the run
        except (ArchivistError, psycopg.Error) as exc:
            if _interrupted(exc):  # Ctrl-C in a database call: stop, do not fail the rest
                raise KeyboardInterrupt from None
            line = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
            reason = redact(line, self.settings.secrets())  # it goes to the run log too
            log.info("session %s failed: %s", session_id, reason)
            failed = SessionOutcome(session_id=session_id, status="failed", reason=reason)
            if isinstance(exc, LockTimeoutError | ConcurrentUpdateError):
                return failed  # another session's doing, and passing: the next run retries
            if self._global_fault(exc):
                self._global_failures += 1
            else:
                if isinstance(exc, EmbedError):
                    self._global_failures = 0  # the embedder answers: the fault is this input's
                if not request.dry_run:
                    self._hold_back(failed)
            return failed
        if outcome.embed_calls:
            self._global_failures = 0
        if outcome.status == "unchanged" and session_id in self._failed and not request.dry_run:
            self.store.clear_failure(session_id)  # nothing left to archive: not failing now
            del self._failed[session_id]
        return outcome

    def _global_fault(self, exc: Exception) -> bool:
        """Whether a session's failure is one every session would meet (the database gone, the
        embedder unreachable or failing whatever it is sent), rather than its own input's.

        An embedding answer that is unusable for this session's texts (NaN, vectors of the
        wrong length, too few vectors) is the input's fault if the embedder answers a probe.
        """
        if self.store.broken or isinstance(exc, EmbedUnavailableError):
            return True
        return isinstance(exc, EmbedError) and not self._embedder_answers()

    def _embedder_answers(self) -> bool:
        """Whether the embedder gives one fitting, finite vector for a probe text."""
        assert self._embedding is not None
        try:
            vectors = self.embedder.embed_batch([_PROBE_TEXT])
        except ConfigError:
            raise  # the model is gone: stop the run
        except EmbedError:
            return False
        return (
            len(vectors) == 1
            and len(vectors[0]) == self._embedding.dim
            and bool(np.isfinite(vectors[0]).all())
        )

    def _hold_back(self, outcome: SessionOutcome) -> None:
        """Count a session's failed run: runs leave it out for a while, or from now on."""
        try:
            record = self.store.record_failure(
                outcome.session_id,
                outcome.reason or "",
                self.settings.failure_backoff_s,
                self.settings.quarantine_after_failures,
            )
        except ArchivistError as exc:  # the run reports the failure all the same
            log.warning("could not record the failure of %s: %s", outcome.session_id, exc)
            return
        self._failed[outcome.session_id] = record
        outcome.failures, outcome.quarantined = record.failures, record.quarantined
        if record.quarantined:
            outcome.reason = (
                f"{outcome.reason}; quarantined after {record.failures} failed runs "
                f"(archive it with --session-id {outcome.session_id} once fixed)"
            )

    def archive_session(self, session_id: str, dry_run: bool, rebuild: bool) -> SessionOutcome:
        """Bring one session's archive up to date (the caller holds its lock)."""
        if rebuild:
            self._refuse_rebuild_of_pruned([session_id])
        state = self.store.session_state(session_id)
        start_version = state.version if state else 0
        outcome = SessionOutcome(
            session_id=session_id,
            status="unchanged",
            version_from=start_version,
            version_to=start_version,
        )
        while plan := self.plan_version(session_id, state, rebuild):
            self._add_plan(outcome, plan)
            if dry_run:
                outcome.status = "planned"
                outcome.version_to = plan.from_version + 1
                outcome.chunks_removed = len(plan.to_remove)
                unknown = [c for c in plan.to_embed if c.content not in plan.state.vectors]
                outcome.embed_calls += -(-len(unknown) // self.embedder.batch_size)
                break
            phases = _Phases(session_id)
            vectors, calls, embedded = self._embed_chunks(plan)
            phases.done("embed", f"{embedded} texts, {calls} calls")
            result = self.store.commit_version(
                session_id,
                plan.from_version,
                _version_payload(plan),
                _chunk_payload(plan, vectors),
                plan.slots,
                self.embedder.model,
            )
            phases.done("commit", f"version {result.version}")
            outcome.status = "archived"
            outcome.version_to = result.version
            outcome.chunks_removed += result.chunks_deleted
            outcome.embed_calls += calls
            outcome.texts_embedded += embedded
            rebuild = False
            state = self.store.session_state(session_id)
        return outcome

    def plan_version(
        self, session_id: str, state: SessionState | None, rebuild: bool
    ) -> VersionPlan | None:
        """The next version of the session, or None when there is nothing new to archive."""
        base = None if rebuild else state
        phases = _Phases(session_id)
        messages = self._load_new_messages(session_id, base.watermark if base else None)
        late = self._late_messages(base)
        edited = self._changed_messages(base)
        undated = self.store.undated_messages(
            session_id, not rebuild, self.settings.max_messages_per_version
        )
        summary = self.store.session_summary(session_id)
        summary_changed = summary is not None and (
            base is None
            or (
                summary.updated_at is not None
                and (base.summary_at is None or summary.updated_at > base.summary_at)
            )
        )
        phases.done(
            "read",
            f"{len(messages)} new, {len(late)} late, {len(edited)} edited, {len(undated)} undated",
        )
        if not (messages or late or edited or undated or summary_changed) and (
            base is not None or summary is None
        ):
            return None

        repairs: Counter[str] = Counter()
        messages = self._clean(messages, repairs)
        late = self._clean(late, repairs)
        edited = self._clean(edited, repairs)
        undated = self._clean(undated, repairs)
        if late:
            repairs["late_arrivals"] += len(late)
        if edited:
            repairs["edited"] += len(edited)
        if undated:
            repairs["undated"] += len(undated)
        version = (state.version if state else 0) + 1
        batch = late + edited + messages + undated
        result = self.extractor.extract(
            base.extraction if base else None,
            session_id,
            batch,
            summary,
            base.extraction.state_items if base else (),
        )
        extraction = result.extraction
        if result.dropped_items:
            repairs["llm_items_dropped"] += result.dropped_items
        phases.done("extract", result.record.name)
        state_plan = self._plan_state(session_id, base, batch, result.candidates)
        extraction.state_items = state_plan.result.items
        phases.done("reconcile", f"{len(result.candidates)} candidates")
        chunks, slots = self._plan_chunks(
            session_id, base is not None, messages, extraction, version
        )
        chunks += state_item_chunks(
            session_id, extraction.state_items, self.embedder.model, version
        )
        slots.append(STATE_SLOT)
        for slot, moved in ((late_slot(version), late), (edit_slot(version), edited)):
            if moved:
                chunks += window_chunks(
                    session_id,
                    slot,
                    moved,
                    self.embedder.model,
                    version,
                    self._chunk_chars(),
                    speakers=self.settings.speaker_labels,
                )
                slots.append(slot)
        if undated:
            slot = undated_slot(version)
            chunks += window_chunks(
                session_id,
                slot,
                undated,
                self.embedder.model,
                version,
                self._chunk_chars(),
                speakers=self.settings.speaker_labels,
            )
            slots.append(slot)
        if summary_changed:
            chunks += summary_chunks(
                session_id,
                summary.summary_text if summary else None,
                extraction.span,
                self.embedder.model,
                version,
                self._chunk_chars(),
            )
            slots.insert(0, SUMMARY_SLOT)
        previous_count = base.message_count if base else 0
        existing = self.store.chunk_ids(session_id, None if rebuild else slots)
        phases.done("chunk", f"{len(chunks)} chunks")
        return VersionPlan(
            session_id=session_id,
            from_version=state.version if state else 0,
            new_messages=batch,
            extraction=extraction,
            watermark=(
                Watermark(created_at=messages[-1].created_at, message_id=messages[-1].id)
                if messages
                else (base.watermark if base else None)
            ),
            message_count=previous_count + len(late) + len(messages),
            archived=self._archived_texts(batch),
            summary=summary,
            chunks=chunks,
            slots=None if rebuild else slots,
            existing=existing,
            repairs=repairs,
            record=result.record,
            state=state_plan,
            users=self.store.session_users(session_id),
        )

    def _plan_state(
        self,
        session_id: str,
        base: SessionState | None,
        batch: list[Message],
        candidates: list[CandidateItem],
    ) -> StatePlan:
        """Reconcile the batch's candidates with the previous version's state items.

        Only admitted candidates' texts are embedded, and only those no stored item chunk holds;
        the previous items' vectors are read back from their chunks.
        """
        previous = list(base.extraction.state_items) if base else []
        admitted = admit(candidates, batch, self.settings.state_max_candidates)
        if not admitted.candidates:
            return StatePlan(Reconciliation(previous), admitted, {})
        stored = self.store.state_item_vectors(session_id, self.embedder.model)
        by_text = {text: vector for _, text, vector in stored}
        texts = list(dict.fromkeys(c.text.strip() for c in admitted.candidates))
        unknown = [t for t in texts if t not in by_text]
        fresh, calls = self._embed_texts(unknown)
        by_text.update(zip(unknown, fresh, strict=True))
        vectors = [by_text[c.text.strip()] for c in admitted.candidates]
        by_uid = {uid: vector for uid, _, vector in stored} if previous else {}
        thresholds = Thresholds(
            merge=self.settings.state_merge_threshold,
            conflict=self.settings.state_conflict_threshold,
        )
        result = reconcile(previous, admitted.candidates, batch, by_uid, vectors, thresholds)
        # Every vector at hand, stored or new: an item whose status changed keeps its text.
        return StatePlan(result, admitted, by_text, calls, len(unknown))

    def _load_new_messages(self, session_id: str, after: Watermark | None) -> list[Message]:
        """Up to `max_messages_per_version` new messages, fetched in bounded pages."""
        limit = self.settings.max_messages_per_version
        messages: list[Message] = []
        while len(messages) < limit:
            page = self.store.new_messages(
                session_id, after, min(self.settings.message_batch_size, limit - len(messages))
            )
            messages.extend(page)
            if len(page) < self.settings.message_batch_size:
                break
            after = Watermark(created_at=page[-1].created_at, message_id=page[-1].id)
        return messages

    def _late_messages(self, base: SessionState | None) -> list[Message]:
        """Messages that arrived with a `created_at` at or before the watermark: those no
        version archived (by their ids in archivist_message_hashes)."""
        if base is None or base.watermark is None:
            return []
        return self.store.uncovered_up_to(
            base.session_id, base.watermark, self.settings.max_messages_per_version
        )

    def _changed_messages(self, base: SessionState | None) -> list[Message]:
        """Archived messages whose text is not the text archived: edited, or deleted and
        inserted again with the same id with another text, or cut before and whole now.

        Their new text goes into an `edit:` slot of the next version; the chunks of the text
        archived before stay as they are, so both remain findable.
        """
        if base is None:
            return []
        return self.store.changed_messages(
            base.session_id, base.watermark, self.settings.max_messages_per_version
        )

    def _archived_texts(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        """What a version archives of each message: the md5 and length of the source text
        read, and how much of it the archive holds (less when it was cut)."""
        cut = self.settings.max_message_chars
        texts = {
            m.id: {
                "id": m.id,
                "md5": m.source_md5,
                "chars": m.source_chars,
                "archived_chars": min(m.source_chars, cut),
            }
            for m in messages
            if m.source_md5 is not None and m.source_chars is not None
        }
        return list(texts.values())

    def _clean(self, messages: Sequence[Message], repairs: Counter[str]) -> list[Message]:
        cleaned = []
        for message in messages:
            message, fixes = clean_message(message, self.settings.max_message_chars)
            repairs.update(fixes)
            cleaned.append(message)
        return cleaned

    def _plan_chunks(
        self,
        session_id: str,
        incremental: bool,
        messages: list[Message],
        extraction: Extraction,
        version: int,
    ) -> tuple[list[Chunk], list[str]]:
        """The extraction's and the turn windows' chunks this version writes, and their slots.

        New messages first fill the session's last window if it is not full (its messages are
        read back by the ids its chunks cover), then open new windows. A window some of whose
        messages were pruned or edited meanwhile is left as archived: rewriting it would lose
        their archived text.
        """
        model, size = self.embedder.model, self._chunk_chars()
        chunks = extraction_chunks(session_id, extraction, model, version, size)
        slots = [EXTRACTION_SLOT]
        if not messages:
            return chunks, slots
        width = self.settings.turns_per_window
        first_window, head = 0, []
        last = self.store.last_window(session_id) if incremental else None
        if last is not None:
            index, covered = last
            first_window = index + 1
            if len(covered) < width:
                present = self.store.messages_by_ids(session_id, covered)
                # Rewritten only if every message is there as archived: an edited one keeps its
                # archived text in this window (its new text goes to an `edit:` slot).
                if len(present) == len(covered) and all(m.archived_as_is for m in present):
                    first_window, head = index, self._clean(present, Counter())
        turns = head + messages
        for offset in range(0, len(turns), width):
            index = first_window + offset // width
            slot = window_slot(index)
            window = turns[offset : offset + width]
            chunks += window_chunks(
                session_id, slot, window, model, version, size, index, self.settings.speaker_labels
            )
            slots.append(slot)
        return chunks, slots

    def _chunk_chars(self) -> int:
        """The chunk size: the setting, or less when the embedding model reads less."""
        return chunk_chars(
            self.embedder.model, self.settings.chunk_max_chars, self.settings.embedding_input_tokens
        )

    def _add_plan(self, outcome: SessionOutcome, plan: VersionPlan) -> None:
        outcome.new_messages += len(plan.new_messages)
        outcome.user_id = plan.user_id
        outcome.multi_user = plan.multi_user
        outcome.chunks_added += len(plan.to_embed)
        outcome.chunks_kept += len(plan.chunks) - len(plan.to_embed)
        outcome.decisions = [d.text for d in plan.extraction.decisions]
        outcome.topics = list(plan.extraction.topics)
        if plan.record.fallback_reason:
            outcome.extractor_fallback = plan.record.fallback_reason
        outcome.state_changes += plan.state.result.changes
        outcome.state_dropped += plan.state.admitted.dropped_refs
        outcome.embed_calls += plan.state.embed_calls
        outcome.texts_embedded += plan.state.texts_embedded
        if plan.state.admitted.over_cap:
            over = plan.state.admitted.over_cap
            outcome.clipped["state_candidates"] = outcome.clipped.get("state_candidates", 0) + over
        for name, count in plan.repairs.items():
            outcome.clipped[name] = outcome.clipped.get(name, 0) + count

    def _embed_chunks(self, plan: VersionPlan) -> tuple[list[Vector], int, int]:
        """Vectors of the chunks to write, calls and texts embedded for them.

        A text already embedded this version (a state item's, as a candidate) is not sent again.
        """
        unknown = list(
            dict.fromkeys(c.content for c in plan.to_embed if c.content not in plan.state.vectors)
        )
        fresh, calls = self._embed_texts(unknown)
        by_text = {**plan.state.vectors, **dict(zip(unknown, fresh, strict=True))}
        return [by_text[c.content] for c in plan.to_embed], calls, len(unknown)

    def _embed_texts(self, texts: list[str]) -> tuple[list[Vector], int]:
        if not texts:
            return [], 0
        vectors, calls = embed_documents(self.embedder, texts)
        assert self._embedding is not None
        wrong = {len(v) for v in vectors} - {self._embedding.dim}
        if wrong and self._embedder_answers():
            raise EmbedError(
                f"{self.embedder.model} returned {wrong.pop()}-d vectors for some of this "
                f"session's texts (the database stores {self._embedding.dim}-d ones)"
            )
        if wrong:
            raise DimensionMismatchError(
                f"{self.embedder.model} returns {wrong.pop()}-d vectors but the database "
                f"stores {self._embedding.dim}-d ones; use a model of that dimension or a "
                "database initialised for this one (archivist init --embedding-dim ...), or "
                f"move this one: archivist reembed --model {self.embedder.model}"
            )
        return vectors, calls


def _interrupted(exc: BaseException) -> bool:
    """Whether `exc` was raised while a KeyboardInterrupt was being handled (psycopg, cleaning
    up a query cut by Ctrl-C, raises its own error over it)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _arguments(request: ArchiveRequest) -> dict[str, Any]:
    selection = request.selection
    return {
        "session_ids": list(selection.session_ids),
        "active_within_days": selection.active_within_days,
        "max_sessions": selection.limit,
        "rebuild": request.rebuild,
        "delay_ms": request.delay_ms,
    }


def _version_payload(plan: VersionPlan) -> dict[str, Any]:
    return {
        "span": plan.extraction.span.model_dump(mode="json"),
        "extraction": plan.extraction.model_dump(mode="json"),
        "extractor": plan.record.name,
        "extractor_version": plan.record.version,
        "watermark_at": plan.watermark.created_at.isoformat() if plan.watermark else None,
        "watermark_id": plan.watermark.message_id if plan.watermark else None,
        "message_count": plan.message_count,
        "messages": plan.archived,
        "user_id": plan.user_id,
        "multi_user": plan.multi_user,
        "summary_at": (
            plan.summary.updated_at.isoformat()
            if plan.summary and plan.summary.updated_at
            else None
        ),
    }


def _chunk_payload(plan: VersionPlan, vectors: list[Vector]) -> list[dict[str, Any]]:
    embedded = {c.id: v for c, v in zip(plan.to_embed, vectors, strict=True)}
    payload: list[dict[str, Any]] = []
    for chunk in plan.chunks:
        vector = embedded.get(chunk.id)
        if vector is None:
            payload.append({"id": chunk.id, "slot": chunk.slot})
        else:
            payload.append({**chunk.model_dump(mode="json"), "embedding": vector.tolist()})
    return payload
