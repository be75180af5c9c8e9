"""`archivist mcp`: the read-only tools over MCP, on stdio or streamable HTTP.

Built on the SDK's low-level `Server`, so the schemas on the wire are exactly the pydantic
models' and each result carries both the structured JSON and a short text. Every failure a
caller can cause or meet (a bad argument, an empty query, a timeout, the database or Ollama
going away) comes back as a tool error (`isError`) with its one-line message, and the server
goes on serving; the blocking calls run on worker threads, over the client's one pool.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
)

from archivist import __version__
from archivist.client import Archivist
from archivist.config import redact
from archivist.errors import ArchivistError
from archivist.mcp_server.tools import TOOLS
from archivist.queries import parse_query
from archivist.store import DatabaseError, database_error_line

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "Memory of past chat-bot conversations, archived per session as versioned structured "
    "extractions and embedded chunks. memory_search finds conversation by meaning, "
    "archive_search by structured fact, search combines both; session_state and "
    "session_history show one session; current_state is what is true now across sessions "
    "(or as of a date), with how one subject changed. Everything is read-only."
)


def build_server(client: Archivist) -> Server[Any]:
    """The MCP server answering with `client`, which it uses but does not close."""
    specs = {spec.name: spec for spec in TOOLS}
    listed = ListToolsResult(tools=[spec.tool() for spec in TOOLS])
    secrets = client.settings.secrets()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return listed

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult:
        spec = specs.get(params.name)
        if spec is None:
            return _error(f"unknown tool {params.name!r}; the tools are {', '.join(specs)}")
        try:
            arguments = parse_query(spec.arguments, params.arguments or {})
            result = await anyio.to_thread.run_sync(spec.call, client, arguments)
        except ArchivistError as exc:
            message = redact(str(exc), secrets)
        except DatabaseError as exc:
            message = f"database error: {redact(database_error_line(exc), secrets)}"
        else:
            return CallToolResult(
                content=[TextContent(type="text", text=spec.text(result))],
                structured_content=result.model_dump(mode="json"),
            )
        log.info("%s: %s", params.name, message)
        return _error(message)

    return Server(
        "archivist",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _error(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def serve_stdio(server: Server[Any]) -> None:
    """Serve one host over stdin and stdout until it closes them."""

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
