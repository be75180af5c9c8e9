"""The Supabase transport's own behaviour, through the gateway test double (postgrest_double):
the key never shows, init over REST names missing migrations, claims keep two workers apart,
gateway failures are one line, and every search function carries its statement_timeout."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest
from support.commands import run_doctor
from support.postgrest_double import SERVICE_KEY, PostgrestDouble
from support.sources import T0, SourceDB, run_cli

from archivist.client import archive
from archivist.config import Settings, SourceTables, load_settings, redact
from archivist.errors import StoreError
from archivist.models import RunReport
from archivist.pipeline import ArchiveRequest
from archivist.store import RpcError, SessionSelection, open_store
from archivist.store.migrate import load_migrations

CHAT = ["We will deploy the olive frontend on Vercel.", "OK, Vercel it is.", "Ship it Friday."]
SEARCH_FUNCTIONS = (
    "match_jarvis_memory_chunks",
    "hybrid_jarvis_memory_chunks",
    "search_jarvis_archive",
)


def rest_settings(url: str, tmp_path: Path, key: str = SERVICE_KEY) -> Settings:
    return Settings(
        supabase_url=url, supabase_service_role_key=key, embedder="hash", data_dir=tmp_path
    )


def test_supabase_settings_come_from_the_environment_and_the_key_is_a_secret() -> None:
    env = {
        "SUPABASE_URL": "https://x.supabase.co",
        "SUPABASE_SERVICE_ROLE_KEY": SERVICE_KEY,
        "ARCHIVIST_CONFIG": "",
    }
    settings = load_settings(environ=env)
    assert settings.uses_supabase and not settings.uses_embedded_database
    assert SERVICE_KEY in settings.secrets()
    assert SERVICE_KEY not in repr(settings) and SERVICE_KEY not in settings.model_dump_json()
    assert redact(f"auth failed for {SERVICE_KEY}", settings.secrets()) == "auth failed for ***"
    # DATABASE_URL wins: the direct path.
    both = load_settings(environ={**env, "DATABASE_URL": "postgresql://u@h/db"})
    assert not both.uses_supabase


def test_a_wrong_key_is_one_line_without_the_key(
    postgrest: PostgrestDouble, tmp_path: Path
) -> None:
    wrong = "sb-wrong-key-with-secret-material-0001"
    with (
        pytest.raises(RpcError) as caught,
        open_store(rest_settings(postgrest.url, tmp_path, wrong)) as store,
    ):
        store.archived_session_count()
    assert "Invalid API key" in str(caught.value)
    assert wrong not in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("mode", ["error500", "down", "stopped"])
def test_gateway_failures_are_one_clear_line(
    source: SourceDB, postgrest: PostgrestDouble, tmp_path: Path, mode: str
) -> None:
    source.add("s1", CHAT)
    settings = rest_settings(postgrest.url, tmp_path)
    if mode == "stopped":
        postgrest.stop()
    else:
        postgrest.mode = mode
    result = run_cli(settings, "status")
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert SERVICE_KEY not in result.stderr + result.stdout
    assert "Supabase" in lines[0]


def test_init_over_rest_names_the_missing_migrations(empty_db_url: str, tmp_path: Path) -> None:
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE archivist_migrations (name text PRIMARY KEY, checksum text, "
            "applied_at timestamptz DEFAULT now())"
        )
    double = PostgrestDouble(empty_db_url).start()
    try:
        result = run_cli(rest_settings(double.url, tmp_path), "init")
    finally:
        double.stop()
    assert result.returncode == 2, result.stderr
    assert all(m.name in result.stderr for m in load_migrations())
    assert "archivist init --print-sql" in result.stderr
    assert SERVICE_KEY not in result.stderr + result.stdout


def test_init_over_rest_on_a_migrated_database_records_the_model(
    postgrest: PostgrestDouble, tmp_path: Path
) -> None:
    result = run_cli(rest_settings(postgrest.url, tmp_path), "init")
    assert result.returncode == 0, result.stderr
    assert SERVICE_KEY not in result.stderr + result.stdout


def test_two_workers_over_rest_never_process_one_session_twice(
    source: SourceDB, postgrest: PostgrestDouble, tmp_path: Path
) -> None:
    for n in range(6):
        source.add(f"s{n}", CHAT)
    settings = rest_settings(postgrest.url, tmp_path)
    reports: list[RunReport] = []

    def worker() -> None:
        request = ArchiveRequest(selection=SessionSelection(limit=50), delay_ms=0)
        reports.append(archive(settings, request))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    archived = [s.session_id for r in reports for s in r.sessions if s.status == "archived"]
    assert sorted(archived) == [f"s{n}" for n in range(6)]  # each once, none twice
    versions = source.conn.execute("SELECT max(version) FROM jarvis_archive").fetchone()
    assert versions == (1,)
    assert source.conn.execute("SELECT count(*) FROM archivist_session_claims").fetchone() == (0,)


def test_a_live_claim_keeps_a_session_from_another_worker(
    source: SourceDB, postgrest: PostgrestDouble, tmp_path: Path
) -> None:
    source.add("held", CHAT)
    source.conn.execute(
        "INSERT INTO archivist_session_claims VALUES ('held', 'other', now() + interval '1 hour')"
    )
    settings = rest_settings(postgrest.url, tmp_path)
    request = ArchiveRequest(selection=SessionSelection(session_ids=["held"]), delay_ms=0)
    assert [s.status for s in archive(settings, request).sessions] == ["skipped"]
    # An expired claim (its worker died) no longer holds the session.
    source.conn.execute("UPDATE archivist_session_claims SET expires_at = now() - interval '1s'")
    assert [s.status for s in archive(settings, request).sessions] == ["archived"]


def test_every_search_function_has_its_statement_timeout(source: SourceDB) -> None:
    rows = dict(
        source.conn.execute(
            "SELECT proname, proconfig FROM pg_proc WHERE proname = ANY (%s)",
            [list(SEARCH_FUNCTIONS)],
        ).fetchall()
    )
    assert set(rows) == set(SEARCH_FUNCTIONS)
    for name, config in rows.items():
        assert any(c.startswith("statement_timeout=") for c in config or []), name


def test_the_gateway_applies_the_function_timeout(
    source: SourceDB, postgrest: PostgrestDouble, tmp_path: Path
) -> None:
    source.conn.execute(
        "CREATE FUNCTION archivist_test_sleep() RETURNS int LANGUAGE sql "
        "SET statement_timeout = '200ms' AS $$ SELECT 1 FROM pg_sleep(2) $$"
    )
    with (
        open_store(rest_settings(postgrest.url, tmp_path)) as store,
        pytest.raises(StoreError) as caught,
    ):
        store.call("archivist_test_sleep")
    assert getattr(caught.value, "code", None) == "57014"


def test_doctor_over_rest_checks_the_database_through_its_functions(
    postgrest: PostgrestDouble, tmp_path: Path
) -> None:
    report = run_doctor(rest_settings(postgrest.url, tmp_path))
    assert report.ok, report.checks
    checks = {c.name: c for c in report.checks}
    assert {"database", "pgvector", "migrations", "indexes", "embedding model"} <= set(checks)
    assert "0.6.2" in (checks["pgvector"].detail or "")


def test_doctor_over_rest_sends_missing_migrations_to_the_sql_editor(
    empty_db_url: str, tmp_path: Path
) -> None:
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE archivist_migrations (name text PRIMARY KEY, checksum text, "
            "applied_at timestamptz DEFAULT now())"
        )
    double = PostgrestDouble(empty_db_url).start()
    try:
        report = run_doctor(rest_settings(double.url, tmp_path))
    finally:
        double.stop()
    failed = [c for c in report.checks if not c.ok]
    assert [c.name for c in failed] == ["migrations"], report.checks
    assert "001_schema" in (failed[0].detail or "")
    assert "archivist init --print-sql" in (failed[0].fix or "")


# Functions with plan settings of their own (sql/functions/current_state.sql): the rules, hash
# joins and no nested loops; the current state, planned for each call's user; its commit step,
# no scans of the table and one generic plan per connection.
OWN_PLAN_SETTINGS = {
    "archivist_reconcile_state": ["enable_nestloop=off"],
    "archivist_current_state": ["plan_cache_mode=force_custom_plan"],
    "archivist_state_items": ["plan_cache_mode=force_custom_plan"],
    "archivist_item_currency": ["plan_cache_mode=force_custom_plan"],
    "archivist_store_state": ["enable_seqscan=off", "plan_cache_mode=force_generic_plan"],
}


def test_the_archivists_own_functions_outlast_the_gateway_timeout(source: SourceDB) -> None:
    rows = source.conn.execute(
        "SELECT proname, proconfig FROM pg_proc WHERE proname LIKE 'archivist\\_%'"
    ).fetchall()
    timeouts = dict(rows)
    assert "archivist_commit_version" in timeouts and "archivist_pending_sessions" in timeouts
    # per-user memory's functions (sql/001_schema.sql) are bounded like the others
    assert {"archivist_session_users", "archivist_multi_user_sessions"} <= timeouts.keys()
    searches = {
        name
        for (name,) in source.conn.execute(
            "SELECT p.proname FROM archivist_search_functions() f JOIN pg_proc p ON p.oid = f"
        ).fetchall()
    }
    assert {"archivist_word_stats", "archivist_check_filter"} <= searches
    for name, settings in timeouts.items():
        # Every function has a fixed search_path (tests/cli/test_search_path.py); the rest are
        # limits.
        assert "search_path=public, pg_temp" in settings, name
        config = [c for c in settings if not c.startswith("search_path=")]
        if name in OWN_PLAN_SETTINGS:  # its own plan settings, before the limits
            own = OWN_PLAN_SETTINGS[name]
            assert config[: len(own)] == own, name
            config = config[len(own) :]
        if name in searches:  # run under the search's own 15 s
            assert config == [], name
        elif name == "archivist_reembed_swap":  # rebuilds an index: no statement timeout
            assert config == ["lock_timeout=10000"], name
        else:  # statement_timeout_s and lock_timeout_s, as init gave them
            assert config == ["statement_timeout=600000", "lock_timeout=10000"], name


def test_changes_across_sessions_read_earlier_turns_over_rest(
    source: SourceDB, postgrest: PostgrestDouble, tmp_path: Path
) -> None:
    """The reads a commit makes to tie a change to an earlier session (the current state, the
    earlier items' turns, the turns naming a replaced value) go through the gateway too."""
    source.conn.execute("ALTER TABLE session_messages ADD COLUMN user_id text")
    first = [
        "emergency fund target is 10k, parked in a Marcus high-yield savings account",
        "Ok.",
        "Dentist is Tuesday at 3pm with Dr. Patel.",
        "Ok.",
    ]
    later = [
        "also moved the emergency fund from Marcus to Ally, their rate is a bit better",
        "Ok.",
        "Dr. Patel's office called, the cleaning got moved to Wednesday, same time.",
        "Ok.",
    ]
    ids = [*source.add("a1", first), *source.add("a2", later, start=T0 + timedelta(days=1))]
    source.conn.execute("UPDATE session_messages SET user_id = 'alice' WHERE id = ANY(%s)", [ids])
    settings = Settings(
        supabase_url=postgrest.url,
        supabase_service_role_key=SERVICE_KEY,
        embedder="hash",
        data_dir=tmp_path,
        sources=SourceTables(message_user_id="user_id"),
    )
    report = archive(settings, ArchiveRequest(selection=SessionSelection(limit=50), delay_ms=0))
    assert [s.status for s in report.sessions] == ["archived", "archived"]
    rows = source.conn.execute(
        "SELECT session_id, value, current FROM jarvis_state_items WHERE user_id = 'alice'"
        " AND value IN ('Marcus', 'Ally', 'Tuesday', 'Wednesday') ORDER BY value"
    ).fetchall()
    assert rows == [
        ("a2", "Ally", True),
        ("a2", "Marcus", False),
        ("a1", "Tuesday", False),
        ("a2", "Wednesday", True),
    ]
