"""The commands of conflicts across sessions: `conflicts` lists them, `resolve` settles one."""

from __future__ import annotations

from typing import Annotated

import typer

from archivist.cli import render_state
from archivist.cli.app import cli
from archivist.cli.common import (
    Command,
    JsonFlag,
    QuietFlag,
    VerboseFlag,
    begin,
    reported,
    settings_for,
)
from archivist.client import Archivist
from archivist.errors import ConfigError

UserIdOption = Annotated[str | None, typer.Option("--user-id", help="Only this user's items.")]


@cli.command("conflicts", cls=Command)
def conflicts(
    user_id: UserIdOption = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=1000, help="Items shown.")] = 200,
    json_output: JsonFlag = False,
    quiet: QuietFlag = False,
    verbose: VerboseFlag = False,
) -> None:
    """List the items on one subject that disagree with no change said, newest first.

    Example: archivist conflicts --json
    """
    out = begin(json_output, quiet, verbose)
    settings = settings_for(out, {}, reading=True)
    with reported(out, settings), Archivist(settings) as client:
        result = client.conflicts(user_id, limit)
    render_state.conflicts_result(out, result)


@cli.command("resolve", cls=Command)
def resolve(
    uid: Annotated[str, typer.Argument(metavar="UID", help="The item to settle (d_...).")],
    keep: Annotated[
        bool, typer.Option("--keep", help="It stays; those it conflicts with stop.")
    ] = False,
    drop: Annotated[bool, typer.Option("--drop", help="It stops being current.")] = False,
    user_id: UserIdOption = None,
    json_output: JsonFlag = False,
    quiet: QuietFlag = False,
    verbose: VerboseFlag = False,
) -> None:
    """Settle a conflict: keep an item or drop it (recorded; nothing is deleted).

    Example: archivist resolve d_0123456789ab --keep
    """
    out = begin(json_output, quiet, verbose)
    with reported(out):
        if keep == drop:
            raise ConfigError("give --keep or --drop")
    settings = settings_for(out, {}, reading=False)
    with reported(out, settings), Archivist(settings) as client:
        result = client.resolve(uid, "keep" if keep else "drop", user_id)
    render_state.resolution_result(out, result)
