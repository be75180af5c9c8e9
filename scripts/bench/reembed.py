"""Benchmark of `archivist reembed`: chunks per second moving N chunks from 768-d to 384-d.

A throw-away embedded Postgres (pgserver) in a temporary directory, migrated for `hash-768`,
gets N chunks (default 10,000; 100 sessions, turn-window text of ~600 characters) by binary
COPY with ids derived the way the pipeline derives them. Then `reembed` moves them to the
offline `hash-384` embedder in batches of `--batch` (the `embed_batch_size` default, 64) and
swaps. Printed: the whole reembed's chunks/s, and the share of the swap (column change, id
and vector rewrite, HNSW rebuild) in it. The hash embedder is cheap next to Ollama, so this
measures the archivist's own cost; with Ollama, throughput is bounded by the model instead.

    .venv/bin/python -m scripts.bench.reembed [--chunks 10000] [--batch 64]
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import psycopg

from archivist.chunking import chunk_id, window_slot
from archivist.config import Settings
from archivist.embed.hashing import HashEmbedder
from archivist.reembed import reembed
from archivist.store import EmbeddingConfig, PostgresStore, ReembedStore
from scripts.bench.kit import embedded_server

WORDS = "deploy vercel redis cache oauth token rotate lisbon trip budget pipeline schema".split()


def fill(conn: psycopg.Connection[Any], chunks: int, seed: int) -> None:
    """`chunks` chunks of hash-768 vectors in 100 sessions, loaded by binary COPY."""
    rng = random.Random(seed)
    embedder = HashEmbedder(dimension=768, batch_size=256)
    rows = []
    for n in range(chunks):
        session, slot = f"session-{n % 100}", window_slot(n // 100)
        text = " ".join(rng.choice(WORDS) for _ in range(90))
        rows.append(
            (chunk_id(session, "session_turn", slot, 0, text, "hash-768"), session, slot, text)
        )
    with (
        conn.cursor() as cur,
        cur.copy(
            "COPY jarvis_memory_chunks (id, session_id, source, content, embedding, slot, "
            "content_hash, embedding_model, archive_version) FROM STDIN"
        ) as copy,
    ):
        for start in range(0, len(rows), 256):
            batch = rows[start : start + 256]
            for (id_, session, slot, text), vector in zip(
                batch, embedder.embed_batch([r[3] for r in batch]), strict=True
            ):
                embedding = "[" + ",".join(map(repr, vector.tolist())) + "]"
                copy.write_row(
                    (id_, session, "session_turn", text, embedding, slot, "h", "hash-768", 1)
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    with embedded_server() as server:
        url = server.create("bench_reembed")
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                store = PostgresStore(conn, Settings().sources)
                store.init(EmbeddingConfig("hash-768", 768))
                fill(conn, args.chunks, args.seed)
                conn.execute("VACUUM ANALYZE jarvis_memory_chunks")

                swap_s = 0.0
                original_swap = ReembedStore.swap

                def timed_swap(self: ReembedStore, model: str, dim: int) -> int | None:
                    nonlocal swap_s
                    started = time.perf_counter()
                    try:
                        return original_swap(self, model, dim)
                    finally:
                        swap_s += time.perf_counter() - started

                ReembedStore.swap = timed_swap  # type: ignore[method-assign]
                embedder = HashEmbedder(dimension=384, batch_size=args.batch)
                started = time.perf_counter()
                report = reembed(store, embedder, 384, args.batch)
                elapsed = time.perf_counter() - started
        finally:
            server.drop("bench_reembed")

    print(f"reembed of {report.chunks} chunks, hash-768 -> hash-384, batches of {args.batch}")
    print(f"  total        {elapsed:8.2f} s   {report.chunks / elapsed:8.0f} chunks/s")
    print(f"  swap + HNSW  {swap_s:8.2f} s   ({swap_s / elapsed:.0%} of the total)")
    print(f"  requests     {report.requests:8d}   ids kept: {report.ids_kept}")


if __name__ == "__main__":
    main()
