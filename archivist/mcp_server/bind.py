"""Where `archivist mcp --http` may listen, and the socket it listens on: checked before the
MCP SDK is imported (about a second), so a refused address fails at once."""

from __future__ import annotations

import ipaddress
import socket

from archivist.errors import ArchivistError, ConfigError

PATH = "/mcp"


class ServeError(ArchivistError):
    """The server cannot listen where it was asked to."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse to serve beyond this machine without a bearer token (a configuration error)."""
    if not is_loopback(host) and token is None:
        raise ConfigError(
            f"archivist mcp --http will not listen on {host} without a bearer token: set "
            "ARCHIVIST_MCP_TOKEN (16+ characters), or listen on 127.0.0.1"
        )


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on host:port (port 0: any free port), or a one-line error."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen()  # connections wait in the backlog until the server accepts them
    except OSError as exc:
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock
