"""Applies `sql/` to a database: the migrations, then the functions, then the policy.

    sql/NNN_*.sql        tables, indexes and data changes: forward-only, each applied once,
                         together with the row that records it (name and checksum) in
                         archivist_migrations. An applied migration is never edited: init
                         compares checksums and refuses one that changed.
    sql/functions/*.sql  every SQL function, each defined in exactly one file (one per area),
                         CREATE OR REPLACE: applied by every init, after the migrations.
    sql/retire.sql       drops the archivist's functions that no file defines any more.
    sql/policy.sql       privileges and statement timeouts, applied last.

All of it is one script (`migration_script`, which `init --print-sql` prints), run in one
transaction: `init` runs exactly that script, so the SQL a Supabase user pastes is the SQL every
test database is built by. It also records the functions' combined checksum in archivist_meta
(key `sql_functions`), so the REST transport (which cannot run DDL) and the readiness check can
tell a database whose functions are another build's.

The first release's schema is one migration, sql/001_schema.sql (the development migrations
were folded into it); a later change is a new file, sql/002_*.sql and so on.

The files ship inside the wheel as `archivist/sql` (hatch force-include); in a source checkout
they are read from the repository's top-level `sql/`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from psycopg.pq import TransactionStatus

from archivist.config import DatabaseTimeouts
from archivist.errors import ConfigError

Conn = psycopg.Connection[tuple[Any, ...]]

_LOCK_KEY = 0x61726368  # "arch": serialises concurrent `init`s on one database
FUNCTIONS_KEY = "sql_functions"  # archivist_meta key of the functions + policy checksum
ACCESS_KEY = "access"  # archivist_meta key of who may read the archive (sql/policy.sql)
PRIVATE, AUTHENTICATED = "private", "authenticated"

_CREATE_TABLE = """
CREATE TABLE IF NOT EXISTS archivist_migrations (
    name       text PRIMARY KEY,
    checksum   text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)"""

# pgvector goes into Supabase's `extensions` schema where one exists (Supabase's linter flags an
# extension in public, extension_in_public); elsewhere sql/001_schema.sql creates it in the
# current schema. An extension already installed stays where it is: it may be another's too.
_VECTOR_HOME = """
DO $archivist_vector$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')
       AND EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'extensions') THEN
        CREATE EXTENSION vector SCHEMA extensions;
    END IF;
END;
$archivist_vector$"""

# pgvector's schema on this transaction's search_path (after the rest: the current schema, where
# the archivist's tables go, stays first), so the migrations and functions name its types and
# operators unqualified wherever it lives. The functions themselves run with a fixed
# search_path (sql/policy.sql).
_VECTOR_ON_PATH = """
SELECT set_config('search_path',
                  concat_ws(', ', nullif(current_setting('search_path'), ''),
                            quote_ident(n.nspname)), true)
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
WHERE e.extname = 'vector' AND n.nspname <> ALL (current_schemas(false))"""


class EditedMigrationError(ConfigError):
    """An applied migration's file no longer has the text the database applied."""


class NoAccessError(ConfigError):
    """The role cannot read the archivist's tables or call its functions: a grant is missing
    (or the key is the wrong one), which `init` would not fix."""


INSUFFICIENT_PRIVILEGE = "42501"  # SQLSTATE of "permission denied"

# Whether the role can read archivist_migrations: SELECT granted, and row level security (on
# every archivist table, with no policy for other roles: sql/policy.sql) not hiding its rows.
# Without it, the table would look empty, as if no migration was applied. Also who the role is,
# and the role to grant it: the service role where one exists, else the tables' owner.
_ACCESS = """
SELECT current_user::text,
       CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role')
            THEN 'service_role' ELSE pg_get_userbyid(c.relowner)::text END,
       has_table_privilege(c.oid, 'SELECT')
       AND (NOT c.relrowsecurity OR r.rolsuper OR r.rolbypassrls
            OR pg_has_role(c.relowner, 'USAGE'))
FROM pg_class c JOIN pg_roles r ON r.rolname = current_user
WHERE c.oid = to_regclass('archivist_migrations')"""


def no_access(role: str | None, grant: str | None = None) -> NoAccessError:
    """The one line for a role without access: who it is and what to grant."""
    if role is None:  # over REST: the role of the key
        return NoAccessError(
            "this key's role has no access to the archive (use the service role's key: "
            "SUPABASE_SERVICE_ROLE_KEY)"
        )
    name, target = _ident(role), _ident(grant or "service_role")
    return NoAccessError(
        f"role {role} has no access to the archive (grant it: GRANT {target} TO {name}; or use "
        "the service role)"
    )


def _ident(name: str) -> str:
    """A role name as SQL spells it: bare when it can be, else quoted."""
    if re.fullmatch(r"[a-z_][a-z0-9_$]*", name):
        return name
    return sql.Identifier(name).as_string(None)


def access_problem(conn: Conn) -> NoAccessError | None:
    """The error for a role that cannot read the archive, or None (also before any init)."""
    row = conn.execute(_ACCESS).fetchone()
    if row is None or row[2]:
        return None
    return no_access(str(row[0]), str(row[1]))


@dataclass(frozen=True)
class SqlFile:
    path: str  # under sql/, e.g. "001_schema.sql" or "functions/ops.sql"
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


@dataclass(frozen=True)
class Migration(SqlFile):
    @property
    def name(self) -> str:
        """The name archivist_migrations records: the file name without `.sql`."""
        return self.path.removesuffix(".sql")


@dataclass(frozen=True)
class SchemaRecords:
    """What a database records of the SQL applied to it."""

    migrations: Mapping[str, str]  # name -> checksum
    functions: str | None  # the functions + policy checksum, if any was recorded
    access: str = PRIVATE  # who may read the archive (sql/policy.sql): private or authenticated


def sql_dir() -> Path:
    """The folder holding the SQL, in an installed package or a source checkout."""
    packaged = Path(str(resources.files("archivist"))) / "sql"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "sql"


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def load_migrations() -> list[Migration]:
    """Every migration file, in the order of its number."""
    files = sorted(sql_dir().glob("[0-9][0-9][0-9]_*.sql"))
    return [Migration(f.name, _read(f)) for f in files]


def load_definitions() -> list[SqlFile]:
    """The files every init applies after the migrations, in order: functions, retire, policy."""
    root = sql_dir()
    paths = [*sorted((root / "functions").glob("*.sql")), root / "retire.sql", root / "policy.sql"]
    return [SqlFile(p.relative_to(root).as_posix(), _read(p)) for p in paths]


def functions_checksum() -> str:
    """One checksum of every file `load_definitions` returns (names and texts)."""
    digest = hashlib.sha256()
    for part in load_definitions():
        digest.update(f"{part.path}\n{part.checksum}\n".encode())
    return digest.hexdigest()


def pending_migrations(recorded: Mapping[str, str]) -> list[Migration]:
    """The migrations not applied yet; raises EditedMigrationError if an applied one changed."""
    pending: list[Migration] = []
    for migration in load_migrations():
        checksum = recorded.get(migration.name)
        if checksum is None:
            pending.append(migration)
        elif checksum != migration.checksum:
            raise _edited(migration)
    return pending


def _edited(migration: Migration) -> EditedMigrationError:
    return EditedMigrationError(
        f"sql/{migration.path} was edited after this database applied it (its checksum "
        "differs): restore the file as applied and put the change in a new migration"
    )


def schema_records(conn: Conn) -> SchemaRecords:
    """The migrations and functions checksum a database records (empty if never initialised)."""
    row = conn.execute(
        "SELECT to_regclass('archivist_migrations') IS NOT NULL, "
        "to_regclass('archivist_meta') IS NOT NULL"
    ).fetchone()
    migrations: dict[str, str] = {}
    meta: dict[str, str] = {}
    if row and row[0] and (problem := access_problem(conn)) is not None:
        raise problem
    if row and row[0]:
        migrations = {
            str(name): str(checksum)
            for name, checksum in conn.execute("SELECT name, checksum FROM archivist_migrations")
        }
    if row and row[1]:
        meta = {
            str(key): str(value)
            for key, value in conn.execute(
                "SELECT key, value FROM archivist_meta WHERE key = ANY (%s)",
                [[FUNCTIONS_KEY, ACCESS_KEY]],
            )
        }
    return SchemaRecords(migrations, meta.get(FUNCTIONS_KEY), meta.get(ACCESS_KEY, PRIVATE))


def apply_schema(
    conn: Conn,
    embedding_model: str,
    embedding_dim: int,
    timeouts: DatabaseTimeouts | None = None,
    access: str | None = None,
) -> list[str]:
    """Run the script `init --print-sql` prints (`migration_script`), so that every database,
    each test's included, is built by what a Supabase user pastes; returns the migrations it
    applied. An edited migration is refused before anything runs.
    """
    pending_migrations(schema_records(conn).migrations)  # an edited one stops it here
    applied: list[str] = []
    try:
        cursor = conn.execute(
            migration_script(embedding_model, embedding_dim, timeouts, access).encode()
        )
        while True:  # one result per statement: the applied migrations are one of them
            if cursor.description and cursor.description[0].name == _APPLIED:
                applied = [str(row[0]) for row in cursor.fetchall()]
            if not cursor.nextset():
                break
    finally:
        # A failed statement leaves the script's transaction open and aborted.
        if conn.info.transaction_status == TransactionStatus.INERROR:
            conn.execute("ROLLBACK")
    return applied


def _policy_timeouts(timeouts: DatabaseTimeouts | None) -> str:
    """The timeouts sql/policy.sql gives the functions, as settings of this transaction."""
    if timeouts is None:
        return "SELECT 1"
    return (
        sql.SQL(
            "SELECT set_config('archivist.lock_timeout', {}, true), "
            "set_config('archivist.statement_timeout', {}, true)"
        )
        .format(sql.Literal(str(timeouts.lock_ms)), sql.Literal(str(timeouts.statement_ms)))
        .as_string(None)
    )


def _record(key: str, value: str) -> str:
    """An archivist_meta upsert, as SQL text (for the printed script too)."""
    return (
        sql.SQL(
            "INSERT INTO archivist_meta (key, value) VALUES ({}, {}) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now()"
        )
        .format(sql.Literal(key), sql.Literal(value))
        .as_string(None)
    )


# The printed script applies a migration only if it is not recorded (and checks the checksum of
# one that is), like `init`: each migration runs inside a DO block, guarded by this function.
_DUE = """
CREATE OR REPLACE FUNCTION pg_temp.archivist_migration_due(p_name text, p_checksum text)
RETURNS boolean
LANGUAGE plpgsql
AS $$
DECLARE
    v_recorded text;
BEGIN
    SELECT m.checksum INTO v_recorded FROM archivist_migrations m WHERE m.name = p_name;
    IF NOT FOUND THEN
        INSERT INTO archivist_migrations (name, checksum) VALUES (p_name, p_checksum);
        RETURN true;
    END IF;
    IF v_recorded IS DISTINCT FROM p_checksum THEN
        RAISE EXCEPTION 'archivist: sql/%.sql was edited after this database applied it '
            '(its checksum differs): restore the file as applied and put the change in a '
            'new migration', p_name;
    END IF;
    RETURN false;
END;
$$;"""

_SQL_TAG = "$archivist_sql$"

# The migrations this script recorded (under the advisory lock, so a concurrent init's are not
# among them): what `init` reports as applied.
_APPLIED = "archivist_applied"
_APPLIED_NOW = (
    f"SELECT name AS {_APPLIED} FROM archivist_migrations "
    "WHERE xmin = pg_current_xact_id()::xid ORDER BY name"
)


def _guarded(migration: Migration) -> str:
    if _SQL_TAG in migration.sql:
        raise ConfigError(f"sql/{migration.path} must not contain {_SQL_TAG}")
    due = sql.SQL("pg_temp.archivist_migration_due({}, {})").format(
        sql.Literal(migration.name), sql.Literal(migration.checksum)
    )
    return (
        f"DO $archivist_migration$\nBEGIN\n    IF {due.as_string(None)} THEN\n"
        f"        EXECUTE {_SQL_TAG}\n{migration.sql.strip()}\n{_SQL_TAG};\n"
        "    END IF;\nEND;\n$archivist_migration$;"
    )


def migration_script(
    embedding_model: str,
    embedding_dim: int,
    timeouts: DatabaseTimeouts | None = None,
    access: str | None = None,
) -> str:
    """Everything `init` applies, as one SQL script that records itself (`init --print-sql`).

    In one transaction: each migration not yet recorded (and recorded with it), every function,
    the policy (with `timeouts`), and the embedding model and dimension, as `archivist init`
    does. Running it again, or on a database that has some of it, is safe.
    """
    parts = [
        "-- archivist schema, generated by `archivist init --print-sql`.",
        "-- Run it in the Supabase SQL editor, or save it in supabase/migrations/.",
        "BEGIN;",
        f"SELECT pg_advisory_xact_lock({_LOCK_KEY});",
        _CREATE_TABLE.strip() + ";",
        _DUE.strip(),
        _VECTOR_HOME.strip() + ";",
    ]
    for migration in load_migrations():
        parts += [
            f"\n-- ==== {migration.name} ====",
            _VECTOR_ON_PATH.strip() + ";",
            _guarded(migration),
        ]
    parts += [
        "\n-- ==== the migrations this script applied ====",
        _APPLIED_NOW + ";",
        "\n-- ==== the timeouts the policy gives the functions ====",
        _policy_timeouts(timeouts) + ";",
    ]
    if access is not None:
        parts += ["\n-- ==== who may read the archive ====", _record(ACCESS_KEY, access) + ";"]
    for part in load_definitions():
        parts += [f"\n-- ==== {part.path} ====", part.sql.strip()]
    parts.append("\n-- ==== the embedding model and the functions' checksum ====")
    parts.append(
        sql.SQL("SELECT archivist_record_embedding({}, {});")
        .format(sql.Literal(embedding_model), sql.Literal(embedding_dim))
        .as_string(None)
    )
    parts.append(_record(FUNCTIONS_KEY, functions_checksum()) + ";")
    parts.append("COMMIT;")
    return "\n".join(parts) + "\n"
