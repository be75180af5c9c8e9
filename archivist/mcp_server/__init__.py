"""`archivist mcp`: the archive's read-only tools for agent hosts, over the official MCP SDK.

Serving needs the `mcp` extra (`pip install 'archivist[mcp]'`); the CLI says so when it is
missing. The SDK is imported once the startup checks have passed (archivist.mcp_server.bind).
"""

from __future__ import annotations

from collections.abc import Callable

from archivist.client import Archivist
from archivist.config import Settings
from archivist.mcp_server.bind import PATH, check_bind, listen


def serve(
    settings: Settings,
    announce: Callable[[str], None],
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = 8765,
) -> None:
    """Check the database, its migrations and the model once, then serve until stopped:
    stdio by default, streamable HTTP at http://HOST:PORT/mcp with `http`. `announce` gets
    one line saying where, once everything is ready."""
    token = settings.mcp_token.get_secret_value() if settings.mcp_token else None
    if http:
        check_bind(host, token)
    with Archivist(settings) as client:
        recorded = client.check()
        # The SDK only now: importing it takes about a second, which a refused start (no
        # database, wrong model, an address without a token) should not wait for.
        from archivist.mcp_server.http import serve_http
        from archivist.mcp_server.server import build_server, serve_stdio
        from archivist.mcp_server.tools import TOOLS

        server = build_server(client)
        ready = f"{len(TOOLS)} read-only tools; {recorded.model} ({recorded.dim}-d)"
        if not http:
            announce(f"archivist mcp: {ready}, on stdio")
            serve_stdio(server)
            return
        sock = listen(host, port)
        bound_host, bound_port = sock.getsockname()[:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        auth = ", bearer token required" if token else ""
        announce(f"archivist mcp: {ready}, on http://{shown}:{bound_port}{PATH}{auth}")
        serve_http(server, sock, token)
