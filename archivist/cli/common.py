"""What every command shares: its options, its settings, and the one place errors end.

Exit codes (the README's table): 0 success; 1 the work failed at run time (sessions failed, a
search timed out, the database or Ollama unreachable or gone mid-run); 2 a usage or
configuration error (`ConfigError`: bad flag or setting, missing migrations, model or
dimension mismatch, missing source table or column); 3 prune-check "not safe"; 130 Ctrl-C.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption

from archivist.cli.output import Output, Verbosity
from archivist.config import (
    Settings,
    apply_env_file,
    env_file_exposure,
    load_settings,
    redact,
)
from archivist.errors import ArchivistError, ConfigError
from archivist.store import (
    DatabaseError,
    database_error_line,
    embedded_exists,
    pgserver_module,
    reading_settings,
)
from archivist.when import parse_time

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNSAFE, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


def _flags_without_type(params: list[Any]) -> list[Any]:
    """Flags (help included) shown as themselves: typer writes `<bool>` after each, which
    reads as if `--current` took a value."""
    for param in params:
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""
    return params


def reflowed(text: str | None) -> str | None:
    """A docstring as help: each paragraph one line for the terminal to wrap, as typer's rich
    help keeps a docstring's line breaks (a sentence broken at the source's 100th column
    broke again at the terminal's 80th). An `Example:` line and an indented line (a command
    to copy) stay lines of their own."""
    if text is None:
        return None
    paragraphs = []
    for paragraph in inspect.cleandoc(text).split("\n\n"):
        lines: list[str] = []
        for line in paragraph.splitlines():
            if lines and not line.startswith(("Example", " ")) and not lines[-1].startswith(" "):
                lines[-1] += " " + line.strip()
            else:
                lines.append(line)
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


class Command(TyperCommand):
    """A command whose `--help` shows flags without a `<bool>` type, its text reflowed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = reflowed(self.help)

    def get_params(self, ctx: Any) -> Any:
        return _flags_without_type(super().get_params(ctx))


class Group(TyperGroup):
    """The top-level group, its flags shown as a command's are."""

    def get_params(self, ctx: Any) -> Any:
        return _flags_without_type(super().get_params(ctx))


@dataclass
class Globals:
    """What the options before the command set (`archivist -v --env-file F archive`)."""

    verbose: bool = False
    quiet: bool = False
    env_file: Path | None = None
    env_values: dict[str, str] = field(default_factory=dict)
    env_error: ConfigError | None = None  # raised by the command, so its report says so


GLOBALS = Globals()
# The secrets of every settings this process loaded: a crash report must not print them.
LOADED_SECRETS: list[str] = []


def load_env_file(path: Path | None) -> None:
    """Load the env file into the environment (variables already set win), once per run."""
    GLOBALS.env_file, GLOBALS.env_values, GLOBALS.env_error = path, {}, None
    if path is None:
        return
    try:
        GLOBALS.env_values = apply_env_file(path)
    except ConfigError as exc:
        GLOBALS.env_error = exc


def begin(json_output: bool, quiet: bool, verbose: bool) -> Output:
    """The command's output, from its own -q/-v and those given before it."""
    level: Verbosity = "normal"
    if quiet or GLOBALS.quiet:
        level = "quiet"
    elif verbose or GLOBALS.verbose:
        level = "verbose"
    return Output.create(level, json_output)


def settings_for(
    out: Output,
    overrides: dict[str, Any],
    reading: bool = False,
    on_failure: Callable[[str, int], None] | None = None,
    require_database: bool = True,
) -> Settings:
    """The effective settings, or exit 2 with one line.

    `reading`: a command that only reads uses the demo's database when none is configured
    (and says so on stderr), so the README's commands work right after the demo; with no
    database at all it stops (exit 2), unless not `require_database` (doctor reports it).
    """
    with reported(out, on_failure=on_failure):
        settings = _load(overrides)
    LOADED_SECRETS.extend(settings.secrets())
    if GLOBALS.env_file is not None:
        exposed = env_file_exposure(GLOBALS.env_file, GLOBALS.env_values, settings)
        if exposed:
            out.error(exposed, label="warning")  # shown even with --quiet: fix it
    if not reading:
        return settings
    settings, demo_note = reading_settings(settings, Path.cwd())
    if demo_note is not None:
        out.note(demo_note)
    elif (
        require_database
        and settings.uses_embedded_database
        and not embedded_exists(settings.data_dir)
    ):
        # Reading must not create an empty database: it would hide the demo's from then on.
        with reported(out, settings, on_failure=on_failure):
            pgserver_module()  # without it, the missing extra is the news
            raise ConfigError(
                f"nothing archived yet: no database in {settings.data_dir}; run `archivist "
                "init` and `archivist archive`, or `archivist demo`, or set DATABASE_URL"
            )
    return settings


def announce_creation(out: Output, settings: Settings) -> None:
    """Say where the embedded database is about to be created (init, a run that writes)."""
    if settings.uses_embedded_database and not embedded_exists(settings.data_dir):
        out.note(f"creating the embedded database in {settings.data_dir}")


def _load(overrides: dict[str, Any]) -> Settings:
    if GLOBALS.env_error is not None:
        raise GLOBALS.env_error
    return load_settings(overrides)


USER_ERRORS = (ArchivistError, DatabaseError, KeyboardInterrupt)


def failure(exc: BaseException, secrets: list[str]) -> tuple[str, str, int]:
    """(label, one redacted line, exit code) for one of the `USER_ERRORS`."""
    if isinstance(exc, ArchivistError):
        return "error", redact(str(exc), secrets), exc.exit_code
    if isinstance(exc, DatabaseError):
        return "database error", redact(database_error_line(exc), secrets), EXIT_FAILED
    return "interrupted", "committed sessions are kept; the rest runs next time", EXIT_INTERRUPTED


@contextmanager
def reported(
    out: Output,
    settings: Settings | None = None,
    on_failure: Callable[[str, int], None] | None = None,
) -> Iterator[None]:
    """Turn the archivist's errors (and database errors, Ctrl-C) into one line and an exit code."""
    try:
        yield
    except USER_ERRORS as exc:
        label, line, code = failure(exc, settings.secrets() if settings else [])
        out.error(line, label=label)
        if on_failure is not None:
            on_failure(line if label == "error" else f"{label}: {line}", code)
        raise typer.Exit(code) from None


def default(name: str) -> str:
    """` [default: X]` for a help text, X being the setting's built-in default."""
    value = Settings.model_fields[name].default
    return f" \\[default: {value}]"


def when(text: str) -> datetime:
    """A time typed on the command line (archivist.when), or a usage error."""
    try:
        return parse_time(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


class ItemType(StrEnum):
    decision = "decision"
    constraint = "constraint"
    action = "action"
    question = "question"
    risk = "risk"
    fact = "fact"


class ItemStatus(StrEnum):
    active = "active"
    open = "open"
    blocked = "blocked"
    done = "done"
    answered = "answered"
    superseded = "superseded"


class Mode(StrEnum):
    vector = "vector"
    text = "text"
    hybrid = "hybrid"


class EmbedderName(StrEnum):
    ollama = "ollama"
    hash = "hash"


class ExtractorName(StrEnum):
    rules = "rules"
    ollama = "ollama"


class SourceName(StrEnum):
    session_turn = "session_turn"
    session_summary = "session_summary"
    archive_extraction = "archive_extraction"
    state_item = "state_item"


JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]
QuietFlag = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="Print only errors (and an asked-for --json document)."),
]
VerboseFlag = Annotated[
    bool,
    typer.Option("--verbose", "-v", help="Print details and timings on stderr."),
]
UserId = Annotated[
    str | None,
    typer.Option(
        metavar="ID",
        help="Only this user's memories (per-user memory: ARCHIVIST_MESSAGE_USER_ID).",
    ),
]
SessionIds = Annotated[
    list[str] | None,
    typer.Option("--session-id", metavar="ID", help="Only this session (repeatable)."),
]
Since = Annotated[
    datetime | None,
    typer.Option(
        metavar="WHEN",
        parser=when,
        help="Only conversation from this time on: 7d, 12h, 30m (ago) or 2026-01-01.",
    ),
]
Until = Annotated[
    datetime | None,
    typer.Option(
        metavar="WHEN", parser=when, help="Only conversation up to this time (as --since)."
    ),
]
AsOf = Annotated[
    datetime | None,
    typer.Option(
        "--as-of",
        metavar="WHEN",
        parser=when,
        help="The archive as it stood then: items current at that time (as --until).",
    ),
]
MemoryAsOf = Annotated[
    datetime | None,
    typer.Option(
        "--as-of",
        metavar="WHEN",
        parser=when,
        help="The archive as it stood then: only what had been said by that time, the newer "
        "of two statements judged among it (as --until).",
    ),
]
OlderThan = Annotated[
    datetime,
    typer.Option(
        metavar="WHEN",
        parser=when,
        help="The prune's cutoff: an age (30d, 12h, 90m, 2w) or a date (2026-01-01).",
    ),
]
Topics = Annotated[
    list[str] | None,
    typer.Option("--topic", metavar="TOPIC", help="Sessions about this topic (repeatable)."),
]
AllTopics = Annotated[bool, typer.Option("--all-topics", help="Require every --topic, not any.")]
Decision = Annotated[
    str | None,
    typer.Option(metavar="TEXT", help="Sessions with a decision containing this text."),
]
Entity = Annotated[
    str | None,
    typer.Option(
        metavar="NAME", help="Sessions naming this entity (a name, or a key like tool:vercel)."
    ),
]
ActionText = Annotated[
    str | None,
    typer.Option("--action", metavar="TEXT", help="Sessions with an action containing this text."),
]
ItemTypes = Annotated[
    list[ItemType] | None,
    typer.Option(
        "--type",
        metavar="TYPE",
        help="State items of this type (repeatable): " + ", ".join(ItemType),
    ),
]
ItemStatuses = Annotated[
    list[ItemStatus] | None,
    typer.Option(
        "--status",
        metavar="STATUS",
        help="State items of this status (repeatable): " + ", ".join(ItemStatus),
    ),
]
ModeFlag = Annotated[
    Mode | None,
    typer.Option(
        "--mode",
        metavar="MODE",
        help="Ranking: vector (cosine), text (full text) or hybrid (both fused)."
        + default("search_mode"),
    ),
]
EmbedderFlag = Annotated[
    EmbedderName | None,
    typer.Option(
        "--embedder",
        metavar="NAME",
        help="ollama, or the offline hash embedder (lexical, not semantic)." + default("embedder"),
    ),
]
SearchEmbedderFlag = Annotated[
    EmbedderName | None,
    typer.Option(
        "--embedder",
        metavar="NAME",
        help="ollama or hash. \\[default: the model the database records]",
    ),
]
ExtractorFlag = Annotated[
    ExtractorName | None,
    typer.Option(
        "--extractor",
        metavar="NAME",
        help="rules (deterministic) or ollama (an LLM; the rules when it fails)."
        + default("extractor"),
    ),
]
LlmModelFlag = Annotated[
    str | None,
    typer.Option(
        "--llm-model",
        metavar="MODEL",
        help="The Ollama chat model for --extractor ollama." + default("llm_model"),
    ),
]


def value(choice: StrEnum | None) -> str | None:
    """An enum option's value as the settings take it."""
    return None if choice is None else choice.value
