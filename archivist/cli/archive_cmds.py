"""The commands that write: init, archive, demo, reembed."""

from __future__ import annotations

import logging
import os
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from archivist import demo as demo_module
from archivist.cli import render, render_run
from archivist.cli.app import cli
from archivist.cli.common import (
    EXIT_USAGE,
    Command,
    EmbedderFlag,
    ExtractorFlag,
    JsonFlag,
    LlmModelFlag,
    QuietFlag,
    VerboseFlag,
    announce_creation,
    begin,
    default,
    reported,
    settings_for,
    value,
)
from archivist.cli.output import Output
from archivist.client import Archivist
from archivist.config import Settings, database_label
from archivist.embed.configured import configured_model
from archivist.errors import ConfigError
from archivist.models import RunReport
from archivist.pipeline import NO_MESSAGES, ArchiveRequest, RunInterrupted
from archivist.reports import prepare_report_dir, save_report
from archivist.store import SessionSelection

log = logging.getLogger(__name__)


@cli.command(cls=Command)
def init(
    embedder: EmbedderFlag = None,
    embedding_model: Annotated[
        str | None,
        typer.Option(
            metavar="MODEL",
            help="The Ollama embedding model to record, e.g. all-minilm."
            + default("embedding_model"),
        ),
    ] = None,
    embedding_dim: Annotated[
        int | None,
        typer.Option(
            metavar="N",
            help="Its vector dimension, e.g. 384 for all-minilm." + default("embedding_dim"),
        ),
    ] = None,
    print_sql: Annotated[
        bool,
        typer.Option(
            "--print-sql",
            help="Print the migrations as one SQL script (for the Supabase SQL editor or "
            "supabase/migrations/) instead of applying them; needs no database.",
        ),
    ] = False,
    allow_authenticated: Annotated[
        bool | None,
        typer.Option(
            "--allow-authenticated/--private",
            help="Let Supabase's signed-in users read and search their own memories (needs "
            "ARCHIVIST_MESSAGE_USER_ID), or make the archive private again \\[default: keep].",
        ),
    ] = None,
    json_output: JsonFlag = False,
    quiet: QuietFlag = False,
    verbose: VerboseFlag = False,
) -> None:
    """Apply the sql/ migrations and record the embedding model. Safe to repeat.

    Example: archivist init --embedding-model mxbai-embed-large --embedding-dim 1024
    """
    out = begin(json_output, quiet, verbose)
    settings = settings_for(
        out,
        {
            "embedder": value(embedder),
            "embedding_model": embedding_model,
            "embedding_dim": embedding_dim,
        },
    )
    if print_sql:
        with reported(out, settings), Archivist(settings, connect=False) as client:
            if json_output:
                raise ConfigError("--print-sql prints an SQL script, not JSON: leave out --json")
            typer.echo(client.schema_script(allow_authenticated), nl=False)
        return
    announce_creation(out, settings)
    with reported(out, settings), Archivist(settings, connect=False) as client:
        applied, recorded = client.init(allow_authenticated)
    render.init_result(out, database_label(settings), applied, recorded.model, recorded.dim)


class _Reports:
    """Where `archive --report-dir` keeps the run's report, also when the run fails."""

    def __init__(self, out: Output, folder: Path | None, dry_run: bool) -> None:
        self.out = out
        self.folder = folder
        self.dry_run = dry_run
        self.keep: int = Settings.model_fields["report_keep"].default
        self.text = False
        self.started = datetime.now(UTC)
        self.settings: Settings | None = None
        self.ready = False
        self.unusable = False  # the folder itself failed: its error line said why
        self.interrupted: RunReport | None = None  # the report of a run stopped by Ctrl-C

    def configure(self, settings: Settings) -> None:
        """Take the folder and count from the settings; create the folder before any work."""
        self.settings = settings
        self.folder = self.folder or settings.report_dir
        self.keep = settings.report_keep
        self.text = settings.report_text
        if self.folder is not None:
            try:
                prepare_report_dir(self.folder)
            except ConfigError:
                self.unusable = True
                raise
            self.ready = True

    def save(self, report: RunReport) -> None:
        if self.folder is None:
            return
        try:
            if not self.ready:
                prepare_report_dir(self.folder)
            path = save_report(self.folder, report, self.keep, self.text)
        except (OSError, ValueError, ConfigError) as exc:
            # The report is what a monitor reads: rather than lose it, it goes to stderr.
            detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            self.out.error(f"cannot write the run report in {self.folder} ({detail}); it follows")
            self.out.err.print(report.model_dump_json(indent=2), markup=False, soft_wrap=True)
            return
        log.info("report: %s", path)

    def failed(self, line: str, code: int) -> None:
        """The report of a run that stopped with an error."""
        if self.folder is None:
            return
        settings = self.settings
        report = RunReport(
            dry_run=self.dry_run,
            embedder=settings.embedder if settings else "",
            embedding_model=configured_model(settings) if settings else "",
            started_at=self.started,
            finished_at=datetime.now(UTC),
            error=line,
        )
        if self.interrupted is not None:
            report = self.interrupted.model_copy(update={"error": line})
        if self.unusable:  # the one error line said why; the report follows it on stderr
            self.out.err.print(report.model_dump_json(indent=2), markup=False, soft_wrap=True)
            return
        self.save(report)


@cli.command(cls=Command)
def archive(
    session_id: Annotated[
        list[str] | None,
        typer.Option("--session-id", metavar="ID", help="Archive this session (repeatable)."),
    ] = None,
    sessions_with_activity_in_days: Annotated[
        int | None,
        typer.Option(
            min=1,
            metavar="N",
            help="Only sessions with messages in the last N days. \\[default: any]",
        ),
    ] = None,
    max_sessions: Annotated[
        int | None,
        typer.Option(
            min=1, metavar="N", help="At most this many sessions per run." + default("max_sessions")
        ),
    ] = None,
    delay_ms: Annotated[
        int | None,
        typer.Option(min=0, metavar="MS", help="Pause between sessions." + default("delay_ms")),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=64,
            metavar="N",
            help="Archive in N worker processes that share the pending sessions (and "
            "--max-sessions); see docs/scale-out.md." + default("workers"),
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Show the plan and write nothing. It still embeds the texts of new state-item "
            "candidates (reconciliation compares them by meaning), so it needs the embedder.",
        ),
    ] = False,
    rebuild: Annotated[
        bool,
        typer.Option(
            "--rebuild",
            help="Recompute sessions from their start: those named with --session-id, else "
            "every archived one (by session id, up to --max-sessions).",
        ),
    ] = False,
    report_dir: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            help="Also write the run's JSON report (as --json prints it) to "
            "DIR/archive-<UTC time>.json, on failure too; keeps the newest report_keep (30).",
        ),
    ] = None,
    embedder: EmbedderFlag = None,
    extractor: ExtractorFlag = None,
    llm_model: LlmModelFlag = None,
    json_output: JsonFlag = False,
    quiet: QuietFlag = False,
    verbose: VerboseFlag = False,
) -> None:
    """Archive sessions with new messages: a new version and embedded chunks for each.

    Example: archivist archive --sessions-with-activity-in-days 7 --dry-run

    Example: archivist archive --extractor ollama --llm-model llama3.2

    Example: archivist archive --workers 4 --max-sessions 1000

    Example (cron): archivist --env-file /etc/archivist.env archive --quiet
    --report-dir /var/log/archivist
    """
    out = begin(json_output, quiet, verbose)
    reports = _Reports(out, report_dir, dry_run)
    settings = settings_for(
        out,
        {
            "embedder": value(embedder),
            "max_sessions": max_sessions,
            "delay_ms": delay_ms,
            "workers": workers,
            "extractor": value(extractor),
            "llm_model": llm_model,
        },
        reading=dry_run,  # a plan writes nothing: it may read the demo, never creates one
        on_failure=reports.failed,
    )
    request = ArchiveRequest(
        selection=SessionSelection(
            session_ids=session_id or (),
            active_within_days=sessions_with_activity_in_days,
            limit=settings.max_sessions,
        ),
        dry_run=dry_run,
        rebuild=rebuild,
        delay_ms=settings.delay_ms,
    )
    with reported(out, settings, on_failure=reports.failed):
        reports.configure(settings)
        if not dry_run:
            announce_creation(out, settings)
        with (
            render_run.run_progress(out, dry_run) as progress,
            Archivist(settings, create=not dry_run) as client,
        ):
            try:
                report = client.archive(request, progress, workers=settings.workers)
            except RunInterrupted as exc:
                reports.interrupted = exc.report  # what it committed goes in its report
                raise
    progress.close()
    reports.save(report)
    unknown = [s.reason for s in report.sessions if s.reason and s.reason.startswith(NO_MESSAGES)]
    typo = bool(session_id and unknown and len(unknown) == len(report.sessions))
    if not typo or out.as_json:  # (a summary of a run that found nothing named says nothing)
        render_run.run_report(out, report)
    for line in unknown:
        out.error(line, label="error" if typo else "warning")
    if typo:
        raise typer.Exit(EXIT_USAGE)  # nothing named exists: a typo, not a run
    # A session it could not archive (an id too long to hold) is a failure too: never silent.
    raise typer.Exit(1 if report.failed or report.notes or report.unarchivable.count else 0)


def _program() -> str:
    """How this program was started, as the user can type it again: `archivist` when that is
    on PATH, else the path it was run by (e.g. `.venv/bin/archivist` from `make demo`)."""
    started = Path(sys.argv[0])
    if started.name != "archivist":
        return "archivist"
    found = shutil.which("archivist")
    if found and Path(found).resolve() == started.resolve():
        return "archivist"
    if started.is_absolute() and started.is_relative_to(Path.cwd()):
        return os.path.relpath(started)
    return str(started)


@cli.command(cls=Command)
def demo(
    data_dir: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            help="The demo's database goes in DIR/demo. \\[default: the data_dir setting]",
        ),
    ] = None,
    json_output: JsonFlag = False,
    quiet: QuietFlag = False,
    verbose: VerboseFlag = False,
) -> None:
    """Load the sample conversations into an embedded database and archive them.

    Read-only commands then find that database when no database is configured; the demo's
    last lines print commands to try.

    Example: archivist demo --data-dir /tmp/archivist-demo
    """
    out = begin(json_output, quiet, verbose)
    settings = settings_for(out, {"data_dir": data_dir, "delay_ms": 0})
    with reported(out, settings):
        result = demo_module.run_demo(settings, out.note)
    render.demo_result(out, result, _program())
    raise typer.Exit(1 if result.report.failed else 0)


@cli.command(cls=Command)
def reembed(
    model: Annotated[
        str, typer.Option(metavar="MODEL", help="The embedding model to move to, e.g. all-minilm.")
    ],
    dim: Annotated[
        int | None,
        typer.Option(
            min=1, max=16000, metavar="N", help="Its vector dimension. \\[default: probed]"
        ),
    ] = None,
    embedder: EmbedderFlag = None,
    json_output: JsonFlag = False,
    quiet: QuietFlag = False,
    verbose: VerboseFlag = False,
) -> None:
    """Re-embed every chunk with another model, resumably, then switch the database to it.

    Example: archivist reembed --model all-minilm --dim 384
    """
    out = begin(json_output, quiet, verbose)
    settings = settings_for(
        out, {"embedder": value(embedder), "embedding_model": model, "embedding_dim": dim}
    )
    with reported(out, settings), Archivist(settings, connect=False) as client:
        with render_run.count_bar(out, "re-embedding") as progress:
            report = client.reembed(dim, progress)
    render.reembed_result(out, report)
