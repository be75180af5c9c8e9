"""Cron: the README's crontab line, run as cron runs it.

Through the installed `archivist` entry point, under `env -i` (cron's near-empty environment),
with settings from an env file and reports in a folder: silent when all went well; on failure
a few lines on stderr, a report with the error or the failed sessions, no partial version, and
the next run recovers.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from support.invariants import violations
from support.ollama_server import OllamaTestServer
from support.sources import T0, SourceDB

from archivist.config import Settings
from archivist.store import EmbeddingConfig, PostgresStore

ROOT = Path(__file__).resolve().parents[2]
ENTRY_POINT = Path(sys.executable).parent / "archivist"
SESSIONS = [f"cron-session-{i}" for i in range(4)]


def readme_crontab_command() -> list[str]:
    """The archive command of the README's crontab line (after the five time fields)."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```crontab\n(.*?)```", readme, re.S)
    assert block, "the README has no ```crontab block"
    lines = [ln for ln in block.group(1).splitlines() if re.match(r"[\d*]", ln)]
    archive_line = next(ln for ln in lines if " archive " in ln)
    return shlex.split(archive_line)[5:]


def cron(
    command: list[str], env_file: Path, report_dir: Path, **env: str
) -> subprocess.CompletedProcess[str]:
    """The command with the README's paths swapped for the test's, under `env -i`."""
    swapped = [
        str(env_file)
        if arg == "/etc/archivist.env"
        else str(report_dir)
        if arg == "/var/log/archivist"
        else arg
        for arg in command
    ]
    assert swapped[0] == "archivist"
    extra = [f"{k}={v}" for k, v in env.items()]
    return subprocess.run(
        ["env", "-i", *extra, str(ENTRY_POINT), *swapped[1:]],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=env_file.parent,
    )


@pytest.fixture
def corpus(source: SourceDB) -> SourceDB:
    """Four sessions in a database initialised for nomic-embed-text (the Ollama default)."""
    PostgresStore(source.conn, Settings().sources).init(EmbeddingConfig("nomic-embed-text", 768))
    for i, session_id in enumerate(SESSIONS):
        source.add(
            session_id, [f"we talk about topic {n} here" for n in range(4)], T0 + timedelta(hours=i)
        )
    return source


def write_env_file(path: Path, db: SourceDB, server: OllamaTestServer, mode: int = 0o600) -> Path:
    path.write_text(
        "# archivist settings for cron\n"
        f"export DATABASE_URL='{db.url}'\n"
        f'OLLAMA_HOST="{server.url}"  # the test server\n'
        "ARCHIVIST_DELAY_MS=0\n"
        "\n"
        "ARCHIVIST_OLLAMA_RETRIES=0\n"
        "ARCHIVIST_OLLAMA_TIMEOUT_S=2\n"
    )
    path.chmod(mode)
    return path


def reports(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(folder.glob("archive-*.json"))]


def test_the_readme_crontab_line_is_silent_when_all_went_well(
    corpus: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    env_file = write_env_file(tmp_path / "archivist.env", corpus, ollama_server)
    report_dir = tmp_path / "log" / "archivist"  # created by the run

    done = cron(readme_crontab_command(), env_file, report_dir)

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    [report] = reports(report_dir)
    assert {s["session_id"]: s["status"] for s in report["sessions"]} == dict.fromkeys(
        SESSIONS, "archived"
    )
    assert report["error"] is None and report["embedding_model"] == "nomic-embed-text"
    assert corpus.count("jarvis_archive") == len(SESSIONS)


def test_embedding_server_down_fails_briefly_keeps_a_report_and_the_next_run_recovers(
    corpus: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    env_file = write_env_file(tmp_path / "archivist.env", corpus, ollama_server)
    report_dir = tmp_path / "reports"
    ollama_server.fault = "down"

    failed = cron(readme_crontab_command(), env_file, report_dir)

    assert failed.returncode == 1 and failed.stdout == ""
    lines = failed.stderr.strip().splitlines()
    # One line per failed session (the run stops after 3 in a row), a note, the summary.
    assert len(lines) == 5, failed.stderr
    assert all(s in failed.stderr for s in SESSIONS[:3]) and "stopped" in lines[3]
    assert lines[-1].startswith("3 sessions: 3 failed in ")
    [report] = reports(report_dir)
    assert {s["status"] for s in report["sessions"]} == {"failed"}
    assert corpus.count("jarvis_archive") == 0  # no version written
    assert violations(corpus.conn, complete=False) == []

    ollama_server.reset()
    recovered = cron(readme_crontab_command(), env_file, report_dir)

    assert (recovered.returncode, recovered.stdout, recovered.stderr) == (0, "", "")
    assert corpus.count("jarvis_archive") == len(SESSIONS)
    assert len(reports(report_dir)) == 2
    assert violations(corpus.conn) == []


def test_a_run_that_cannot_start_still_writes_its_report(
    corpus: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    report_dir = tmp_path / "reports"
    missing = tmp_path / "nowhere.env"

    done = cron(readme_crontab_command(), missing, report_dir)

    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"error: cannot read env file {missing}: No such file or directory"
    ]
    [report] = reports(report_dir)
    assert report["error"] == f"cannot read env file {missing}: No such file or directory"
    assert report["sessions"] == []


def test_env_file_syntax_and_the_real_environment_winning(
    corpus: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    env_file = write_env_file(tmp_path / "archivist.env", corpus, ollama_server)
    with env_file.open("a") as f:
        f.write("export ARCHIVIST_MAX_SESSIONS=3   # a comment after a value\n")
        f.write("ARCHIVIST_EXTRACTOR='rules'\n")

    # ARCHIVIST_ENV_FILE instead of --env-file; the environment's max_sessions wins.
    done = subprocess.run(
        ["env", "-i", f"ARCHIVIST_ENV_FILE={env_file}", "ARCHIVIST_MAX_SESSIONS=1"]
        + [str(ENTRY_POINT), "archive", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["sessions"]) == 1
    config = subprocess.run(
        ["env", "-i", str(ENTRY_POINT), "--env-file", str(env_file), "config", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    shown = json.loads(config.stdout)
    assert shown["max_sessions"] == {"value": 3, "origin": f"env-file {env_file}"}
    assert shown["database_url"]["origin"] == f"env-file {env_file}"


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("NOT A SETTING LINE", "line 2: not a KEY=VALUE line"),
        ("ARCHIVIST_EMBEDDER='hash", "line 2: unterminated or stray quote"),
        ("ARCHIVIST_TYPO=1", "unknown setting ARCHIVIST_TYPO"),
    ],
)
def test_a_bad_env_file_is_one_line_and_exit_2(tmp_path: Path, line: str, problem: str) -> None:
    env_file = tmp_path / "archivist.env"
    env_file.write_text(f"# settings\n{line}\n")
    done = subprocess.run(
        ["env", "-i", str(ENTRY_POINT), "--env-file", str(env_file), "status"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    [error] = done.stderr.strip().splitlines()
    assert problem in error and "NOT A SETTING" not in error


def test_one_warning_when_the_env_file_exposes_a_secret(
    corpus: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    url = re.sub(r"://[^@/]*@", "://postgres:pw-s3cret@", corpus.url, count=1)
    assert "pw-s3cret" in url
    env_file = tmp_path / "archivist.env"

    def status(mode: int) -> subprocess.CompletedProcess[str]:
        env_file.write_text(f"DATABASE_URL={url}\n")
        env_file.chmod(mode)
        return subprocess.run(
            ["env", "-i", str(ENTRY_POINT), "--env-file", str(env_file), "--quiet", "status"],
            capture_output=True,
            text=True,
            timeout=60,
        )

    exposed = status(0o644)
    assert exposed.stderr.count("warning:") == 1
    assert f"chmod 600 {env_file}" in exposed.stderr and "pw-s3cret" not in exposed.stderr
    private = status(0o600)
    assert "warning" not in private.stderr


def test_the_newest_reports_are_kept(
    corpus: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    env_file = write_env_file(tmp_path / "archivist.env", corpus, ollama_server)
    report_dir = tmp_path / "reports"
    for n in range(4):
        done = cron(readme_crontab_command(), env_file, report_dir, ARCHIVIST_REPORT_KEEP="2")
        assert done.returncode == 0, done.stderr
        if n == 0:
            first = sorted(report_dir.glob("archive-*.json"))
    kept = sorted(report_dir.glob("archive-*.json"))
    assert len(kept) == 2 and first[0] not in kept


def operations_prune_line() -> str:
    """The prune job's shell line from docs/operations.md's crontab (after the time fields)."""
    text = (ROOT / "docs" / "operations.md").read_text()
    block = re.search(r"```crontab\n(.*?)```", text, re.S)
    assert block, "docs/operations.md has no ```crontab block"
    lines = [ln for ln in block.group(1).splitlines() if re.match(r"[\d*]", ln)]
    line = next(ln for ln in lines if "prune-check" in ln)
    found = re.match(r"(?:\S+\s+){5}(.*)$", line)
    assert found
    return found.group(1)


def prune_job(env_file: Path) -> subprocess.CompletedProcess[str]:
    command = operations_prune_line().replace("/etc/archivist.env", str(env_file))
    return subprocess.run(
        ["env", "-i", f"PATH={ENTRY_POINT.parent}:/usr/bin:/bin", "sh", "-c", command],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=env_file.parent,
    )


def test_the_prune_line_is_silent_when_safe_and_deletes_up_to_the_checked_cutoff(
    corpus: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    env_file = write_env_file(tmp_path / "archivist.env", corpus, ollama_server)
    assert cron(readme_crontab_command(), env_file, tmp_path / "log").returncode == 0
    corpus.add("recent", ["said today, kept by the prune"], datetime.now(UTC))
    assert corpus.count("session_messages") == len(SESSIONS) * 4 + 1

    done = prune_job(env_file)

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert corpus.count("session_messages") == 1  # the old ones went, today's stayed

    corpus.add("never-archived", ["an old message the archive lacks"], T0)
    unsafe = prune_job(env_file)
    assert unsafe.returncode == 3 and unsafe.stdout == ""
    assert unsafe.stderr.startswith("not safe: 1 of 1 message older than"), unsafe.stderr
    # the mail names the session at risk, in lines that fit 80 columns
    assert "  never-archived: 1 message at risk since " in unsafe.stderr, unsafe.stderr
    assert "1 message is not archived: run archivist archive" in unsafe.stderr, unsafe.stderr
    assert "never archived: 1 not archived (id " in " ".join(unsafe.stderr.split())
    assert max(len(line) for line in unsafe.stderr.splitlines()) <= 80, unsafe.stderr
    assert corpus.count("session_messages") == 2  # nothing deleted


def test_the_prune_line_deletes_no_later_message_from_a_local_time_column(
    corpus: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    """A bot's `created_at` as `timestamp` (no time zone) in a database west of UTC: the line
    compared it with the cutoff's "...Z" read as a local time, and deleted up to five hours of
    messages prune-check had not checked, one never archived among them."""
    dbname = corpus.conn.info.dbname
    corpus.conn.execute(f"ALTER DATABASE \"{dbname}\" SET TimeZone = 'America/New_York'")
    corpus.conn.execute("SET TimeZone = 'America/New_York'")
    corpus.conn.execute(
        "ALTER TABLE session_messages ALTER COLUMN created_at TYPE timestamp"
        " USING created_at AT TIME ZONE 'America/New_York'"
    )
    env_file = write_env_file(tmp_path / "archivist.env", corpus, ollama_server)
    assert cron(readme_crontab_command(), env_file, tmp_path / "log").returncode == 0
    # two hours inside the 30 days: not checked, and not archived
    corpus.add(
        "late", ["said after the last run"], datetime.now(UTC) - timedelta(days=30, hours=-2)
    )

    done = prune_job(env_file)

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert corpus.count("session_messages") == 1  # the archived old ones went, "late" stayed


def test_the_prune_line_keeps_what_changed_between_the_check_and_the_delete(
    corpus: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    """prune-check found the cutoff safe; then, before the DELETE ran, an old message was
    edited and another inserted with an old date. The line's DELETE deleted both, neither in
    the archive. Each row is checked again as it is deleted (archivist_prunable)."""
    env_file = write_env_file(tmp_path / "archivist.env", corpus, ollama_server)
    assert cron(readme_crontab_command(), env_file, tmp_path / "log").returncode == 0
    line = operations_prune_line().replace("/etc/archivist.env", str(env_file))
    check, delete = line.split(" && ", 1)
    cutoff = subprocess.run(
        [
            "env",
            "-i",
            f"PATH={ENTRY_POINT.parent}:/usr/bin:/bin",
            "sh",
            "-c",
            f"{check} && echo $cutoff",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.strip()
    assert cutoff.endswith("Z")
    corpus.conn.execute(
        "UPDATE session_messages SET content = 'edited after the check' WHERE session_id = %s"
        " AND id = (SELECT min(id) FROM session_messages WHERE session_id = %s)",
        [SESSIONS[0], SESSIONS[0]],
    )
    corpus.add("late-import", ["an old message imported after the check"], T0)
    done = subprocess.run(
        [
            "env",
            "-i",
            f"PATH={ENTRY_POINT.parent}:/usr/bin:/bin",
            f"cutoff={cutoff}",
            "sh",
            "-c",
            delete,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    left = corpus.conn.execute("SELECT content FROM session_messages ORDER BY content").fetchall()
    assert [r[0] for r in left] == [
        "an old message imported after the check",
        "edited after the check",
    ]
