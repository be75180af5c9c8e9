"""Per-user memory (ARCHIVIST_MESSAGE_USER_ID) and `init --allow-authenticated`, on a database
set up like Supabase's (conftest.SUPABASE_DEFAULTS): versions, chunks and sessions carry the
user id; a session with several users is archived without one and reported; searches filter
by user (Python, CLI, SQL); and a signed-in user, through the role and JWT claims PostgREST
sets, reads and searches only their own rows, never another user's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import SUPABASE_DEFAULTS, _fresh_database
from rich.console import Console
from support.commands import init_database, run_doctor
from support.postgrest_double import PostgrestDouble
from support.sources import SourceDB, run_archivist

from archivist.cli.output import Output
from archivist.cli.render_run import run_report
from archivist.client import archive, archive_search, memory_search, search
from archivist.config import Settings, SourceTables
from archivist.models import RunReport
from archivist.pipeline import ArchiveRequest
from archivist.search import ArchiveFilters

Conn = psycopg.Connection[tuple[Any, ...]]
A = "0b0e3f8c-4a1d-4c2b-9e57-5d6a7b8c9d01"
B = "7c1d2e3f-5b6a-4d8c-8f90-1a2b3c4d5e02"
CHATS = {
    "a-1": (["We will deploy the olive frontend on Vercel.", "OK, Vercel it is."], [A]),
    "a-2": (["The invoice export moves to Postgres.", "Agreed, Postgres for invoices."], [A]),
    "b-1": (["Deploy the plum app on Vercel as well.", "Vercel for plum, noted."], [B]),
    "ab": (["Vercel or Netlify for the shared site?", "Vercel.", "Fine, Vercel."], [A, B]),
    "none": (["Vercel status page is green.", "Good."], []),
}
OWN = {A: {"a-1", "a-2"}, B: {"b-1"}}
USER_TABLES = ("jarvis_archive", "jarvis_memory_chunks", "jarvis_archive_sessions")
PRIVATE_TABLES = ("archivist_runs", "archivist_session_claims", "archivist_reembed_staging")


def scoped_settings(url: str, tmp_path: Path) -> Settings:
    return Settings(
        database_url=url,
        embedder="hash",
        data_dir=tmp_path,
        sources=SourceTables(message_user_id="user_id"),
    )


def fill(source: SourceDB) -> None:
    """The sessions of CHATS; user messages carry the session's users in turn, replies none."""
    source.conn.execute("ALTER TABLE session_messages ADD COLUMN user_id uuid")
    for session_id, (chat, users) in CHATS.items():
        ids = source.add(session_id, chat)
        for i, message_id in enumerate(ids[::2]):  # the user's turns
            if users:
                source.conn.execute(
                    "UPDATE session_messages SET user_id = %s WHERE id = %s",
                    [users[i % len(users)], message_id],
                )


@pytest.fixture(scope="module")
def scoped(
    pg_server: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Settings, RunReport]]:
    """A Supabase-like database, opened to signed-in users, after one run over CHATS."""
    for url in _fresh_database(pg_server, "template1"):
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(SUPABASE_DEFAULTS)
        settings = scoped_settings(url, tmp_path_factory.mktemp("scoped"))
        with SourceDB.create(url) as source:
            fill(source)
        init_database(settings, allow_authenticated=True)
        report = archive(settings, ArchiveRequest(delay_ms=0))
        assert not report.failed and len(report.sessions) == len(CHATS), report
        yield url, settings, report


def as_role(conn: Conn, role: str, claims: dict[str, str]) -> None:
    """What PostgREST does at the start of each request's transaction."""
    conn.execute(
        "SELECT set_config('role', %s, true), set_config('request.jwt.claims', %s, true)",
        [role, json.dumps(claims)],
    )


def user_claims(user: str) -> dict[str, str]:
    return {"sub": user, "role": "authenticated"}


def a_vector(url: str) -> str:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT embedding::text FROM jarvis_memory_chunks WHERE session_id = 'b-1' LIMIT 1"
        ).fetchone()
    assert row is not None
    return str(row[0])


def searches(conn: Conn, vector: str) -> dict[str, set[str]]:
    """The sessions each search function returns (vector, hybrid, text-only, archive)."""
    statements: dict[str, tuple[str, list[str]]] = {
        "match": ("SELECT session_id FROM match_jarvis_memory_chunks(%s::vector, 10)", [vector]),
        "hybrid": (
            "SELECT session_id FROM hybrid_jarvis_memory_chunks(%s::vector, 'Vercel', 10)",
            [vector],
        ),
        "text": (
            "SELECT session_id FROM hybrid_jarvis_memory_chunks(NULL, 'Vercel', 10, '{}', 0)",
            [],
        ),
        "archive": ("SELECT session_id FROM search_jarvis_archive()", []),
    }
    return {
        name: {str(r[0]) for r in conn.execute(statement, arguments)}
        for name, (statement, arguments) in statements.items()
    }


def test_versions_chunks_and_sessions_carry_the_user(
    scoped: tuple[str, Settings, RunReport],
) -> None:
    url, _, _ = scoped
    expected = {"a-1": A, "a-2": A, "b-1": B, "ab": None, "none": None}
    with psycopg.connect(url) as conn:
        for table in USER_TABLES:
            rows = conn.execute(f"SELECT DISTINCT session_id, user_id FROM {table}").fetchall()
            assert dict(rows) == expected, table
        multi = conn.execute(
            "SELECT session_id FROM jarvis_archive_sessions WHERE multi_user"
        ).fetchall()
        items = conn.execute(
            "SELECT count(*) FROM jarvis_memory_chunks WHERE source = 'state_item' "
            "AND user_id IS NOT NULL"
        ).fetchone()
    assert multi == [("ab",)]
    assert items is not None and items[0] > 0  # state items carry it too


def test_a_session_with_several_users_is_reported(
    scoped: tuple[str, Settings, RunReport], tmp_path: Path
) -> None:
    url, settings, report = scoped
    assert [s.session_id for s in report.sessions if s.multi_user] == ["ab"]
    assert {s.session_id: s.user_id for s in report.sessions}["a-1"] == A
    out = Output("normal", False, Console(record=True, width=200), Console(record=True))
    run_report(out, report)
    assert "several users: ab" in out.out.export_text()
    users = [c for c in run_doctor(settings).checks if c.name == "users"]
    assert users and users[0].ok and "1 sessions carry several user ids" in users[0].detail
    assert "ab" in users[0].detail


@pytest.mark.parametrize("user", [A, B])
def test_a_signed_in_user_reads_and_searches_only_their_own_rows(
    scoped: tuple[str, Settings, RunReport], user: str
) -> None:
    url, _, _ = scoped
    vector = a_vector(url)  # a chunk of B's: the nearest chunks are B's, but A must not see them
    with psycopg.connect(url) as conn:
        for table in USER_TABLES:
            as_role(conn, "authenticated", user_claims(user))
            rows = conn.execute(f"SELECT session_id, user_id FROM {table}").fetchall()
            assert rows and {r[1] for r in rows} == {user}, table
            assert {r[0] for r in rows} == OWN[user], table
            conn.rollback()
        as_role(conn, "authenticated", user_claims(user))
        meta = {r[0] for r in conn.execute("SELECT key FROM archivist_meta")}
        assert meta == {"embedding_model", "embedding_dim"}
        found = searches(conn, vector)
        conn.rollback()
        for name, sessions in found.items():
            assert sessions and sessions <= OWN[user], (name, sessions)
        for table in PRIVATE_TABLES:
            as_role(conn, "authenticated", user_claims(user))
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(f"SELECT 1 FROM {table}")
            conn.rollback()
        as_role(conn, "authenticated", user_claims(user))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT archivist_versions('a-1', 10)")
        conn.rollback()
        definers = conn.execute(
            "SELECT count(*) FROM archivist_functions() f JOIN pg_proc p ON p.oid = f "
            "WHERE p.prosecdef"
        ).fetchone()
    assert definers == (0,)  # every function runs as its caller: RLS applies


def test_without_a_user_claim_nothing_and_as_anon_not_even_that(
    scoped: tuple[str, Settings, RunReport],
) -> None:
    url, _, _ = scoped
    vector = a_vector(url)
    with psycopg.connect(url) as conn:
        for table in USER_TABLES:
            as_role(conn, "authenticated", {"role": "authenticated"})
            assert conn.execute(f"SELECT * FROM {table}").fetchall() == [], table
            conn.rollback()
        as_role(conn, "authenticated", {"role": "authenticated"})
        assert all(not sessions for sessions in searches(conn, vector).values())
        conn.rollback()
        for table in USER_TABLES:
            as_role(conn, "anon", {"role": "anon"})
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(f"SELECT 1 FROM {table}")
            conn.rollback()
        as_role(conn, "anon", {"role": "anon"})
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT * FROM search_jarvis_archive()")
        conn.rollback()
        as_role(conn, "service_role", {"role": "service_role"})
        everything = conn.execute("SELECT count(DISTINCT session_id) FROM jarvis_archive")
        assert everything.fetchone() == (len(CHATS),)


def test_the_user_filter_from_python_the_cli_and_sql(
    scoped: tuple[str, Settings, RunReport],
) -> None:
    url, settings, _ = scoped
    for user in (A, B):
        memory = memory_search("Vercel deploy", settings=settings, user_id=user)
        assert memory.hits and {h.session_id for h in memory.hits} <= OWN[user]
        rows = archive_search(settings=settings, user_id=user)
        assert {h.session_id for h in rows.hits} == OWN[user]
        hybrid = search("Vercel", ArchiveFilters(user_id=user), settings=settings)
        assert hybrid.sessions and {m.session_id for m in hybrid.sessions} <= OWN[user]
    unfiltered = memory_search("Vercel deploy", settings=settings)
    assert {h.session_id for h in unfiltered.hits} - OWN[A]  # the filter did something
    env = {"DATABASE_URL": url, "ARCHIVIST_EMBEDDER": "hash"}
    for command in ("memory-search", "search"):
        result = run_archivist([command, "Vercel", "--user-id", B, "--json"], env)
        assert result.returncode == 0, result.stderr
        assert (
            "b-1" in result.stdout and '"a-1"' not in result.stdout and '"ab"' not in result.stdout
        )
    result = run_archivist(["archive-search", "--user-id", A, "--json"], env)
    assert result.returncode == 0, result.stderr
    assert {h["session_id"] for h in json.loads(result.stdout)["hits"]} == OWN[A]
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT DISTINCT session_id FROM match_jarvis_memory_chunks(%s::vector, 10, %s)",
            [a_vector(url), json.dumps({"user_id": A})],
        ).fetchall()
    assert rows and {r[0] for r in rows} <= OWN[A]


def test_allow_authenticated_needs_the_user_id_setting_and_supabase(
    db_url: str, supabase_db_url: str
) -> None:
    without_setting = run_archivist(
        ["init", "--allow-authenticated"],
        {"DATABASE_URL": supabase_db_url, "ARCHIVIST_EMBEDDER": "hash"},
    )
    assert without_setting.returncode == 2
    assert len(without_setting.stderr.strip().splitlines()) == 1
    assert "ARCHIVIST_MESSAGE_USER_ID" in without_setting.stderr
    not_supabase = run_archivist(
        ["init", "--allow-authenticated"],
        {
            "DATABASE_URL": db_url,
            "ARCHIVIST_EMBEDDER": "hash",
            "ARCHIVIST_MESSAGE_USER_ID": "user_id",
        },
    )
    assert not_supabase.returncode == 2
    assert "auth.uid()" in not_supabase.stderr
    with psycopg.connect(db_url) as conn:
        assert conn.execute("SELECT archivist_access()").fetchone() == ("private",)


def test_opening_by_script_keeping_and_closing_again(supabase_db_url: str, tmp_path: Path) -> None:
    env = {
        "DATABASE_URL": supabase_db_url,
        "ARCHIVIST_EMBEDDER": "hash",
        "ARCHIVIST_MESSAGE_USER_ID": "user_id",
    }
    script = run_archivist(["init", "--print-sql", "--allow-authenticated"], env)
    assert script.returncode == 0, script.stderr
    with psycopg.connect(supabase_db_url, autocommit=True) as conn:
        conn.execute(script.stdout.encode())

    def state() -> tuple[int, bool, list[Any]]:
        with psycopg.connect(supabase_db_url) as conn:
            policies = conn.execute("SELECT count(*) FROM pg_policies").fetchone()
            reads = conn.execute(
                "SELECT has_table_privilege('authenticated', 'jarvis_archive', 'SELECT')"
            ).fetchone()
            exposure = conn.execute("SELECT archivist_exposure()").fetchone()
        assert policies and reads and exposure
        return int(policies[0]), bool(reads[0]), list(exposure[0])

    policies, reads, exposure = state()
    # one per user table: jarvis_archive, _sessions, _memory_chunks, jarvis_state_items, meta
    assert policies == 5 and reads and exposure and all(e["allowed"] for e in exposure)
    settings = scoped_settings(supabase_db_url, tmp_path)
    check = next(c for c in run_doctor(settings).checks if c.name == "exposure")
    assert check.ok and "authenticated reads its own rows" in check.detail

    assert run_archivist(["init"], env).returncode == 0  # keeps what is recorded
    assert state()[0] == 5
    double = PostgrestDouble(supabase_db_url, role="service_role").start()
    try:
        rest = run_archivist(
            ["init", "--private"],
            {
                "ARCHIVIST_EMBEDDER": "hash",
                "SUPABASE_URL": double.url,
                "SUPABASE_SERVICE_ROLE_KEY": double.key,
            },
        )
    finally:
        double.stop()
    assert rest.returncode == 2 and "init --print-sql --private" in rest.stderr

    closed = run_archivist(["init", "--private"], env)
    assert closed.returncode == 0, closed.stderr
    assert state() == (0, False, [])
