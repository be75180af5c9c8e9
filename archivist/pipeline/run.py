"""One archive run: pick sessions, then per session read -> plan -> embed -> commit -> let go.

A session costs three database calls per version: one read that takes the session and returns
everything its next version needs (archivist.pipeline.reading; for a pending session the claim
queue's call, archivist.pipeline.claims, which picks the session too), a pure plan
(archivist.pipeline.planning), the embedding of the texts no stored chunk has, one commit that
writes the version, its chunks and the watermark (archivist.pipeline.commit), and a let-go once
the commit has committed. The run is a pipeline: the next sessions are planned and embedded in
the embedding pool (`embed_concurrency` threads; a session's texts, its state candidates' and
its new chunks', go in one request) while the run claims and reads the one after and the one
before commits (`Committer`): the embedding server, the database and Python work at once. A
dry run builds exactly the same plan and stops before embedding and writing. A session with
more new messages than `max_messages_per_version` gets several consecutive versions in the same
run, so memory stays bounded whatever the session's size.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import get_args

import numpy as np

from archivist.chunking import chunk_chars
from archivist.config import Settings, redact
from archivist.embed.base import Embedder, Vector, embed_documents, probe
from archivist.errors import (
    ArchivistError,
    ConcurrentUpdateError,
    ConfigError,
    DimensionMismatchError,
    EmbedError,
    EmbedUnavailableError,
)
from archivist.extract.base import ExtractionResult, Extractor, RulesExtractor
from archivist.failures import FailedSession, refuse_unarchivable
from archivist.models import (
    Extraction,
    Message,
    PassedOver,
    RunReport,
    SessionOutcome,
    SessionStatus,
    SessionSummary,
)
from archivist.pipeline.across import tie_to_earlier
from archivist.pipeline.claims import (
    LocalLimits,
    ReadArguments,
    RunLimits,
    SessionQueue,
    interrupted,
)
from archivist.pipeline.commit import Committer, commit
from archivist.pipeline.earlier import earlier_user_turns
from archivist.pipeline.planning import PlanSettings, VersionPlan, has_work, plan_version
from archivist.pipeline.reading import SessionRead, read_session
from archivist.pipeline.request import NO_MESSAGES, ArchiveRequest, Progress, RunInterrupted
from archivist.state.items import StateItem
from archivist.state.reconcile import Thresholds
from archivist.store import (
    CommitResult,
    DatabaseError,
    EmbeddingConfig,
    LockTimeoutError,
    SessionSelection,
    Store,
)

log = logging.getLogger(__name__)

RECENT_READS = 8  # sessions read whose commits a next read may not see yet (pipelined runs)


class _Phases:
    """Logs (at INFO, shown by `-v`) each phase of a session's work with the time it took."""

    def __init__(self, session_id: str, since: float | None = None) -> None:
        self.session_id = session_id
        self._mark = time.perf_counter() if since is None else since

    def done(self, phase: str, detail: str = "") -> None:
        now = time.perf_counter()
        if log.isEnabledFor(logging.INFO):
            extra = f" ({detail})" if detail else ""
            log.info("%s: %s%s %.0f ms", self.session_id, phase, extra, (now - self._mark) * 1000)
        self._mark = now


def _read_detail(read: SessionRead) -> str:
    return (
        f"{len(read.new)} new, {len(read.late)} late, {len(read.edited)} edited, "
        f"{len(read.undated)} undated"
    )


@dataclass
class _Embedded:
    """A version planned and embedded, ready to commit."""

    plan: VersionPlan
    candidate_calls: int  # the embedding calls planning made (the state candidates, with texts)
    fresh: dict[str, Vector]  # the vectors of the texts no stored chunk has, by text
    calls: int  # the embedding calls those took


@dataclass
class _Committing:
    """A session whose last version is being planned and embedded in the embedding pool (or
    is done), then waits for (or is in) its commit; the session stays taken until the commit
    has committed."""

    outcome: SessionOutcome
    embedded: Future[_Embedded]
    started: float  # perf_counter() when the session's work began
    result: Future[CommitResult] | None = None


class Archiver:
    """Archives sessions from the bot's tables into versions and embedded chunks."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: Settings,
        extractor: Extractor | None = None,
        commit_store: Store | None = None,
    ) -> None:
        """`commit_store`: a store the commits can use while the run reads on `store` (another
        connection, or independent requests); without one, each commit waits its turn."""
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.extractor: Extractor = extractor or RulesExtractor()
        self._extract = _OneAtATime(self.extractor)  # planning runs in the embedding pool
        self._commit_store = commit_store
        self._embedding: EmbeddingConfig | None = None
        # Shared with the run's other workers: --max-sessions, failures in a row, stopping.
        self._limits: RunLimits = LocalLimits(0)
        # Plans and embeds the sessions' last versions beside the run's reading and commits
        # (made by each run's loop).
        self._embedder_pool: ThreadPoolExecutor | None = None
        self._failed: dict[str, FailedSession] = {}  # sessions with failed runs in a row
        # The last sessions read: their users and new messages, whose commits the next reads
        # may not see yet (commits land beside the reads that follow them).
        self._recent_reads: deque[tuple[list[str], list[Message]]] = deque(maxlen=RECENT_READS)
        self._embedded_in_plan = False  # a dry run's plans embedded something: it answers

    def run(
        self,
        request: ArchiveRequest,
        progress: Progress | None = None,
        limits: RunLimits | None = None,
    ) -> RunReport:
        """Archive (or plan) every selected session.

        One session's failure never stops the rest (it is held back, see archivist.failures);
        faults every session meets stop the run after `stop_after_embed_failures` sessions in a
        row, and a configuration error (a model that is missing or of the wrong dimension) at
        once, before it writes anything more. `limits`: what this run shares with the other
        workers of one `archive --workers N` (see archivist.pipeline.claims).
        """
        refuse_unarchivable(request.selection.session_ids)
        self._embedding = self.store.check_ready(self.embedder.model)
        self._limits = limits or LocalLimits(request.selection.limit)
        self._recent_reads.clear()  # a run reads back only its own sessions from memory
        self._embedded_in_plan = False
        report = RunReport(
            dry_run=request.dry_run,
            embedder=self.embedder.name,
            embedding_model=self.embedder.model,
            started_at=datetime.now(UTC),
        )
        reading = ReadArguments(
            request.rebuild,
            self.settings.max_messages_per_version,
            self.embedder.model,
            self.settings.turns_per_window,
        )
        queue = SessionQueue.open(self.store, request.selection, reading)
        report.unarchivable = queue.unarchivable
        self._note_held(report, request.selection)
        if request.rebuild:
            self._refuse_rebuild_of_pruned(queue.listed)
        # A dry run writes nothing, not even its log row.
        run_id = None
        if not request.dry_run:
            self.store.adopt_archived_messages()
            if request.log_run:
                run_id = log_run_start(self.store, request)
        if progress:
            progress.start(len(queue))
        try:
            self._loop(queue, request, report, progress)
        except KeyboardInterrupt:
            report.finished_at = datetime.now(UTC)
            report.interrupted = True
            report.notes.append("interrupted: committed sessions are kept")
            if run_id is not None and not self._broken:
                with suppress(ArchivistError, DatabaseError):  # (a connection cut mid-call)
                    log_run_end(self.store, run_id, report)
            raise RunInterrupted(report) from None
        finally:
            report.passed_over = PassedOver(held=queue.held, gone=queue.gone)
        if request.dry_run and report.count("planned") and not self._embedded_in_plan:
            self._probe_for_the_run(report)
        report.finished_at = datetime.now(UTC)
        if run_id is not None and not self._broken:
            log_run_end(self.store, run_id, report)
        return report

    def _loop(
        self,
        queue: SessionQueue,
        request: ArchiveRequest,
        report: RunReport,
        progress: Progress | None,
    ) -> None:
        """Work through the queue as a pipeline: up to `embed_concurrency` sessions are planned
        and embedded in the embedding pool while the next session is claimed and read and the
        last one commits, so neither the embedding server nor the database waits on this
        process (with `embed_concurrency` 1, each session is embedded before the next is read).

        Outcomes are reported in queue order: a session's is reported once its commit is done,
        and whether the run goes on is decided on it before the next session's commit starts.
        """
        committer = Committer(self.store, self._commit_store)
        pool = ThreadPoolExecutor(
            max_workers=self.settings.embed_concurrency, thread_name_prefix="archivist-embed"
        )
        self._embedder_pool = pool
        ahead: deque[SessionOutcome | _Committing] = deque()  # started, in queue order
        committing: _Committing | None = None
        limits = self._limits
        worked_on = 0
        stopped = False
        try:
            while not stopped:
                taken = None
                if not limits.stopped and limits.reserve():
                    asked = time.perf_counter()
                    taken = queue.next(worked_on)
                    if taken is not None and taken[1] is not None:  # claimed and read at once
                        _Phases(taken[0], since=asked).done("read", _read_detail(taken[1]))
                    if taken is None:
                        limits.release()
                if taken is not None:
                    session_id, first_read = taken
                    work = self._start(session_id, request, first_read)
                    ahead.append(work)
                    worked = isinstance(work, _Committing) or work.status in (
                        "archived",
                        "failed",
                        "planned",
                    )
                    if worked:
                        worked_on += 1
                    else:
                        limits.release()  # no work done: it does not count against --max-sessions
                # Move the oldest session on once enough are ahead, or when none is coming: with
                # the planning of the next one, at most `embed_concurrency` requests are out.
                while ahead and (taken is None or len(ahead) >= self.settings.embed_concurrency):
                    committing, stopped = self._move_on(
                        ahead, committing, committer, queue, report, progress
                    )
                    if stopped:
                        for ended in [w for w in ahead if isinstance(w, SessionOutcome)]:
                            self._add(report, progress, ended)  # they ended already
                        break
                if taken is None:
                    break
                if worked and not request.dry_run and request.delay_ms and len(queue):
                    time.sleep(request.delay_ms / 1000)
            if committing is not None and not stopped:
                done, committing = committing, None
                self._add(report, progress, self._settle(done))
                self._stops(report, 0)
        finally:
            committer.close()
            pool.shutdown(wait=True, cancel_futures=True)
            if committing is not None:  # interrupted while it committed: it is done now
                result = committing.result
                if result is not None and result.done() and result.exception() is None:
                    self._count_commit(committing.outcome, result.result())
                    report.sessions.append(committing.outcome)  # in the interrupted report
                self._let_go(committing.outcome.session_id)
            for left in ahead:  # planned, never written: nothing lost
                if isinstance(left, _Committing):
                    self._let_go(left.outcome.session_id)

    def _move_on(
        self,
        ahead: deque[SessionOutcome | _Committing],
        committing: _Committing | None,
        committer: Committer,
        queue: SessionQueue,
        report: RunReport,
        progress: Progress | None,
    ) -> tuple[_Committing | None, bool]:
        """Move the oldest started session on: once it is planned and embedded, settle the
        commit before it (outcomes are reported in queue order, and whether the run goes on is
        decided before the next commit starts), then start its commit, or report it if it ended.
        Returns the session now committing and whether the run stops."""
        work = ahead.popleft()
        embedded: _Embedded | None = None
        if isinstance(work, _Committing):
            ready = self._embedded(work)
            if isinstance(ready, SessionOutcome):
                work = ready  # its planning or embedding failed: it was let go
            else:
                embedded = ready
        if committing is not None:
            self._add(report, progress, self._settle(committing))
            planned = isinstance(work, _Committing)
            if self._stops(report, len(queue) + len(ahead) + planned):
                if isinstance(work, _Committing):
                    ahead.appendleft(work)  # planned, never written: the caller lets it go
                else:
                    self._add(report, progress, work)  # it ended already
                return None, True
        if isinstance(work, _Committing):
            assert embedded is not None
            work.result = committer.submit(embedded.plan, embedded.fresh)
            return work, False
        self._add(report, progress, work)
        return None, self._stops(report, len(queue) + len(ahead))

    def _embedded(self, work: _Committing) -> _Embedded | SessionOutcome:
        """The session's last version, once planned and embedded; if that failed, the session
        is let go and its failed outcome returned."""
        outcome = work.outcome
        try:
            embedded = work.embedded.result()
        except ArchivistError as exc:
            self._let_go(outcome.session_id)
            failed = self._failure(outcome.session_id, exc, dry_run=False)
            self._finished(failed, False, work.started)
            return failed
        self._add_embedded(outcome, embedded)
        if outcome.embed_calls:
            self._limits.embed_answered()
        return embedded

    @staticmethod
    def _add(report: RunReport, progress: Progress | None, outcome: SessionOutcome) -> None:
        report.sessions.append(outcome)
        if progress:
            progress.advance(outcome)

    def _stops(self, report: RunReport, waiting: int) -> bool:
        """Whether the run must stop after the outcome just added; notes why, and tells the
        run's other workers."""
        if self._broken:
            report.notes.append(f"lost the database connection; {waiting} sessions not attempted")
            self._limits.stop()
            return True
        if self._limits.embed_failures >= self.settings.stop_after_embed_failures:
            report.notes.append(
                f"embedding failed for {self._limits.embed_failures} sessions in a row; "
                f"stopped, {waiting} sessions not attempted"
            )
            self._limits.stop()
            return True
        return False

    @property
    def _broken(self) -> bool:
        """Whether a connection of the run lost the database for good."""
        return self.store.broken or (self._commit_store is not None and self._commit_store.broken)

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
            raise _rebuild_refused(pruned)

    def _start(
        self, session_id: str, request: ArchiveRequest, first_read: SessionRead | None
    ) -> SessionOutcome | _Committing:
        """A session's work up to its last commit: its outcome when it needs none (or failed),
        else its planned last version, whose embedding is under way. `first_read`: the
        session's read when its claim made it."""
        started = time.perf_counter()
        try:
            work = self._prepare(session_id, request.dry_run, request.rebuild, started, first_read)
        except ArchivistError as exc:
            work = self._failure(session_id, exc, request.dry_run)
        if isinstance(work, SessionOutcome):
            if work.embed_calls and work.status != "failed":
                self._limits.embed_answered()
            self._finished(work, request.dry_run, started)
        return work

    def _settle(self, work: _Committing) -> SessionOutcome:
        """Wait for the session's commit, let the session go and return its outcome."""
        outcome = work.outcome
        assert work.result is not None
        try:
            try:
                self._count_commit(outcome, work.result.result())
                outcome.state_changes += work.embedded.result().plan.across
            finally:
                self._let_go(outcome.session_id)
        except ArchivistError as exc:
            outcome = self._failure(outcome.session_id, exc, dry_run=False)
        self._finished(outcome, False, work.started)
        return outcome

    def _finished(self, outcome: SessionOutcome, dry_run: bool, started: float) -> None:
        outcome.seconds = round(time.perf_counter() - started, 3)
        session_id = outcome.session_id
        if outcome.status == "unchanged" and session_id in self._failed and not dry_run:
            self.store.clear_failure(session_id)  # nothing left to archive: not failing now
            del self._failed[session_id]

    def _failure(self, session_id: str, exc: ArchivistError, dry_run: bool) -> SessionOutcome:
        """The outcome of a session that failed, counted and held back as its cause says."""
        if isinstance(exc, ConfigError):
            raise exc  # wrong for every session alike: stop the run
        if interrupted(exc):  # Ctrl-C in a database call: stop, do not fail the rest
            raise KeyboardInterrupt from None
        line = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
        reason = redact(line, self.settings.secrets())  # it goes to the run log too
        log.info("session %s failed: %s", session_id, reason)
        failed = SessionOutcome(session_id=session_id, status="failed", reason=reason)
        if isinstance(exc, LockTimeoutError | ConcurrentUpdateError):
            return failed  # another session's doing, and passing: the next run retries
        if self._global_fault(exc):
            self._limits.embed_failed()
        else:
            if isinstance(exc, EmbedError):
                self._limits.embed_answered()  # the embedder answers: the fault is this input's
            if not dry_run:
                self._hold_back(failed)
        return failed

    def _global_fault(self, exc: Exception) -> bool:
        """Whether a session's failure is one every session would meet (the database gone, the
        embedder unreachable or failing whatever it is sent), rather than its own input's.

        An embedding answer that is unusable for this session's texts (NaN, vectors of the
        wrong length, too few vectors) is the input's fault if the embedder answers a probe.
        """
        if self.store.broken or isinstance(exc, EmbedUnavailableError):
            return True
        return isinstance(exc, EmbedError) and not self._embedder_answers()

    def _probe_for_the_run(self, report: RunReport) -> None:
        """A dry run embeds no chunk (only candidates, if any); the run it previews would fail
        without the embedder, so it is asked for one vector, and the plan notes when it does
        not answer."""
        try:
            probe(self.embedder)
        except EmbedError as exc:
            report.notes.append(f"the run would fail: {exc}")

    def _embedder_answers(self) -> bool:
        """Whether the embedder gives one fitting, finite vector for a probe text."""
        assert self._embedding is not None
        try:
            vector = probe(self.embedder)
        except ConfigError:
            raise  # the model is gone: stop the run
        except EmbedError:
            return False
        return (
            vector is not None
            and len(vector) == self._embedding.dim
            and bool(np.isfinite(vector).all())
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

    def _prepare(
        self,
        session_id: str,
        dry_run: bool,
        rebuild: bool,
        started: float,
        first_read: SessionRead | None = None,
    ) -> SessionOutcome | _Committing:
        """Read the session (which takes it), plan and embed its next version; commit each
        version but the last while more is waiting than one version takes; the last one is
        handed to the embedding pool to be planned and embedded (the caller waits for it).

        The last version comes back uncommitted, the session still taken: the caller commits
        it and lets the session go after the commit has committed, so that no other worker
        reads the session before its new version is visible. Any other end lets it go here.
        """
        read = first_read or self._read(session_id, rebuild)
        if not read.taken:
            return SessionOutcome(
                session_id=session_id,
                status="skipped",
                reason="another archivist run is working on this session",
            )
        handed_over = False
        try:
            if read.rebuild and read.pruned:
                raise _rebuild_refused({session_id: read.pruned})
            start_version = read.state.version if read.state else 0
            outcome = SessionOutcome(
                session_id=session_id,
                status="unchanged",
                version_from=start_version,
                version_to=start_version,
            )
            while has_work(read):
                read.earlier = self._earlier(read)
                if dry_run:
                    plan, _ = self._plan(read, embed_chunks=False)
                    tie_to_earlier(self.store, plan)  # (reads only)
                    self._add_plan(outcome, plan, 0)
                    outcome.state_changes += plan.across
                    outcome.status = "planned"
                    outcome.version_to = plan.from_version + 1
                    outcome.chunks_removed = len(plan.to_remove)
                    # The calls the real run makes: the chunks' texts go with the candidates'.
                    texts = len(plan.state.texts_embedded) + len(plan.texts_to_embed)
                    self._embedded_in_plan |= bool(plan.state.texts_embedded)
                    outcome.embed_calls = -(-texts // self.embedder.batch_size)
                    break
                if not read.pending:  # the last version: beside the next sessions
                    assert self._embedder_pool is not None
                    embedding = self._embedder_pool.submit(self._plan_and_embed, read)
                    handed_over = True
                    return _Committing(outcome, embedding, started)
                embedded = self._plan_and_embed(read)
                self._add_embedded(outcome, embedded)
                self._count_commit(outcome, commit(self.store, embedded.plan, embedded.fresh))
                outcome.state_changes += embedded.plan.across
                read = self._read(session_id, rebuild=False)  # still held: taken again
            if read.state is None and outcome.status == "unchanged":
                outcome.reason = f"{NO_MESSAGES} {session_id}"  # a typo in --session-id?
                if self.store.session_forgotten(session_id):  # (its source rows are left out)
                    outcome.reason += ": it was forgotten on request (archivist forget)"
            return outcome
        finally:
            if not handed_over:
                self._let_go(session_id)

    @staticmethod
    def _count_commit(outcome: SessionOutcome, result: CommitResult) -> None:
        outcome.status = "archived"
        outcome.version_to = result.version
        outcome.chunks_removed += result.chunks_deleted

    def _read(self, session_id: str, rebuild: bool) -> SessionRead:
        phases = _Phases(session_id)
        read = read_session(
            self.store,
            session_id,
            rebuild,
            self.settings.max_messages_per_version,
            self.embedder.model,
            self.settings.turns_per_window,
        )
        phases.done("read", _read_detail(read))
        return read

    def _earlier(self, read: SessionRead) -> list[Message]:
        """The user's turns of other sessions that a "never" of the read may contradict: those
        committed, and those of the sessions of the same user read just before."""
        batch = [*read.late, *read.edited, *read.new, *read.undated]
        unsaved = [
            m
            for users, messages in self._recent_reads
            if users == read.users
            for m in messages
            if m.session_id != read.session_id
        ]
        self._recent_reads.append((read.users, batch))
        speakers = self.settings.speaker_labels
        return earlier_user_turns(self.store, read.session_id, read.users, batch, speakers, unsaved)

    def _plan(self, read: SessionRead, embed_chunks: bool = True) -> tuple[VersionPlan, int]:
        """The next version's plan (the read has work) and the embedding calls planning took:
        the state candidates', with the new chunks' texts unless `embed_chunks` is False."""
        phases = _Phases(read.session_id)
        candidates = _Candidates(self._embed_texts)
        plan = plan_version(
            read, self._plan_settings(), self._extract, candidates, phases.done, embed_chunks
        )
        assert plan is not None
        return plan, candidates.calls

    def _plan_and_embed(self, read: SessionRead) -> _Embedded:
        """Plan the next version (the read has work) and embed the texts no stored chunk has
        that planning did not (none, when it embedded state candidates): all of a version's
        calls to the embedder, made in the embedding pool for the last one."""
        plan, candidate_calls = self._plan(read)
        texts = plan.texts_to_embed
        vectors, calls = self._embed_logged(read.session_id, texts)
        return _Embedded(plan, candidate_calls, dict(zip(texts, vectors, strict=True)), calls)

    def _plan_settings(self) -> PlanSettings:
        return PlanSettings(
            model=self.embedder.model,
            chunk_chars=self._piece_chars(),
            window_chars=self.settings.window_max_chars,
            turns_per_window=self.settings.turns_per_window,
            speaker_labels=self.settings.speaker_labels,
            max_message_chars=self.settings.max_message_chars,
            state_max_candidates=self.settings.state_max_candidates,
            thresholds=Thresholds(
                merge=self.settings.state_merge_threshold,
                conflict=self.settings.state_conflict_threshold,
            ),
        )

    def _let_go(self, session_id: str) -> None:
        """Let the session go when no commit did; a lost connection lets it go by itself."""
        if self.store.broken:
            return
        try:
            self.store.let_go_session(session_id)
        except ArchivistError as exc:
            if interrupted(exc):  # Ctrl-C in this call: stop the run
                raise KeyboardInterrupt from None
            if self.store.broken:
                raise  # the database went away: the run reports it on this session
            log.warning("could not let go of session %s: %s", session_id, exc)  # a claim expires

    def _add_embedded(self, outcome: SessionOutcome, embedded: _Embedded) -> None:
        self._add_plan(outcome, embedded.plan, embedded.candidate_calls)
        outcome.embed_calls += embedded.calls
        outcome.texts_embedded += len(embedded.fresh)

    def _add_plan(self, outcome: SessionOutcome, plan: VersionPlan, candidate_calls: int) -> None:
        outcome.new_messages += len(plan.new_messages)
        outcome.user_id = plan.user_id
        outcome.multi_user = plan.multi_user
        outcome.chunks_added += len(plan.to_write)
        outcome.chunks_kept += len(plan.chunks) - len(plan.to_write)
        outcome.decisions = [d.text for d in plan.extraction.decisions]
        outcome.topics = list(plan.extraction.topics)
        if plan.record.fallback_reason:
            outcome.extractor_fallback = plan.record.fallback_reason
        outcome.state_changes += plan.state.result.changes
        outcome.state_dropped += plan.state.admitted.dropped_refs
        outcome.embed_calls += candidate_calls
        outcome.texts_embedded += len(plan.state.texts_embedded)
        if plan.state.admitted.over_cap:
            over = plan.state.admitted.over_cap
            outcome.clipped["state_candidates"] = outcome.clipped.get("state_candidates", 0) + over
        for name, count in plan.repairs.items():
            outcome.clipped[name] = outcome.clipped.get(name, 0) + count

    def _piece_chars(self) -> int:
        """The most characters the model reads at once (a longer text is embedded in pieces)."""
        s = self.settings
        return chunk_chars(self.embedder.model, s.chunk_max_chars, s.embedding_input_tokens)

    def _embed_logged(self, session_id: str, texts: list[str]) -> tuple[list[Vector], int]:
        phases = _Phases(session_id)
        vectors, calls = self._embed_texts(texts)
        phases.done("embed", f"{len(texts)} texts, {calls} calls")
        return vectors, calls

    def _embed_texts(self, texts: list[str]) -> tuple[list[Vector], int]:
        if not texts:
            return [], 0
        vectors, calls = embed_documents(self.embedder, texts, self._piece_chars())
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


def _rebuild_refused(pruned: dict[str, int]) -> ConfigError:
    listed = ", ".join(f"{s} ({n})" for s, n in list(pruned.items())[:5])
    more = f" and {len(pruned) - 5} more" if len(pruned) > 5 else ""
    return ConfigError(
        f"--rebuild refused: {sum(pruned.values())} archived messages of "
        f"{len(pruned)} sessions are no longer in the source table (pruned): "
        f"{listed}{more}; a rebuild would drop what they said, so it was not started "
        "for them. Edited messages need no rebuild: archivist archive archives their "
        "new text"
    )


class _OneAtATime:
    """An extractor that one planning thread at a time calls: the embedding pool plans several
    sessions at once, and an LLM extractor's server should get one chat at a time from a run,
    as before (chats queued there behind each other would run into their timeouts)."""

    def __init__(self, extractor: Extractor) -> None:
        self._extractor = extractor
        self._lock = threading.Lock()

    def extract(
        self,
        previous: Extraction | None,
        session_id: str,
        messages: Sequence[Message],
        summary: SessionSummary | None,
        existing_items: Sequence[StateItem],
    ) -> ExtractionResult:
        with self._lock:
            return self._extractor.extract(previous, session_id, messages, summary, existing_items)


class _Candidates:
    """The planner's `vectors`: embeds state-item candidates, counting the embedder's calls."""

    def __init__(self, embed: Callable[[list[str]], tuple[list[Vector], int]]) -> None:
        self._embed = embed
        self.calls = 0

    def __call__(self, texts: list[str]) -> list[Vector]:
        vectors, calls = self._embed(texts)
        self.calls += calls
        return vectors


def log_run_start(store: Store, request: ArchiveRequest, workers: int = 1) -> int:
    """Record a run as started in the run log, with its arguments; returns its id."""
    selection = request.selection
    arguments = {
        "session_ids": list(selection.session_ids),
        "active_within_days": selection.active_within_days,
        "max_sessions": selection.limit,
        "rebuild": request.rebuild,
        "delay_ms": request.delay_ms,
        "workers": workers,
    }
    return store.start_run(arguments)


def log_run_end(store: Store, run_id: int, report: RunReport) -> None:
    """Record the run's end in the run log: its counts and each failed session's reason."""
    counts = {status: report.count(status) for status in get_args(SessionStatus)}
    if report.interrupted:
        counts["interrupted"] = 1  # (status shows it beside the time it ended)
    failures = {s.session_id: s.reason or "" for s in report.failed}
    store.finish_run(run_id, counts, failures)
