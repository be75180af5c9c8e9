"""Presentation for people (rich) and for programs (one JSON document on stdout)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from archivist.config import SettingOrigin, redact
from archivist.doctor import DoctorReport
from archivist.models import RunReport, SessionOutcome, SessionStatus
from archivist.prune_check import PruneCheck
from archivist.reembed import Progress as ReembedProgress
from archivist.reembed import ReembedReport
from archivist.search import ArchiveSearchResult, MemorySearchResult, SearchResult
from archivist.state.history import History
from archivist.state.items import StateChange
from archivist.state.view import StateView
from archivist.status import Status

if TYPE_CHECKING:
    from archivist.demo import DemoResult

_STATUS_STYLE: dict[SessionStatus, str] = {
    "archived": "green",
    "planned": "cyan",
    "unchanged": "dim",
    "skipped": "yellow",
    "failed": "red",
}


class _RichProgress:
    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._task = progress.add_task("archiving", total=None)

    def start(self, total: int) -> None:
        self._progress.update(self._task, total=total)

    def advance(self, outcome: SessionOutcome) -> None:
        self._progress.update(self._task, advance=1, description=outcome.session_id[:40])


class _NoProgress:
    def start(self, total: int) -> None:
        pass

    def advance(self, outcome: SessionOutcome) -> None:
        pass


@contextmanager
def progress_bar(console: Console, enabled: bool) -> Iterator[_RichProgress | _NoProgress]:
    """A progress bar on a terminal; nothing when output is piped or JSON is asked for."""
    if not enabled or not console.is_terminal:
        yield _NoProgress()
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeElapsedColumn(), console=console, transient=True) as progress:
        yield _RichProgress(progress)


@contextmanager
def count_bar(console: Console, enabled: bool, description: str) -> Iterator[ReembedProgress]:
    """A progress bar of (done, total) counts on a terminal; a no-op otherwise."""
    if not enabled or not console.is_terminal:
        yield lambda done, total: None
        return
    columns = (TextColumn(description), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeElapsedColumn(), console=console, transient=True) as progress:
        task = progress.add_task(description, total=None)
        yield lambda done, total: progress.update(task, completed=done, total=total)


def reembed_result(console: Console, report: ReembedReport, as_json: bool) -> None:
    if as_json:
        _print_json(report.model_dump_json(indent=2))
        return
    resumed = f" ({report.resumed_from} staged by an earlier run)" if report.resumed_from else ""
    console.print(
        f"moved {report.chunks} chunks from {report.previous_model} ({report.previous_dim}-d) "
        f"to {report.model} ({report.dim}-d): embedded {report.embedded}{resumed} in "
        f"{report.requests} requests; HNSW index rebuilt\n"
        f"now configure it: ARCHIVIST_EMBEDDING_MODEL={report.model} "
        f"ARCHIVIST_EMBEDDING_DIM={report.dim}",
        highlight=False,
    )


def config_result(console: Console, rows: list[SettingOrigin], as_json: bool) -> None:
    if as_json:
        shown = {r.name: {"value": r.value, "origin": r.origin} for r in rows}
        _print_json(json.dumps(shown, indent=2))
        return
    table = Table(title="effective settings", title_justify="left")
    for column in ("setting", "value", "from"):
        table.add_column(column)
    for row in rows:
        table.add_row(row.name, "" if row.value is None else str(row.value), row.origin)
    console.print(table, highlight=False)


def _print_json(data: str) -> None:
    sys.stdout.write(data + "\n")
    sys.stdout.flush()


def init_result(console: Console, applied: list[str], model: str, dim: int, as_json: bool) -> None:
    if as_json:
        _print_json(json.dumps({"applied": applied, "embedding_model": model, "dim": dim}))
        return
    done = ", ".join(applied) if applied else "none (already up to date)"
    console.print(f"migrations applied: {done}\nembedding model: {model} ({dim}-d)")


def run_report(console: Console, report: RunReport, as_json: bool) -> None:
    """The per-session table and the totals of a run (or of a dry run's plan)."""
    if as_json:
        _print_json(report.model_dump_json(indent=2))
        return
    title = (
        "archive plan (dry run: nothing written; only state candidates embedded)"
        if report.dry_run
        else (f"archive run ({report.embedder}: {report.embedding_model})")
    )
    table = Table(title=title, title_justify="left")
    for column in ("session", "status", "version", "new msgs", "chunks +/-", "embed calls"):
        table.add_column(column, justify="left" if column in ("session", "status") else "right")
    table.add_column("decisions / reason")
    for s in report.sessions:
        detail = s.reason or "; ".join(s.decisions[:3])
        if s.clipped:
            detail += " [clipped: " + ", ".join(f"{k} {v}" for k, v in s.clipped.items()) + "]"
        table.add_row(
            s.session_id,
            f"[{_STATUS_STYLE[s.status]}]{s.status}[/]",
            f"{s.version_from} -> {s.version_to}",
            str(s.new_messages),
            f"+{s.chunks_added} -{s.chunks_removed}",
            str(s.embed_calls),
            detail,
        )
    console.print(table)
    for s in report.sessions:
        if s.state_changes:
            _state_changes(console, s.session_id, s.state_changes, report.dry_run)
    counts = (
        ", ".join(f"{report.count(st)} {st}" for st in _STATUS_STYLE if report.count(st))
        or "no sessions to archive"
    )
    console.print(f"{len(report.sessions)} sessions: {counts}", highlight=False)
    for note in report.notes:
        console.print(f"[yellow]note:[/yellow] {note}", highlight=False)


_CHANGE_VERB = {
    "added": ("would add", "added"),
    "merged": ("would merge", "merged"),
    "superseded": ("would supersede", "superseded"),
    "conflict": ("would flag", "flagged"),
    "status": ("would change status", "status changed"),
    "ignored": ("would ignore", "ignored"),
}


def _state_changes(
    console: Console, session_id: str, changes: list[StateChange], planned: bool
) -> None:
    """The state items a session's run changed (or would change), one line each."""
    console.print(f"state items of {session_id}:", highlight=False)
    for c in changes:
        verb = _CHANGE_VERB[c.kind][0 if planned else 1]
        extra = f" ({c.status_from} -> {c.status_to})" if c.kind == "status" else ""
        if c.kind == "superseded" and c.other_uid:
            extra = f" -> {c.other_uid}"
        elif c.kind == "conflict" and c.other_uid:
            extra = f" CONFLICT with {c.other_uid}"
        console.print(
            f"  {verb} [{c.uid}] {c.type}: {c.text}{extra}", highlight=False, markup=False
        )


def demo_result(console: Console, result: DemoResult, as_json: bool) -> None:
    if as_json:
        _print_json(
            json.dumps(
                {
                    "embedder": result.embedder_note,
                    "loaded_sessions": result.loaded_sessions,
                    "report": result.report.model_dump(mode="json"),
                    "extractions": [e.model_dump(mode="json") for e in result.extractions],
                },
                indent=2,
            )
        )
        return
    console.print(f"loaded {result.loaded_sessions} sample sessions")
    run_report(console, result.report, as_json=False)
    for extraction in result.extractions:
        console.rule(extraction.session_id)
        console.print(f"[bold]summary:[/bold] {extraction.summary}", highlight=False)
        console.print(f"[bold]topics:[/bold] {', '.join(extraction.topics)}", highlight=False)
        for d in extraction.decisions:
            console.print(f"  decision: {d.text}", highlight=False)
        for a in extraction.actions:
            console.print(f"  action ({a.outcome or 'noted'}): {a.description}", highlight=False)
        keys = ", ".join(e.key for e in extraction.entities)
        console.print(f"[bold]entities:[/bold] {keys}", highlight=False)


def _snippet(text: str, width: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _clamp_note(console: Console, clamped: dict[str, object]) -> None:
    for name, clamp in clamped.items():
        console.print(f"[yellow]clamped:[/yellow] {name} {clamp}", highlight=False)


def memory_result(console: Console, result: MemorySearchResult, as_json: bool) -> None:
    if as_json:
        _print_json(result.model_dump_json(indent=2))
        return
    table = Table(title=f"memory: {_snippet(result.query, 60)}", title_justify="left")
    for column in ("similarity", "session", "source", "when", "text"):
        table.add_column(column)
    for hit in result.hits:
        when = str(hit.metadata.get("last_at", hit.created_at.isoformat()))[:16]
        table.add_row(
            _similarity(hit.similarity), hit.session_id, hit.source, when, _snippet(hit.content)
        )
    console.print(table)
    _clamp_note(console, dict(result.clamped))


def archive_result(console: Console, result: ArchiveSearchResult, as_json: bool) -> None:
    if as_json:
        _print_json(result.model_dump_json(indent=2))
        return
    table = Table(title="archive", title_justify="left")
    for column in ("session", "version", "last turn", "summary", "matched"):
        table.add_column(column)
    for hit in result.hits:
        matched = [f"decision: {d.text}" for d in hit.decisions[:3]]
        matched += [f"action: {a.description}" for a in hit.actions[:2]]
        live = [i for i in hit.state_items if i.status != "superseded"] or hit.state_items
        matched += [f"[{i.uid}] {i.type} ({i.status}): {i.text}" for i in live[:3]]
        last = hit.span.last_turn_at.isoformat()[:16] if hit.span.last_turn_at else ""
        table.add_row(
            hit.session_id, str(hit.version), last, _snippet(hit.summary, 100), "\n".join(matched)
        )
    console.print(table)
    _clamp_note(console, dict(result.clamped))


def search_result(console: Console, result: SearchResult, as_json: bool) -> None:
    if as_json:
        _print_json(result.model_dump_json(indent=2))
        return
    if not result.sessions:
        console.print("no matching sessions")
    for match in result.sessions:
        console.rule(f"{match.session_id} (best similarity {_similarity(match.best_similarity)})")
        if match.latest:
            console.print(f"[bold]summary:[/bold] {match.latest.summary}", highlight=False)
            for d in match.latest.decisions[:5]:
                console.print(f"  decision: {d.text}", highlight=False)
        for hit in match.chunks:
            console.print(
                f"  [{_similarity(hit.similarity)}] {_snippet(hit.content)}", highlight=False
            )
    if result.cut:
        console.print(f"[yellow]cut:[/yellow] {result.cut.note}", highlight=False)
    _clamp_note(console, dict(result.clamped))


def _similarity(value: float | None) -> str:
    """A cosine to three places; '-' in text mode, where the query has no vector."""
    return "-" if value is None else f"{value:.3f}"


def prune_result(console: Console, result: PruneCheck, as_json: bool) -> None:
    if as_json:
        _print_json(result.model_dump_json(indent=2))
        return
    cutoff = result.cutoff.isoformat(timespec="seconds")
    if result.safe:
        console.print(
            f"[green]safe[/green]: all {result.messages_older} messages older than {cutoff} "
            f"({result.sessions_older} sessions) are archived",
            highlight=False,
        )
        return
    console.print(
        f"[red]not safe[/red]: {result.messages_at_risk} of {result.messages_older} messages "
        f"older than {cutoff} are not archived; run archivist archive first",
        highlight=False,
    )
    if result.undated_at_risk:
        console.print(
            f"{result.undated_at_risk} of them have no usable created_at (NULL, infinite or "
            "far ahead); archivist archive stores them as undated",
            highlight=False,
        )
    table = Table(title_justify="left")
    for column in ("session", "messages at risk", "oldest at risk", "archived up to"):
        table.add_column(column)
    for s in result.sessions:
        covered = (
            s.covered_up_to.created_at.isoformat(timespec="seconds") if s.covered_up_to else "-"
        )
        table.add_row(
            s.session_id,
            str(s.messages_at_risk),
            s.oldest_at_risk.isoformat(timespec="seconds"),
            covered,
        )
    console.print(table)


def status_result(console: Console, result: Status, as_json: bool) -> None:
    if as_json:
        _print_json(result.model_dump_json(indent=2))
        return
    oldest = (
        result.oldest_unarchived.isoformat(timespec="seconds") if result.oldest_unarchived else "-"
    )
    console.print(
        f"sessions archived: {result.sessions_archived}\n"
        f"sessions with messages not archived: {result.sessions_pending}\n"
        f"messages not archived: {result.messages_unarchived} (oldest: {oldest})",
        highlight=False,
    )
    table = Table(title="last runs", title_justify="left")
    for column in ("started", "finished", "counts", "failures"):
        table.add_column(column)
    for run in result.last_runs:
        counts = ", ".join(f"{k} {v}" for k, v in (run.counts or {}).items() if v)
        table.add_row(
            run.started_at.isoformat(timespec="seconds"),
            run.finished_at.isoformat(timespec="seconds") if run.finished_at else "[red]never[/]",
            counts,
            str(len(run.failures or {})),
        )
    console.print(table)


def doctor_result(
    console: Console, report: DoctorReport, as_json: bool, secrets: list[str]
) -> None:
    """One line per check: a mark, the check, what was found and, if it failed, the fix."""
    if as_json:
        payload = {"ok": report.ok, "checks": [c.model_dump() for c in report.checks]}
        _print_json(redact(json.dumps(payload, indent=2), secrets))
        return
    for check in report.checks:
        mark = "[green]ok[/green]  " if check.ok else "[red]FAIL[/red]"
        fix = f" -> {check.fix}" if check.fix and not check.ok else ""
        line = f"{mark} {check.name}: {check.detail}{fix}"
        console.print(redact(line, secrets), highlight=False, soft_wrap=True)


def state_result(console: Console, result: StateView, as_json: bool) -> None:
    if as_json:
        _print_json(result.model_dump_json(indent=2))
        return
    text = result.text or f"State of {result.session_id}: no active items"
    console.print(text, highlight=False, markup=False, soft_wrap=True)


def history_result(console: Console, result: History, as_json: bool) -> None:
    if as_json:
        _print_json(result.model_dump_json(indent=2))
        return
    for v in result.versions:
        first = v.span.first_turn_at.isoformat()[:16] if v.span.first_turn_at else "?"
        last = v.span.last_turn_at.isoformat()[:16] if v.span.last_turn_at else "?"
        console.print(
            f"version {v.version}  {v.version_at.isoformat()[:16]}  {v.extractor}  "
            f"{first} .. {last} ({v.span.turn_count} turns)",
            highlight=False,
            markup=False,
        )
        lines = [f"  + [{i.uid}] {i.type}: {i.text}" for i in v.added]
        lines += [f"  = [{i.uid}] merged: {i.text}" for i in v.merged]
        lines += [
            f"  x [{i.uid}] superseded by {i.replaced_by}: {i.text} "
            + (json.dumps(i.evidence) if i.evidence else "")
            for i in v.superseded
        ]
        lines += [
            f"  ~ [{i.uid}] {i.status_from} -> {i.status_to}: {i.text}" for i in v.status_changes
        ]
        lines += [f"  ! [{i.uid}] CONFLICT: {i.text}" for i in v.conflicts]
        for label, values in (
            ("topics +", v.topics_added),
            ("topics -", v.topics_dropped),
            ("entities +", v.entities_added),
            ("entities -", v.entities_dropped),
        ):
            if values:
                lines.append(f"  {label} {', '.join(values)}")
        for line in lines:
            console.print(line.rstrip(), highlight=False, markup=False, soft_wrap=True)
