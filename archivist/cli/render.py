"""The other commands' results for people (plain lines and tables whose ids wrap, never cut)
and for programs (`--json`: one document on stdout). `--quiet` prints results only when they
are failures (a failed doctor check, an unsafe prune), on stderr, one line each."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table

from archivist.cli.output import Output, fit, people_time
from archivist.cli.render_run import session_line, summary
from archivist.config import SettingOrigin, redact
from archivist.doctor import DoctorReport
from archivist.failures import FailedSession, shortened
from archivist.prune_check import PruneCheck
from archivist.reembed import ReembedReport
from archivist.state.history import History
from archivist.state.view import StateView
from archivist.status import Status
from archivist.store import EmbeddingConfig
from archivist.words import plural

if TYPE_CHECKING:
    from archivist.demo import DemoResult

# Sessions listed by a "not safe" prune-check unless -v asks for every one.
PRUNE_SESSIONS_SHOWN = 20


def _table(title: str | None, *columns: str) -> Table:
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column, overflow="fold")
    return table


def reembed_result(out: Output, report: ReembedReport) -> None:
    if out.as_json:
        out.json(report.model_dump_json(indent=2))
        return
    if out.quiet:
        return
    resumed = f" ({report.resumed_from} staged by an earlier run)" if report.resumed_from else ""
    out.out.print(
        escape(
            f"moved {report.chunks} chunks from {report.previous_model} ({report.previous_dim}-d) "
            f"to {report.model} ({report.dim}-d): embedded {report.embedded}{resumed} in "
            f"{report.requests} requests; HNSW index rebuilt\n"
            f"now configure it: {EmbeddingConfig(report.model, report.dim).setting}"
        )
    )


def _evidence(evidence: dict[str, str] | None) -> str:
    """What said a change, for people: ` (instead, message 129)` (--json has all of it)."""
    if not evidence:
        return ""
    said = [evidence["trigger"]] if evidence.get("trigger") else []
    if evidence.get("ref_msg_id"):
        said.append(f"message {evidence['ref_msg_id']}")
    return f" ({', '.join(said)})" if said else ""


def config_result(out: Output, rows: list[SettingOrigin]) -> None:
    if out.as_json:
        shown = {r.name: {"value": r.value, "origin": r.origin} for r in rows}
        out.json(json.dumps(shown, indent=2))
        return
    if out.quiet:
        return
    table = _table("effective settings", "setting", "value", "from")
    table.columns[0].no_wrap = True  # a name is what a person types: never broken
    for row in rows:
        table.add_row(escape(row.name), escape(_setting_value(row.value)), row.origin)
    out.out.print(table)


def _setting_value(value: object) -> str:
    """A setting as it is written in the environment: a mapping as JSON."""
    if value is None:
        return ""
    return json.dumps(value) if isinstance(value, dict) else str(value)


def init_result(out: Output, database: str, applied: list[str], model: str, dim: int) -> None:
    if out.as_json:
        out.json(
            json.dumps(
                {"database": database, "applied": applied, "embedding_model": model, "dim": dim}
            )
        )
        return
    if out.quiet:
        return
    done = ", ".join(applied) if applied else "none (already up to date)"
    out.out.print(
        escape(
            f"database: {database}\nmigrations applied: {done}\nembedding model: {model} ({dim}-d)"
        )
    )


def demo_result(out: Output, result: DemoResult, program: str) -> None:
    """What the demo loaded and archived, each session's extraction, then what to run next."""
    if out.as_json:
        out.json(
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
    if out.quiet:
        return
    print_ = out.out.print
    print_(
        f"loaded {plural(result.loaded_sessions, 'sample session')}"
        if result.loaded_sessions
        else "the sample sessions are loaded already"
    )
    for outcome in result.report.sessions:
        print_(session_line(outcome))
    print_(escape(summary(result.report)))
    for extraction in result.extractions:
        out.out.rule(escape(extraction.session_id))
        print_(f"[bold]summary:[/bold] {escape(extraction.summary)}")
        print_(f"[bold]topics:[/bold] {escape(', '.join(extraction.topics))}")
        for d in extraction.decisions:
            print_(f"  decision: {escape(d.text)}")
        for a in extraction.actions:
            print_(f"  action ({escape(a.outcome or 'noted')}): {escape(a.description)}")
        print_(f"[bold]entities:[/bold] {escape(', '.join(e.key for e in extraction.entities))}")
    print_("")
    print_("next: search what was archived (the demo's database is found without flags):")
    for command, meaning in result.next_commands:
        print_(escape(f"  {program} {command}") + f"  [dim]# {escape(meaning)}[/dim]")


def prune_result(out: Output, result: PruneCheck, *, unsafe_to_stderr: bool = False) -> None:
    """The verdict for people: one line when safe; when not, the reasons and the sessions at
    risk (a table on a terminal, plain lines of at most 80 columns elsewhere). With `--quiet`
    a "not safe" is one line; `unsafe_to_stderr` (the prune job's `--print-cutoff`, whose
    stdout is the cutoff alone) prints the plain lines on stderr instead."""
    if out.as_json:
        out.json(result.model_dump_json(indent=2))
        return
    cutoff = f"{people_time(result.cutoff)} UTC"
    forgotten = (
        f"; {result.forgotten_messages} more "
        f"({plural(result.forgotten_sessions, 'session')}) "
        f"{'was' if result.forgotten_messages == 1 else 'were'} forgotten on request: "
        "nothing to protect"
        if result.forgotten_messages
        else ""
    )
    if result.safe:
        if not out.quiet:
            line = (
                f"safe: the archive holds the current text of "
                f"{plural(result.messages_older - result.forgotten_messages, 'message')} older "
                f"than {cutoff} ({plural(result.sessions_older, 'session')}){forgotten}"
            )
            if out.out.is_terminal:
                out.out.print(escape(line).replace("safe:", "[green]safe[/green]:", 1))
            else:
                out.out.print(fit(line), markup=False)
        return
    verdict = (
        f"{result.messages_at_risk} of {plural(result.messages_older, 'message')} older than "
        f"{cutoff} ({plural(len(result.sessions), 'session')}) "
        f"{'is' if result.messages_at_risk == 1 else 'are'} at risk: {_risks(result)}"
    )
    if out.quiet and not unsafe_to_stderr:
        out.error(verdict, label="not safe")
        return
    shown = result.sessions if out.verbose else result.sessions[:PRUNE_SESSIONS_SHOWN]
    more = plural(len(result.sessions) - len(shown), "more session")
    if unsafe_to_stderr or not out.out.is_terminal:  # cron mail, a log: plain, 80 columns
        lines = [f"not safe: {verdict}", *(f"  {r}" for r in result.reasons)]
        for s in shown:
            covered = (
                f"archived up to {people_time(s.covered_up_to.created_at)}"
                if s.covered_up_to
                else "never archived"
            )
            lines.append(
                f"  {s.session_id}: {plural(s.messages_at_risk, 'message')} at risk since "
                f"{people_time(s.oldest_at_risk)}, {covered}: {s.reason}"
            )
        if len(shown) < len(result.sessions):
            lines.append(f"… and {more} (-v or --json)")
        console = out.err if unsafe_to_stderr else out.out
        for line in lines:
            console.print(fit(line), markup=False)
        return
    out.out.print(f"[red]not safe[/red]: {escape(verdict)}")
    for reason in result.reasons:
        out.out.print(f"  {escape(reason)}")
    if not shown:
        return
    table = _table(None, "session", "messages at risk", "oldest at risk", "archived up to", "why")
    for s in shown:
        covered = people_time(s.covered_up_to.created_at) if s.covered_up_to else "-"
        table.add_row(
            escape(shortened(s.session_id)),
            str(s.messages_at_risk),
            people_time(s.oldest_at_risk),
            covered,
            escape(s.reason),
        )
    out.out.print(table)
    if len(shown) < len(result.sessions):
        out.out.print(f"… and {more} (-v or --json)")


def _risks(result: PruneCheck) -> str:
    """The messages at risk by reason, e.g. `2 not archived, 1 edited since archived`."""
    counts = [
        (result.messages_unarchived, "not archived"),
        (result.messages_edited, "edited since archived"),
        (result.messages_truncated, "archived cut at max_message_chars"),
        (result.undated_at_risk, "without a usable created_at"),
    ]
    return ", ".join(f"{n} {what}" for n, what in counts if n)


def status_result(out: Output, result: Status) -> None:
    if out.as_json:
        out.json(result.model_dump_json(indent=2))
        return
    if out.quiet:
        return
    oldest = f"{people_time(result.oldest_unarchived)} UTC" if result.oldest_unarchived else "-"
    out.out.print(
        f"sessions archived: {result.sessions_archived}\n"
        f"sessions with messages not archived: {result.sessions_pending}\n"
        f"messages not archived: {result.messages_unarchived} (oldest: {oldest})"
    )
    if result.messages_cut:
        out.out.print(
            f"messages archived cut at max_message_chars: {result.messages_cut} "
            "(archivist prune-check names them)"
        )
    if result.open_conflicts:
        out.out.print(f"open conflicts: {result.open_conflicts} (archivist conflicts)")
    if not result.last_runs:
        out.out.print("last runs: none yet (archivist archive)")
    table = _table("last runs (times UTC)", "started", "finished", "counts", "failures")
    for run in result.last_runs:
        tally = dict(run.counts or {})
        stopped = tally.pop("interrupted", 0)  # Ctrl-C or SIGTERM: what it committed is kept
        counts = ", ".join(f"{k} {v}" for k, v in tally.items() if v) or (
            "nothing to do" if run.finished_at and not run.failures and not stopped else ""
        )
        finished = people_time(run.finished_at) if run.finished_at else "[red]never[/]"
        table.add_row(
            people_time(run.started_at),
            finished + (" [yellow]interrupted[/]" if stopped else ""),
            counts,
            str(len(run.failures or {})),
        )
    if result.last_runs:
        out.out.print(table)
    if result.failed_sessions:
        out.out.print(failed_sessions_table(result.failed_sessions, "failed sessions"))


def failed_sessions_table(failed: list[FailedSession], title: str) -> Table:
    """Sessions with failed runs in a row: how many, until when runs leave them out, why."""
    table = _table(title, "session", "failed runs", "left out until", "last reason")
    for f in failed:
        until = (
            "[red]quarantined[/]: archive --session-id to retry"
            if f.quarantined
            else people_time(f.retry_after)
        )
        table.add_row(escape(f.session_id), str(f.failures), until, escape(f.reason))
    return table


def doctor_result(out: Output, report: DoctorReport, secrets: list[str]) -> None:
    """One line per check: a mark, the check, what was found and, if it failed, the fix."""
    if out.as_json:
        payload = {"ok": report.ok, "checks": [c.model_dump() for c in report.checks]}
        out.json(redact(json.dumps(payload, indent=2), secrets))
        return
    for check in report.checks:
        fix = f" -> {check.fix_to_show}" if check.fix_to_show else ""
        line = redact(f"{check.name}: {check.detail}{fix}", secrets)
        if out.quiet:
            if not check.ok:
                out.error(line, label="FAIL")
            continue
        mark = "[green]ok[/green]  " if check.ok else "[red]FAIL[/red]"
        out.out.print(f"{mark} {escape(line)}")


def state_result(out: Output, result: StateView) -> None:
    if out.as_json:
        out.json(result.model_dump_json(indent=2))
        return
    if out.quiet:
        return
    text = result.text or f"State of {result.session_id}: no active items"
    out.out.print(text, markup=False)


def history_result(out: Output, result: History) -> None:
    if out.as_json:
        out.json(result.model_dump_json(indent=2))
        return
    if out.quiet:
        return
    out.out.print(
        f"{plural(len(result.versions), 'version')} of {result.session_id} (times UTC)",
        markup=False,
    )
    for v in result.versions:
        first = people_time(v.span.first_turn_at) if v.span.first_turn_at else "?"
        last = people_time(v.span.last_turn_at) if v.span.last_turn_at else "?"
        out.out.print(
            f"version {v.version}  {people_time(v.version_at)}  {v.extractor}  "
            f"{first} .. {last} ({plural(v.span.turn_count, 'turn')})",
            markup=False,
        )
        lines = [f"  + [{i.uid}] {i.type}: {i.text}" for i in v.added]
        lines += [f"  = [{i.uid}] merged: {i.text}" for i in v.merged]
        lines += [
            f"  x [{i.uid}] superseded by {i.replaced_by}: {i.text}{_evidence(i.evidence)}"
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
            out.out.print(line.rstrip(), markup=False)
