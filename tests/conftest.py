"""Shared fixtures: one embedded Postgres (pgserver, with pgvector) per test session, a fresh
database per test cloned from a migrated template, and the Ollama test server."""

from __future__ import annotations

import itertools
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.ollama_server import ollama, ollama_server  # noqa: F401  (fixtures)
from support.postgrest_double import SERVICE_KEY, PostgrestDouble
from support.sources import SourceDB

from archivist.config import Settings
from archivist.store import EmbeddingConfig, PostgresStore

TEMPLATE = "archivist_template"
SHM_NEEDED = 4 * 1024**3  # room for the WAL (max_wal_size 1 GB) and the databases of a run
HASH_768 = EmbeddingConfig("hash-768", 768)
_counter = itertools.count()
SUPABASE_ROLES = """
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon') THEN
        CREATE ROLE anon NOLOGIN NOINHERIT;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN
        CREATE ROLE authenticated NOLOGIN NOINHERIT;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
        CREATE ROLE service_role NOLOGIN NOINHERIT BYPASSRLS;
    END IF;
END $$"""
# What a Supabase project's database has besides the roles: the API roles may use the public
# schema, and get every privilege on new tables, functions and sequences there (default
# privileges, supabase/postgres migrations/db/init-scripts/00000000000000-initial-schema.sql),
# and auth.uid() as Supabase's auth server defines it (supabase/auth
# migrations/tenant/20211202183645_update_auth_uid.up.sql).
SUPABASE_DEFAULTS = """
GRANT USAGE ON SCHEMA public TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT ALL ON TABLES TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT ALL ON FUNCTIONS TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT ALL ON SEQUENCES TO anon, authenticated, service_role;
CREATE SCHEMA IF NOT EXISTS auth;
GRANT USAGE ON SCHEMA auth TO anon, authenticated, service_role;
CREATE OR REPLACE FUNCTION auth.uid() RETURNS uuid
LANGUAGE sql STABLE
AS $$
  select
  nullif(
    coalesce(
      current_setting('request.jwt.claim.sub', true),
      (current_setting('request.jwt.claims', true)::jsonb ->> 'sub')
    ),
    ''
  )::uuid
$$;
"""


def _with_db(url: str, dbname: str) -> str:
    """The embedded server's URL pointed at another database."""
    return url.replace("/postgres?", f"/{dbname}?", 1)


def _server_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the test server keeps its files: in memory (/dev/shm) when it has room. Every test
    creates and drops a database, hundreds of files each; on a disk mounted with `discard` a
    CREATE DATABASE took 0.4 s of the kernel's time, in memory 0.03 s."""
    shm = Path("/dev/shm")
    if shm.is_dir() and shutil.disk_usage(shm).free >= SHM_NEEDED:
        return Path(tempfile.mkdtemp(prefix="archivist-tests-", dir=shm))
    return tmp_path_factory.mktemp("pg")


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The embedded server's admin URL, with a migrated template database."""
    folder = _server_folder(tmp_path_factory)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

        server: Any = pgserver.get_server(folder / "pgdata", cleanup_mode="delete")
    url = str(server.get_uri())
    with psycopg.connect(url, autocommit=True) as conn:
        # Roles are cluster-wide: created before any database, so every test database sees
        # the same roles whichever test runs first (Supabase's roles, as a Supabase server has).
        conn.execute(SUPABASE_ROLES)
        conn.execute(f"DROP DATABASE IF EXISTS {TEMPLATE}")
        conn.execute(f"CREATE DATABASE {TEMPLATE}")
    with psycopg.connect(_with_db(url, TEMPLATE), autocommit=True) as conn:
        PostgresStore(conn, Settings().sources).init(HASH_768)
    yield url
    server.cleanup()
    shutil.rmtree(folder, ignore_errors=True)


def _fresh_database(pg_server: str, template: str) -> Iterator[str]:
    name = f"t_{next(_counter)}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {template}")
    yield _with_db(pg_server, name)
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture
def db_url(pg_server: str) -> Iterator[str]:
    """A fresh, migrated database initialised for the 768-d `hash` embedder."""
    yield from _fresh_database(pg_server, TEMPLATE)


@pytest.fixture
def empty_db_url(pg_server: str) -> Iterator[str]:
    """A fresh database with nothing in it (no migrations, no pgvector yet)."""
    yield from _fresh_database(pg_server, "template1")


@pytest.fixture
def supabase_db_url(pg_server: str) -> Iterator[str]:
    """A fresh empty database set up like a Supabase project's (SUPABASE_DEFAULTS)."""
    for url in _fresh_database(pg_server, "template1"):
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(SUPABASE_DEFAULTS)
        yield url


@pytest.fixture
def env(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment of a CLI run against the test database with the offline embedder, set
    in this process too (for CliRunner); 80 columns, like a plain terminal."""
    values = {
        "DATABASE_URL": db_url,
        "ARCHIVIST_EMBEDDER": "hash",
        "ARCHIVIST_DELAY_MS": "0",
        "ARCHIVIST_DATA_DIR": str(tmp_path / "data"),
        "ARCHIVIST_CONFIG": "",
        "COLUMNS": "80",
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    return values


@pytest.fixture
def source(db_url: str) -> Iterator[SourceDB]:
    """The bot's source tables in the test database, with helpers to fill them."""
    with SourceDB.create(db_url) as db:
        yield db


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """`@pytest.mark.both_transports` runs a test on direct Postgres and on Supabase REST."""
    marked = metafunc.definition.get_closest_marker("both_transports")
    if marked and "transport" in metafunc.fixturenames:
        metafunc.parametrize("transport", ["postgres", "supabase"])


@pytest.fixture
def transport() -> str:
    """The transport `settings` describe; tests marked both_transports get each in turn."""
    return "postgres"


@pytest.fixture
def postgrest(db_url: str) -> Iterator[PostgrestDouble]:
    """The test double of Supabase's REST gateway over the test database."""
    double = PostgrestDouble(db_url).start()
    yield double
    double.stop()


@pytest.fixture
def settings(
    db_url: str, tmp_path: Path, transport: str, request: pytest.FixtureRequest
) -> Settings:
    if transport == "supabase":
        double: PostgrestDouble = request.getfixturevalue("postgrest")
        return Settings(
            supabase_url=double.url,
            supabase_service_role_key=SERVICE_KEY,
            embedder="hash",
            data_dir=tmp_path / "data",
        )
    return Settings(database_url=db_url, embedder="hash", data_dir=tmp_path / "data")
