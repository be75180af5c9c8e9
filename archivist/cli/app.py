"""The typer app, the options given before a command, and the console-script entry point."""

from __future__ import annotations

import logging
import os
import re
import signal
import sys
import threading
import traceback
from importlib import metadata
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from archivist.cli.common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    GLOBALS,
    LOADED_SECRETS,
    Group,
    load_env_file,
)
from archivist.cli.output import EXIT_READER_GONE
from archivist.config import ENV_FILE_VARIABLE, load_settings, redact
from archivist.store import stop_embedded

cli = typer.Typer(
    name="archivist",
    cls=Group,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    add_completion=False,
)


def version() -> str:
    """The installed package's version."""
    try:
        return metadata.version("archivist")
    except metadata.PackageNotFoundError:  # running from a source tree
        from archivist import __version__

        return __version__


def _print_version(asked: bool) -> None:
    if asked:
        typer.echo(f"archivist {version()}")
        raise typer.Exit()


@cli.callback()
def _main(
    env_file: Annotated[
        Path | None,
        typer.Option(
            "--env-file",
            metavar="FILE",
            envvar=ENV_FILE_VARIABLE,
            show_envvar=False,
            help="Load KEY=VALUE settings from FILE first (variables already set win); "
            f"also {ENV_FILE_VARIABLE}.",
        ),
    ] = None,
    verbose: Annotated[
        bool,
        typer.Option("--verbose", "-v", help="Print details and timings on stderr."),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="Print only errors (for cron)."),
    ] = False,
    show_version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            callback=_print_version,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Turn chat-bot conversations into versioned extractions and searchable memory.

    Exit codes: 0 ok, 1 the work failed, 2 usage or configuration, 3 prune-check not safe.

    Example: archivist demo

    Example: archivist --env-file /etc/archivist.env archive --quiet --report-dir /var/log/archivist
    """
    GLOBALS.verbose, GLOBALS.quiet = verbose, quiet
    load_env_file(env_file)


def main() -> None:
    """Console-script entry point: a usage error (unknown flag, bad value) is one line, exit 2.

    SIGTERM (what `timeout`, service managers and MCP hosts send) stops a command as Ctrl-C
    does: committed work is kept and the embedded database is stopped on the way out, which
    the default action (exit at once) skipped, leaving its Postgres running for good."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        code = cli(standalone_mode=False)
    except typer.Abort:
        Console(stderr=True).print("interrupted")
        raise SystemExit(EXIT_INTERRUPTED) from None
    except typer.TyperException as exc:  # click's usage errors
        formatter = getattr(exc, "format_message", None)
        message = _plain(str(formatter() if formatter else exc))
        context = getattr(exc, "ctx", None)
        hint = f" (see: {context.command_path} --help)" if context is not None else ""
        if message.strip():  # empty after `archivist` alone, which prints the help instead
            Console(stderr=True, highlight=False, soft_wrap=True).print(
                f"[red]error:[/red] {escape(message)}{escape(hint)}"
            )
        raise SystemExit(getattr(exc, "exit_code", EXIT_USAGE)) from None
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as on SIGPIPE
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(EXIT_READER_GONE) from None
    except Exception as exc:  # anything else is a bug: reported, never with a secret
        _report_crash(exc)
        raise SystemExit(EXIT_FAILED) from None
    if code == EXIT_INTERRUPTED and _blocked_threads():
        _exit_now(code)
    raise SystemExit(code if isinstance(code, int) else 0)


def _blocked_threads() -> bool:
    """Whether threads the interpreter would wait for at exit are still running (`mcp`'s
    reader of a stdin its host keeps open, after an interrupt)."""
    return any(
        t.is_alive() and not t.daemon and t is not threading.main_thread()
        for t in threading.enumerate()
    )


def _exit_now(code: int) -> None:
    """Exit without waiting for those threads, which would keep the process and its embedded
    database alive: the database is stopped first, the output flushed."""
    stop_embedded()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


_NOT_ONE_OF = re.compile(r"Value error, (.+?) is not one of (.+?)\.?$")


def _plain(message: str) -> str:
    """A usage error in the project's words: an enum option's refusal names what it allows
    (the validation library would say "Value error, 'x' is not one of 'a', 'b'")."""
    found = _NOT_ONE_OF.search(message)
    if found is None:
        return message.replace("Value error, ", "").replace("Input should be ", "must be ")
    allowed = " or ".join(v.strip(" '") for v in found.group(2).split(","))
    return f"{message[: found.start()]}{found.group(1)}; use {allowed}"


def _report_crash(exc: Exception) -> None:
    """A bug: one line, and with --verbose the traceback, both without any secret."""
    secrets = list(LOADED_SECRETS)
    try:
        secrets += load_settings().secrets()
    except Exception:  # the settings themselves may be what is broken
        pass
    verbose = GLOBALS.verbose or logging.getLogger("archivist").isEnabledFor(logging.INFO)
    if verbose:
        sys.stderr.write(redact("".join(traceback.format_exception(exc)), secrets))
    text = str(exc).strip()
    line = redact(text.splitlines()[0] if text else "", secrets)
    hint = "" if verbose else " (--verbose shows the traceback)"
    Console(stderr=True, highlight=False, soft_wrap=True).print(
        f"[red]internal error (a bug):[/red] {escape(type(exc).__name__)}: {escape(line)}{hint}"
    )
