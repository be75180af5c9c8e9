"""Output for people that scales, and silence for cron.

Not a terminal (as here): no progress bar, no colour, plain lines never cut. An archive run
prints a line per session only when it failed (or with -v) and always ends with its summary;
`--quiet` leaves only errors, in every command.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from support.sources import T0, SourceDB, run_archivist
from typer.testing import CliRunner

from archivist.cli import cli

LONG_ID = "jarvis-ui-" + "0123456789abcdef" * 5  # longer than any terminal column


def invoke(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def test_300_sessions_print_a_bounded_output_with_the_summary_last(
    source: SourceDB, env: dict[str, str]
) -> None:
    with source.conn.cursor() as cur:
        cur.execute(
            "INSERT INTO session_messages (id, session_id, role, content, created_at) "
            "SELECT n, 's' || lpad((n / 2)::text, 3, '0'), "
            "CASE WHEN mod(n, 2) = 0 THEN 'user' ELSE 'assistant' END, 'hello there ' || n, "
            "%s::timestamptz + n * interval '1 second' FROM generate_series(0, 599) n",
            [T0],
        )
    done = run_archivist(["archive", "--max-sessions", "300"], env)

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1 and done.stderr == ""
    assert re.match(
        r"300 sessions: 300 archived in [\d.ms ]+, [\d.]+ sessions/s; chunks", lines[-1]
    )
    assert "embedded" in lines[-1] and "kept" in lines[-1]


def test_verbose_prints_each_session_whole_and_each_phase_with_its_time(
    source: SourceDB, env: dict[str, str]
) -> None:
    source.add(LONG_ID, ["let's use Vercel for the frontend", "ok"])
    source.add("short", ["hello", "hi"])

    done = run_archivist(["archive", "-v"], env)

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[1] for line in lines if line.startswith("archived ")] == [LONG_ID, "short"]
    assert any(line.startswith(f"archived  {LONG_ID}  v0->v1  2 msgs") for line in lines)
    assert "    added [d_" in done.stdout  # and what reconciliation did
    assert lines[-1].startswith("2 sessions: 2 archived")
    for phase in ("read", "extract", "reconcile", "chunk", "embed", "commit"):
        assert re.search(rf"^{LONG_ID}: {phase}\b.* \d+ ms$", done.stderr, re.M), phase


def test_a_failed_session_gets_one_whole_line_then_the_summary(
    source: SourceDB, env: dict[str, str]
) -> None:
    env = {**env, "ARCHIVIST_FAILURE_BACKOFF_S": "0"}  # the second run tries it again at once
    source.add(LONG_ID, ["hello", "hi"])
    source.conn.execute(
        "CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN RAISE EXCEPTION 'injected'; END $$; "
        "CREATE TRIGGER boom BEFORE INSERT ON jarvis_archive FOR EACH ROW EXECUTE FUNCTION boom()"
    )
    done = run_archivist(["archive"], env)
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == f"failed    {LONG_ID}: injected"
    assert done.stdout.splitlines()[-1].startswith("1 session: 1 failed in")

    quiet = run_archivist(["archive", "--quiet"], env)
    assert quiet.returncode == 1 and quiet.stdout == ""
    assert quiet.stderr.splitlines() == [
        f"failed: {LONG_ID}: injected",
        quiet.stderr.splitlines()[-1],
    ]
    assert quiet.stderr.splitlines()[-1].startswith("1 session: 1 failed in")


@pytest.mark.parametrize(
    "args",
    [
        ["init"],
        ["archive"],
        ["archive", "--dry-run"],
        ["status"],
        ["state", "olive"],
        ["history", "olive"],
        ["prune-check", "--older-than", "30d"],
        ["memory-search", "Vercel"],
        ["archive-search", "--topic", "vercel"],
        ["search", "Vercel"],
        ["doctor", "--embedder", "hash"],
        ["config"],
    ],
)
def test_quiet_prints_nothing_when_all_went_well(
    source: SourceDB, env: dict[str, str], args: list[str]
) -> None:
    source.add("olive", ["let's use Vercel for the frontend", "ok"], start=T0)
    if args[0] != "archive":
        assert invoke("archive").exit_code == 0
    for where in (["--quiet", *args], [*args, "-q"]):
        result = invoke(*where)
        assert result.exit_code == 0, result.output
        assert (result.stdout, result.stderr) == ("", ""), where


def test_quiet_with_json_still_prints_the_document(source: SourceDB, env: dict[str, str]) -> None:
    source.add("olive", ["hello", "hi"])
    result = invoke("--quiet", "archive", "--json")
    assert result.exit_code == 0 and result.stderr == ""
    assert json.loads(result.stdout)["sessions"][0]["session_id"] == "olive"


def test_not_a_terminal_means_no_colour_codes(source: SourceDB, env: dict[str, str]) -> None:
    source.add("olive", ["let's use Vercel for the frontend", "ok"])
    done = run_archivist(["archive", "--dry-run"], env)
    assert done.returncode == 0 and "\x1b[" not in done.stdout + done.stderr
    # A terminal that asked for no colour (NO_COLOR) gets none either.
    colour = run_archivist(["archive", "--dry-run"], {**env, "TTY_COMPATIBLE": "1"})
    no_colour = run_archivist(
        ["archive", "--dry-run"], {**env, "TTY_COMPATIBLE": "1", "NO_COLOR": "1"}
    )
    assert "\x1b[" in colour.stdout and "\x1b[" not in no_colour.stdout


def test_version_and_help_show_defaults_and_readable_types() -> None:
    version = invoke("--version")
    assert version.exit_code == 0 and re.fullmatch(r"archivist \d+\.\d+\.\d+\S*\n", version.stdout)
    result = CliRunner().invoke(cli, ["archive", "--help"], env={"COLUMNS": "200"})
    text = " ".join(result.output.split())
    assert "[default: 50]" in text and "[default: 500]" in text and "[default: ollama]" in text
    assert "<bool>" not in text and "<list" not in text and "range>" not in text
    assert "embeds the texts of new state-item candidates" in text  # --dry-run says what it does
