"""`archivist mcp --http`: streamable HTTP on a local port, with an optional bearer token.

On loopback (127.0.0.1, ::1, localhost) the SDK's DNS-rebinding protection accepts only
requests addressed to localhost, so a web page cannot drive the server through a rebound
name. Any other address needs `mcp_token`: every request must then carry
`Authorization: Bearer <token>` (compared in constant time), the token being the gate in
place of the Host check, which a real hostname would fail. With a token set, loopback
requires it too.
"""

from __future__ import annotations

import hmac
import json
import logging
import socket
from typing import Any

import uvicorn
from mcp.server import Server
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from archivist.mcp_server.bind import PATH, is_loopback

log = logging.getLogger(__name__)


class BearerToken:
    """ASGI middleware: HTTP requests without `Authorization: Bearer <token>` get 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scheme, _, given = dict(scope["headers"]).get(b"authorization", b"").partition(b" ")
            # (the scheme's name is case-insensitive, RFC 9110 11.1; the token is not)
            if scheme.lower() != b"bearer" or not hmac.compare_digest(given, self._expected):
                await _unauthorized(send)
                return
        await self.app(scope, receive, send)


async def _unauthorized(send: Send) -> None:
    body = json.dumps({"error": "invalid_token", "error_description": "bearer token required"})
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer error="invalid_token"'),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body.encode()})


def serve_http(server: Server[Any], sock: socket.socket, token: str | None) -> None:
    """Serve streamable HTTP at http://HOST:PORT/mcp on the bound socket until interrupted."""
    host = sock.getsockname()[0]
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    if is_loopback(host):
        names = ["127.0.0.1", "localhost", "[::1]", f"[{host}]" if ":" in host else host]
        security = TransportSecuritySettings(
            allowed_hosts=[f"{n}:*" for n in names],
            allowed_origins=[f"http://{n}:*" for n in names],
        )
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=PATH, host=host, transport_security=security
    )
    if token is not None:
        app = BearerToken(app, token)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
