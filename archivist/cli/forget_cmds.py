"""`archivist forget`: erase sessions, a user or messages from the archive on request."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from archivist.cli.app import cli
from archivist.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    Command,
    JsonFlag,
    QuietFlag,
    VerboseFlag,
    begin,
    reported,
    settings_for,
)
from archivist.cli.output import Output
from archivist.client import Archivist
from archivist.forget import ForgetReport, ForgetRequest
from archivist.words import plural


@cli.command(cls=Command)
def forget(
    session_id: Annotated[
        list[str] | None,
        typer.Option("--session-id", metavar="ID", help="Forget this session (repeatable)."),
    ] = None,
    user_id: Annotated[
        str | None,
        typer.Option(
            metavar="ID",
            help="Forget every session and message of this user (the user id the archive "
            "records, and ARCHIVIST_MESSAGE_USER_ID's column in the source).",
        ),
    ] = None,
    message_id: Annotated[
        list[str] | None,
        typer.Option(
            "--message-id",
            metavar="ID",
            help="Forget this message (repeatable): its session is archived again without it.",
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Count what would be removed, per table; remove nothing."),
    ] = False,
    report_dir: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            help="The run reports' folder to clean (archive --report-dir). "
            "\\[default: ARCHIVIST_REPORT_DIR]",
        ),
    ] = None,
    json_output: JsonFlag = False,
    quiet: QuietFlag = False,
    verbose: VerboseFlag = False,
) -> None:
    """Erase sessions, a user or messages from every archivist table and run report.

    One transaction removes versions, chunks, state items, message hashes, failure and claim
    records and the run log's mentions, and leaves a tombstone of hashed ids so no later run
    archives the same source rows again. The bot's own tables are not touched.

    Example: archivist forget --session-id 7f3a --dry-run

    Example: archivist forget --user-id alice --json
    """
    out = begin(json_output, quiet, verbose)
    settings = settings_for(out, {})
    request = ForgetRequest(
        session_ids=tuple(session_id or ()),
        user_id=user_id,
        message_ids=tuple(message_id or ()),
        dry_run=dry_run,
        report_dir=report_dir,
    )
    if user_id and settings.sources.message_user_id is None:
        out.note(
            "ARCHIVIST_MESSAGE_USER_ID is unset, so archive runs record no users: only sessions "
            "archived while it was set are found by user (forget others with --session-id)"
        )
    with reported(out, settings):
        request.check()
        with Archivist(settings) as client:
            report = client.forget(request)
    _render(out, report)
    if report_dir is None and settings.report_dir is None and (report.sessions or report.messages):
        # The cron line names its folder as a flag: a forget run by hand would leave the ids
        # in the reports it wrote and say nothing of it.
        out.note(
            "no run report folder was looked at: if archive runs write reports "
            "(--report-dir), give it here too with --report-dir DIR"
        )
    raise typer.Exit(EXIT_FAILED if report.failed else EXIT_OK)


def _render(out: Output, report: ForgetReport) -> None:
    if out.as_json:
        out.json(report.model_dump_json(indent=2))
        return
    if out.quiet:
        return
    verb = "would remove" if report.dry_run else "removed"
    what = [plural(len(report.sessions), "session")]
    if report.messages:
        what.append(plural(len(report.messages), "message"))
    out.out.print(
        escape(
            f"{'dry run: ' if report.dry_run else ''}forget {', '.join(what)}: {verb} "
            f"{plural(report.rows, 'row')}, {plural(report.tombstones, 'tombstone')}"
        )
    )
    for table, rows in sorted(report.tables.items()):
        if rows:
            out.out.print(escape(f"  {table}: {rows}"))
    files = len(report.report_files_rewritten) + len(report.report_files_removed)
    if files:
        done = "would clean" if report.dry_run else "cleaned"
        out.out.print(escape(f"  run reports {done}: {files}"))
    for outcome in report.rearchived:
        line = f"  archived again without the message: {outcome.session_id} ({outcome.status})"
        out.out.print(escape(line + (f": {outcome.reason}" if outcome.reason else "")))
    if report.dry_run:
        out.out.print("nothing was removed (dry run)")
