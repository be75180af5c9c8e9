"""Migrations: applied once each, recorded, idempotent; a later migration applies on top of the
first release's schema (sql/001_schema.sql); the sql/ folder ships in the wheel."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import psycopg
import pytest
from conftest import HASH_768
from support.catalog import catalog

from archivist.config import Settings
from archivist.store import EmbeddingConfig, ModelMismatchError, PostgresStore, migrate
from archivist.store.migrate import functions_checksum, load_definitions, load_migrations

REPO = Path(__file__).resolve().parents[2]


def test_migrations_apply_once_and_twice_is_a_no_op(empty_db_url: str) -> None:
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        store = PostgresStore(conn, Settings().sources)
        applied, _ = store.init(HASH_768)
        assert applied == [m.name for m in load_migrations()]
        assert applied[0] == "001_schema"
        again, _ = store.init(HASH_768)
        assert again == []
        recorded = conn.execute("SELECT name FROM archivist_migrations ORDER BY name").fetchall()
        assert [r[0] for r in recorded] == applied
        assert store.pending_migrations() == []


def test_concurrent_inits_apply_each_migration_once_and_say_which_did(
    empty_db_url: str, db_url: str
) -> None:
    """Two inits at once on a new database: the advisory lock lets one apply the migrations
    and the other find them applied; each reports only what it applied itself."""
    start = threading.Barrier(2)
    reported: list[list[str]] = []

    def init() -> None:
        with psycopg.connect(empty_db_url, autocommit=True) as conn:
            store = PostgresStore(conn, Settings().sources)
            start.wait()
            reported.append(store.init(HASH_768)[0])

    threads = [threading.Thread(target=init) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(reported) == [[], [m.name for m in load_migrations()]]
    assert catalog(empty_db_url) == catalog(db_url)


def test_init_again_on_an_initialised_database_changes_nothing(db_url: str) -> None:
    before = catalog(db_url)
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("""SELECT archivist_start_run('{"kept": true}')""")
        applied, _ = PostgresStore(conn, Settings().sources).init(HASH_768)
        assert applied == []
        runs = conn.execute("SELECT arguments FROM archivist_runs").fetchall()
    assert runs == [({"kept": True},)]
    assert catalog(db_url) == before


# What a later release's migration may do: a column, an index, and a data change.
FUTURE_MIGRATION = """
ALTER TABLE archivist_runs ADD COLUMN note text;
CREATE INDEX archivist_runs_note_idx ON archivist_runs (note);
UPDATE archivist_runs SET note = 'before the next';
"""


@pytest.mark.parametrize("how", ["init", "print-sql"])
def test_a_later_migration_applies_on_top_of_the_earlier_ones(
    how: str, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database initialised by this version gets the next migration (here a temporary one)
    from the next `init` or printed script, once; what the earlier ones made and the data
    stay."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("""SELECT archivist_start_run('{"kept": true}')""")
    before = catalog(db_url)
    released = [m.name for m in load_migrations()]
    following = f"{int(released[-1][:3]) + 1:03d}_future"
    future = tmp_path / "sql"
    shutil.copytree(migrate.sql_dir(), future)
    (future / f"{following}.sql").write_text(FUTURE_MIGRATION, encoding="utf-8")
    monkeypatch.setattr(migrate, "sql_dir", lambda: future)
    assert [m.name for m in load_migrations()] == [*released, following]
    with psycopg.connect(db_url, autocommit=True) as conn:
        store = PostgresStore(conn, Settings().sources)
        assert store.pending_migrations() == [following]
        if how == "init":
            applied, _ = store.init(HASH_768)
            assert applied == [following]
        else:
            conn.execute(migrate.migration_script("hash-768", 768).encode())
        assert store.pending_migrations() == []
        again, _ = store.init(HASH_768)
        assert again == []
        rows = conn.execute("SELECT arguments, note FROM archivist_runs").fetchall()
    assert rows == [({"kept": True}, "before the next")]
    after = catalog(db_url)
    assert ("archivist_runs_note_idx",) == tuple(
        name for name, _ in after["indexes"] if name not in dict(before["indexes"])
    )
    # Only what the next migration made differs: its column, its index, its record.
    for key in ("tables", "constraints", "functions", "policies", "extensions", "meta"):
        assert after[key] == before[key], key
    assert [m[0] for m in after["migrations"]] == [*released, following]


def test_schema_has_the_indexes_and_storage_the_design_asks_for(db_url: str) -> None:
    with psycopg.connect(db_url) as conn:
        indexes = dict(
            conn.execute(
                "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN "
                "('jarvis_memory_chunks', 'jarvis_archive')"
            )
        )
        storage = dict(
            conn.execute(
                "SELECT attname, attstorage FROM pg_attribute "
                "WHERE attrelid = 'jarvis_memory_chunks'::regclass AND attnum > 0"
            ).fetchall()
        )
    assert "hnsw" in indexes["jarvis_memory_chunks_embedding_idx"]
    assert "vector_cosine_ops" in indexes["jarvis_memory_chunks_embedding_idx"]
    assert "jsonb_path_ops" in indexes["jarvis_archive_extraction_idx"]
    assert "(session_id)" in indexes["jarvis_memory_chunks_session_idx"]
    # a turn window's neighbours are found by their place (sql/002_turn_slot_index.sql)
    assert "(session_id, slot)" in indexes["jarvis_memory_chunks_turn_slot_idx"]
    assert storage["embedding"] == "p"  # PLAIN: the vector stays in the row
    assert storage["content"] == "m" and storage["metadata"] == "m"


def test_the_state_key_indexes_keep_no_pending_list(db_url: str) -> None:
    """Every commit looks items up through them: a pending list would be read in full each
    time (sql/068)."""
    with psycopg.connect(db_url) as conn:
        options = dict(
            conn.execute(
                "SELECT c.relname, coalesce(c.reloptions, '{}') FROM pg_index i "
                "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
                "WHERE i.indrelid = 'jarvis_state_items'::regclass AND a.amname = 'gin'"
            ).fetchall()
        )
    # subject and value (all, and those still true), old (changes without and with a
    # subject), anchored
    assert len(options) == 7
    assert all("fastupdate=off" in o for o in options.values()), options


def test_init_records_another_model_and_dimension_on_an_empty_archive(db_url: str) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        store = PostgresStore(conn, Settings().sources)
        store.init(EmbeddingConfig("all-minilm", 384))
        assert store.recorded_embedding() == EmbeddingConfig("all-minilm", 384)
        typ = conn.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = 'jarvis_memory_chunks'::regclass AND attname = 'embedding'"
        ).fetchone()
        assert typ == ("vector(384)",)
        storage = conn.execute(
            "SELECT attstorage FROM pg_attribute "
            "WHERE attrelid = 'jarvis_memory_chunks'::regclass AND attname = 'embedding'"
        ).fetchone()
        assert storage == ("p",)


def test_init_refuses_to_switch_model_while_chunks_exist(db_url: str) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO jarvis_memory_chunks (id, session_id, source, content, embedding, slot, "
            "content_hash, embedding_model, archive_version) VALUES (gen_random_uuid(), 's', "
            "'session_turn', 'x', array_fill(0.1, ARRAY[768])::vector, 'turns:000000', 'h', "
            "'hash-768', 1)"
        )
        store = PostgresStore(conn, Settings().sources)
        # a settings error (exit 2), with both ways out
        with pytest.raises(ModelMismatchError, match="cannot switch") as refused:
            store.init(EmbeddingConfig("mxbai-embed-large", 1024))
        assert str(refused.value).endswith(
            "; set ARCHIVIST_EMBEDDER=hash and ARCHIVIST_EMBEDDING_DIM=768, or move the "
            "database to mxbai-embed-large with: archivist reembed --model mxbai-embed-large "
            "--dim 1024"
        )
        assert store.recorded_embedding() == HASH_768


def test_the_built_wheel_carries_the_sql_folder(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(REPO),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next((tmp_path / "dist").glob("archivist-*.whl"))
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    # The installed package, imported from outside the checkout, finds its own sql/.
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from archivist.store.migrate import sql_dir, load_migrations, load_definitions,"
            " functions_checksum;"
            "print(sql_dir()); print(len(load_migrations())); print(len(load_definitions()));"
            "print(functions_checksum())",
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(site)},
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert out[0].startswith(str(site))
    assert int(out[1]) == len(load_migrations())
    # sql/functions/, sql/retire.sql and sql/policy.sql too, byte for byte.
    assert int(out[2]) == len(load_definitions()) > 3
    assert out[3] == functions_checksum()
