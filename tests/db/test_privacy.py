"""Private by default on a database set up like Supabase's (its roles, default privileges and
auth.uid(); see conftest.SUPABASE_DEFAULTS): every table and function `init` creates is
unreadable and uncallable for anon and authenticated, with or without user claims, and all of
it works for service_role, directly and through the REST gateway as that role. `doctor`
reports any exposure, and init undoes it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import HASH_768, SUPABASE_DEFAULTS, _fresh_database
from support.commands import run_doctor
from support.postgrest_double import PostgrestDouble
from support.sources import SourceDB, run_archivist

from archivist import memory_search
from archivist.client import archive
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest
from archivist.store import PostgresStore

Conn = psycopg.Connection[tuple[Any, ...]]
API_ROLES = ("anon", "authenticated")
USER_CLAIMS = {"sub": "9b2f64d4-3a8e-4c59-9d0e-5b1c2f7a8e11", "role": "authenticated"}
CHATS = {
    "s-1": ["We will deploy the olive frontend on Vercel.", "OK, Vercel it is."],
    "s-2": ["The invoice export moves to Postgres.", "Agreed, Postgres for invoices."],
    "s-3": ["Book the dentist for Tuesday.", "Booked: Tuesday 10:00."],
}
# Objects in the public schema, other than those an extension owns.
OBJECTS = """
    SELECT 'relation', c.oid::regclass::text, c.relkind::text FROM pg_class c
    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')
    UNION ALL
    SELECT 'function', p.oid::regprocedure::text, p.prokind::text FROM pg_proc p
    WHERE p.pronamespace = 'public'::regnamespace
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
"""


def objects(conn: Conn) -> set[tuple[str, str, str]]:
    return {(str(a), str(b), str(c)) for a, b, c in conn.execute(OBJECTS)}


def settings_for(url: str, tmp_path: Path) -> Settings:
    return Settings(database_url=url, embedder="hash", data_dir=tmp_path)


@pytest.fixture(scope="module")
def private_db(
    pg_server: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, set[tuple[str, str, str]]]]:
    """A Supabase-like database after `init` and one run over three sessions; with the
    objects init created."""
    for url in _fresh_database(pg_server, "template1"):
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(SUPABASE_DEFAULTS)
        with SourceDB.create(url) as source:
            for session_id, chat in CHATS.items():
                source.add(session_id, chat)
            before = objects(source.conn)
            PostgresStore(source.conn, Settings().sources).init(HASH_768)
            created = objects(source.conn) - before
        tmp = tmp_path_factory.mktemp("private")
        report = archive(settings_for(url, tmp), ArchiveRequest(delay_ms=0))
        assert not report.failed and len(report.sessions) == len(CHATS), report
        yield url, created


def as_role(conn: Conn, role: str, claims: dict[str, str] | None = None) -> None:
    """What PostgREST does at the start of each request's transaction."""
    conn.execute(
        "SELECT set_config('role', %s, true), set_config('request.jwt.claims', %s, true)",
        [role, json.dumps(claims or {"role": role})],
    )


def null_call(conn: Conn, function: str) -> str:
    """`SELECT fn(NULL::t1, ...)` for a function given as regprocedure text."""
    row = conn.execute(
        "SELECT p.proname, ARRAY(SELECT format_type(t, NULL) FROM unnest(p.proargtypes) t) "
        "FROM pg_proc p WHERE p.oid = %s::regprocedure",
        [function],
    ).fetchone()
    assert row is not None
    name, types = row
    return f"SELECT {name}({', '.join(f'NULL::{t}' for t in types)})"


def test_every_table_and_function_init_creates_follows_the_rule(
    private_db: tuple[str, set[tuple[str, str, str]]],
) -> None:
    url, created = private_db
    tables = {name for kind, name, k in created if kind == "relation" and k in ("r", "p")}
    functions = {name for kind, name, _ in created if kind == "function"}
    assert len(tables) >= 8 and len(functions) >= 40
    with psycopg.connect(url) as conn:
        # Every object init created is one the policy knows, so none escapes it.
        listed = {r[0] for r in conn.execute("SELECT t::text FROM archivist_tables() t")}
        listed |= {r[0] for r in conn.execute("SELECT s::text FROM archivist_sequences() s")}
        assert {name for kind, name, _ in created if kind == "relation"} == listed
        assert functions == {r[0] for r in conn.execute("SELECT archivist_functions()::text")}
        for kind, name, relkind in sorted(created):
            if kind == "function":
                for role in ("public", *API_ROLES):
                    assert not _can(conn, "function", role, name, "EXECUTE"), (role, name)
                assert _can(conn, "function", "service_role", name, "EXECUTE"), name
                continue
            privileges = (
                ["USAGE", "SELECT", "UPDATE"]
                if relkind == "S"
                else ["SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"]
            )
            what = "sequence" if relkind == "S" else "table"
            for role in ("public", *API_ROLES):
                for privilege in privileges:
                    assert not _can(conn, what, role, name, privilege), (role, name, privilege)
            assert _can(conn, what, "service_role", name, "SELECT"), name
            if relkind != "S":
                rls = conn.execute(
                    "SELECT relrowsecurity FROM pg_class WHERE oid = %s::regclass", [name]
                ).fetchone()
                assert rls == (True,), name
        assert conn.execute("SELECT count(*) FROM pg_policies").fetchone() == (0,)
        assert conn.execute("SELECT archivist_exposure()").fetchone() == ([],)


def _can(conn: Conn, what: str, role: str, name: str, privilege: str) -> bool:
    row = conn.execute(f"SELECT has_{what}_privilege(%s, %s, %s)", [role, name, privilege])
    return bool(row.fetchone()[0])  # type: ignore[index]


@pytest.mark.parametrize(
    ("role", "claims"),
    [("anon", None), ("authenticated", None), ("authenticated", USER_CLAIMS)],
)
def test_the_api_roles_read_and_call_nothing(
    private_db: tuple[str, set[tuple[str, str, str]]], role: str, claims: dict[str, str] | None
) -> None:
    url, created = private_db
    with psycopg.connect(url) as conn:
        for kind, name, relkind in sorted(created):
            statement = (
                null_call(conn, name)
                if kind == "function"
                else f"SELECT nextval('{name}')"
                if relkind == "S"
                else f"SELECT * FROM {name} LIMIT 1"
            )
            as_role(conn, role, claims)
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()


def test_service_role_reads_and_searches_everything(
    private_db: tuple[str, set[tuple[str, str, str]]],
) -> None:
    url, _ = private_db
    with psycopg.connect(url) as conn:
        as_role(conn, "service_role")
        archived = conn.execute("SELECT count(*) FROM jarvis_archive").fetchone()
        chunks = conn.execute("SELECT count(*) FROM jarvis_memory_chunks").fetchone()
        rows = conn.execute("SELECT count(*) FROM search_jarvis_archive()").fetchone()
        nearest = conn.execute(
            "SELECT count(*) FROM match_jarvis_memory_chunks("
            "(SELECT embedding FROM jarvis_memory_chunks LIMIT 1), 5)"
        ).fetchone()
        hybrid = conn.execute(
            "SELECT count(*) FROM hybrid_jarvis_memory_chunks("
            "(SELECT embedding FROM jarvis_memory_chunks LIMIT 1), 'Vercel', 5)"
        ).fetchone()
    assert archived == (len(CHATS),) and chunks is not None and chunks[0] > len(CHATS)
    assert rows == (len(CHATS),) and nearest == (5,) and hybrid is not None and hybrid[0] > 0


def test_the_rest_transport_works_as_service_role(
    private_db: tuple[str, set[tuple[str, str, str]]], tmp_path: Path
) -> None:
    url, _ = private_db
    double = PostgrestDouble(url, role="service_role").start()
    settings = Settings(
        supabase_url=double.url,
        supabase_service_role_key=double.key,
        embedder="hash",
        data_dir=tmp_path,
    )
    try:
        status = run_archivist(
            ["status", "--json"],
            {
                "ARCHIVIST_EMBEDDER": "hash",
                "SUPABASE_URL": double.url,
                "SUPABASE_SERVICE_ROLE_KEY": double.key,
            },
        )
        found = memory_search("Vercel frontend", settings=settings)
        checks = run_doctor(settings).checks
    finally:
        double.stop()
    assert status.returncode == 0, status.stderr
    assert any(hit.session_id == "s-1" for hit in found.hits)
    exposure = [c for c in checks if c.name == "exposure"]
    assert exposure and exposure[0].ok, checks


def test_doctor_reports_exposure_and_init_removes_it(supabase_db_url: str, tmp_path: Path) -> None:
    env = {"ARCHIVIST_EMBEDDER": "hash", "DATABASE_URL": supabase_db_url}
    assert run_archivist(["init"], env).returncode == 0
    settings = settings_for(supabase_db_url, tmp_path)
    exposure = [c for c in run_doctor(settings).checks if c.name == "exposure"]
    assert exposure and exposure[0].ok
    with psycopg.connect(supabase_db_url, autocommit=True) as conn:
        conn.execute("GRANT SELECT ON jarvis_archive TO anon")
        conn.execute("GRANT EXECUTE ON FUNCTION archivist_versions(text, integer) TO authenticated")
        conn.execute("ALTER TABLE jarvis_memory_chunks DISABLE ROW LEVEL SECURITY")
    doctor = run_archivist(["doctor", "--json"], env)
    assert doctor.returncode == 1
    failed = {c["name"]: c for c in json.loads(doctor.stdout)["checks"] if not c["ok"]}
    assert list(failed) == ["exposure"]
    detail = failed["exposure"]["detail"]
    assert "anon: SELECT on jarvis_archive" in detail
    assert "authenticated: EXECUTE on archivist_versions(text,integer)" in detail
    assert "jarvis_memory_chunks: no row level security" in detail
    assert "archivist init" in failed["exposure"]["fix"]
    assert run_archivist(["init"], env).returncode == 0
    assert run_archivist(["doctor"], env).returncode == 0
