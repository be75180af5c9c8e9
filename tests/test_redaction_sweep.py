"""Secrets never reach the output: every command, on success and on failure, with --verbose.

The database password and a Supabase service-role key sit in the environment of every run;
the runs provoke what they can (unreachable hosts, malformed DSNs, a model mismatch, Ollama
down) and all of stdout and stderr is searched for the secrets.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from ollama_server import OllamaTestServer
from sources import SourceDB

PASSWORD = "Pw-5ecret-7731"
KEY = "eyJhbGciOiJIUzI1NiJ9.service-role-5ecret-key"
SECRETS = (PASSWORD, KEY, "5ecret")

BAD_DSNS = [
    f"postgresql://bob:{PASSWORD}@127.0.0.1:1/app",  # nothing listens
    f"postgresql://bob:{PASSWORD}@db.nonexistent.invalid/app",  # no such host
    f"postgresql://bob:{PASSWORD}@db.example.com:notaport/app",  # malformed port
    f"postgresql://bob:{PASSWORD}@[::1/app",  # malformed URL
    f"host=127.0.0.1 port=1 user=bob password='{PASSWORD} x' dbname=app",  # key=value form
    f"postgresql://bob:{PASSWORD}@127.0.0.1:1/app?sslmode=bogus",  # bad option
]
BAD_DSN_COMMANDS = [
    ["init"],
    ["archive", "--dry-run"],
    ["doctor", "--json"],
    ["reembed", "--model", "hash-384", "--dim", "384"],
    ["config"],
    ["mcp"],
]


@pytest.fixture
def server() -> Iterator[OllamaTestServer]:
    server = OllamaTestServer()
    try:
        yield server
    finally:
        server.close()


def run(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ARCHIVIST_")},
        "SUPABASE_URL": "https://abcdefgh.supabase.co",
        "SUPABASE_SERVICE_ROLE_KEY": KEY,
        "ARCHIVIST_DELAY_MS": "0",
        "ARCHIVIST_OLLAMA_TIMEOUT_S": "2",
        "ARCHIVIST_OLLAMA_RETRIES": "0",
        "ARCHIVIST_DATA_DIR": str(tmp_path / "data"),
        "ARCHIVIST_CONFIG": "",
        "COLUMNS": "300",
        **env,
    }
    command = [sys.executable, "-m", "archivist", "--verbose", *args]
    return subprocess.run(command, env=environ, capture_output=True, text=True, timeout=120)


def assert_clean(result: subprocess.CompletedProcess[str]) -> None:
    output = result.stdout + result.stderr
    for secret in SECRETS:
        assert secret not in output, f"{result.args[3:]} leaked:\n{output}"
    assert "Traceback" not in output, output


@pytest.mark.parametrize("dsn", BAD_DSNS)
def test_no_secret_when_the_database_url_is_broken(dsn: str, tmp_path: Path) -> None:
    for args in BAD_DSN_COMMANDS:
        result = run(args, tmp_path, DATABASE_URL=dsn, ARCHIVIST_EMBEDDER="hash")
        assert_clean(result)
        if args[0] != "config":
            assert result.returncode != 0
            assert (result.stdout + result.stderr).strip(), args


def test_no_secret_from_any_command_on_a_working_database(
    source: SourceDB, server: OllamaTestServer, tmp_path: Path
) -> None:
    url = source.url.replace("postgres:@", f"postgres:{PASSWORD}@", 1)
    assert PASSWORD in url  # trust authentication ignores it, but it is in every message
    source.add("olive", ["let's deploy the frontend on Vercel", "ok, Vercel it is"])
    host = server.url.replace("http://", f"http://admin:{PASSWORD}@")
    hashed = {"DATABASE_URL": url, "ARCHIVIST_EMBEDDER": "hash", "OLLAMA_HOST": host}
    ollama = {**hashed, "ARCHIVIST_EMBEDDER": "ollama"}
    down = {**ollama, "OLLAMA_HOST": f"http://admin:{PASSWORD}@127.0.0.1:1"}
    runs: list[tuple[list[str], dict[str, str], int | None]] = [
        (["init"], hashed, 0),
        (["archive", "--dry-run", "--json"], hashed, 0),
        (["archive"], hashed, 0),
        (["status"], hashed, 0),
        (["status", "--json"], hashed, 0),
        (["prune-check", "--older-than", "1d", "--json"], hashed, None),
        (["search", "vercel"], hashed, 0),
        (["archive-search", "--topic", "deployment"], hashed, 0),
        (["config", "--json"], ollama, 0),
        (["doctor"], ollama, 1),  # the recorded model is not the configured one
        (["memory-search", "vercel"], ollama, 1),  # refused: model mismatch
        (["archive"], ollama, 1),
        (["reembed", "--model", "nomic-embed-text", "--dim", "768"], down, 1),  # Ollama down
        (["doctor", "--json"], down, 1),
        (["reembed", "--model", "hash-384", "--dim", "384", "--json"], hashed, 0),
        (["archive", "--session-id", "olive"], hashed, 1),  # hash-768 is no longer recorded
    ]
    for args, env, code in runs:
        result = run(args, tmp_path, **env)
        assert_clean(result)
        if code is not None:
            assert result.returncode == code, (args, result.stdout, result.stderr)
