"""`archive --workers N`: one run in N worker processes, with one report, one progress display
and one exit code.

Each worker is a whole archive run in a process of its own (its own connections, embedder and
extractor), so planning uses N cores and the database works on N sessions at once. They take
sessions from the claim queue (archivist.pipeline.claims), and share `SharedLimits`: one
`--max-sessions` budget for the run, one count of embedding failures in a row, and a stop
that any worker raises (lost database, embedder down) and every worker obeys before its next
session. The parent process only starts them, relays their progress and merges their reports.

Processes are spawned, not forked: a fork would copy the parent's threads (the progress
display) and whatever connections it holds.
"""

from __future__ import annotations

import logging
import multiprocessing
import queue
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.context import SpawnContext, SpawnProcess
from multiprocessing.sharedctypes import Synchronized
from multiprocessing.synchronize import Event
from typing import Any

from archivist.errors import ArchivistError
from archivist.models import PassedOver, RunReport, SessionOutcome
from archivist.pipeline.claims import RunLimits
from archivist.pipeline.request import Progress, RunInterrupted

log = logging.getLogger(__name__)

# How long the parent waits for a worker's message before it checks that they still run.
_POLL_S = 0.2
# How long the parent still waits for the message of a worker that has ended.
_LAST_WORD_S = 2.0


class SharedLimits:
    """`RunLimits` shared by the processes of one run (see archivist.pipeline.claims)."""

    def __init__(self, context: SpawnContext, limit: int) -> None:
        self.limit = limit
        self._reserved: Synchronized[int] = context.Value("i", 0)
        self._failures: Synchronized[int] = context.Value("i", 0)
        self._stopped: Event = context.Event()

    def reserve(self) -> bool:
        with self._reserved.get_lock():
            if self._reserved.value >= self.limit:
                return False
            self._reserved.value += 1
            return True

    def release(self) -> None:
        with self._reserved.get_lock():
            self._reserved.value -= 1

    def embed_failed(self) -> int:
        with self._failures.get_lock():
            self._failures.value += 1
            return self._failures.value

    def embed_answered(self) -> None:
        with self._failures.get_lock():
            self._failures.value = 0

    @property
    def embed_failures(self) -> int:
        return self._failures.value

    def stop(self) -> None:
        self._stopped.set()

    @property
    def stopped(self) -> bool:
        """A worker raised the stop, or the parent is gone (killed: `kill -9`, the OOM killer),
        so nobody would collect this worker's report: it stops before its next session."""
        return self._stopped.is_set() or _orphaned()


def _orphaned() -> bool:
    """Whether this is a worker process whose parent has ended (never the parent itself)."""
    parent = multiprocessing.parent_process()
    return parent is not None and not parent.is_alive()


class _Relay:
    """A worker's progress hook (archivist.pipeline.request.Progress): sends what the run reports
    to the parent."""

    def __init__(self, messages: multiprocessing.Queue[tuple[Any, ...]]) -> None:
        self._messages = messages

    def start(self, total: int) -> None:
        self._messages.put(("start", total))

    def advance(self, outcome: SessionOutcome) -> None:
        self._messages.put(("advance", outcome.model_dump(mode="json")))


@dataclass(frozen=True)
class WorkerJob:
    """What a worker process runs: a picklable call that archives with the given progress
    hook and limits and returns its report (archivist.client.runs builds it)."""

    run: Callable[[Progress, RunLimits], RunReport]
    log_level: int  # the `archivist` logger's level in the parent (-v, --quiet)


def _work(
    job: WorkerJob, limits: SharedLimits, messages: multiprocessing.Queue[tuple[Any, ...]]
) -> None:
    """A worker process: run the job and send its report, or its error, to the parent."""
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logging.getLogger("archivist").setLevel(job.log_level)
    try:
        report = job.run(_Relay(messages), limits)
    except ArchivistError as exc:
        limits.stop()  # the run ends with this error: the others stop too
        messages.put(("error", _picklable(exc)))
        return
    except KeyboardInterrupt as exc:
        limits.stop()
        done = exc.report.model_dump(mode="json") if isinstance(exc, RunInterrupted) else None
        messages.put(("interrupted", done))  # with what it committed
        return
    finally:
        if _orphaned():  # nobody reads the queue: do not wait at exit to hand anything over
            messages.cancel_join_thread()
    messages.put(("report", report.model_dump(mode="json")))


def _picklable(exc: ArchivistError) -> ArchivistError:
    """The error as the parent can receive it: itself, or an ArchivistError with its text."""
    try:
        multiprocessing.reduction.ForkingPickler.dumps(exc)
    except Exception:  # an error that carries something unpicklable keeps its message
        return ArchivistError(str(exc))
    return exc


def run_workers(
    job: WorkerJob, workers: int, limit: int, progress: Progress | None = None
) -> RunReport:
    """Run `job` in `workers` processes and merge their reports into one.

    The first worker error (a configuration error, say) is raised once all workers have
    stopped; Ctrl-C stops them all, each letting go of what it holds, and raises
    `RunInterrupted` with the merged report of what they committed.
    """
    context = multiprocessing.get_context("spawn")
    limits = SharedLimits(context, limit)
    messages: multiprocessing.Queue[tuple[Any, ...]] = context.Queue()
    processes = [
        context.Process(target=_work, args=(job, limits, messages), name=f"archivist-worker-{i}")
        for i in range(workers)
    ]
    for process in processes:
        process.start()
    reports: list[RunReport] = []
    errors: list[BaseException] = []
    total = 0
    finished = 0
    try:
        while finished < workers:
            try:
                message = messages.get(timeout=_POLL_S)
            except queue.Empty:
                if not _crashed(processes, finished):
                    continue
                try:  # a worker that just ended may have sent its last word as it did
                    message = messages.get(timeout=_LAST_WORD_S)
                except queue.Empty:
                    limits.stop()
                    errors.append(_crash_error(processes))
                    break
            kind = message[0]
            if kind == "start":
                if progress is not None and message[1] > total:
                    total = message[1]
                    progress.start(total)
            elif kind == "advance":
                if progress is not None:
                    progress.advance(SessionOutcome.model_validate(message[1]))
            else:
                finished += 1
                if kind == "report":
                    reports.append(RunReport.model_validate(message[1]))
                elif kind == "error":
                    errors.append(message[1])
                else:
                    errors.append(KeyboardInterrupt())
                    if message[1] is not None:
                        reports.append(RunReport.model_validate(message[1]))
    except KeyboardInterrupt:
        limits.stop()
        errors.append(KeyboardInterrupt())
        reports += _last_reports(messages, processes, workers - finished)
    finally:
        for process in processes:
            _join(process)
    if errors and isinstance(errors[0], KeyboardInterrupt) and reports:
        merged = merge_reports(reports, workers)
        merged.interrupted = True
        if not any(n.startswith("interrupted") for n in merged.notes):
            merged.notes.append("interrupted: committed sessions are kept")
        raise RunInterrupted(merged)
    if errors:
        raise errors[0]
    return merge_reports(reports, workers)


def _last_reports(
    messages: multiprocessing.Queue[tuple[Any, ...]], processes: list[SpawnProcess], left: int
) -> list[RunReport]:
    """After Ctrl-C in the parent: the reports of the `left` workers still running, which
    stop at their next session (a second Ctrl-C stops the wait)."""
    reports = []
    while left > 0:
        try:
            message = messages.get(timeout=_POLL_S)
        except queue.Empty:
            if all(not p.is_alive() for p in processes) and messages.empty():
                break
            continue
        if message[0] in ("report", "interrupted", "error"):
            left -= 1
            if message[0] != "error" and message[1] is not None:
                reports.append(RunReport.model_validate(message[1]))
    return reports


def _crashed(processes: list[SpawnProcess], finished: int) -> bool:
    """Whether a worker ended without a word (it crashed): fewer report than have ended."""
    ended = sum(not p.is_alive() for p in processes)
    return ended > finished


def _crash_error(processes: list[SpawnProcess]) -> ArchivistError:
    codes = [p.exitcode for p in processes if not p.is_alive() and p.exitcode]
    return ArchivistError(
        f"an archive worker process ended unexpectedly (exit code {codes[0] if codes else '?'}); "
        "its error is above"
    )


def _join(process: SpawnProcess) -> None:
    """Wait for a worker (it stops at its next session once the run is stopped)."""
    try:
        process.join()
    except KeyboardInterrupt:  # a second Ctrl-C: do not wait any longer
        process.terminate()
        process.join()


def merge_reports(reports: list[RunReport], workers: int) -> RunReport:
    """One report of the workers' reports: their sessions (worker by worker), notes and
    passed-over counts; the held and unarchivable sessions every worker listed, once."""
    first = reports[0]
    held = {f.session_id: f for r in reports for f in r.held}
    merged = RunReport(
        dry_run=first.dry_run,
        embedder=first.embedder,
        embedding_model=first.embedding_model,
        started_at=min(r.started_at for r in reports),
        finished_at=max((r.finished_at for r in reports if r.finished_at), default=None),
        sessions=[s for r in reports for s in r.sessions],
        notes=list(dict.fromkeys(n for r in reports for n in r.notes)),
        held=list(held.values()),
        unarchivable=max((r.unarchivable for r in reports), key=lambda u: u.count),
        workers=workers,
        interrupted=any(r.interrupted for r in reports),
        passed_over=PassedOver(
            held=sum(r.passed_over.held for r in reports),
            gone=sum(r.passed_over.gone for r in reports),
        ),
    )
    return merged
