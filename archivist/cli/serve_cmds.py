"""`archivist mcp`: the read-only searches and session views for agent hosts, until stopped."""

from __future__ import annotations

import importlib.util
from typing import Annotated, Any

import typer

from archivist.cli.app import cli
from archivist.cli.common import (
    Command,
    EmbedderFlag,
    VerboseFlag,
    begin,
    reported,
    settings_for,
    value,
)
from archivist.extras import needs_extra


@cli.command("mcp", cls=Command)
def mcp_server(
    http: Annotated[
        bool,
        typer.Option(
            "--http",
            help="Serve streamable HTTP at http://HOST:PORT/mcp. \\[default: stdio]",
        ),
    ] = False,
    host: Annotated[
        str,
        typer.Option(
            metavar="HOST", help="Where --http listens; beyond loopback needs ARCHIVIST_MCP_TOKEN."
        ),
    ] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(min=0, max=65535, metavar="PORT", help="The --http port (0: any free port)."),
    ] = 8765,
    embedder: EmbedderFlag = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only errors.")] = False,
    verbose: VerboseFlag = False,
) -> None:
    """Serve the searches and session views to agent hosts over MCP, read-only (stdio default).

    Example: archivist mcp

    Example: archivist mcp --http --port 8765
    """
    out = begin(False, quiet, verbose)
    with reported(out):
        serve = _mcp_serve()  # without the SDK nothing else matters
    settings = settings_for(out, {"embedder": value(embedder)}, reading=True)
    with reported(out, settings):
        serve(settings, lambda line: out.err.print(line, markup=False), http, host, port)


def _mcp_serve() -> Any:
    """The MCP server's entry point, or a usage error naming the extra to install. The SDK is
    looked for here and imported once the startup checks have passed."""
    with needs_extra("mcp", "archivist mcp (the MCP SDK)", ("mcp", "mcp_types")):
        for package in ("mcp", "mcp_types"):
            if importlib.util.find_spec(package) is None:
                raise ModuleNotFoundError(f"No module named {package!r}", name=package)
        from archivist.mcp_server import serve
    return serve
