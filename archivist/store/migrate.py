"""Applies the numbered, forward-only migrations in `sql/`, each in one transaction.

The files ship inside the wheel as `archivist/sql` (hatch force-include); in a source checkout
they are read from the repository's top-level `sql/`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import psycopg

_LOCK_KEY = 0x61726368  # "arch": serialises concurrent `init`s on one database

_CREATE_TABLE = """
CREATE TABLE IF NOT EXISTS archivist_migrations (
    name       text PRIMARY KEY,
    checksum   text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)"""


@dataclass(frozen=True)
class Migration:
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def sql_dir() -> Path:
    """The folder holding the migrations, in an installed package or a source checkout."""
    packaged = Path(str(resources.files("archivist"))) / "sql"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "sql"


def load_migrations() -> list[Migration]:
    """Every migration file, in the order of its number."""
    files = sorted(sql_dir().glob("[0-9][0-9][0-9]_*.sql"))
    return [Migration(f.stem, f.read_text(encoding="utf-8")) for f in files]


def applied_migrations(conn: psycopg.Connection[tuple[object, ...]]) -> set[str]:
    """Names of the migrations recorded as applied (empty if none ever was)."""
    exists = conn.execute("SELECT to_regclass('archivist_migrations') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return set()
    return {str(r[0]) for r in conn.execute("SELECT name FROM archivist_migrations")}


def pending_migrations(conn: psycopg.Connection[tuple[object, ...]]) -> list[Migration]:
    """Migrations not yet applied to this database."""
    done = applied_migrations(conn)
    return [m for m in load_migrations() if m.name not in done]


def apply_migrations(conn: psycopg.Connection[tuple[object, ...]]) -> list[str]:
    """Apply every pending migration, each with its record in one transaction; returns names."""
    applied: list[str] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])
        conn.execute(_CREATE_TABLE)
    for migration in load_migrations():
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])
            row = conn.execute(
                "SELECT 1 FROM archivist_migrations WHERE name = %s", [migration.name]
            ).fetchone()
            if row:
                continue
            conn.execute(migration.sql.encode())
            conn.execute(
                "INSERT INTO archivist_migrations (name, checksum) VALUES (%s, %s)",
                [migration.name, migration.checksum],
            )
            applied.append(migration.name)
    return applied
