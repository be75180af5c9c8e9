"""The first hour: after the demo, nothing a newcomer runs breaks it or creates a database.

Through the installed entry point in subprocesses, in a folder set up as `make demo` leaves a
checkout, with nothing configured (a fresh HOME, so the user data folder is empty).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from support.ollama_server import OllamaTestServer

from archivist.demo import NEXT_COMMANDS

ENTRY_POINT = Path(sys.executable).parent / "archivist"


def _env(folder: Path, ollama: OllamaTestServer) -> dict[str, str]:
    return {
        "PATH": f"{ENTRY_POINT.parent}:/usr/bin:/bin",
        "HOME": str(folder / "home"),
        "LANG": "C.UTF-8",
        "OLLAMA_HOST": ollama.url,
    }


def _data_folder(folder: Path) -> Path:
    """The user data folder platformdirs gives this HOME."""
    return folder / "home" / ".local" / "share" / "archivist"


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory, ollama: OllamaTestServer) -> Iterator[Path]:
    """A folder after `make demo`: the demo's database in ./.archivist/demo."""
    folder = tmp_path_factory.mktemp("first-hour")
    (folder / "home").mkdir()
    env = {**_env(folder, ollama), "ARCHIVIST_DATA_DIR": str(folder / ".archivist")}
    done = subprocess.run(
        [str(ENTRY_POINT), "demo"], cwd=folder, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert f"embedded database in {folder / '.archivist' / 'demo'}" in done.stderr
    with _held(folder / ".archivist" / "demo" / "pgdata"):
        yield folder


class _held:
    """A handle on the demo's server while the tests run, so each command joins it."""

    def __init__(self, pgdata: Path) -> None:
        import pgserver

        self.server = pgserver.get_server(pgdata, cleanup_mode="stop")

    def __enter__(self) -> None:
        return None

    def __exit__(self, *_: object) -> None:
        self.server.cleanup()


def run(
    folder: Path, ollama: OllamaTestServer, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ENTRY_POINT), *args],
        cwd=folder,
        env={**_env(folder, ollama), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _list_tools_over_stdio(folder: Path, ollama: OllamaTestServer) -> list[str]:
    params = StdioServerParameters(
        command=str(ENTRY_POINT), args=["mcp"], env=_env(folder, ollama), cwd=folder
    )
    names: list[str] = []

    async def main() -> None:
        with (folder / "mcp.log").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    names.extend(t.name for t in (await session.list_tools()).tools)

    anyio.run(main)
    return names


def test_reading_checking_and_previewing_use_the_demo_and_create_nothing(
    checkout: Path, ollama: OllamaTestServer
) -> None:
    demo = checkout / ".archivist" / "demo"
    doctor = run(checkout, ollama, "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    first = doctor.stdout.splitlines()[0]
    assert first.startswith("ok   database: the embedded database in ") and str(demo) in first
    assert f"reading the demo database in {demo}" in doctor.stderr

    prune = run(checkout, ollama, "prune-check", "--older-than", "1d")
    assert prune.returncode in (0, 3), prune.stderr
    assert f"reading the demo database in {demo}" in prune.stderr

    plan = run(checkout, ollama, "archive", "--dry-run")
    assert plan.returncode == 0, plan.stderr
    assert f"reading the demo database in {demo}" in plan.stderr

    assert sorted(_list_tools_over_stdio(checkout, ollama)) == [
        "archive_search",
        "current_state",
        "memory_search",
        "search",
        "session_history",
        "session_state",
    ]
    assert "6 read-only tools" in (checkout / "mcp.log").read_text()

    client = subprocess.run(
        [
            sys.executable,
            "-c",
            "from archivist import Archivist\n"
            "with Archivist.from_env() as a:\n"
            "    print(a.database)\n"
            "    print(len(a.memory_search('Memcached').hits))",
        ],
        cwd=checkout,
        env=_env(checkout, ollama),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert client.returncode == 0, client.stderr
    database, hits = client.stdout.split("\n")[:2]
    assert database == f"the embedded database in {demo}" and int(hits) > 0

    for arguments, _ in NEXT_COMMANDS:
        done = subprocess.run(
            f"{ENTRY_POINT} {arguments}",
            shell=True,
            cwd=checkout,
            env=_env(checkout, ollama),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, (arguments, done.stderr)
        assert f"reading the demo database in {demo}" in done.stderr
    assert not _data_folder(checkout).exists()
    assert sorted(p.name for p in (checkout / ".archivist").iterdir()) == ["demo"]


def test_a_command_that_changes_the_archive_names_the_demo_it_does_not_touch(
    checkout: Path, ollama: OllamaTestServer
) -> None:
    """`forget` and `resolve` change an archive, so they never fall back to the demo's; with
    none of the user's own, they say where the demo's is and how to act on it."""
    demo = checkout / ".archivist" / "demo"
    for args in (["forget", "--session-id", "jarvis-ui-olive-deploy"], ["resolve", "x", "--drop"]):
        done = run(checkout, ollama, *args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.strip().endswith(
            f"the demo's is in {demo}, set ARCHIVIST_DATA_DIR={demo} to change it"
        ), done.stderr
    assert not _data_folder(checkout).exists()


def test_with_no_database_at_all_nothing_is_created(
    tmp_path: Path, ollama: OllamaTestServer
) -> None:
    (tmp_path / "home").mkdir()
    for args, code in (
        (["doctor"], 1),
        (["prune-check", "--older-than", "1d"], 2),
        (["archive", "--dry-run"], 2),
        (["reembed", "--model", "hash-384", "--dim", "384", "--embedder", "hash"], 2),
        (["status"], 2),
    ):
        done = run(tmp_path, ollama, *args)
        assert done.returncode == code, (args, done.stdout, done.stderr)
        shown = done.stdout + done.stderr
        assert str(_data_folder(tmp_path)) in shown, (args, shown)
        assert "Traceback" not in shown
    assert not _data_folder(tmp_path).exists()


def test_init_says_where_it_creates_the_database(tmp_path: Path, ollama: OllamaTestServer) -> None:
    (tmp_path / "home").mkdir()
    done = run(tmp_path, ollama, "init", "--embedder", "hash")
    assert done.returncode == 0, done.stderr
    assert f"the embedded database in {_data_folder(tmp_path)}" in done.stdout + done.stderr
    assert (_data_folder(tmp_path) / "pgdata" / "PG_VERSION").is_file()


def test_a_demo_of_an_older_version_names_the_command_that_updates_it(
    checkout: Path, ollama: OllamaTestServer
) -> None:
    """After a `git pull` the demo's functions are another version's: `archivist init` (what
    any other database needs) would make a new database beside the demo, not update it."""
    import pgserver
    import psycopg

    demo = checkout / ".archivist" / "demo"
    url = pgserver.get_server(demo / "pgdata", cleanup_mode=None).get_uri()
    with psycopg.connect(url, autocommit=True) as conn:
        [(kept,)] = conn.execute(
            "SELECT value FROM archivist_meta WHERE key = 'sql_functions'"
        ).fetchall()
        conn.execute("UPDATE archivist_meta SET value = 'older' WHERE key = 'sql_functions'")
        try:
            done = run(checkout, ollama, "state", "dev-cache-memcached")
        finally:
            conn.execute("UPDATE archivist_meta SET value = %s WHERE key = 'sql_functions'", [kept])
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().endswith(f"run: archivist demo --data-dir {demo.parent}")


def test_a_database_of_ones_own_says_it_hides_the_demo(
    tmp_path: Path, ollama: OllamaTestServer
) -> None:
    """After `make demo`, a bare `archivist init` makes an empty database of the user's own,
    which every reading command reads from then on: each says so and where the demo's is."""
    (tmp_path / "home").mkdir()
    demo = tmp_path / ".archivist" / "demo"
    (demo / "pgdata").mkdir(parents=True)
    (demo / "pgdata" / "PG_VERSION").write_text("16\n")  # what marks a database there
    assert run(tmp_path, ollama, "init", "--embedder", "hash").returncode == 0
    done = run(tmp_path, ollama, "archive-search", "--type", "action")
    assert done.returncode == 0, done.stderr
    assert (
        f"reading the embedded database in {_data_folder(tmp_path)}; the demo's is in {demo} "
        f"(ARCHIVIST_DATA_DIR={demo} reads it)"
    ) in " ".join(done.stderr.split()), done.stderr


def test_a_demo_made_without_ollama_is_checked_and_previewed_with_its_own_embedder(
    tmp_path: Path, ollama: OllamaTestServer
) -> None:
    """Without Ollama the demo archives with the offline embedder; the dry run and doctor,
    which check the configured model against the recorded one, then use the demo's embedder
    (configured nothing, they would find nomic-embed-text against hash-768 and fail)."""
    (tmp_path / "home").mkdir()
    unreachable = {"OLLAMA_HOST": "http://127.0.0.1:9"}
    made = run(
        tmp_path, ollama, "demo", ARCHIVIST_DATA_DIR=str(tmp_path / ".archivist"), **unreachable
    )
    assert made.returncode == 0, made.stderr
    assert "using the offline hash embedder" in made.stderr
    with _held(tmp_path / ".archivist" / "demo" / "pgdata"):
        plan = run(tmp_path, ollama, "archive", "--dry-run", **unreachable)
        assert plan.returncode == 0, plan.stderr
        doctor = run(tmp_path, ollama, "doctor", **unreachable)
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
        assert "ok   embedding model: recorded hash-768 (768-d), configured hash-768" in (
            doctor.stdout
        )
        asked = run(tmp_path, ollama, "archive", "--dry-run", ARCHIVIST_EMBEDDER="ollama")
        assert asked.returncode == 2
        assert "set ARCHIVIST_EMBEDDER=hash and ARCHIVIST_EMBEDDING_DIM=768" in asked.stderr
