"""The exit-code contract, one test per row of the table in docs/operations.md, through the
real entry point.

0 success; 1 the work failed at run time; 2 usage or configuration; 3 prune-check "not safe";
130 interrupted. Commands that embed nothing never need the embedder; searches use the model
the database records unless one is configured.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.archiving import archived_in_process
from support.faults import start_interruptible
from support.ollama_server import OllamaTestServer
from support.sources import SourceDB, run_archivist

from archivist.config import Settings
from archivist.store import EmbeddingConfig, PostgresStore

ROOT = Path(__file__).resolve().parents[2]
UNREACHABLE = "http://127.0.0.1:9"


def env_for(db: SourceDB, **extra: str) -> dict[str, str]:
    """The database, no embedder setting at all (the default is Ollama, unreachable here)."""
    return {"DATABASE_URL": db.url, "OLLAMA_HOST": UNREACHABLE, "ARCHIVIST_DELAY_MS": "0", **extra}


def code(args: list[str], env: dict[str, str]) -> int:
    done = run_archivist(args, env)
    assert "Traceback" not in done.stderr, done.stderr
    if done.returncode:
        assert len(done.stderr.strip().splitlines()) <= 4, done.stderr
    return done.returncode


@pytest.fixture
def archived(source: SourceDB, tmp_path: Path) -> SourceDB:
    """Two sessions archived with the offline hash embedder."""
    source.add("olive", ["let's use Vercel for the frontend", "ok, I'll set it up"])
    source.add("cache", ["we should use Memcached instead of Redis", "agreed"])
    archived_in_process(source.url, tmp_path / "setup")
    return source


def test_documented_table_lists_exactly_the_codes_tested_here() -> None:
    readme = (ROOT / "docs" / "operations.md").read_text()
    section = readme[readme.index("## Exit codes") :]
    rows = re.findall(r"^\| `(\d+)` \|", section, re.M)
    assert rows == ["0", "1", "2", "3", "130", "141"]


def test_exit_0_success_and_read_only_commands_need_no_embedder(archived: SourceDB) -> None:
    env = env_for(archived)  # Ollama (the default) is unreachable; the database holds hash-768
    for args in (
        ["status"],
        ["state", "olive"],
        ["history", "olive"],
        ["prune-check", "--older-than", "30d"],
        ["memory-search", "Memcached"],
        ["archive-search", "--topic", "vercel", "--since", "3650d"],
        ["search", "Vercel frontend"],
        ["config"],
        ["forget", "--session-id", "olive", "--dry-run"],
        ["archive", "--embedder", "hash"],
    ):
        assert code(args, env) == 0, args


@pytest.mark.parametrize(
    "case",
    ["failed session", "database unreachable", "search timed out", "doctor check"],
)
def test_exit_1_the_work_failed_at_run_time(archived: SourceDB, case: str) -> None:
    env = env_for(archived, ARCHIVIST_EMBEDDER="hash")
    args = ["archive"]
    if case == "failed session":
        archived.add("bad", ["hello", "hi"])
        archived.conn.execute(
            "CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'injected'; END $$; "
            "CREATE TRIGGER boom BEFORE INSERT ON jarvis_archive "
            "FOR EACH ROW EXECUTE FUNCTION boom()"
        )
    elif case == "database unreachable":
        env["DATABASE_URL"] = "postgresql://u:pw@127.0.0.1:9/db"
        args = ["status"]
    elif case == "search timed out":
        env["ARCHIVIST_SEARCH_TIMEOUT_S"] = "0.000001"
        args = ["memory-search", "Vercel"]
    else:
        env.pop("ARCHIVIST_EMBEDDER")  # Ollama, unreachable
        args = ["doctor"]
    assert code(args, env) == 1


def test_exit_1_when_ollama_goes_away_mid_run(
    source: SourceDB, ollama_server: OllamaTestServer
) -> None:
    PostgresStore(source.conn, Settings().sources).init(EmbeddingConfig("nomic-embed-text", 768))
    for n in range(3):
        source.add(f"s{n}", [f"topic {n} here", "ok"])
    ollama_server.fault, ollama_server.fault_after = "500", 1
    env = env_for(source, OLLAMA_HOST=ollama_server.url, ARCHIVIST_OLLAMA_RETRIES="0")
    assert code(["archive"], env) == 1


def test_a_dry_run_says_the_run_would_fail_when_ollama_does_not_answer(source: SourceDB) -> None:
    """A dry run embeds nothing, so it looked fine with Ollama down; the run it previews
    would fail at once."""
    PostgresStore(source.conn, Settings().sources).init(EmbeddingConfig("nomic-embed-text", 768))
    source.add("s", ["hi there", "hello"])  # (nothing for the plan itself to embed)
    done = run_archivist(["archive", "--dry-run"], env_for(source, ARCHIVIST_OLLAMA_RETRIES="0"))
    assert done.returncode == 1, done.stderr
    said = done.stdout + done.stderr
    assert "note: the run would fail: Ollama is not reachable at http://127.0.0.1:9" in said


@pytest.mark.parametrize(
    "case",
    [
        "bad flag",
        "bad value",
        "unknown setting",
        "missing migrations",
        "model mismatch",
        "search model mismatch",
        "missing source table",
        "missing source column",
        "unreadable env file",
        "no version",
    ],
)
def test_exit_2_usage_or_configuration(
    archived: SourceDB, empty_db_url: str, tmp_path: Path, case: str
) -> None:
    env = env_for(archived, ARCHIVIST_EMBEDDER="hash")
    args = ["archive"]
    if case == "bad flag":
        args = ["archive", "--bogus"]
    elif case == "bad value":
        args = ["memory-search", "x", "--since", "yesterday-ish"]
    elif case == "unknown setting":
        env["ARCHIVIST_BOGUS"] = "1"
    elif case == "missing migrations":
        env["DATABASE_URL"] = empty_db_url
        args = ["status"]
    elif case == "model mismatch":
        env["ARCHIVIST_EMBEDDING_DIM"] = "384"  # hash-384 against the recorded hash-768
        archived.add("new", ["more", "messages"])
    elif case == "search model mismatch":
        env.pop("ARCHIVIST_EMBEDDER")
        env["ARCHIVIST_EMBEDDING_MODEL"] = "nomic-embed-text"  # configured: no fallback
        args = ["memory-search", "Vercel"]
    elif case == "missing source table":
        env["ARCHIVIST_MESSAGES_TABLE"] = "chat_messages"
    elif case == "missing source column":
        env["ARCHIVIST_MESSAGE_ID"] = "message_uuid"
    elif case == "no version":  # a session id nothing archived: a typo, as archive says
        args = ["state", "never-archived"]
    else:
        args = ["--env-file", str(tmp_path / "missing.env"), "status"]
    assert code(args, env) == 2


def test_exit_2_when_the_model_returns_another_dimension(
    source: SourceDB, ollama_server: OllamaTestServer
) -> None:
    PostgresStore(source.conn, Settings().sources).init(EmbeddingConfig("nomic-embed-text", 768))
    source.add("s", ["let's use Postgres", "ok"])
    ollama_server.fault = "wrong_dim"
    assert code(["archive"], env_for(source, OLLAMA_HOST=ollama_server.url)) == 2
    assert source.count("jarvis_archive") == 0


def test_exit_3_prune_check_not_safe(archived: SourceDB) -> None:
    archived.add("late", ["never archived", "at all"])
    done = run_archivist(["--quiet", "prune-check", "--older-than", "1d"], env_for(archived))
    assert done.returncode == 3 and done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("not safe: 2 of ")


def test_exit_130_interrupted(source: SourceDB, tmp_path: Path) -> None:
    """Ctrl-C once a session is committed, wherever it lands (a database call, the commit under
    way beside the run, planning, the pause between sessions): the run stops there (it does not
    fail every remaining session on the interrupted connection), committed sessions kept."""
    # 300 sessions with 50 ms between them: at least 15 s of run, so the signal lands in it
    # even when a loaded machine is slow to run this test's polling.
    for n in range(300):
        source.add(f"s{n:03d}", [f"message {n}", "reply"])
    env = env_for(source, ARCHIVIST_EMBEDDER="hash", ARCHIVIST_DELAY_MS="50")
    process = start_interruptible(
        [sys.executable, "-m", "archivist", "archive", "--quiet", "--report-dir", str(tmp_path)],
        {**_inherited(), **env, "ARCHIVIST_CONFIG": ""},
    )
    deadline = time.monotonic() + 60
    while source.count("jarvis_archive") == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert stderr.strip().splitlines() == [
        "interrupted: committed sessions are kept; the rest runs next time"
    ]
    assert 1 <= source.count("jarvis_archive") < 300
    # The report and the run log say what it committed before it stopped.
    [written] = tmp_path.glob("archive-*.json")
    report = json.loads(written.read_text())
    archived = [s for s in report["sessions"] if s["status"] == "archived"]
    assert len(archived) == source.count("jarvis_archive"), report["sessions"]
    assert report["error"].startswith("interrupted")
    [(finished, counts)] = source.conn.execute(
        "SELECT finished_at, counts FROM archivist_runs"
    ).fetchall()
    assert finished is not None and counts["archived"] == len(archived)
    assert counts["interrupted"] == 1 and report["interrupted"] is True
    # status does not pass it off as a run that finished its work
    shown = run_archivist(["status"], env)
    assert " interrupted " in shown.stdout and f"archived {len(archived)}" in shown.stdout


def _inherited() -> dict[str, str]:
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_", "SUPABASE_", "ARCHIVIST_"))
    }


def test_exit_141_the_reader_went_away(archived: SourceDB) -> None:
    """`archivist ... | head -1`: once the reader is gone the command stops, with the code a
    shell gives a process SIGPIPE ended (not 1, "the work failed") and nothing on stderr."""
    env = env_for(archived)
    read, write = os.pipe()
    os.close(read)  # the reader has gone before the first line
    try:
        done = subprocess.run(
            [sys.executable, "-m", "archivist", "state", "--current"],
            env={**_inherited(), "ARCHIVIST_CONFIG": "", **env},
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (141, "")


def _embedded(tmp_path: Path) -> dict[str, str]:
    """The environment of an embedded database of its own, initialised (and stopped again)."""
    env = {"HOME": str(tmp_path), "ARCHIVIST_DATA_DIR": str(tmp_path / "data")}
    env["ARCHIVIST_EMBEDDER"] = "hash"
    assert run_archivist(["init"], env).returncode == 0
    return env


def _stopped(pgdata: Path, within_s: float = 10) -> bool:
    deadline = time.monotonic() + within_s
    while (pgdata / "postmaster.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    return not (pgdata / "postmaster.pid").exists()


def test_sigterm_stops_a_command_as_ctrl_c_does_and_its_embedded_database(
    tmp_path: Path,
) -> None:
    """What a host or a service manager sends: the MCP server on stdio (its host keeps stdin
    open) exits 130 at once, and the embedded Postgres it started stops with it."""
    env = _embedded(tmp_path)
    with subprocess.Popen(
        [sys.executable, "-m", "archivist", "mcp"],
        env={**os.environ, **env},
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as server:
        assert server.stderr is not None
        assert "read-only tools" in server.stderr.readline()  # serving
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 130
    assert _stopped(tmp_path / "data" / "pgdata")


def test_a_killed_process_does_not_keep_the_embedded_database_running(tmp_path: Path) -> None:
    """pgserver stops the server when the last process holding it exits; one killed never
    says it went, and the server then ran for good."""
    env = _embedded(tmp_path)
    pgdata = tmp_path / "data" / "pgdata"
    dead = subprocess.Popen(["sleep", "0"])
    dead.wait()
    (pgdata / ".handle_pids.json").write_text(f"[{dead.pid}]")
    assert run_archivist(["status"], env).returncode in (0, 2)
    assert _stopped(pgdata)
