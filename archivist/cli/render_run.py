"""An archive run for people: a progress bar on a terminal, a line per session only when it
failed (or with -v, or in a dry run's plan), and always a closing summary line, last.

Lines are plain and never cut: session ids are printed whole, whatever the width.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from archivist.cli.output import Output
from archivist.failures import MAX_SESSION_ID_BYTES
from archivist.models import RunReport, SessionOutcome, SessionStatus
from archivist.reembed import Progress as ReembedProgress
from archivist.state.items import StateChange
from archivist.words import plural

STATUS_STYLE: dict[SessionStatus, str] = {
    "archived": "green",
    "planned": "cyan",
    "unchanged": "dim",
    "skipped": "yellow",
    "failed": "red",
}


class RateColumn(ProgressColumn):
    """Items per second, once there is a rate."""

    def __init__(self, unit: str) -> None:
        super().__init__()
        self.unit = unit

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:.1f} {self.unit}/s", style="dim")


def _bar(out: Output, description: str, unit: str) -> Progress:
    return Progress(
        TextColumn(description),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(unit),
        TextColumn("eta"),
        TimeRemainingColumn(),
        TimeElapsedColumn(),
        console=out.err,
        transient=True,
    )


# A dry run lists the state changes of this many sessions; a plan of hundreds would otherwise
# run to thousands of lines.
DETAILED_PLANS = 10


class RunProgress:
    """The pipeline's progress hook: advances the bar and prints the lines the verbosity asks."""

    def __init__(self, out: Output, dry_run: bool, bar: Progress | None) -> None:
        self.out = out
        self.dry_run = dry_run
        self.bar = bar
        self._task = bar.add_task("archiving", total=None) if bar else None
        self._detailed = 0  # planned sessions whose state changes were listed
        self.not_detailed = 0  # and those whose were not (past DETAILED_PLANS)

    def start(self, total: int) -> None:
        if self.bar is not None and self._task is not None:
            self.bar.update(self._task, total=total)

    def advance(self, outcome: SessionOutcome) -> None:
        if self.bar is not None and self._task is not None:
            self.bar.update(self._task, advance=1)
        out = self.out
        if out.as_json:
            return
        if out.quiet:
            if outcome.status == "failed":
                out.error(f"{outcome.session_id}: {outcome.reason}", label="failed")
            return
        planned = self.dry_run and outcome.status == "planned"
        if out.verbose or outcome.status == "failed" or planned:
            out.out.print(session_line(outcome))
            if outcome.state_changes and (out.verbose or planned):
                if not out.verbose and self._detailed >= DETAILED_PLANS:
                    self.not_detailed += 1
                    return
                self._detailed += 1
                for line in state_change_lines(outcome.state_changes, self.dry_run):
                    out.out.print(escape(line))

    def close(self) -> None:
        """After the run: say whose state changes were left out of a long plan."""
        if self.not_detailed:
            self.out.out.print(
                f"the state changes of {plural(self.not_detailed, 'more planned session')} "
                "are not listed (-v or --json lists them)"
            )


@contextmanager
def run_progress(out: Output, dry_run: bool) -> Iterator[RunProgress]:
    """The hook for one run, with a bar on stderr when it is a terminal."""
    if not out.interactive:
        yield RunProgress(out, dry_run, None)
        return
    with _bar(out, "archiving", "sessions") as bar:
        yield RunProgress(out, dry_run, bar)


@contextmanager
def count_bar(out: Output, description: str) -> Iterator[ReembedProgress]:
    """A (done, total) progress bar with rate and ETA on a terminal; a no-op otherwise."""
    if not out.interactive:
        yield lambda done, total: None
        return
    with _bar(out, description, "chunks") as bar:
        task = bar.add_task(description, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def session_line(s: SessionOutcome) -> str:
    """One session's outcome on one line (rich markup; the id and the reason escaped)."""
    head = f"[{STATUS_STYLE[s.status]}]{s.status:<9}[/] {escape(s.session_id)}"
    if s.status in ("failed", "skipped"):
        return f"{head}: {escape(s.reason or '')}"
    if s.status == "unchanged":
        return head
    parts = [
        f"v{s.version_from}->v{s.version_to}",
        plural(s.new_messages, "msg"),
        f"chunks +{s.chunks_added} -{s.chunks_removed} ={s.chunks_kept}",
        (
            f"{plural(s.embed_calls, 'embedding call')} to make"
            if s.status == "planned"
            else f"{plural(s.texts_embedded, 'text')} embedded in {plural(s.embed_calls, 'call')}"
        ),
        f"{s.seconds:.2f}s",
    ]
    if s.clipped:
        parts.append(", ".join(_repair(name, n) for name, n in s.clipped.items()))
    if s.extractor_fallback:
        parts.append(f"rules instead of the LLM: {s.extractor_fallback}")
    return f"{head}  " + escape("  ".join(parts))


# What a run did to a session's input, as a person reads it (`SessionOutcome.clipped`).
_REPAIRS = {
    "max_message_chars": ("message cut at max_message_chars", "messages cut at max_message_chars"),
    "unstorable_characters": (
        "message with characters replaced",
        "messages with characters replaced",
    ),
    "undated": ("undated message", "undated messages"),
    "late_arrivals": ("late arrival", "late arrivals"),
    "edited": ("edited message", "edited messages"),
    "state_candidates": ("state candidate over the cap", "state candidates over the cap"),
}


# The repairs a run's summary names: what changes what the archive holds of the bot's text.
_WORTH_SAYING = frozenset({"max_message_chars", "unstorable_characters", "undated"})


def _repair(name: str, count: int) -> str:
    one, many = _REPAIRS.get(name, (name, name))
    return plural(count, one, many)


_CHANGE_VERB = {
    "added": ("would add", "added"),
    "merged": ("would merge", "merged"),
    "superseded": ("would supersede", "superseded"),
    "conflict": ("would flag", "flagged"),
    "status": ("would change status", "status changed"),
    "ignored": ("would ignore", "ignored"),
}


def state_change_lines(changes: list[StateChange], planned: bool) -> list[str]:
    """What reconciliation did (or would do) to a session's state items, a line each."""
    lines = []
    for c in changes:
        verb = _CHANGE_VERB[c.kind][0 if planned else 1]
        extra = f" ({c.status_from} -> {c.status_to})" if c.kind == "status" else ""
        if c.kind == "superseded" and c.other_uid:
            extra = f" -> {c.other_uid}"
        elif c.kind == "conflict" and c.other_uid:
            extra = f" CONFLICT with {c.other_uid}"
        lines.append(f"    {verb} [{c.uid}] {c.type}: {c.text}{extra}")
    return lines


def duration(seconds: float) -> str:
    """`0.42s`, `12.3s`, `2m 05s`, `1h 02m`."""
    if seconds < 60:
        return f"{seconds:.2f}s" if seconds < 10 else f"{seconds:.1f}s"
    whole = int(seconds)
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole % 3600 // 60:02d}m"


def summary(report: RunReport) -> str:
    """The run in one line: sessions by outcome, duration and rate, chunks, embeddings."""
    seconds = (
        (report.finished_at - report.started_at) / timedelta(seconds=1)
        if report.finished_at
        else 0.0
    )
    total = len(report.sessions)
    if report.error:
        return f"run failed after {duration(seconds)}: {report.error}"
    if not total and report.held:  # (held back: listed above the summary)
        return (
            f"nothing archived: {plural(len(report.held), 'session')} held back after failed "
            f"runs, no other session has new messages ({duration(seconds)})"
        )
    if not total:
        return f"nothing to archive: no session has new messages ({duration(seconds)})"
    counts = ", ".join(f"{report.count(st)} {st}" for st in STATUS_STYLE if report.count(st))
    rate = f", {total / seconds:.1f} sessions/s" if seconds >= 1 else ""
    added = sum(s.chunks_added for s in report.sessions)
    removed = sum(s.chunks_removed for s in report.sessions)
    kept = sum(s.chunks_kept for s in report.sessions)
    texts = sum(s.texts_embedded for s in report.sessions)
    calls = sum(s.embed_calls for s in report.sessions)
    head = "dry run, nothing written: " if report.dry_run else ""
    if not report.count("archived") + report.count("planned"):
        chunks = ""  # (an unchanged session's chunks are not read: no counts to give)
    elif report.dry_run:
        chunks = (
            f"; chunks would add {added}, remove {removed}, keep {kept}, "
            f"in {plural(calls, 'embedding call')}"
        )
    else:
        chunks = (
            f"; chunks added {added}, removed {removed}, kept {kept}; "
            f"embedded {plural(texts, 'text')} in {plural(calls, 'call')}"
        )
    fallbacks = sum(1 for s in report.sessions if s.extractor_fallback)
    tail = f"; {plural(fallbacks, 'session')} fell back to the rules extractor" if fallbacks else ""
    repaired = Counter[str]()
    for outcome in report.sessions:
        repaired.update({k: v for k, v in outcome.clipped.items() if k in _WORTH_SAYING})
    if repaired:
        tail += "; " + ", ".join(_repair(name, n) for name, n in sorted(repaired.items()))
    sessions = plural(total, "session")
    return f"{head}{sessions}: {counts} in {duration(seconds)}{rate}{chunks}{tail}"


# Sessions a run names when it says which it left out; `status` (or --json) lists them all.
LEFT_OUT_SHOWN = 10


def _left_out(report: RunReport) -> list[str]:
    """The sessions the run left out, a line per kind (rich markup; ids escaped): those held
    back after failed runs (backing off, or quarantined) and those whose id is too long."""
    lines = []
    if report.held:
        ids = [h.session_id for h in report.held[:LEFT_OUT_SHOWN]]
        more = len(report.held) - len(ids)
        quarantined = sum(h.quarantined for h in report.held)
        lines.append(
            f"[yellow]held back:[/yellow] {plural(len(report.held), 'session')} after failed "
            f"runs ({quarantined} quarantined), not attempted: "
            + escape(", ".join(ids) + (f" and {more} more" if more else ""))
            + " (archivist status lists them; archive --session-id retries one now)"
        )
    if report.unarchivable.count:
        lines.append(_too_long(report))
    return lines


def _too_long(report: RunReport) -> str:
    return (
        f"[yellow]unarchivable:[/yellow] {plural(report.unarchivable.count, 'session')} with "
        f"new messages have ids over {MAX_SESSION_ID_BYTES} bytes, not UTF-8 or none and "
        "cannot be archived: " + escape(", ".join(report.unarchivable.examples))
    )


def run_report(out: Output, report: RunReport) -> None:
    """After the run: the notes, then the summary, last. JSON: the report, and only it."""
    if out.as_json:
        out.json(report.model_dump_json(indent=2))
        return
    problem = bool(report.failed or report.notes or report.unarchivable.count)
    if out.quiet:
        for note in report.notes:
            out.error(note, label="stopped")
        if report.unarchivable.count:
            out.err.print(_too_long(report))
        if problem:
            out.err.print(escape(summary(report)))
        return
    for note in report.notes:
        out.out.print(f"[yellow]note:[/yellow] {escape(note)}")
    for line in _left_out(report):
        out.out.print(line)
    multi = [s.session_id for s in report.sessions if s.multi_user]
    if multi:
        out.out.print(
            f"[yellow]several users:[/yellow] {escape(', '.join(multi))}: their messages carry "
            "more than one user id, so what is archived of them has none (only the service "
            "role reads it)"
        )
    out.out.print(escape(summary(report)))
