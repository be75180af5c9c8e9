"""Secrets never reach the output: every command, on success and on failure, with --verbose.

The database password and a Supabase service-role key sit in the environment of every run;
the runs provoke what they can (unreachable hosts, malformed DSNs, a model mismatch, Ollama
down) and all of stdout and stderr is searched for the secrets.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import psycopg
import pytest
from support.ollama_server import OllamaTestServer
from support.postgrest_double import PostgrestDouble
from support.sources import SourceDB

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
    ["forget", "--session-id", "olive", "--dry-run"],
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
        (["memory-search", "vercel"], ollama, 2),  # refused: model mismatch (configuration)
        (["archive"], ollama, 2),  # the same mismatch
        (["reembed", "--model", "nomic-embed-text", "--dim", "768"], down, 1),  # Ollama down
        (["doctor", "--json"], down, 1),
        (["reembed", "--model", "hash-384", "--dim", "384", "--json"], hashed, 0),
        (["archive", "--session-id", "olive"], hashed, 2),  # hash-768 is no longer recorded
    ]
    for args, env, code in runs:
        result = run(args, tmp_path, **env)
        assert_clean(result)
        if code is not None:
            assert result.returncode == code, (args, result.stdout, result.stderr)


# -- every error path, one test each (the paths above: unreachable host, DNS failure, malformed
# DSNs, Ollama down, a model mismatch, `config` output) -----------------------------------------


def assert_secret_free(result: subprocess.CompletedProcess[str]) -> None:
    output = result.stdout + result.stderr
    for secret in SECRETS:
        assert secret not in output, f"{result.args[3:]} leaked:\n{output}"


@pytest.fixture(scope="module")
def tls_breaker() -> Iterator[int]:
    """A port on 127.0.0.1 whose server agrees to TLS (Postgres's `S`) and then answers
    garbage, so every TLS handshake with it fails."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    def answer(conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            conn.settimeout(5)
            conn.recv(4096)
            conn.sendall(b"S" + b"this is not a TLS server\r\n" * 8)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    listener.close()


def test_wrong_password(pg_server: str, tmp_path: Path) -> None:
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'pw_user') THEN "
            "CREATE ROLE pw_user LOGIN PASSWORD 'the-right-one'; END IF; END $$"
        )
        hba = Path(str(conn.execute("SHOW hba_file").fetchone()[0]))  # type: ignore[index]
        rule = "local all pw_user scram-sha-256\n"
        if rule not in hba.read_text():
            hba.write_text(rule + hba.read_text())  # only this role needs a password
        conn.execute("SELECT pg_reload_conf()")
    socket_dir = parse_qs(urlsplit(pg_server).query)["host"][0]
    dsn = f"postgresql://pw_user:{PASSWORD}@/postgres?host={socket_dir}"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the reload is asynchronous
        try:
            psycopg.connect(dsn).close()
        except psycopg.OperationalError as exc:
            if "password authentication failed" in str(exc):
                break
        time.sleep(0.1)
    for args in (["init"], ["archive"], ["doctor"]):
        result = run(args, tmp_path, DATABASE_URL=dsn, ARCHIVIST_EMBEDDER="hash")
        assert_clean(result)
        assert result.returncode != 0
        assert "password authentication failed" in result.stdout + result.stderr


def test_tls_failure_on_a_direct_connection(tls_breaker: int, tmp_path: Path) -> None:
    dsn = f"postgresql://bob:{PASSWORD}@127.0.0.1:{tls_breaker}/app?sslmode=require"
    for args in (["init"], ["archive"], ["doctor", "--json"]):
        result = run(args, tmp_path, DATABASE_URL=dsn, ARCHIVIST_EMBEDDER="hash")
        assert_clean(result)
        assert result.returncode != 0
        assert "cannot connect" in result.stdout + result.stderr, result.stdout + result.stderr


def test_tls_failure_over_rest(tls_breaker: int, tmp_path: Path) -> None:
    url = f"https://127.0.0.1:{tls_breaker}"
    for args in (["init"], ["status"], ["memory-search", "x"]):
        result = run(args, tmp_path, SUPABASE_URL=url, ARCHIVIST_EMBEDDER="hash")
        assert_clean(result)
        assert result.returncode != 0
        assert "SSL" in result.stderr, result.stderr


def test_rest_401_with_the_key_sent(postgrest: PostgrestDouble, tmp_path: Path) -> None:
    assert postgrest.key != KEY  # the gateway refuses the secret key the run sends
    for args in (["init"], ["status"], ["archive"]):
        result = run(args, tmp_path, SUPABASE_URL=postgrest.url, ARCHIVIST_EMBEDDER="hash")
        assert_clean(result)
        assert result.returncode != 0
        assert "Invalid API key" in result.stderr


def test_rest_500_whose_page_echoes_the_key(postgrest: PostgrestDouble, tmp_path: Path) -> None:
    postgrest.mode = "error500"
    for args in (["init"], ["status"], ["archive"]):
        result = run(args, tmp_path, SUPABASE_URL=postgrest.url, ARCHIVIST_EMBEDDER="hash")
        assert_clean(result)
        assert result.returncode != 0
        assert "Supabase" in result.stderr


def test_search_timeout(source: SourceDB, tmp_path: Path) -> None:
    url = source.url.replace("postgres:@", f"postgres:{PASSWORD}@", 1)
    env = {"DATABASE_URL": url, "ARCHIVIST_EMBEDDER": "hash", "ARCHIVIST_SEARCH_TIMEOUT_S": "1"}
    with psycopg.connect(source.url) as blocker:
        blocker.execute("LOCK TABLE jarvis_memory_chunks IN ACCESS EXCLUSIVE MODE")
        result = run(["memory-search", "vercel"], tmp_path, **env)
    assert_clean(result)
    assert result.returncode == 1
    assert "ran out of its 1 s" in result.stderr


def test_a_crash_and_its_verbose_traceback(db_url: str, tmp_path: Path) -> None:
    # A driver bug that puts the connection string in an exception the archivist does not
    # expect: psycopg.connect, the outermost side effect, is replaced at interpreter start.
    (tmp_path / "sitecustomize.py").write_text(
        "import psycopg\n"
        "def _broken(conninfo='', **kwargs):\n"
        "    raise RuntimeError(f'driver bug while connecting to {conninfo}')\n"
        "psycopg.connect = _broken\n"
    )
    url = db_url.replace("postgres:@", f"postgres:{PASSWORD}@", 1)
    env = {"DATABASE_URL": url, "ARCHIVIST_EMBEDDER": "hash", "PYTHONPATH": str(tmp_path)}
    verbose = run(["archive"], tmp_path, **env)
    assert_secret_free(verbose)
    assert verbose.returncode == 1
    assert "Traceback" in verbose.stderr and "driver bug while connecting" in verbose.stderr
    quiet_env = {**os.environ, **env, "ARCHIVIST_CONFIG": "", "SUPABASE_SERVICE_ROLE_KEY": KEY}
    quiet = subprocess.run(
        [sys.executable, "-m", "archivist", "archive"],
        env=quiet_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert_clean(quiet)
    assert quiet.returncode == 1
    assert quiet.stderr.strip().count("\n") == 0, quiet.stderr
    assert "internal error (a bug): RuntimeError" in quiet.stderr


def test_the_run_log_rows(source: SourceDB, server: OllamaTestServer, tmp_path: Path) -> None:
    url = source.url.replace("postgres:@", f"postgres:{PASSWORD}@", 1)
    host = server.url.replace("http://", f"http://admin:{PASSWORD}@")
    env = {"DATABASE_URL": url, "ARCHIVIST_EMBEDDER": "ollama", "OLLAMA_HOST": host}
    source.add("olive", ["let's deploy the frontend on Vercel", "ok, Vercel it is"])
    source.add("plum", ["book the dentist", "booked"])
    assert run(["init"], tmp_path, **env).returncode == 0
    server.fault, server.fault_after = "500", 1  # Ollama fails mid-run: sessions fail
    failed = run(["archive"], tmp_path, **env)
    assert_clean(failed)
    assert failed.returncode == 1
    rows = source.conn.execute(
        "SELECT arguments::text, coalesce(counts::text, ''), coalesce(failures::text, '') "
        "FROM archivist_runs"
    ).fetchall()
    assert len(rows) == 1 and "127.0.0.1" in rows[0][2], rows  # the failure names the host
    for secret in SECRETS:
        assert secret not in "".join(rows[0]), rows
