"""`archivist reembed`: moves the chunk table to another embedding model.

Phase one embeds every chunk with the new model, a batch at a time, and stages the vectors
(sql/functions/reembed.sql); each batch commits, so an interrupted run loses at most one batch and
the next run embeds only what is not staged yet. Phase two swaps everything in one transaction:
new vectors, new chunk ids (ids derive from the model, see `chunking.chunk_id`), the column's
dimension, the recorded model, and the HNSW index rebuilt after the bulk update. Until that
commit, the table serves the old model unchanged.

Chunk ids are recomputed by finding the piece number that reproduces the stored id under the
old model; a chunk whose id cannot be reproduced (written by another id scheme) keeps its id,
and is simply replaced the next time its slot is rewritten.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from pydantic import BaseModel

from archivist.chunking import chunk_id
from archivist.embed.base import Embedder, embed_documents, probe
from archivist.errors import ConfigError, DimensionMismatchError, StoreError
from archivist.store import PostgresStore, ReembedStore, StoredChunk

log = logging.getLogger(__name__)

# How many piece numbers are tried to reproduce a chunk's id (pieces of one slot).
MAX_PIECES = 256
# How often chunks added by a concurrent archive run are staged before giving up.
_SWAP_ATTEMPTS = 5

Progress = Callable[[int, int], None]  # (chunks staged, chunks in total)


class ReembedReport(BaseModel):
    """What a reembed did; `--json` prints exactly this."""

    previous_model: str
    previous_dim: int
    model: str
    dim: int
    chunks: int
    embedded: int  # chunks embedded by this run (the rest were staged by an earlier one)
    resumed_from: int  # chunks already staged when this run started
    requests: int
    ids_kept: int  # chunks whose id could not be reproduced and was kept


def new_chunk_id(chunk: StoredChunk, model: str) -> str | None:
    """The chunk's id under `model`, or None if its stored id cannot be reproduced."""
    session, source, slot, text = chunk.session_id, chunk.source, chunk.slot, chunk.content
    for piece in range(MAX_PIECES):
        if chunk_id(session, source, slot, piece, text, chunk.model) == chunk.id:
            return chunk_id(session, source, slot, piece, text, model)
    return None


def reembed(
    store: PostgresStore,
    embedder: Embedder,
    dim: int | None,
    batch_size: int,
    progress: Progress | None = None,
    piece_chars: int | None = None,
) -> ReembedReport:
    """Re-embed every chunk with `embedder`, resumably, then swap the table over; a chunk
    longer than `piece_chars` is embedded in pieces, as an archive run does."""
    store.require_current_schema()
    previous = store.recorded_embedding()
    if previous is None:
        raise StoreError("no embedding model is recorded in the database; run: archivist init")
    staging = ReembedStore(store.conn)
    with staging.exclusive():
        dim = dim or _probe_dimension(embedder)
        stale = staging.drop_stale(embedder.model, dim)
        if stale:
            log.info("dropped %d vectors staged for another model or dimension", stale)
        total, already = staging.counts()
        report = ReembedReport(
            previous_model=previous.model,
            previous_dim=previous.dim,
            model=embedder.model,
            dim=dim,
            chunks=total,
            embedded=0,
            resumed_from=already,
            requests=0,
            ids_kept=0,
        )
        for _ in range(_SWAP_ATTEMPTS):
            _stage_all(staging, embedder, report, batch_size, progress, piece_chars)
            moved = staging.swap(embedder.model, dim)
            if moved is not None:
                report.chunks = moved
                return report
            total, _staged = staging.counts()
            report.chunks = total
    raise StoreError(
        "archive runs keep adding chunks while reembed runs; stop them and run reembed again"
    )


def _stage_all(
    staging: ReembedStore,
    embedder: Embedder,
    report: ReembedReport,
    batch_size: int,
    progress: Progress | None,
    piece_chars: int | None,
) -> None:
    after: str | None = None
    while chunks := staging.unstaged(after, batch_size):
        vectors, calls = embed_documents(embedder, [c.content for c in chunks], piece_chars)
        report.requests += calls
        wrong = {len(v) for v in vectors} - {report.dim}
        if wrong:
            raise DimensionMismatchError(
                f"{embedder.model} returns {wrong.pop()}-d vectors, not {report.dim}-d; "
                f"run: archivist reembed --model {embedder.model} --dim <its dimension>"
            )
        ids = []
        for chunk in chunks:
            new_id = new_chunk_id(chunk, embedder.model)
            if new_id is None:
                report.ids_kept += 1
            ids.append((chunk.id, new_id or chunk.id))
        staging.stage(ids, vectors, embedder.model, report.dim)
        report.embedded += len(chunks)
        after = chunks[-1].id
        if progress:
            progress(report.resumed_from + report.embedded, report.chunks)


def _probe_dimension(embedder: Embedder) -> int:
    vector = probe(embedder)
    if vector is None:
        raise ConfigError(f"{embedder.model} returned no vector; pass --dim")
    return len(vector)
