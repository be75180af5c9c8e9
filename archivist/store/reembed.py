"""The storage side of `archivist reembed`: the staging table and the swap function."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import psycopg

from archivist.embed.base import Vector
from archivist.errors import StoreError
from archivist.store.migrate import Conn

_LOCK_KEY = "archivist:reembed"


@dataclass(frozen=True)
class StoredChunk:
    """What a chunk's new id and vector are computed from."""

    id: str
    session_id: str
    source: str
    slot: str
    content: str
    model: str


class ReembedStore:
    """Reads chunks still to re-embed, stages their vectors, and swaps them in."""

    def __init__(self, conn: Conn) -> None:
        self.conn = conn

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the reembed lock: one reembed at a time per database."""
        key = [_LOCK_KEY]
        row = self.conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", key)
        if not row.fetchone()[0]:  # type: ignore[index]
            raise StoreError("another archivist reembed is running on this database")
        try:
            yield
        finally:
            if not self.conn.closed:
                self.conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", key)

    def drop_stale(self, model: str, dim: int) -> int:
        """Delete vectors staged for another target model or dimension; returns how many."""
        cur = self.conn.execute(
            "DELETE FROM archivist_reembed_staging WHERE model <> %s OR dim <> %s", [model, dim]
        )
        return cur.rowcount

    def counts(self) -> tuple[int, int]:
        """(chunks in the table, chunks with a staged vector)."""
        row = self.conn.execute(
            "SELECT (SELECT count(*) FROM jarvis_memory_chunks), "
            "(SELECT count(*) FROM jarvis_memory_chunks c WHERE EXISTS "
            "(SELECT 1 FROM archivist_reembed_staging s WHERE s.chunk_id = c.id))"
        ).fetchone()
        assert row is not None
        return int(row[0]), int(row[1])

    def unstaged(self, after: str | None, limit: int) -> list[StoredChunk]:
        """Up to `limit` chunks without a staged vector, in id order after `after`."""
        rows = self.conn.execute(
            "SELECT c.id::text, c.session_id, c.source, c.slot, c.content, c.embedding_model "
            "FROM jarvis_memory_chunks c "
            "WHERE c.id > coalesce(%s::uuid, '00000000-0000-0000-0000-000000000000') "
            "AND NOT EXISTS (SELECT 1 FROM archivist_reembed_staging s WHERE s.chunk_id = c.id) "
            "ORDER BY c.id LIMIT %s",
            [after, limit],
        ).fetchall()
        return [StoredChunk(*(str(v) for v in row)) for row in rows]

    def stage(
        self, chunks: Sequence[tuple[str, str]], vectors: Sequence[Vector], model: str, dim: int
    ) -> None:
        """Stage new vectors: `chunks` holds (current id, new id) pairs, in vector order."""
        with (
            self.conn.transaction(),
            self.conn.cursor().copy(
                "COPY archivist_reembed_staging (chunk_id, new_id, model, dim, embedding) "
                "FROM STDIN"
            ) as copy,
        ):
            for (old, new), vector in zip(chunks, vectors, strict=True):
                text = "[" + ",".join(map(repr, vector.tolist())) + "]"
                copy.write_row((old, new, model, dim, text))

    def swap(self, model: str, dim: int) -> int | None:
        """Move every chunk to the staged vectors in one transaction; None if some lack one."""
        try:
            with self.conn.transaction():
                # It rebuilds the HNSW index: no statement timeout (its lock_timeout holds).
                self.conn.execute("SELECT set_config('statement_timeout', '0', true)")
                row = self.conn.execute(
                    "SELECT archivist_reembed_swap(%s, %s)", [model, dim]
                ).fetchone()
        except psycopg.errors.ObjectNotInPrerequisiteState:
            return None  # chunks were added meanwhile: stage them, then swap again
        assert row is not None
        return int(row[0])
