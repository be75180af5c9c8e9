"""Benchmark: the same archive run and searches over the direct Postgres transport and over the
Supabase REST transport (supabase-py through tests/support/postgrest_double.py, the gateway test
double, on 127.0.0.1), both on one embedded Postgres with the offline hash embedder.

What the REST numbers measure: supabase-py, HTTP on loopback and JSON (de)serialisation per
call, plus the double's own work (a pooled connection, a signature lookup, json_to_record). A
real Supabase adds the network round trip per call (tens of ms across a region), so the count
of calls per session, printed too, is the number to multiply by your latency.

Run:  python -m scripts.bench.transports                 (200 sessions x 40 messages)
      python -m scripts.bench.transports --sessions 20   (a smoke run)
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from archivist import ArchiveFilters, archive_search, memory_search
from archivist.client import archive
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest
from archivist.store import SessionSelection
from scripts.bench.corpus import TEMPLATE_DB, Server, load_corpus
from scripts.bench.kit import embedded_server
from tests.support.postgrest_double import SERVICE_KEY, PostgrestDouble

QUERIES = ["deploy the frontend", "database migration plan", "cache eviction", "trip to Lisbon"]


def run_transport(
    label: str, settings: Settings, sessions: int, calls: list[str]
) -> dict[str, Any]:
    request = ArchiveRequest(selection=SessionSelection(limit=sessions), delay_ms=0)
    before = len(calls)
    started = time.perf_counter()
    report = archive(settings, request)
    seconds = time.perf_counter() - started
    archived = sum(1 for s in report.sessions if s.status == "archived")
    rerun_started = time.perf_counter()
    rerun = archive(settings, request)
    rerun_s = time.perf_counter() - rerun_started
    memory_ms, archive_ms = [], []
    for _ in range(5):
        for query in QUERIES:
            t = time.perf_counter()
            memory_search(query, settings=settings)
            memory_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            archive_search(ArchiveFilters(topics=["deploy"]), settings=settings)
            archive_ms.append((time.perf_counter() - t) * 1000)
    return {
        "transport": label,
        "archived": archived,
        "archive_s": seconds,
        "sessions_per_s": archived / seconds if seconds else 0.0,
        "rerun_s": rerun_s,
        "rerun_changed": sum(1 for s in rerun.sessions if s.status == "archived"),
        "http_calls_per_session": (len(calls) - before) / max(archived, 1) if calls else None,
        "memory_search_median_ms": statistics.median(memory_ms),
        "archive_search_median_ms": statistics.median(archive_ms),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--messages", type=int, default=40)
    args = parser.parse_args(argv)
    with embedded_server() as shared, tempfile.TemporaryDirectory() as tmp:
        server = Server(shared)
        try:
            server.create_template()
            results = []
            direct_url = server.clone("bench_direct")
            load_corpus(direct_url, 7, "d", args.sessions, args.messages)
            direct = Settings(database_url=direct_url, embedder="hash", data_dir=Path(tmp))
            results.append(run_transport("postgres", direct, args.sessions, []))
            rest_url = server.clone("bench_rest")
            load_corpus(rest_url, 7, "d", args.sessions, args.messages)
            double = PostgrestDouble(rest_url).start()
            try:
                rest = Settings(
                    supabase_url=double.url,
                    supabase_service_role_key=SERVICE_KEY,
                    embedder="hash",
                    data_dir=Path(tmp),
                )
                calls = double.calls
                calls.clear()
                results.append(run_transport("supabase (double)", rest, args.sessions, calls))
            finally:
                double.stop()
        finally:
            server.drop(TEMPLATE_DB)
    print(f"{args.sessions} sessions x {args.messages} messages, hash-768 embedder")
    header = f"{'transport':<20}{'archive s':>10}{'sess/s':>9}{'rerun s':>9}"
    print(header + f"{'calls/sess':>11}{'memory ms':>11}{'archive ms':>11}")
    for r in results:
        calls = r["http_calls_per_session"]
        print(
            f"{r['transport']:<20}{r['archive_s']:>10.1f}{r['sessions_per_s']:>9.1f}"
            f"{r['rerun_s']:>9.2f}{(f'{calls:.1f}' if calls else '-'):>11}"
            f"{r['memory_search_median_ms']:>11.1f}{r['archive_search_median_ms']:>11.1f}"
        )
    bad = [r for r in results if r["archived"] != args.sessions or r["rerun_changed"]]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
