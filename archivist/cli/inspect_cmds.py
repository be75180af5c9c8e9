"""The commands that look: status, state, history, prune-check, doctor, config.

None of them embeds anything, so none needs the embedder or its model to match the database.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from archivist.cli import render, render_state
from archivist.cli.app import cli
from archivist.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNSAFE,
    Command,
    EmbedderFlag,
    ExtractorFlag,
    JsonFlag,
    LlmModelFlag,
    OlderThan,
    QuietFlag,
    VerboseFlag,
    begin,
    reported,
    settings_for,
    value,
    when,
)
from archivist.cli.output import iso_utc
from archivist.client import Archivist
from archivist.config import explain_settings
from archivist.errors import ConfigError

SessionArgument = Annotated[str, typer.Argument(metavar="SESSION_ID", help="The session to show.")]


@cli.command(cls=Command)
def status(
    json_output: JsonFlag = False, quiet: QuietFlag = False, verbose: VerboseFlag = False
) -> None:
    """Show sessions archived and pending, messages not archived yet, and the last runs.

    Example: archivist status --json
    """
    out = begin(json_output, quiet, verbose)
    settings = settings_for(out, {}, reading=True)
    with reported(out, settings), Archivist(settings) as client:
        result = client.status()
    render.status_result(out, result)


@cli.command("state", cls=Command)
def state(
    session_id: Annotated[
        str | None,
        typer.Argument(metavar="SESSION_ID", help="The session to show (not with --current)."),
    ] = None,
    current: Annotated[
        bool,
        typer.Option(
            "--current", help="What is true now across sessions: the current items of a scope."
        ),
    ] = False,
    user_id: Annotated[
        str | None, typer.Option("--user-id", help="With --current: only this user's items.")
    ] = None,
    as_of: Annotated[
        datetime | None,
        typer.Option(
            "--as-of",
            metavar="WHEN",
            parser=when,
            help="With --current: the state as it stood then (30d, 12h or 2026-01-01).",
        ),
    ] = None,
    subject: Annotated[
        str | None,
        typer.Option("--subject", help="With --current: how one subject changed over time."),
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", min=1, max=1000, help="With --current: items shown.")
    ] = 200,
    json_output: JsonFlag = False,
    quiet: QuietFlag = False,
    verbose: VerboseFlag = False,
) -> None:
    """Show a session's active state items as the compact block prompt builders use, or with
    --current the items true now across sessions (each with its session and message).

    Example: archivist state dev-cache-memcached --json
    Example: archivist state --current --subject "session cache"
    """
    out = begin(json_output, quiet, verbose)
    with reported(out):
        if current == (session_id is not None):
            raise ConfigError("give a SESSION_ID or --current, not both or neither")
        if not current and (user_id or as_of or subject):
            raise ConfigError("--user-id, --as-of and --subject go with --current")
    settings = settings_for(out, {}, reading=True)
    with reported(out, settings), Archivist(settings) as client:
        if session_id is None:
            scope = client.current_state(user_id, as_of, subject, limit)
        else:
            result = client.state(session_id)
    if session_id is None:
        render_state.current_result(out, scope)
    else:
        render.state_result(out, result)


@cli.command("history", cls=Command)
def history(
    session_id: SessionArgument,
    json_output: JsonFlag = False,
    quiet: QuietFlag = False,
    verbose: VerboseFlag = False,
) -> None:
    """List a session's versions and what changed from each to the next.

    Example: archivist history dev-cache-memcached
    """
    out = begin(json_output, quiet, verbose)
    settings = settings_for(out, {}, reading=True)
    with reported(out, settings), Archivist(settings) as client:
        result = client.history(session_id)
    render.history_result(out, result)


@cli.command("prune-check", cls=Command)
def prune_check(
    older_than: OlderThan,
    print_cutoff: Annotated[
        bool,
        typer.Option(
            "--print-cutoff",
            help="Print only the cutoff it checked (ISO 8601 UTC) on stdout, when safe: the "
            "prune job deletes up to that time, not up to its own now.",
        ),
    ] = False,
    json_output: JsonFlag = False,
    quiet: QuietFlag = False,
    verbose: VerboseFlag = False,
) -> None:
    """Say whether deleting messages older than a cutoff would lose anything (exit 0 safe, 3 not).

    Exit 1 or 2 when the check itself failed: a prune script can tell "unsafe" from "broken".

    Example: archivist prune-check --older-than 30d

    In a prune job:

      cutoff=$(archivist prune-check --older-than 30d --print-cutoff) &&
        psql "$DATABASE_URL" -qc \\
        "DELETE FROM session_messages WHERE created_at < '$cutoff'::timestamptz
        AND archivist_prunable(session_id::text, id::text, content::text)"
    """
    out = begin(json_output, quiet or print_cutoff, verbose)
    settings = settings_for(out, {}, reading=True)
    age = datetime.now(UTC) - older_than
    with reported(out, settings), Archivist(settings) as client:
        result = client.prune_check(age)
    render.prune_result(out, result, unsafe_to_stderr=print_cutoff and not quiet)
    if print_cutoff and result.safe and not json_output:
        typer.echo(iso_utc(result.cutoff))
    raise typer.Exit(EXIT_OK if result.safe else EXIT_UNSAFE)


@cli.command(cls=Command)
def doctor(
    embedder: EmbedderFlag = None,
    extractor: ExtractorFlag = None,
    llm_model: LlmModelFlag = None,
    json_output: JsonFlag = False,
    quiet: QuietFlag = False,
    verbose: VerboseFlag = False,
) -> None:
    """Check the database, pgvector, migrations, indexes, Ollama and the model (exit 0 if all pass).

    Exit 1 when a check failed; each failed check says how to fix it.

    Example: archivist doctor --json
    """
    out = begin(json_output, quiet, verbose)
    settings = settings_for(
        out,
        {"embedder": value(embedder), "extractor": value(extractor), "llm_model": llm_model},
        reading=True,
        require_database=False,
    )
    with reported(out, settings), Archivist(settings, connect=False) as client:
        report = client.doctor()
    render.doctor_result(out, report, settings.secrets())
    raise typer.Exit(EXIT_OK if report.ok else EXIT_FAILED)


@cli.command("config", cls=Command)
def show_config(
    embedder: EmbedderFlag = None,
    data_dir: Annotated[
        Path | None,
        typer.Option(metavar="DIR", help="Where the embedded database lives."),
    ] = None,
    json_output: JsonFlag = False,
    quiet: QuietFlag = False,
    verbose: VerboseFlag = False,
) -> None:
    """Show the effective settings (secrets redacted) and where each came from.

    Example: archivist config --json
    """
    out = begin(json_output, quiet, verbose)
    overrides = {"embedder": value(embedder), "data_dir": data_dir}
    settings = settings_for(out, overrides)
    with reported(out, settings):
        rows = explain_settings(overrides)
    render.config_result(out, rows)
