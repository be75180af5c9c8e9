"""Where a command's output goes, and how much of it: one `Output` per invocation.

- stdout carries the result (a summary, a table, or the one JSON document of `--json`);
  stderr carries progress, notes, warnings and errors.
- `--quiet`: nothing on stdout but an asked-for JSON document; on stderr only errors and
  failures, one line each. `-v`: details and each phase's timing on stderr.
- Not a terminal (cron, a pipe): no progress bar, no colour, lines that are never wrapped or
  cut. Rich honours `NO_COLOR` and `TERM=dumb` by itself.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import sys
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from rich.console import Console, ConsoleOptions, RenderableType
from rich.markup import escape
from rich.segment import Segment

Verbosity = Literal["quiet", "normal", "verbose"]
# What a shell reports for a process SIGPIPE ended (141): the reader went away (`| head`).
EXIT_READER_GONE = 128 + signal.SIGPIPE


# Control characters but newline and tab: what archived text may hold that a terminal would
# obey (ESC starts colour, title and clear-screen sequences; CR overwrites a line).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class _Console(Console):
    """A console that prints archived text as text: its control characters are dropped (a
    message saying ESC ]0; would set the reader's window title), rich's own sequences kept.
    It stops quietly with EXIT_READER_GONE when its reader goes away (rich's own exit code, 1,
    would read as "the work failed")."""

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control is None and _CONTROL.search(segment.text):
                segment = Segment(_CONTROL.sub("", segment.text), segment.style)
            yield segment

    def on_broken_pipe(self) -> None:
        if self.quiet:
            return
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(EXIT_READER_GONE)


_LEVELS: dict[Verbosity, int] = {
    "quiet": logging.ERROR,
    "normal": logging.WARNING,
    "verbose": logging.INFO,
}


class _LineFormatter(logging.Formatter):
    """Log records as plain lines: INFO as the message, others prefixed with their level (and
    the traceback of a record that carries one, which only `-v` shows)."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.exc_info:  # a fault of the archivist's own, logged with its traceback
            message = f"{message}\n{self.formatException(record.exc_info)}"
        if record.levelno <= logging.INFO:
            return message
        return f"{record.levelname.lower()}: {message}"


class _LibraryFilter(logging.Filter):
    """Other libraries' log lines only with `-v`.

    A failure already reaches the user as the archivist's one line; psycopg and its pool add
    warnings of their own around it (a rollback that failed after Ctrl-C, a connection
    discarded), and they set their loggers' levels themselves, so the root level cannot
    silence them.
    """

    def __init__(self, verbosity: Verbosity) -> None:
        super().__init__()
        self.verbose = verbosity == "verbose"

    def filter(self, record: logging.LogRecord) -> bool:
        return self.verbose or record.name == "archivist" or record.name.startswith("archivist.")


def people_time(moment: datetime) -> str:
    """The one way a time is shown to people: UTC, to the minute (`2026-11-25 15:35`). Each
    output names the zone once, beside its first time or in its heading."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def iso_utc(moment: datetime) -> str:
    """A time for scripts: ISO 8601 in UTC, to the second (`2026-11-25T15:35:10Z`)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def fit(line: str, width: int = 80) -> str:
    """`line` wrapped at spaces to `width` columns, continued with an indent (for mail and
    logs, where a terminal does not wrap); ids and other single words are never cut."""
    indent = " " * min(len(line) - len(line.lstrip()) + 4, 12)
    return textwrap.fill(
        line, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    )


def short_line(text: str, limit: int = 60) -> str:
    """`text` on one line of at most `limit` characters (a header must not echo a pasted page)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


@dataclass
class Output:
    """The consoles of one command run and how much it may print."""

    verbosity: Verbosity
    as_json: bool
    out: Console
    err: Console

    @classmethod
    def create(cls, verbosity: Verbosity, as_json: bool) -> Output:
        """Consoles on the current stdout/stderr; logging set to the verbosity."""
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_LineFormatter())
        handler.addFilter(_LibraryFilter(verbosity))
        logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)
        logging.getLogger("archivist").setLevel(_LEVELS[verbosity])
        return cls(
            verbosity=verbosity,
            as_json=as_json,
            out=_Console(highlight=False, soft_wrap=True),
            err=_Console(stderr=True, highlight=False, soft_wrap=True),
        )

    @property
    def quiet(self) -> bool:
        return self.verbosity == "quiet"

    @property
    def verbose(self) -> bool:
        return self.verbosity == "verbose"

    @property
    def for_people(self) -> bool:
        """Whether human-readable results go to stdout (not --json, not --quiet)."""
        return not self.as_json and not self.quiet

    @property
    def interactive(self) -> bool:
        """A progress bar may be drawn: stderr is a terminal and nothing asked for silence."""
        return self.err.is_terminal and self.for_people and not self.verbose

    def note(self, text: str) -> None:
        """A remark on stderr (what the command assumed), hidden by --quiet."""
        if not self.quiet:
            self.err.print(escape(text))

    def warning(self, text: str) -> None:
        """Something the user should fix, on stderr; hidden only by --quiet."""
        if not self.quiet:
            self.err.print(f"[yellow]warning:[/yellow] {escape(text)}")

    def error(self, text: str, label: str = "error") -> None:
        """One line on stderr, whatever the verbosity."""
        self.err.print(f"[red]{label}:[/red] {escape(text)}")

    def json(self, document: str) -> None:
        """The one JSON document on stdout, exactly as given."""
        sys.stdout.write(document + "\n")
        sys.stdout.flush()
