"""The first release's schema is never edited: a database that applied sql/001_schema.sql
records its checksum, and `init` refuses to run on a database whose recorded checksum differs
(archivist.store.migrate). A change of the schema is a new migration, sql/002_*.sql."""

from __future__ import annotations

from archivist.store.migrate import load_migrations

# sha256 of sql/001_schema.sql as folded in c781223 and applied by every init since.
RELEASED = {"001_schema": "ae555ff7bd3ebec8a2f4f0e18fda63fe082febad2d4ff8fef36e1be0acf687f9"}


def test_the_released_migrations_are_unchanged_and_come_first() -> None:
    migrations = load_migrations()
    applied = {m.name: m.checksum for m in migrations[: len(RELEASED)]}
    assert applied == RELEASED, (
        "a released migration was edited: databases that applied it would refuse to init; "
        "put the change in a new sql/00N_*.sql instead"
    )
