"""The command line through its real entry points: CliRunner and `python -m archivist`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import psycopg
import pytest
import support.cli
import typer
from support.cli import invoke
from support.sources import SourceDB, run_archivist
from typer.testing import CliRunner

from archivist.cli.app import cli
from archivist.cli.common import reflowed

env = support.cli.env  # the wide terminal's, for every test here

COMMANDS = [
    "init",
    "archive",
    "demo",
    "memory-search",
    "archive-search",
    "search",
    "status",
    "state",
    "history",
    "prune-check",
    "doctor",
    "reembed",
    "config",
    "mcp",
    "forget",
    "conflicts",
    "resolve",
]


def test_the_list_is_every_command() -> None:
    assert sorted(typer.main.get_command(cli).commands) == sorted(COMMANDS)  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(command: str) -> None:
    result = invoke(command, "--help")
    assert result.exit_code == 0
    assert "Example: archivist " + command in " ".join(result.output.split())
    # a flag takes no value, and an optional argument is in brackets once
    assert "<bool>" not in result.output and "[[" not in result.output


def test_help_reflows_paragraphs_and_keeps_commands_to_copy_whole() -> None:
    """A docstring's line breaks are the source's, not the terminal's: paragraphs are joined,
    `Example:` lines and indented commands stay as written."""
    doc = """Say a thing
    over two lines.

    Example: archivist x
    Example: archivist y

    In a job:

      a &&
        b
    """
    assert reflowed(doc) == (
        "Say a thing over two lines.\n\nExample: archivist x\nExample: archivist y\n\n"
        "In a job:\n\n  a &&\n    b"
    )
    shown = CliRunner().invoke(cli, ["prune-check", "--help"], env={"COLUMNS": "80"}).output
    lines = [line.strip() for line in shown.splitlines()]
    assert "cutoff=$(archivist prune-check --older-than 30d --print-cutoff) &&" in lines
    demo = CliRunner().invoke(cli, ["demo", "--help"], env={"COLUMNS": "80"}).output
    assert "demo's" not in [line.strip() for line in demo.splitlines()]  # no orphaned word


def test_archive_json_report_then_idempotent_rerun(source: SourceDB, env: dict[str, str]) -> None:
    source.add("olive", ["let's use Vercel for the frontend", "sounds good, I'll set it up"])

    first = invoke("archive", "--json")
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert [(s["session_id"], s["status"]) for s in report["sessions"]] == [("olive", "archived")]
    assert report["embedder"] == "hash"

    second = invoke("archive", "--session-id", "olive", "--json")
    assert second.exit_code == 0
    assert json.loads(second.stdout)["sessions"][0]["status"] == "unchanged"


def test_dry_run_table_for_people(source: SourceDB, env: dict[str, str]) -> None:
    source.add("olive", ["let's use Vercel for the frontend", "ok"])
    result = invoke("archive", "--dry-run")
    assert result.exit_code == 0
    assert "dry run, nothing written" in result.stdout
    assert "olive" in result.stdout and "planned" in result.stdout
    assert (
        "would add [d_" in result.stdout
        and "decision: Use Vercel for the frontend" in result.stdout
    )
    assert source.count("jarvis_archive") == 0


def test_python_dash_m_runs_the_same_cli(source: SourceDB, env: dict[str, str]) -> None:
    source.add("s1", ["we decided to go with Postgres", "noted"])
    result = run_archivist(["archive", "--json", "--max-sessions", "5"], env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["sessions"][0]["status"] == "archived"
    assert source.count("jarvis_archive") == 1


def test_init_twice_reports_nothing_new(env: dict[str, str]) -> None:
    result = invoke("init", "--json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report.pop("database").startswith("postgresql://")  # which database, redacted
    assert report == {"applied": [], "embedding_model": "hash-768", "dim": 768}


def test_a_failed_session_gives_exit_code_1(source: SourceDB, env: dict[str, str]) -> None:
    source.add("bad", ["hello", "hi"])
    source.conn.execute(
        "CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN RAISE EXCEPTION 'injected'; END $$; "
        "CREATE TRIGGER boom BEFORE INSERT ON jarvis_archive "
        "FOR EACH ROW EXECUTE FUNCTION boom()"
    )
    result = invoke("archive", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["sessions"][0]["status"] == "failed"


@pytest.mark.parametrize(
    ("args", "extra_env", "message"),
    [
        (["archive", "--max-sessions", "0"], {}, "Invalid value"),
        (["archive", "--bogus"], {}, "No such option"),
        (["archive"], {"ARCHIVIST_MAX_SESSIONS": "many"}, "invalid setting ARCHIVIST_MAX_SESSIONS"),
        (["archive"], {"ARCHIVIST_EMBEDDER": "magic"}, "invalid setting ARCHIVIST_EMBEDDER"),
        (["archive"], {"ARCHIVIST_MESSAGES_TABLE": "x; drop table y"}, "ARCHIVIST_MESSAGES_TABLE"),
    ],
)
def test_bad_flags_and_settings_exit_2_with_one_line(
    env: dict[str, str], args: list[str], extra_env: dict[str, str], message: str
) -> None:
    result = run_archivist(args, {**env, **extra_env})
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_unreachable_database_is_one_line_without_the_password(env: dict[str, str]) -> None:
    url = "postgresql://archiver:s3cr3t-pw@127.0.0.1:9/jarvis"
    result = run_archivist(["archive"], {**env, "DATABASE_URL": url})
    assert result.returncode == 1
    assert "cannot connect to the database" in result.stderr
    assert "s3cr3t-pw" not in result.stderr + result.stdout
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_uninitialised_database_says_to_run_init(empty_db_url: str, env: dict[str, str]) -> None:
    for command in (["archive"], ["memory-search", "x"], ["status"]):
        result = run_archivist(command, {**env, "DATABASE_URL": empty_db_url})
        assert result.returncode == 2, command  # a configuration error: the database is not set up
        assert "run: archivist init" in result.stderr, command
        assert "Supabase" not in result.stderr, command  # a direct connection applies them itself


def test_reading_before_anything_is_archived_creates_no_database(
    env: dict[str, str], tmp_path: Path
) -> None:
    data_dir = tmp_path / "nothing-yet"
    embedded = {k: v for k, v in env.items() if k != "DATABASE_URL"}
    for command in (["status"], ["memory-search", "x", "--mode", "text"], ["state", "s"]):
        result = run_archivist(command, {**embedded, "ARCHIVIST_DATA_DIR": str(data_dir)})
        assert result.returncode == 2, (command, result.stderr)
        assert "nothing archived yet" in result.stderr and "archivist demo" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert not data_dir.exists()  # an empty database there would hide the demo's from then on


def test_missing_source_table_is_a_clear_error(env: dict[str, str]) -> None:
    result = invoke("archive")
    assert result.exit_code == 2
    assert "source table session_messages not found" in result.stderr


def test_configured_model_other_than_the_recorded_one_is_refused(
    source: SourceDB, env: dict[str, str]
) -> None:
    source.add("s", ["hi", "hello"])
    result = run_archivist(["archive"], {**env, "ARCHIVIST_EMBEDDING_DIM": "384"})
    assert result.returncode == 2
    assert "hash-768" in result.stderr and "hash-384" in result.stderr
    assert source.count("jarvis_archive") == 0


def test_toml_settings_apply_and_environment_wins(
    source: SourceDB, env: dict[str, str], tmp_path: Path
) -> None:
    source.add("s", ["hi", "hello"])
    config = tmp_path / "archivist.toml"
    config.write_text('embedder = "ollama"\nmax_sessions = 1\n')
    result = run_archivist(["archive", "--json"], {**env, "ARCHIVIST_CONFIG": str(config)})
    # The environment's hash embedder wins over the file's ollama.
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["embedder"] == "hash"


def test_demo_loads_samples_and_archives_them(tmp_path: Path, env: dict[str, str]) -> None:
    env = {**env, "OLLAMA_HOST": "http://127.0.0.1:9"}  # no Ollama: falls back to hash
    first = run_archivist(["demo", "--json", "--data-dir", str(tmp_path / "demo")], env)
    assert first.returncode == 0, first.stderr
    result = json.loads(first.stdout)
    assert "hash embedder" in result["embedder"]
    assert result["loaded_sessions"] >= 8
    assert {s["status"] for s in result["report"]["sessions"]} == {"archived"}
    assert any(e["decisions"] for e in result["extractions"])
    # DATABASE_URL was never touched by the demo.
    with psycopg.connect(env["DATABASE_URL"]) as conn:
        assert conn.execute("SELECT count(*) FROM jarvis_archive").fetchone() == (0,)
    second = run_archivist(["demo", "--json", "--data-dir", str(tmp_path / "demo")], env)
    again = json.loads(second.stdout)
    assert again["loaded_sessions"] == 0 and again["report"]["sessions"] == []
    assert len(again["extractions"]) == len(result["extractions"])
    shown = run_archivist(["demo", "--data-dir", str(tmp_path / "demo")], env)
    assert shown.stdout.startswith("the sample sessions are loaded already\n"), shown.stdout
    demo = {k: v for k, v in env.items() if k != "DATABASE_URL"}
    status = run_archivist(["status"], {**demo, "ARCHIVIST_DATA_DIR": str(tmp_path / "demo")})
    assert re.search(r"│ nothing to do\s+│", status.stdout), status.stdout  # the second run


def test_archive_search_at_its_limit_says_more_may_match(
    source: SourceDB, env: dict[str, str]
) -> None:
    for session in ("olive", "lime"):
        source.add(session, ["let's use Vercel for the frontend", "ok"])
    assert invoke("archive").exit_code == 0
    all_of_them = invoke("archive-search", "--topic", "vercel")
    assert all_of_them.stdout.startswith("2 sessions match (times UTC)"), all_of_them.stdout
    first = invoke("archive-search", "--topic", "vercel", "--limit", "1")
    assert first.stdout.startswith("the newest 1 session that matches (--limit 1; times UTC)"), (
        first.stdout
    )
