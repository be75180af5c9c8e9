"""Bad configuration and flags, table-driven: each ends in one line on stderr and exit code 2,
without a traceback and without the password, before anything touches the database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PASSWORD = "hunter2-secret"
GOOD_URL = f"postgresql://archivist:{PASSWORD}@127.0.0.1:9/jarvis"  # never reached

# name -> (arguments, extra environment, TOML file content or None, text the line must hold)
CASES: dict[str, tuple[list[str], dict[str, str], str | None, str]] = {
    "bad toml": (["archive"], {}, "max_sessions = = 3", "cannot read"),
    "unknown toml key": (["archive"], {}, "max_sesions = 3", "max_sesions"),
    "bad toml value": (["archive"], {}, 'max_sessions = "many"', "max_sessions"),
    "negative toml limit": (["archive"], {}, "chunk_max_chars = -5", "chunk_max_chars"),
    "missing config file": (
        ["archive"],
        {"ARCHIVIST_CONFIG": "/nonexistent/a.toml"},
        None,
        "not found",
    ),
    "unknown env setting": (
        ["archive"],
        {"ARCHIVIST_MAX_SESION": "3"},
        None,
        "ARCHIVIST_MAX_SESION",
    ),
    "negative env limit": (
        ["archive"],
        {"ARCHIVIST_MAX_SESSIONS": "-1"},
        None,
        "ARCHIVIST_MAX_SESSIONS",
    ),
    "non-number env limit": (
        ["archive"],
        {"ARCHIVIST_DELAY_MS": "soon"},
        None,
        "ARCHIVIST_DELAY_MS",
    ),
    "unknown embedder flag": (["archive", "--embedder", "openai"], {}, None, "embedder"),
    "unknown embedder env": (
        ["archive"],
        {"ARCHIVIST_EMBEDDER": "bert"},
        None,
        "ARCHIVIST_EMBEDDER",
    ),
    "negative flag": (["archive", "--max-sessions", "-3"], {}, None, "max-sessions"),
    "non-number flag": (["archive", "--delay-ms", "fast"], {}, None, "delay-ms"),
    "unknown flag": (["archive", "--sessions", "3"], {}, None, "--sessions"),
    "unknown command": (["archiv"], {}, None, "archiv"),
    "bad --older-than": (["prune-check", "--older-than", "30x"], {}, None, "older-than"),
    "zero --older-than": (["prune-check", "--older-than", "0d"], {}, None, "older-than"),
    "bad search mode": (["search", "x", "--mode", "fuzzy"], {}, None, "--mode"),
    "bad DATABASE_URL": (
        ["archive"],
        {"DATABASE_URL": f"postgresql://archivist:{PASSWORD}@127.0.0.1:notaport/jarvis"},
        None,
        "DATABASE_URL",
    ),
    "DATABASE_URL not a URL": (
        ["archive"],
        {"DATABASE_URL": f"this is not a {PASSWORD} url"},
        None,
        "DATABASE_URL",
    ),
    "bad identifier": (
        ["archive"],
        {"ARCHIVIST_MESSAGES_TABLE": "x; drop"},
        None,
        "ARCHIVIST_MESSAGES_TABLE",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_bad_configuration_is_one_line_and_exit_2(name: str, tmp_path: Path) -> None:
    args, extra, toml, expected = CASES[name]
    env = {
        **os.environ,
        "DATABASE_URL": GOOD_URL,
        "ARCHIVIST_EMBEDDER": "hash",
        "ARCHIVIST_CONFIG": "",
        "COLUMNS": "200",
    }
    if toml is not None:
        (tmp_path / "archivist.toml").write_text(toml)
        env["ARCHIVIST_CONFIG"] = str(tmp_path / "archivist.toml")
    env.update(extra)

    done = subprocess.run(
        [sys.executable, "-m", "archivist", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )

    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1, done.stderr
    assert expected in lines[0]
    assert "Traceback" not in done.stderr and PASSWORD not in done.stderr + done.stdout
