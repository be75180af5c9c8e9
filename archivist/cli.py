"""The `archivist` command line: parses flags, calls one library function, renders the result.

Errors the user can cause or meet end here, in `_errors_reported`, as one red line on stderr
and an exit code: 1 for a failed run, 2 for usage or configuration errors.
"""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, cast, get_args

import psycopg
import typer
from rich.console import Console
from rich.markup import escape

from archivist import app as operations
from archivist import client as client_module
from archivist import demo as demo_module
from archivist import doctor as doctor_module
from archivist import prune_check as prune_check_module
from archivist import render
from archivist.config import Settings, explain_settings, load_settings, redact
from archivist.errors import ArchivistError, ConfigError
from archivist.extras import needs_extra
from archivist.models import ChunkSource
from archivist.pipeline import ArchiveRequest
from archivist.search import ArchiveFilters
from archivist.store.postgres import SessionSelection

cli = typer.Typer(
    name="archivist",
    help="Turn chat-bot conversations into versioned extractions and searchable memory.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
stdout = Console()
stderr = Console(stderr=True, soft_wrap=True)  # an error stays on one line

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]
SessionIds = Annotated[
    list[str] | None, typer.Option("--session-id", help="Only this session (repeatable).")
]
Since = Annotated[
    datetime | None, typer.Option(help="Only conversation from this time on, e.g. 2026-01-01.")
]
Until = Annotated[datetime | None, typer.Option(help="Only conversation up to this time.")]
Topics = Annotated[
    list[str] | None, typer.Option("--topic", help="Sessions about this topic (repeatable).")
]
Decision = Annotated[
    str | None, typer.Option(help="Sessions with a decision containing this text.")
]
Entity = Annotated[
    str | None, typer.Option(help="Sessions naming this entity (a name or a key like tool:vercel).")
]
ActionText = Annotated[
    str | None, typer.Option("--action", help="Sessions with an action containing this text.")
]
ModeFlag = Annotated[
    str | None,
    typer.Option("--mode", help="Ranking: vector, text or hybrid [default: hybrid]."),
]


class ItemTypeChoice(StrEnum):
    decision = "decision"
    constraint = "constraint"
    action = "action"
    question = "question"
    risk = "risk"


class ItemStatusChoice(StrEnum):
    active = "active"
    open = "open"
    blocked = "blocked"
    done = "done"
    answered = "answered"
    superseded = "superseded"


ItemTypes = Annotated[
    list[ItemTypeChoice] | None,
    typer.Option("--type", help="Sessions with a state item of this type (repeatable)."),
]
ItemStatuses = Annotated[
    list[ItemStatusChoice] | None,
    typer.Option("--status", help="Sessions with a state item of this status (repeatable)."),
]
EmbedderFlag = Annotated[
    str | None, typer.Option("--embedder", help="`ollama` (default) or the offline `hash`.")
]

ExtractorFlag = Annotated[
    str | None,
    typer.Option(
        "--extractor",
        help="`rules` (default, deterministic) or `ollama` (an LLM; rules when it fails).",
    ),
]
LlmModelFlag = Annotated[
    str | None, typer.Option("--llm-model", help="The Ollama chat model for --extractor ollama.")
]


@contextmanager
def _errors_reported(settings: Settings | None = None) -> Iterator[None]:
    """Turn the archivist's errors (and database errors) into one line and an exit code."""
    secrets = settings.secrets() if settings else []
    try:
        yield
    except ArchivistError as exc:
        stderr.print(f"[red]error:[/red] {escape(redact(str(exc), secrets))}", highlight=False)
        raise typer.Exit(exc.exit_code) from None
    except psycopg.Error as exc:
        line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        stderr.print(f"[red]database error:[/red] {escape(redact(line, secrets))}", highlight=False)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        stderr.print("interrupted; committed sessions are kept, the rest runs next time")
        raise typer.Exit(130) from None


# The secrets of every settings this process loaded: a crash report must not print them.
_loaded_secrets: list[str] = []


def _settings(**overrides: Any) -> Settings:
    with _errors_reported():
        settings = load_settings(overrides)
    _loaded_secrets.extend(settings.secrets())
    return settings


def _report_crash(exc: Exception) -> None:
    """A bug: one line, and with --verbose the traceback, both without any secret."""
    secrets = list(_loaded_secrets)
    try:
        secrets += load_settings().secrets()
    except Exception:  # the settings themselves may be what is broken
        pass
    verbose = logging.getLogger().isEnabledFor(logging.DEBUG)
    if verbose:
        sys.stderr.write(redact("".join(traceback.format_exception(exc)), secrets))
    text = str(exc).strip()
    line = redact(text.splitlines()[0] if text else "", secrets)
    hint = "" if verbose else " (--verbose shows the traceback)"
    stderr.print(
        f"[red]internal error (a bug):[/red] {type(exc).__name__}: {line}{hint}", highlight=False
    )


@cli.callback()
def _main(
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Log details on stderr.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Log only errors.")] = False,
) -> None:
    level = logging.DEBUG if verbose else logging.ERROR if quiet else logging.WARNING
    logging.basicConfig(level=level, stream=sys.stderr, format="%(levelname)s %(message)s")


@cli.command()
def init(
    embedder: EmbedderFlag = None,
    embedding_model: Annotated[
        str | None, typer.Option(help="Ollama embedding model to record, e.g. all-minilm.")
    ] = None,
    embedding_dim: Annotated[
        int | None, typer.Option(help="Its vector dimension, e.g. 384 for all-minilm.")
    ] = None,
    print_sql: Annotated[
        bool,
        typer.Option(
            "--print-sql",
            help="Print the migrations as one SQL script (for the Supabase SQL editor or "
            "supabase/migrations/) instead of applying them; needs no database.",
        ),
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Apply the sql/ migrations and record the embedding model. Safe to repeat.

    Example: archivist init --embedding-model mxbai-embed-large --embedding-dim 1024
    """
    settings = _settings(
        embedder=embedder, embedding_model=embedding_model, embedding_dim=embedding_dim
    )
    if print_sql:
        with _errors_reported(settings):
            typer.echo(operations.schema_script(settings), nl=False)
        return
    with _errors_reported(settings):
        applied, recorded = operations.init_database(settings)
    render.init_result(stdout, applied, recorded.model, recorded.dim, json_output)


@cli.command()
def archive(
    session_id: Annotated[
        list[str] | None,
        typer.Option("--session-id", help="Archive this session (repeatable)."),
    ] = None,
    sessions_with_activity_in_days: Annotated[
        int | None,
        typer.Option(min=1, help="Only sessions with messages in the last N days."),
    ] = None,
    max_sessions: Annotated[
        int | None, typer.Option(min=1, help="At most this many sessions per run [default: 50].")
    ] = None,
    delay_ms: Annotated[
        int | None, typer.Option(min=0, help="Pause between sessions [default: 500].")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the plan; write and embed nothing.")
    ] = False,
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="Recompute versions from each session's start.")
    ] = False,
    embedder: EmbedderFlag = None,
    extractor: ExtractorFlag = None,
    llm_model: LlmModelFlag = None,
    json_output: JsonFlag = False,
) -> None:
    """Archive sessions with new messages: a new version and embedded chunks for each.

    Example: archivist archive --sessions-with-activity-in-days 7 --dry-run
    Example: archivist archive --extractor ollama --llm-model llama3.2
    """
    settings = _settings(
        embedder=embedder,
        max_sessions=max_sessions,
        delay_ms=delay_ms,
        extractor=extractor,
        llm_model=llm_model,
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
    with _errors_reported(settings):
        with render.progress_bar(stderr, enabled=not json_output) as progress:
            report = operations.archive(settings, request, progress)
    render.run_report(stdout, report, json_output)
    raise typer.Exit(1 if report.failed or report.notes else 0)


@cli.command()
def demo(
    data_dir: Annotated[
        Path | None, typer.Option(help="Where the demo's embedded database lives.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Load the sample conversations into an embedded database and archive them.

    Example: archivist demo --data-dir /tmp/archivist-demo
    """
    settings = _settings(data_dir=data_dir, delay_ms=0)
    with _errors_reported(settings):
        result = demo_module.run_demo(settings, stderr)
    render.demo_result(stdout, result, json_output)
    raise typer.Exit(1 if result.report.failed else 0)


@cli.command()
def doctor(
    embedder: EmbedderFlag = None,
    extractor: ExtractorFlag = None,
    llm_model: LlmModelFlag = None,
    json_output: JsonFlag = False,
) -> None:
    """Check the database, pgvector, migrations, indexes, Ollama and the model (exit 0 if all pass).

    Example: archivist doctor --json
    """
    settings = _settings(embedder=embedder, extractor=extractor, llm_model=llm_model)
    with _errors_reported(settings):
        report = doctor_module.run_doctor(settings)
    render.doctor_result(stdout, report, json_output, settings.secrets())
    raise typer.Exit(0 if report.ok else 1)


@cli.command()
def status(json_output: JsonFlag = False) -> None:
    """Show sessions archived and pending, messages not archived yet, and the last runs.

    Example: archivist status --json
    """
    settings = _settings()
    with _errors_reported(settings):
        result = operations.status(settings)
    render.status_result(stdout, result, json_output)


@cli.command("state")
def state(
    session_id: Annotated[str, typer.Argument(help="The session to show.")],
    json_output: JsonFlag = False,
) -> None:
    """Show a session's active state items as the compact block prompt builders use.

    Example: archivist state jarvis-ui-abc123 --json
    """
    settings = _settings()
    with _errors_reported(settings):
        result = operations.session_state(settings, session_id)
    render.state_result(stdout, result, json_output)


@cli.command("history")
def history(
    session_id: Annotated[str, typer.Argument(help="The session to show.")],
    json_output: JsonFlag = False,
) -> None:
    """List a session's versions and what changed from each to the next.

    Example: archivist history jarvis-ui-abc123
    """
    settings = _settings()
    with _errors_reported(settings):
        result = operations.session_history(settings, session_id)
    render.history_result(stdout, result, json_output)


@cli.command("prune-check")
def prune_check(
    older_than: Annotated[str, typer.Option(help="The prune's cutoff age: 30d, 12h, 90m or 2w.")],
    json_output: JsonFlag = False,
) -> None:
    """Say whether deleting messages older than a cutoff would lose anything (exit 0 safe, 3 not).

    Example: archivist prune-check --older-than 30d && psql "$DATABASE_URL" -f prune.sql
    """
    settings = _settings()
    with _errors_reported(settings):
        result = operations.check_prune(settings, prune_check_module.parse_age(older_than))
    render.prune_result(stdout, result, json_output)
    raise typer.Exit(0 if result.safe else 3)


@cli.command()
def reembed(
    model: Annotated[str, typer.Option(help="The embedding model to move to, e.g. all-minilm.")],
    dim: Annotated[
        int | None,
        typer.Option(min=1, max=16000, help="Its vector dimension [default: probed]."),
    ] = None,
    embedder: EmbedderFlag = None,
    json_output: JsonFlag = False,
) -> None:
    """Re-embed every chunk with another model, resumably, then switch the database to it.

    Example: archivist reembed --model all-minilm --dim 384
    """
    settings = _settings(embedder=embedder, embedding_model=model, embedding_dim=dim)
    with _errors_reported(settings):
        with render.count_bar(stderr, not json_output, "re-embedding") as progress:
            report = operations.reembed_chunks(settings, dim, progress)
    render.reembed_result(stdout, report, json_output)


@cli.command("config")
def show_config(
    embedder: EmbedderFlag = None,
    data_dir: Annotated[
        Path | None, typer.Option(help="Where the embedded database lives.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Show the effective settings (secrets redacted) and where each came from.

    Example: archivist config --json
    """
    with _errors_reported():
        rows = explain_settings({"embedder": embedder, "data_dir": data_dir})
    render.config_result(stdout, rows, json_output)


def _filters(
    topic: list[str] | None,
    all_topics: bool,
    decision: str | None,
    entity: str | None,
    action: str | None,
    session_id: list[str] | None,
    since: datetime | None,
    until: datetime | None,
    item_types: list[ItemTypeChoice] | None = None,
    item_statuses: list[ItemStatusChoice] | None = None,
) -> ArchiveFilters:
    return ArchiveFilters(
        item_types=[t.value for t in item_types or []],
        item_statuses=[s.value for s in item_statuses or []],
        topics=topic or [],
        all_topics=all_topics,
        decision=decision,
        entity=entity,
        action=action,
        session_ids=session_id or [],
        since=since,
        until=until,
    )


@cli.command("memory-search")
def memory_search(
    query: Annotated[str, typer.Argument(help="What to look for, in plain words.")],
    limit: Annotated[int, typer.Option(min=1, help="Results wanted (at most 10).")] = 10,
    session_id: SessionIds = None,
    source: Annotated[
        str | None,
        typer.Option(help="session_turn, session_summary, archive_extraction or state_item."),
    ] = None,
    since: Since = None,
    until: Until = None,
    mode: ModeFlag = None,
    embedder: EmbedderFlag = None,
    json_output: JsonFlag = False,
) -> None:
    """Find conversation by meaning: the chunks that best answer the query.

    Example: archivist memory-search "what did we say about OAuth refresh?" --limit 5
    """
    settings = _settings(embedder=embedder, search_mode=mode)
    with _errors_reported(settings):
        if source is not None and source not in get_args(ChunkSource):
            raise ConfigError(
                f"unknown source {source!r}; one of {', '.join(get_args(ChunkSource))}"
            )
        result = client_module.memory_search(
            query,
            limit,
            session_id or (),
            cast("ChunkSource | None", source),
            since,
            until,
            settings=settings,
        )
    render.memory_result(stdout, result, json_output)


@cli.command("archive-search")
def archive_search(
    topic: Topics = None,
    all_topics: Annotated[
        bool, typer.Option("--all-topics", help="Require every --topic, not any.")
    ] = False,
    decision: Decision = None,
    entity: Entity = None,
    action: ActionText = None,
    session_id: SessionIds = None,
    since: Since = None,
    until: Until = None,
    all_versions: Annotated[
        bool, typer.Option("--all-versions", help="Every version, not only the latest.")
    ] = False,
    limit: Annotated[int, typer.Option(min=1, help="Rows wanted (at most 20).")] = 20,
    item_type: ItemTypes = None,
    item_status: ItemStatuses = None,
    json_output: JsonFlag = False,
) -> None:
    """Find sessions by structured fact: topics, decisions, entities, actions, state items.

    Example: archivist archive-search --topic deployment --decision vercel --entity tool:vercel

    Example: archivist archive-search --type action --status open
    """
    settings = _settings()
    filters = _filters(
        topic,
        all_topics,
        decision,
        entity,
        action,
        session_id,
        since,
        until,
        item_type,
        item_status,
    )
    with _errors_reported(settings):
        result = client_module.archive_search(filters, limit, all_versions, settings)
    render.archive_result(stdout, result, json_output)


@cli.command("search")
def hybrid_search(
    query: Annotated[str, typer.Argument(help="What to look for, in plain words.")],
    topic: Topics = None,
    all_topics: Annotated[
        bool, typer.Option("--all-topics", help="Require every --topic, not any.")
    ] = False,
    decision: Decision = None,
    entity: Entity = None,
    action: ActionText = None,
    session_id: SessionIds = None,
    since: Since = None,
    until: Until = None,
    limit: Annotated[int, typer.Option(min=1, help="Chunks wanted (at most 10).")] = 10,
    mode: ModeFlag = None,
    embedder: EmbedderFlag = None,
    json_output: JsonFlag = False,
) -> None:
    """Meaning first, then structured facts: matching sessions with their latest version.

    Example: archivist search "olive deployment" --topic deployment
    """
    settings = _settings(embedder=embedder, search_mode=mode)
    filters = _filters(topic, all_topics, decision, entity, action, session_id, since, until)
    with _errors_reported(settings):
        result = client_module.search(query, filters, limit, settings=settings)
    render.search_result(stdout, result, json_output)


@cli.command("mcp")
def mcp_server(
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP at http://HOST:PORT/mcp.")
    ] = False,
    host: Annotated[
        str, typer.Option(help="Where --http listens; beyond loopback needs ARCHIVIST_MCP_TOKEN.")
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="The --http port (0: any free port).")
    ] = 8765,
    embedder: EmbedderFlag = None,
) -> None:
    """Serve the searches and session views to agent hosts over MCP, read-only (stdio default).

    Example: archivist mcp

    Example: archivist mcp --http --port 8765
    """
    settings = _settings(embedder=embedder)
    with _errors_reported(settings):
        serve = _mcp_serve()
        serve(
            settings,
            lambda line: stderr.print(line, highlight=False, markup=False),
            http,
            host,
            port,
        )


def _mcp_serve() -> Any:
    """The MCP server's entry point, or a usage error naming the extra to install."""
    with needs_extra("mcp", "archivist mcp (the MCP SDK)", ("mcp", "mcp_types")):
        from archivist.mcp_server import serve
    return serve


def main() -> None:
    """Console-script entry point: a usage error (unknown flag, bad value) is one line, exit 2."""
    try:
        code = cli(standalone_mode=False)
    except typer.Abort:
        stderr.print("interrupted")
        raise SystemExit(130) from None
    except typer.TyperException as exc:  # click's usage errors
        formatter = getattr(exc, "format_message", None)
        message = str(formatter() if formatter else exc)
        context = getattr(exc, "ctx", None)
        hint = f" (see: {context.command_path} --help)" if context is not None else ""
        if message.strip():  # empty after `archivist` alone, which prints the help instead
            stderr.print(f"[red]error:[/red] {message}{hint}", highlight=False)
        raise SystemExit(getattr(exc, "exit_code", 2)) from None
    except Exception as exc:  # anything else is a bug: reported, never with a secret
        _report_crash(exc)
        raise SystemExit(1) from None
    raise SystemExit(code if isinstance(code, int) else 0)
