"""A newcomer's mistakes, each answered with one line in the project's words and its exit code,
through the real entry point."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.archiving import archived_in_process
from support.sources import T0, SourceDB, run_archivist

UNREACHABLE = "http://127.0.0.1:9"


def env_for(db: SourceDB, **extra: str) -> dict[str, str]:
    return {"DATABASE_URL": db.url, "OLLAMA_HOST": UNREACHABLE, "ARCHIVIST_DELAY_MS": "0", **extra}


@pytest.fixture
def archived(source: SourceDB, tmp_path: Path) -> SourceDB:
    source.add("olive", ["let's use Vercel for the frontend", "ok, I'll set it up"], T0)
    archived_in_process(source.url, tmp_path / "setup")
    return source


@pytest.fixture
def fresh(empty_db_url: str) -> Iterator[SourceDB]:
    """A database with the bot's tables and two sessions, never initialised by the archivist."""
    with SourceDB.create(empty_db_url) as db:
        db.add("olive", ["let's use Vercel for the frontend", "ok, I'll set it up"], T0)
        db.add("cache", ["we should use Memcached instead of Redis", "agreed"], T0)
        yield db


def lines(done: object) -> list[str]:
    return [line for line in getattr(done, "stderr", "").splitlines() if line.strip()]


def test_an_unusable_report_dir_is_exit_2_and_the_report_goes_to_stderr(
    archived: SourceDB, tmp_path: Path
) -> None:
    not_a_folder = tmp_path / "reports"
    not_a_folder.write_text("a file, not a folder")
    done = run_archivist(
        ["archive", "--quiet", "--report-dir", str(not_a_folder)],
        env_for(archived, ARCHIVIST_EMBEDDER="hash"),
    )
    assert done.returncode == 2, done.stderr
    assert "internal error" not in done.stderr
    error, rest = done.stderr.split("\n", 1)
    assert error.startswith(f"error: cannot create the report folder {not_a_folder}")
    report = json.loads(rest)  # one error line, then the report of the run that stopped
    assert report["error"].startswith("cannot create the report folder")
    assert (report["embedder"], report["embedding_model"]) == ("hash", "hash-768")


def test_an_unknown_session_id_is_reported_and_exit_2(archived: SourceDB) -> None:
    env = env_for(archived, ARCHIVIST_EMBEDDER="hash")
    done = run_archivist(["archive", "--session-id", "no-such-session"], env)
    assert done.returncode == 2, done.stderr
    assert lines(done) == ["error: no messages for session no-such-session"]
    assert done.stdout == ""  # no summary of a run that found nothing named
    both = run_archivist(["archive", "--session-id", "olive", "--session-id", "typo"], env)
    assert both.returncode == 0, both.stderr
    assert "warning: no messages for session typo" in lines(both)


def test_since_after_until_is_refused(archived: SourceDB) -> None:
    env = env_for(archived, ARCHIVIST_EMBEDDER="hash")
    for command in (["memory-search", "x"], ["archive-search"], ["search", "x"]):
        done = run_archivist([*command, "--since", "1d", "--until", "30d"], env)
        assert done.returncode == 2, (command, done.stderr)
        assert len(lines(done)) == 1 and "is after until" in done.stderr, done.stderr
        assert re.search(r"\d\d:\d\d:\d\d\.\d", done.stderr) is None  # to the second


def test_a_url_of_another_database_says_postgres_is_needed() -> None:
    done = run_archivist(["status"], {"DATABASE_URL": "mysql://bob:Hunter2-7731@db:3306/app"})
    assert done.returncode == 2, done.stderr
    assert lines(done) == [
        "error: DATABASE_URL must be a postgresql:// URL, not mysql://; the archivist needs "
        "Postgres with pgvector"
    ]


def test_an_at_sign_in_the_password_is_refused_before_libpq_prints_half_of_it() -> None:
    """libpq splits "bot:S3cret@Passw0rd@host" at the first "@": the rest of the password
    would be the host name its error prints."""
    url = "postgresql://bot:S3cret@Passw0rd@127.0.0.1:1/postgres"
    done = run_archivist(["status"], {"DATABASE_URL": url})
    assert done.returncode == 2, done.stderr
    assert lines(done) == [
        "error: DATABASE_URL has an '@' in its user name or password; write it as %40"
    ]
    assert "Passw0rd" not in done.stdout + done.stderr


def test_a_duration_back_past_any_date_is_one_line_and_exit_2(archived: SourceDB) -> None:
    env = env_for(archived, ARCHIVIST_EMBEDDER="hash")
    for command in (
        ["memory-search", "x", "--as-of", "999999d"],
        ["archive-search", "--since", "1000000000d"],
        ["state", "--current", "--as-of", "1000000000d"],
        ["prune-check", "--older-than", "1000000000d"],
    ):
        done = run_archivist(command, env)
        assert done.returncode == 2, (command, done.stderr)
        assert len(lines(done)) == 1, done.stderr
        assert "goes back further than any date" in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        (
            "ARCHIVIST_BOGUS",
            "1",
            "error: unknown setting ARCHIVIST_BOGUS; `archivist config` lists the settings",
        ),
        (
            "ARCHIVIST_EMBEDDER",
            "bogus",
            "error: invalid setting ARCHIVIST_EMBEDDER: use ollama or hash, not 'bogus'",
        ),
        (
            "ARCHIVIST_MCP_TOKEN",
            "short",
            "error: invalid setting ARCHIVIST_MCP_TOKEN: at least 16 characters",
        ),
        (
            "ARCHIVIST_MAX_SESSIONS",
            "0",
            "error: invalid setting ARCHIVIST_MAX_SESSIONS: must be at least 1, not '0'",
        ),
        ("OLLAMA_HOST", "", None),  # empty: not set, no error
        ("OLLAMA_HOST", "localhost:11434", None),  # host:port, as Ollama's own client takes
        (
            "OLLAMA_HOST",
            "http://[::1",  # was an internal error (a bug) in every command using Ollama
            "error: invalid setting OLLAMA_HOST: must be an http:// or https:// URL such as "
            "http://127.0.0.1:11434",
        ),
        (
            "OLLAMA_HOST",
            "not a url",  # was 'Ollama is not reachable at not a url'
            "error: invalid setting OLLAMA_HOST: must be an http:// or https:// URL",
        ),
    ],
)
def test_settings_errors_name_the_variable_and_what_is_allowed(
    archived: SourceDB, variable: str, value: str, message: str | None
) -> None:
    done = run_archivist(["status"], env_for(archived, **{variable: value}))
    if message is None:
        assert done.returncode == 0, done.stderr
        return
    assert done.returncode == 2
    assert lines(done) == [lines(done)[0]] and lines(done)[0].startswith(message), done.stderr
    for leak in ("Value error", "Extra inputs", "after validation", "Input should"):
        assert leak not in done.stderr


def test_a_bad_choice_names_the_allowed_values() -> None:
    done = run_archivist(["archive", "--extractor", "gpt"], {})
    assert done.returncode == 2
    assert lines(done) == [
        "error: Invalid value for '--extractor': 'gpt'; use rules or ollama "
        "(see: python -m archivist archive --help)"
    ]


def test_a_url_with_an_empty_password_keeps_its_host_when_shown() -> None:
    url = "postgresql://bob:@db.example.com:5432/postgres"
    done = run_archivist(["config", "--json"], {"DATABASE_URL": url})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["database_url"]["value"] == url
    secret = "postgresql://bob:s3cret@db.example.com:5432/postgres"
    done = run_archivist(["config", "--json"], {"DATABASE_URL": secret})
    shown = json.loads(done.stdout)["database_url"]["value"]
    assert shown == "postgresql://bob:***@db.example.com:5432/postgres"


def test_own_database_without_ollama_records_the_offline_embedder_at_init(fresh: SourceDB) -> None:
    env = env_for(fresh)
    init = run_archivist(["init"], {**env, "ARCHIVIST_EMBEDDER": "hash"})
    assert init.returncode == 0, init.stderr
    assert "embedding model: hash-768 (768-d)" in init.stdout
    before = run_archivist(["status"], env)  # no run yet: said, not an empty table
    assert before.returncode == 0 and "last runs: none yet (archivist archive)" in before.stdout
    done = run_archivist(["archive"], {**env, "ARCHIVIST_EMBEDDER": "hash"})
    assert done.returncode == 0, done.stderr
    found = run_archivist(["memory-search", "Memcached"], env)  # the recorded model: no flag
    assert found.returncode == 0 and "cache" in found.stdout, found.stderr


def test_a_model_mismatch_on_an_empty_archive_names_the_one_line_fix(fresh: SourceDB) -> None:
    env = env_for(fresh)
    assert run_archivist(["init"], env).returncode == 0  # records nomic-embed-text
    done = run_archivist(["archive"], {**env, "ARCHIVIST_EMBEDDER": "hash"})
    assert done.returncode == 2
    assert lines(done) == [
        "error: the database records nomic-embed-text (768-d) but hash-768 is configured; "
        "nothing is archived yet, so record hash-768 with: archivist init --embedder hash"
    ]
    assert run_archivist(["init", "--embedder", "hash"], env).returncode == 0
    done = run_archivist(["archive"], {**env, "ARCHIVIST_EMBEDDER": "hash"})
    assert done.returncode == 0, done.stderr


def test_a_config_file_that_is_not_utf8_is_one_line_and_exit_2(tmp_path: Path) -> None:
    config = tmp_path / "archivist.toml"
    config.write_bytes(b"\xff\xfe[sources]")
    done = run_archivist(["status"], {"ARCHIVIST_CONFIG": str(config)})
    assert done.returncode == 2, done.stderr
    assert lines(done) == [f"error: cannot read {config}: not UTF-8 text"]


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "postgresql://bob:Hunter2-7731@localhost:99999/db",
            'error: DATABASE_URL has an invalid port number: "99999": '
            "postgresql://bob:***@localhost:99999/db",
        ),
        (
            "postgresql://bob:Hunter2-7731@localhost:5432/db?sslmode=bogus",
            'error: DATABASE_URL has an invalid sslmode value: "bogus": '
            "postgresql://bob:***@localhost:5432/db?sslmode=bogus",
        ),
        (" ", "error: DATABASE_URL is blank: unset it, or set a postgresql:// URL"),
        (  # libpq's words quote the value, which is redacted whole: 'missing "=" after "***"'
            "db.example.com",
            "error: DATABASE_URL is not a connection URL: write postgresql://host:5432/dbname, "
            "with the user and password before the host (or libpq's host=... dbname=... "
            "settings)",
        ),
    ],
)
def test_a_value_libpq_cannot_use_is_a_settings_error(url: str, message: str) -> None:
    """Not 'cannot connect' and exit 1, which reads as a database that is down."""
    done = run_archivist(["status"], {"DATABASE_URL": url})
    assert done.returncode == 2, done.stderr
    assert lines(done) == [message]


def test_a_prune_cutoff_in_the_future_is_refused(archived: SourceDB) -> None:
    """The prune job deletes up to the cutoff it was given: one after now would delete
    messages that arrive between the check and the delete, never checked."""
    env = env_for(archived, ARCHIVIST_EMBEDDER="hash")
    done = run_archivist(["prune-check", "--older-than", "2999-01-01", "--print-cutoff"], env)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert lines(done) == [
        "error: the cutoff 2999-01-01 00:00 UTC is not in the past: a prune job must not delete "
        "messages that may arrive after the check"
    ]
