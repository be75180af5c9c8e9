"""Benchmark: what one warm `Archivist` client adds to each memory_search over the SQL
function's own time, and what a fresh connection per call (the module function) costs.

On one embedded Postgres with the offline hash embedder (so query embedding costs microseconds
and no network): archive a corpus, open one client, warm it, then make N memory_search calls.
After each call the same function call (name and arguments recorded from the client) is run
again under EXPLAIN ANALYZE on a separate connection; its Execution Time is the SQL
function's own time, and the per-call overhead is the client's wall time minus it: query
embedding, the arguments, the round trips (BEGIN, statement timeout, the call, COMMIT), the
rows' JSON and the pydantic models. The same call on a bare psycopg connection splits that
into what the database round trips cost and what the client itself adds. Then the same
queries through the module function `archivist.memory_search`, which opens (and closes) a
client, hence its connections, per call.

Run:  python -m scripts.bench.client                  (200 calls, 100 sessions x 20 messages)
      python -m scripts.bench.client --calls 20 --sessions 10   (a smoke run)
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from archivist import Archivist, memory_search
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest
from archivist.store import Json, PsycopgRpc, Rpc, SessionSelection
from scripts.bench.corpus import TEMPLATE_DB, Server, load_corpus
from scripts.bench.kit import embedded_server

QUERIES = [
    "deploy the frontend",
    "database migration plan",
    "cache eviction",
    "trip to Lisbon",
    "refresh token bug",
    "what did we decide about the pipeline?",
]


class Recorder:
    """The client's transport, remembering the last function call it made."""

    def __init__(self, rpc: Rpc) -> None:
        self.rpc = rpc
        self.last: tuple[str, Mapping[str, Any]] | None = None

    def call(self, function: str, args: Mapping[str, Any], timeout_ms: int | None = None) -> Any:
        self.last = (function, args)
        return self.rpc.call(function, args, timeout_ms)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rpc, name)


def execution_ms(conn: psycopg.Connection[Any], function: str, args: Mapping[str, Any]) -> float:
    """The function's own time in the server: EXPLAIN ANALYZE's Execution Time."""
    named = sql.SQL(", ").join(
        sql.SQL("{} => {}").format(sql.Identifier(n), sql.Placeholder(n)) for n in args
    )
    query = sql.SQL("EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM {}({})").format(
        sql.Identifier(function), named
    )
    params = {n: Jsonb(v.value) if isinstance(v, Json) else v for n, v in args.items()}
    plan = conn.execute(query, params).fetchone()
    assert plan is not None
    document = plan[0] if isinstance(plan[0], list) else json.loads(plan[0])
    return float(document[0]["Execution Time"])


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


def measure(settings: Settings, url: str, calls: int, warmup: int) -> dict[str, Any]:
    wall: list[float] = []
    own: list[float] = []
    bare: list[float] = []
    with Archivist(settings) as client, psycopg.connect(url, autocommit=True) as direct:
        store = client._db.open()  # a benchmark may look inside the client
        recorder = Recorder(store.rpc)
        store.rpc = recorder
        queries = itertools.cycle(QUERIES)
        for n in range(warmup + calls):
            query = next(queries)
            started = time.perf_counter()
            result = client.memory_search(query)
            elapsed = (time.perf_counter() - started) * 1000
            assert result.hits and recorder.last is not None
            function, args = recorder.last
            sql_ms = execution_ms(direct, function, args)
            started = time.perf_counter()
            PsycopgRpc(direct).call(function, args, timeout_ms=15_000)
            bare_ms = (time.perf_counter() - started) * 1000
            if n >= warmup:
                wall.append(elapsed)
                own.append(sql_ms)
                bare.append(bare_ms)
    fresh: list[float] = []
    for query in QUERIES * 3:
        started = time.perf_counter()
        memory_search(query, settings=settings)
        fresh.append((time.perf_counter() - started) * 1000)
    return {
        "function": function,
        "wall": percentiles(wall),
        "sql": percentiles(own),
        "overhead": percentiles([w - s for w, s in zip(wall, own, strict=True)]),
        "bare": percentiles(bare),
        "client_only": percentiles([w - b for w, b in zip(wall, bare, strict=True)]),
        "fresh": percentiles(fresh),
        "fresh_calls": len(fresh),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--messages", type=int, default=20)
    args = parser.parse_args(argv)
    with embedded_server() as shared, tempfile.TemporaryDirectory() as tmp:
        server = Server(shared)
        try:
            server.create_template()
            url = server.clone("bench_client")
            load_corpus(url, 7, "c", args.sessions, args.messages)
            settings = Settings(database_url=url, embedder="hash", data_dir=Path(tmp), delay_ms=0)
            with Archivist(settings) as client:
                report = client.archive(
                    ArchiveRequest(SessionSelection(limit=args.sessions), delay_ms=0)
                )
            with psycopg.connect(url) as conn:
                row = conn.execute("SELECT count(*) FROM jarvis_memory_chunks").fetchone()
            chunks = int(row[0]) if row else 0
            r = measure(settings, url, args.calls, args.warmup)
        finally:
            server.drop(TEMPLATE_DB)
    print(
        f"{len(report.sessions)} sessions, {chunks} chunks, hash-768 embedder; "
        f"{args.calls} memory_search calls from one warm client ({r['function']}, "
        f"{args.warmup} warm-up calls not counted)"
    )
    print(f"{'ms per call':<44}{'p50':>8}{'p95':>8}")
    rows = [
        ("client call, wall time", r["wall"]),
        ("SQL function's own time (EXPLAIN ANALYZE)", r["sql"]),
        ("overhead: client call - SQL function", r["overhead"]),
        ("  the same call on a bare psycopg connection", r["bare"]),
        ("  client call - bare call (the client's own)", r["client_only"]),
        (f"module function, new client per call (n={r['fresh_calls']})", r["fresh"]),
    ]
    for label, (p50, p95) in rows:
        print(f"{label:<44}{p50:>8.2f}{p95:>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
