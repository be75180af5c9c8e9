"""Benchmark of the search functions (sql/functions/search_*.sql) on a synthetic corpus.

Everything runs against one embedded Postgres 16 + pgvector (`pgserver`) started in a temporary
directory and deleted afterwards, migrated with `PostgresStore.init` for `hash-768`. Latencies
are client wall times (execute + fetch over the local socket), one query at a time, on one
connection per case (psycopg's default automatic prepare), after two untimed warm-up queries.
Measured, in this order:

1. Loading N chunks (default 100,000) into `jarvis_memory_chunks` by binary COPY with the HNSW
   index dropped, then the HNSW build on its own (`maintenance_work_mem = 1GB`), then VACUUM
   ANALYZE. Vectors: 200 random unit cluster centres, each point = centre + a random offset in
   a 24-d subspace of its cluster + isotropic noise, normalised, so nearest neighbours are
   well defined and ANN recall is meaningful. Sessions: one holds 10 % of the rows, one 1 %,
   the rest ~20 chunks each. Sources: session_turn 85 %, session_summary 10 %,
   archive_extraction 5 %.
2. memory_search, unfiltered, over Q query vectors drawn near cluster centres:
   `match_jarvis_memory_chunks(q, 10, '{}')`, the raw HNSW query
   `ORDER BY embedding <=> q LIMIT 10` at hnsw.ef_search 100 (what the function sets) and 40
   (pgvector's default), and an exact scan `ORDER BY (embedding <=> q) + 0 LIMIT 10`, whose
   results are the ground truth for recall@10.
3. memory_search, filtered: the function with `session_ids` = the 10 % and the 1 % session and
   with `source` = session_summary (10 %), next to the raw HNSW query with the same WHERE
   (forced onto the HNSW index with enable_sort = off; on pgvector < 0.8 it filters after the
   index scan and comes back short) and an exact scan with the same WHERE (ground truth).
4. memory_search through `hybrid_jarvis_memory_chunks` (the ranking every search mode uses):
   with a query vector and a 4-word query text (words drawn like the chunks' text: a 5,000-word
   vocabulary with Zipf frequencies), and words only (a NULL vector), unfiltered and with a
   session filter (the 10 % and the 1 % session); next to them, with the same filter, the raw
   HNSW query and the full-text floor: a bare GIN lookup of 100 chunks having any word of the
   query (no order), and the same ranked by ts_rank. The hybrid's note gives its p95 over the
   sum of the raw HNSW's and the bare GIN lookup's (issue 27's target: at most 3x). The words
   part scores at most 500 chunks (`archivist.text_candidates`); rows with the cap off
   (every chunk with a query word scored) give the capped rankings' recall@10 against them,
   and a vector-only row (text_weight 0) the vector part's share of the hybrid's time. After
   the hybrid, the turns around its hits (`archivist_turn_neighbours` on its result ids, the
   second call a memory search makes; each chunk stands at its place in its session).
5. archive_search: M versions (default 100,000; 1-3 per session, `jarvis_archive_sessions`
   pointing at the latest, `is_latest` set on it) with realistic extraction JSON (topics from
   a 500-word vocabulary with Zipf frequencies, decisions, entities keyed `tool:x`, actions),
   GIN index rebuilt after the COPY and timed. `search_jarvis_archive` by a rare, a mid and a
   common topic, by entity key and by entity name, by decision text, next to two floors: the
   bare containment query `WHERE extraction @> '{"topics": [t]}' LIMIT 20` (ids only, any
   version, no order: the target of issue 17 is stated against it; psycopg prepares it after
   five calls, and a generic plan suits it) and a hand-written query returning the function's
   rows (same columns, same order: latest versions, containment, ORDER BY version_at DESC
   LIMIT 20), planned for its values on every call as the function's statement is
   (`plan_cache_mode = force_custom_plan`). The cases of a group run interleaved, query by
   query, each on its own connection, so load on the machine falls on all of them alike;
   jsonb columns are read as text (no JSON decoding in Python, which costs more than the
   query and is the client's, not the database's); one row per band shows the function with
   psycopg's decoding. The function's note gives its p95 over each floor's.
6. Index use inside the plpgsql functions: the per-transaction scan counters
   (`pg_stat_get_xact_numscans`, `pg_stat_xact_user_tables`) around a single call, on a fresh
   connection and on a connection that already made many calls (where plpgsql would switch a
   statically planned query to a generic plan; the memory searches build statements per call,
   `search_jarvis_archive` forces a custom plan): a rare topic should read the latest-version
   GIN index, a common one walk the latest-version index on version_at.

Slow cases stop after `--budget` seconds (and at least 20 queries); `n` says how many ran.
Progress goes to stderr; the result table (or `--json`) goes to stdout.

Run:  python -m scripts.bench.search                (100k chunks, 100k versions, ~5-10 min)
      python -m scripts.bench.search --quick        (10k / 10k, < 1 min)
      python -m scripts.bench.search --memory-only  (sections 1-4 only)
      python -m scripts.bench.search --chunks 50000 --versions 20000 --queries 100 --seed 7 --json
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import re
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg.types.string import TextLoader

from archivist.config import Settings
from archivist.store import EmbeddingConfig, PostgresStore
from scripts.bench import kit

Conn = psycopg.Connection[Any]
Row = tuple[str, ...]

EMBEDDING = EmbeddingConfig("hash-768", 768)
DIM = EMBEDDING.dim
CLUSTERS = 200
LOCAL_RANK = 24
POINT_SPREAD, QUERY_SPREAD, NOISE = 0.45, 0.30, 0.15
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
HNSW_INDEX = "jarvis_memory_chunks_embedding_idx"
SESSION_INDEX = "jarvis_memory_chunks_session_idx"
GIN_INDEX = "jarvis_archive_extraction_idx"
VERSION_AT_INDEX = "jarvis_archive_version_at_idx"
LATEST_GIN_INDEX = "jarvis_archive_latest_extraction_idx"
LATEST_AT_INDEX = "jarvis_archive_latest_at_idx"
BIG_SESSION, SMALL_SESSION = "s-big", "s-small"
# 2 % standing rules (state items "Always ..."), so the hybrid's rule lookup
# (archivist_standing_rule) is timed with thousands of rules in reach of an unfiltered search.
SOURCES = {
    "session_turn": 0.83,
    "session_summary": 0.10,
    "archive_extraction": 0.05,
    "state_item": 0.02,
}
FILTER_SOURCE = "session_summary"
MIN_QUERIES = 20
ENTITY_TOOL = "Redis"

CHUNK_COLUMNS = (
    "id, session_id, source, content, embedding, metadata, slot, content_hash, "
    "embedding_model, archive_version"
)
CHUNK_TYPES = ["uuid", "text", "text", "text", "vector", "jsonb", "text", "text", "text", "int4"]
ARCHIVE_COLUMNS = (
    "id, session_id, version_at, span, extraction, version, extractor, extractor_version, "
    "watermark_at, watermark_id, message_count"
)
ARCHIVE_TYPES = [
    "uuid", "text", "timestamptz", "jsonb", "jsonb", "int4", "text", "text", "timestamptz",
    "text", "int4",
]  # fmt: skip
SESSION_COLUMNS = (
    "session_id, latest_version, archive_id, watermark_at, watermark_id, message_count"
)
SESSION_TYPES = ["text", "int4", "uuid", "timestamptz", "text", "int4"]

TOPIC_HEADS = (
    "postgres", "redis", "oauth", "billing", "deploy", "kubernetes", "latency", "migration",
    "search", "caching", "auth", "frontend", "backend", "ci", "monitoring", "alerts", "pricing",
    "onboarding", "security", "backup", "logging", "testing", "docs", "mobile", "etl",
)  # fmt: skip
TOPIC_TAILS = (
    "", "setup", "outage", "costs", "design", "review", "tuning", "rollout", "bug", "plan",
    "limits", "errors", "upgrade", "metrics", "schema", "config", "tests", "access", "scaling",
    "api",
)  # fmt: skip
TOOLS = (
    "Vercel", "Redis", "Memcached", "Postgres", "Kafka", "Docker", "Kubernetes", "Terraform",
    "GitHub Actions", "Sentry", "Grafana", "Prometheus", "Supabase", "Cloudflare", "Nginx",
    "FastAPI", "Celery", "RabbitMQ", "S3", "Fly.io", "pgvector", "Airflow", "dbt", "Stripe",
)  # fmt: skip
PEOPLE = ("Maria", "Tom", "Priya", "Jonas", "Aiko", "Carlos")
SERVICES = ("the billing API", "the auth service", "the web app", "the ingest worker")
DECISIONS = (
    "Use {tool} for {service}.",
    "Switch {service} from {tool2} to {tool}.",
    "Keep {tool2} and put {tool} in front of it as a cache.",
    "Drop {tool2}; {service} moves to {tool}.",
)
ACTIONS = (
    "Deploy {service} to {tool}.",
    "Add {tool} metrics to {service}.",
    "Rotate the {tool} credentials.",
)
OUTCOMES = ("planned", "done", "blocked")


@dataclass(frozen=True)
class Plan:
    chunks: int
    versions: int
    queries: int
    seed: int
    budget_s: float
    memory_only: bool = False


# -- embedded Postgres --------------------------------------------------------------------------


@contextmanager
def embedded_postgres() -> Iterator[str]:
    """A migrated database `bench_search` on the benchmarks' server, dropped afterwards."""
    with kit.embedded_server() as server:
        url = server.create("bench_search")
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                PostgresStore(conn, Settings().sources).init(EMBEDDING)
            yield url
        finally:
            server.drop("bench_search")


def connect(url: str) -> Conn:
    conn = psycopg.connect(url, autocommit=True)
    register_vector(conn)
    return conn


def scalar(conn: Conn, query: str, params: Sequence[Any] | None = None) -> Any:
    row = conn.execute(query, params).fetchone()
    return row[0] if row else None


def environment_facts(conn: Conn) -> dict[str, str]:
    facts = {"python": platform.python_version(), "cpus": str(os.cpu_count())}
    facts["postgres"] = str(scalar(conn, "SHOW server_version"))
    facts["pgvector"] = str(
        scalar(conn, "SELECT extversion FROM pg_extension WHERE extname = 'vector'")
    )
    for name in ("shared_buffers", "work_mem", "max_parallel_maintenance_workers", "jit"):
        facts[name] = str(scalar(conn, f"SHOW {name}"))
    facts["auto_explain"] = "available" if auto_explain_available(conn) else "not installed"
    return facts


def auto_explain_available(conn: Conn) -> bool:
    try:
        conn.execute("LOAD 'auto_explain'")
    except psycopg.Error:
        return False
    return True


# -- timing -------------------------------------------------------------------------------------

_STARTED = time.perf_counter()


def log(message: str) -> None:
    print(f"[bench {time.perf_counter() - _STARTED:6.1f}s] {message}", file=sys.stderr, flush=True)


@dataclass
class Case:
    """Latencies of one query over a list of parameter sets."""

    section: str
    label: str
    n: int
    p50_ms: float
    p95_ms: float
    max_ms: float
    mean_rows: float
    recall: float | None = None
    note: str = ""
    results: list[list[Any]] = field(default_factory=list, repr=False)


def run_case(
    conn: Conn,
    section: str,
    label: str,
    query: str,
    params: Sequence[Sequence[Any]],
    budget_s: float | None = None,
    warmup: int = 2,
) -> Case:
    """Time `query` once per parameter set (first column of each row kept), within a budget."""
    for p in params[:warmup]:
        conn.execute(query, p).fetchall()
    latencies: list[float] = []
    results: list[list[Any]] = []
    started = time.perf_counter()
    for p in params:
        t = time.perf_counter()
        rows = conn.execute(query, p).fetchall()
        latencies.append(time.perf_counter() - t)
        results.append([r[0] for r in rows])
        over = budget_s is not None and time.perf_counter() - started > budget_s
        if over and len(latencies) >= MIN_QUERIES:
            break
    ms = np.array(latencies) * 1000
    return Case(
        section=section,
        label=label,
        n=len(latencies),
        p50_ms=float(np.percentile(ms, 50)),
        p95_ms=float(np.percentile(ms, 95)),
        max_ms=float(ms.max()),
        mean_rows=float(np.mean([len(r) for r in results])),
        results=results,
    )


def recall_at_10(found: list[list[Any]], truth: list[list[Any]]) -> float:
    """Mean share of the true top-10 found, over the queries both lists have."""
    shares = [
        len(set(f) & set(t)) / len(t) for f, t in zip(found, truth, strict=False) if len(t) > 0
    ]
    return float(np.mean(shares)) if shares else float("nan")


@contextmanager
def settings(conn: Conn, **values: str) -> Iterator[None]:
    """Session settings (dots as `__`) for the body, reset afterwards."""
    names = [name.replace("__", ".") for name in values]
    for name, value in zip(names, values.values(), strict=True):
        conn.execute(sql.SQL("SET {} = {}").format(sql.SQL(name), sql.Literal(value)))
    try:
        yield
    finally:
        for name in names:
            conn.execute(sql.SQL("RESET {}").format(sql.SQL(name)))


def plan_shape(conn: Conn, query: str, params: Sequence[Any]) -> str:
    """The plan's node types and index names, outermost first, e.g. `Limit > Index Scan(idx)`."""
    plan = scalar(conn, "EXPLAIN (FORMAT JSON) " + query, params)[0]["Plan"]
    nodes: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        name = node["Node Type"]
        if "Index Name" in node:
            name += f"({node['Index Name']})"
        nodes.append(name)
        for child in node.get("Plans", []):
            walk(child)

    walk(plan)
    return " > ".join(nodes)


# -- the chunk corpus ---------------------------------------------------------------------------


@dataclass
class VectorSpace:
    centres: np.ndarray  # (CLUSTERS, DIM), unit length
    bases: np.ndarray  # (CLUSTERS, DIM, LOCAL_RANK), columns of about unit length


def make_space(rng: np.random.Generator) -> VectorSpace:
    centres = normalise(rng.standard_normal((CLUSTERS, DIM), dtype=np.float32))
    bases = rng.standard_normal((CLUSTERS, DIM, LOCAL_RANK), dtype=np.float32) / np.sqrt(DIM)
    return VectorSpace(centres, bases.astype(np.float32))


def normalise(vectors: np.ndarray) -> np.ndarray:
    unit: np.ndarray = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    return unit


def sample_vectors(
    space: VectorSpace, rng: np.random.Generator, clusters: np.ndarray, spread: float
) -> np.ndarray:
    """Unit vectors: centre + an offset of norm ~spread in the cluster's subspace + noise."""
    out = np.empty((len(clusters), DIM), dtype=np.float32)
    for c in np.unique(clusters):
        rows = np.flatnonzero(clusters == c)
        z = rng.standard_normal((len(rows), LOCAL_RANK), dtype=np.float32)
        local = (z @ space.bases[c].T) * (spread / np.sqrt(LOCAL_RANK))
        noise = rng.standard_normal((len(rows), DIM), dtype=np.float32) * (NOISE / np.sqrt(DIM))
        out[rows] = space.centres[c] + local + noise
    return normalise(out)


def session_ids(n: int, rng: np.random.Generator) -> list[str]:
    """10 % of the rows in BIG_SESSION, 1 % in SMALL_SESSION, the rest ~20 per session."""
    big, small = n // 10, n // 100
    rest = n - big - small
    others = rng.integers(0, max(1, rest // 20), size=rest)
    ids = [BIG_SESSION] * big + [SMALL_SESSION] * small + [f"s-{k:06d}" for k in others]
    return [ids[i] for i in rng.permutation(n)]


# Chunk text: words of a 5,000-word vocabulary with Zipf frequencies (s = 1), as in real text, so
# that full-text ranking sees rare and common words; queries draw 4 words the same way.
TEXT_VOCABULARY = tuple(
    f"{a}{b}{n}" for n in range(100) for a in "bdfgklmnprstvz" for b in "aeiou"
)[:5000]
_ZIPF_WEIGHTS = tuple(1 / (i + 1) for i in range(len(TEXT_VOCABULARY)))
_ZIPF_CUMULATIVE = tuple(itertools.accumulate(_ZIPF_WEIGHTS))


def zipf_words(rnd: random.Random, k: int) -> list[str]:
    return rnd.choices(TEXT_VOCABULARY, cum_weights=_ZIPF_CUMULATIVE, k=k)


def turn_window(rnd: random.Random, metadata: dict[str, Any]) -> str:
    """A turn window's text: 4 turns of 5 to 12 words (20 to 45 words, as other chunks have),
    with what a commit stores of them (archivist_turn_positions): where each turn starts in the
    text and among the full text's positions. The vocabulary has no stop words, so word i of the
    window is position i + 1."""
    turns = [zipf_words(rnd, rnd.randint(5, 12)) for _ in range(4)]
    before = list(itertools.accumulate(len(t) for t in turns[:-1]))
    lines = [" ".join(t) for t in turns]
    metadata.update(
        turn_starts=[0, *itertools.accumulate(len(line) + 1 for line in lines[:-1])],
        turn_positions=[n + 1 for n in before],
        turn_words=before,
    )
    return "\n".join(lines)


def chunk_rows(
    vectors: np.ndarray, sessions: list[str], sources: list[str], rnd: random.Random
) -> Iterator[tuple[Any, ...]]:
    places: Counter[str] = Counter()  # a chunk's place in its session, as turn windows have
    for i, (vector, session, source) in enumerate(zip(vectors, sessions, sources, strict=True)):
        first = T0 + timedelta(minutes=i)
        metadata: dict[str, Any] = {
            "first_at": first.isoformat(),
            "last_at": (first + timedelta(minutes=rnd.randint(1, 90))).isoformat(),
            "message_ids": [i],
        }
        places[session] += 1
        if source == "session_turn":
            content = turn_window(rnd, metadata)
        elif source == "state_item":
            content = "Always " + " ".join(zipf_words(rnd, rnd.randint(6, 14)))
            metadata.update(type="constraint", standing=True)
        else:
            content = " ".join(zipf_words(rnd, rnd.randint(20, 45)))
        yield (
            uuid.UUID(int=rnd.getrandbits(128), version=4),
            session,
            source,
            content,
            vector,
            metadata,
            f"turns:{places[session]:06d}",
            f"{rnd.getrandbits(256):064x}",
            EMBEDDING.model,
            1,
        )


def copy_rows(
    conn: Conn, table: str, columns: str, types: list[str], rows: Iterable[Sequence[Any]]
) -> float:
    """Binary COPY; returns the seconds it took (generating the rows included)."""
    started = time.perf_counter()
    with (
        conn.cursor() as cur,
        cur.copy(f"COPY {table} ({columns}) FROM STDIN (FORMAT BINARY)") as cp,
    ):
        cp.set_types(types)
        for row in rows:
            cp.write_row(row)
    return time.perf_counter() - started


@dataclass
class Load:
    rows: int
    copy_s: float
    index_build_s: float
    analyze_s: float
    table_mb: float
    index_mb: float
    index_definition: str


def rebuild_index(conn: Conn, index: str, fill: Callable[[], float], table: str) -> Load:
    """Drop `index`, run `fill` (the COPY), re-create the index and VACUUM ANALYZE, each timed."""
    definition = str(scalar(conn, "SELECT indexdef FROM pg_indexes WHERE indexname = %s", [index]))
    conn.execute(f"DROP INDEX {index}")
    copy_s = fill()
    started = time.perf_counter()
    with settings(conn, maintenance_work_mem="1GB"):
        conn.execute(definition)
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    conn.execute(f"VACUUM ANALYZE {table}")
    analyze_s = time.perf_counter() - started
    mb = 1024 * 1024
    return Load(
        rows=int(scalar(conn, f"SELECT count(*) FROM {table}")),
        copy_s=copy_s,
        index_build_s=build_s,
        analyze_s=analyze_s,
        table_mb=scalar(conn, "SELECT pg_table_size(%s::regclass)", [table]) / mb,
        index_mb=scalar(conn, "SELECT pg_relation_size(%s::regclass)", [index]) / mb,
        index_definition=definition,
    )


def load_chunks(conn: Conn, plan: Plan, space: VectorSpace, rng: np.random.Generator) -> Load:
    n = plan.chunks
    vectors = sample_vectors(space, rng, rng.integers(0, CLUSTERS, size=n), POINT_SPREAD)
    sessions = session_ids(n, rng)
    sources = list(rng.choice(list(SOURCES), size=n, p=list(SOURCES.values())))
    rnd = random.Random(plan.seed)
    rows = chunk_rows(vectors, sessions, [str(s) for s in sources], rnd)
    return rebuild_index(
        conn,
        HNSW_INDEX,
        lambda: copy_rows(conn, "jarvis_memory_chunks", CHUNK_COLUMNS, CHUNK_TYPES, rows),
        "jarvis_memory_chunks",
    )


# -- memory_search ------------------------------------------------------------------------------

FN_SQL = "SELECT * FROM match_jarvis_memory_chunks(%s, 10, %s)"
HNSW_SQL = "SELECT id FROM jarvis_memory_chunks {where} ORDER BY embedding <=> %s LIMIT 10"
EXACT_SQL = "SELECT id FROM jarvis_memory_chunks {where} ORDER BY (embedding <=> %s) + 0 LIMIT 10"


def memory_unfiltered(conn: Conn, queries: np.ndarray) -> list[Case]:
    section = "memory_search, unfiltered"
    vec = [[q] for q in queries]
    exact = run_case(conn, section, "exact scan (<=> + 0)", EXACT_SQL.format(where=""), vec)
    exact.recall = 1.0
    exact.note = plan_shape(conn, EXACT_SQL.format(where=""), vec[0])
    fn = run_case(
        conn, section, "match_jarvis_memory_chunks", FN_SQL, [[q, Jsonb({})] for q in queries]
    )
    fn.note = "function sets ef_search 100"
    cases = [fn]
    for ef in ("100", "40"):
        with settings(conn, hnsw__ef_search=ef):
            case = run_case(
                conn, section, f"raw HNSW, ef_search {ef}", HNSW_SQL.format(where=""), vec
            )
            case.note = plan_shape(conn, HNSW_SQL.format(where=""), vec[0])
        cases.append(case)
    for case in cases:
        case.recall = recall_at_10(case.results, exact.results)
    return [*cases, exact]


@dataclass(frozen=True)
class Filter:
    label: str
    json: dict[str, Any]
    where: str
    value: str


def memory_filtered(conn: Conn, queries: np.ndarray, budget_s: float) -> list[Case]:
    filters = [
        Filter(
            "session_ids [10 % session]", {"session_ids": [BIG_SESSION]}, "session_id", BIG_SESSION
        ),
        Filter(
            "session_ids [1 % session]",
            {"session_ids": [SMALL_SESSION]},
            "session_id",
            SMALL_SESSION,
        ),
        Filter(
            f"source {FILTER_SOURCE} (10 %)", {"source": FILTER_SOURCE}, "source", FILTER_SOURCE
        ),
    ]
    cases: list[Case] = []
    for f in filters:
        log(f"memory_search filtered by {f.label}")
        cases += filtered_cases(conn, queries, f, budget_s)
    return cases


def filtered_cases(conn: Conn, queries: np.ndarray, f: Filter, budget_s: float) -> list[Case]:
    section = f"memory_search, filter {f.label}"
    fn = run_case(
        conn,
        section,
        "match_jarvis_memory_chunks",
        FN_SQL,
        [[q, Jsonb(f.json)] for q in queries],
        budget_s,
    )
    ran = queries[: fn.n]
    where = f"WHERE {f.where} = %s"
    params = [[f.value, q] for q in ran]
    exact = run_case(
        conn, section, "exact scan, same WHERE", EXACT_SQL.format(where=where), params, budget_s
    )
    exact.note = plan_shape(conn, EXACT_SQL.format(where=where), params[0])
    with settings(conn, hnsw__ef_search="100", enable_sort="off"):
        hnsw = run_case(
            conn, section, "raw HNSW ef 100, same WHERE", HNSW_SQL.format(where=where), params
        )
        hnsw.note = plan_shape(conn, HNSW_SQL.format(where=where), params[0])
    for case in (fn, hnsw, exact):
        case.recall = recall_at_10(case.results, exact.results)
    return [fn, hnsw, exact]


HYBRID_SQL = "SELECT * FROM hybrid_jarvis_memory_chunks(%s, %s, 10, %s)"
TEXT_SQL = "SELECT * FROM hybrid_jarvis_memory_chunks(NULL, %s, 10, %s, 0, 1)"
VECTOR_SQL = "SELECT * FROM hybrid_jarvis_memory_chunks(%s, NULL, 10, %s, 1, 0)"
AROUND_SQL = "SELECT * FROM archivist_turn_neighbours(%s::text[], %s)"
# The full-text floor: 100 ids the GIN index finds for any word of the query, under the same
# filter, in no order (the least a words search can do; kept on the GIN index with
# enable_seqscan off, as a common word would make it a sequential scan), and the same ranked
# by ts_rank (what Postgres offers to rank them, which reads every match).
GIN_SQL = (
    "SELECT id FROM jarvis_memory_chunks WHERE fts @@ to_tsquery('english', %s) {where} LIMIT 100"
)
GIN_RANKED_SQL = (
    "SELECT id FROM jarvis_memory_chunks WHERE fts @@ to_tsquery('english', %s) {where} "
    "ORDER BY ts_rank(fts, to_tsquery('english', %s)) DESC, id LIMIT 100"
)


def memory_hybrid(conn: Conn, queries: np.ndarray, budget_s: float, seed: int) -> list[Case]:
    """hybrid_jarvis_memory_chunks (vector + words), its words-only form and their floors.

    Per filter, in the same run: the raw HNSW query with the same WHERE (ef_search 100) and the
    bare GIN top-100 lookup; the hybrid's note gives its p95 over the sum of theirs (the target
    of issue 27 is at most 3x).
    """
    rnd = random.Random(seed + 1)
    texts = [" ".join(zipf_words(rnd, 4)) for _ in queries]
    any_word = [" | ".join(t.split()) for t in texts]
    cases = []
    for label, filter_, session in (
        ("unfiltered", {}, None),
        ("session 10 %", {"session_ids": [BIG_SESSION]}, BIG_SESSION),
        ("session 1 %", {"session_ids": [SMALL_SESSION]}, SMALL_SESSION),
    ):
        section = f"memory_search hybrid, {label}"
        log(section)
        where, args = ("AND session_id = %s", [session]) if session else ("", [])
        hybrid = run_case(
            conn,
            section,
            "hybrid_jarvis_memory_chunks",
            HYBRID_SQL,
            [[q, t, Jsonb(filter_)] for q, t in zip(queries, texts, strict=True)],
            budget_s,
        )
        around = run_case(
            conn,
            section,
            "the turns around its hits",
            AROUND_SQL,
            [[[str(i) for i in ids], Jsonb(filter_)] for ids in hybrid.results],
            budget_s,
        )
        around.note = "archivist_turn_neighbours: a search's second call"
        words = run_case(
            conn,
            section,
            "same, words only (NULL vector)",
            TEXT_SQL,
            [[t, Jsonb(filter_)] for t in texts],
            budget_s,
        )
        vector = run_case(
            conn,
            section,
            "same, vector only (text_weight 0)",
            VECTOR_SQL,
            [[q, Jsonb(filter_)] for q in queries],
            budget_s,
        )
        with settings(conn, archivist__text_candidates="0"):
            every_hybrid = run_case(
                conn,
                section,
                "hybrid, every match scored",
                HYBRID_SQL,
                [[q, t, Jsonb(filter_)] for q, t in zip(queries, texts, strict=True)],
                budget_s,
            )
            every = run_case(
                conn,
                section,
                "same, every match scored",
                TEXT_SQL,
                [[t, Jsonb(filter_)] for t in texts],
                budget_s,
            )
        every.note = every_hybrid.note = "archivist.text_candidates = 0 (no cap)"
        every.recall = every_hybrid.recall = 1.0
        words.recall = recall_at_10(words.results, every.results)
        hybrid.recall = recall_at_10(hybrid.results, every_hybrid.results)
        hnsw_sql = HNSW_SQL.format(where="WHERE session_id = %s" if session else "")
        hnsw_params = [[*args, q] for q in queries]
        with settings(conn, hnsw__ef_search="100", enable_sort="off"):
            hnsw = run_case(conn, section, "raw HNSW ef 100, same WHERE", hnsw_sql, hnsw_params)
            hnsw.note = plan_shape(conn, hnsw_sql, hnsw_params[0])
        gin_params = [[w, *args] for w in any_word]
        with settings(conn, enable_seqscan="off"):
            gin = run_case(
                conn, section, "bare GIN top-100 (floor)", GIN_SQL.format(where=where), gin_params
            )
            gin.note = plan_shape(conn, GIN_SQL.format(where=where), gin_params[0])
        ranked = run_case(
            conn,
            section,
            "GIN matches by ts_rank, top 100",
            GIN_RANKED_SQL.format(where=where),
            [[w, *args, w] for w in any_word],
            budget_s,
        )
        floor = hnsw.p95_ms + gin.p95_ms
        for case in (hybrid, words):
            case.note = f"p95 {case.p95_ms / floor:.1f}x (raw HNSW + bare GIN) p95"
        cases += [hybrid, around, every_hybrid, words, every, vector, hnsw, gin, ranked]
    return cases


# -- the archive corpus -------------------------------------------------------------------------


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@dataclass
class Vocabulary:
    topics: list[str]  # by rank, most frequent first
    cum_weights: list[float]


def make_vocabulary(rnd: random.Random) -> Vocabulary:
    topics = [f"{h} {t}".strip() for h in TOPIC_HEADS for t in TOPIC_TAILS]
    rnd.shuffle(topics)
    weights = [1 / (rank + 1) ** 1.05 for rank in range(len(topics))]
    cum = list(np.cumsum(weights))
    return Vocabulary(topics, [float(w) for w in cum])


def extraction(
    session: str, span: dict[str, Any], vocab: Vocabulary, rnd: random.Random
) -> dict[str, Any]:
    topics = list(
        dict.fromkeys(rnd.choices(vocab.topics, cum_weights=vocab.cum_weights, k=rnd.randint(3, 6)))
    )
    tools = rnd.sample(TOOLS, rnd.randint(2, 5))
    people = rnd.sample(PEOPLE, rnd.randint(0, 2))

    def fill(template: str) -> str:
        return template.format(
            tool=rnd.choice(tools), tool2=rnd.choice(TOOLS), service=rnd.choice(SERVICES)
        )

    entities = [{"type": "tool", "name": t, "key": f"tool:{slug(t)}"} for t in tools]
    entities += [{"type": "person", "name": p, "key": f"person:{slug(p)}"} for p in people]
    return {
        "version": 1,
        "session_id": session,
        "span": span,
        "summary": f"Discussed {', '.join(topics[:3])} with {tools[0]}.",
        "topics": topics,
        "decisions": [
            {"text": fill(rnd.choice(DECISIONS)), "context": None} for _ in range(rnd.randint(0, 3))
        ],
        "entities": entities,
        "actions": [
            {"description": fill(rnd.choice(ACTIONS)), "outcome": rnd.choice(OUTCOMES)}
            for _ in range(rnd.randint(0, 3))
        ],
        "preferences_inferred": [],
    }


@dataclass
class ArchiveCorpus:
    rows: list[tuple[Any, ...]]
    sessions: list[tuple[Any, ...]]
    topic_counts: Counter[str]  # versions holding each topic


def make_archive(versions: int, vocab: Vocabulary, rnd: random.Random) -> ArchiveCorpus:
    rows: list[tuple[Any, ...]] = []
    sessions: list[tuple[Any, ...]] = []
    counts: Counter[str] = Counter()
    index = 0
    while len(rows) < versions:
        session = f"a-{index:06d}"
        start = T0 + timedelta(minutes=3 * index)
        latest: tuple[Any, ...] = ()
        for version in range(1, min(rnd.randint(1, 3), versions - len(rows)) + 1):
            at = start + timedelta(hours=6 * version)
            span = {
                "first_turn_at": start.isoformat(),
                "last_turn_at": at.isoformat(),
                "turn_count": 8 * version,
            }
            data = extraction(session, span, vocab, rnd)
            counts.update(data["topics"])
            latest = (
                uuid.UUID(int=rnd.getrandbits(128), version=4),
                session,
                at,
                span,
                data,
                version,
                "rules",
                "1",
                at,
                f"m-{index}-{version}",
                8 * version,
            )
            rows.append(latest)
        sessions.append((session, latest[5], latest[0], latest[8], latest[9], latest[10]))
        index += 1
    return ArchiveCorpus(rows, sessions, counts)


def load_archive(conn: Conn, corpus: ArchiveCorpus) -> Load:
    def fill() -> float:
        seconds = copy_rows(conn, "jarvis_archive", ARCHIVE_COLUMNS, ARCHIVE_TYPES, corpus.rows)
        seconds += copy_rows(
            conn, "jarvis_archive_sessions", SESSION_COLUMNS, SESSION_TYPES, corpus.sessions
        )
        if scalar(conn, "SELECT to_regclass('jarvis_archive_latest_extraction_idx') IS NOT NULL"):
            # The latest-version flag the commit keeps (sql/040), as it would have kept it.
            started = time.perf_counter()
            conn.execute(
                "UPDATE jarvis_archive a SET is_latest = true FROM jarvis_archive_sessions s "
                "WHERE s.archive_id = a.id"
            )
            seconds += time.perf_counter() - started
        return seconds

    load = rebuild_index(conn, GIN_INDEX, fill, "jarvis_archive")
    conn.execute("VACUUM ANALYZE jarvis_archive_sessions")
    return load


# -- archive_search -----------------------------------------------------------------------------

ARCHIVE_FN = "SELECT * FROM search_jarvis_archive({args})"
BARE_SQL = "SELECT id FROM jarvis_archive WHERE extraction @> %s LIMIT 20"
# The function's rows for one containment document, written by hand (no filter on the arrays).
EQUIVALENT_SQL = (
    "SELECT a.session_id, a.version, a.version_at, a.span, a.extraction ->> 'summary', "
    "a.extraction -> 'topics', coalesce(a.extraction -> 'decisions', '[]'), "
    "coalesce(a.extraction -> 'entities', '[]'), coalesce(a.extraction -> 'actions', '[]'), "
    "coalesce(a.extraction -> 'state_items', '[]') "
    "FROM jarvis_archive a WHERE a.is_latest AND a.extraction @> %s "
    "ORDER BY a.version_at DESC, a.session_id, a.version DESC LIMIT 20"
)
FUNCTION_LABEL = "search_jarvis_archive"
BARE_LABEL = "bare @> ... LIMIT 20"
EQUIVALENT_LABEL = "hand-written, same rows"


@dataclass(frozen=True)
class TopicBand:
    name: str
    topics: list[str]

    def describe(self, counts: Counter[str], versions: int) -> str:
        held = [counts[t] for t in self.topics]
        share = 100 * float(np.mean(held)) / versions
        return (
            f"{len(self.topics)} topics, in {min(held):,}-{max(held):,} versions each "
            f"(~{share:.2g} %)"
        )


def topic_bands(vocab: Vocabulary, counts: Counter[str]) -> list[TopicBand]:
    ranked = [t for t in vocab.topics if counts[t] > 0]
    rare = ranked[int(len(ranked) * 0.9) :][:20]
    mid = ranked[40:45]
    absent = ["no such topic", "quantum billing"]  # in no version: the scan's worst case
    return [
        TopicBand("rare", rare),
        TopicBand("mid", mid),
        TopicBand("common", ranked[:1]),
        TopicBand("absent", absent),
    ]


def band_topics(bands: list[TopicBand], name: str) -> list[str]:
    return next(b.topics for b in bands if b.name == name)


def cycle(values: Sequence[Any], n: int) -> list[Any]:
    return [values[i % len(values)] for i in range(n)]


def archive_cases(url: str, bands: list[TopicBand], n: int, budget_s: float) -> list[Case]:
    cases: list[Case] = []
    for band in bands:
        log(f"archive_search by {band.name} topic")
        section = f"archive_search, {band.name} topic"
        topics = cycle(band.topics, n)
        docs = [[Jsonb({"topics": [t]})] for t in topics]
        function = ARCHIVE_FN.format(args="p_topics => %s")
        specs = [
            Spec(FUNCTION_LABEL + "(p_topics)", function, [[[t]] for t in topics]),
            Spec(BARE_LABEL, BARE_SQL, docs),
            Spec(EQUIVALENT_LABEL, EQUIVALENT_SQL, docs, custom_plans=True),
            Spec("same function, jsonb decoded", function, [[[t]] for t in topics], decode=True),
        ]
        cases += with_ratios(run_interleaved(url, section, specs, budget_s))
    log("archive_search by entity and decision")
    section = "archive_search, entity key"
    key = f"tool:{slug(ENTITY_TOOL)}"
    doc = [[Jsonb({"entities": [{"key": key}]})]] * n
    specs = [
        Spec(
            f"{FUNCTION_LABEL}(p_entity => '{key}')",
            ARCHIVE_FN.format(args="p_entity => %s"),
            [[key]] * n,
        ),
        Spec(f"bare @> entities key {key}", BARE_SQL, doc),
        Spec(EQUIVALENT_LABEL + " (all entities)", EQUIVALENT_SQL, doc, custom_plans=True),
    ]
    cases += with_ratios(run_interleaved(url, section, specs, budget_s))
    section = "archive_search, other filters"
    specs = [
        Spec(
            f"p_entity => '{ENTITY_TOOL}' (by name)",
            ARCHIVE_FN.format(args="p_entity => %s"),
            [[ENTITY_TOOL]] * n,
        ),
        Spec(
            "p_decision => 'memcached'",
            ARCHIVE_FN.format(args="p_decision => %s"),
            [["memcached"]] * n,
        ),
        Spec(
            "p_topics rare + p_decision",
            ARCHIVE_FN.format(args="p_topics => %s, p_decision => %s"),
            [[[t], "use"] for t in cycle(band_topics(bands, "rare"), n)],
        ),
        Spec("no filter (latest 20)", ARCHIVE_FN.format(args=""), [[]] * n),
    ]
    cases += run_interleaved(url, section, specs, budget_s)
    return cases


@dataclass(frozen=True)
class Spec:
    """One query of an interleaved group, with a parameter set per round."""

    label: str
    query: str
    params: list[Any]
    decode: bool = False  # jsonb decoded by psycopg (json.loads) instead of read as text
    custom_plans: bool = False  # planned for its values on every call, as the function plans


def run_interleaved(url: str, section: str, specs: list[Spec], budget_s: float) -> list[Case]:
    """Time the specs round by round (each on its own connection) within one budget."""
    with ExitStack() as stack:
        conns = [stack.enter_context(connect(url)) for _ in specs]
        for spec, conn in zip(specs, conns, strict=True):
            if not spec.decode:
                conn.adapters.register_loader("jsonb", TextLoader)
            if spec.custom_plans:
                conn.execute("SET plan_cache_mode = force_custom_plan")
        latencies: list[list[float]] = [[] for _ in specs]
        rows: list[list[int]] = [[] for _ in specs]
        started = time.perf_counter()
        for i in range(-2, len(specs[0].params)):  # two untimed warm-up rounds
            for spec, conn, lat, got in zip(specs, conns, latencies, rows, strict=True):
                t = time.perf_counter()
                n = len(conn.execute(spec.query, spec.params[max(i, 0)]).fetchall())
                if i >= 0:
                    lat.append(time.perf_counter() - t)
                    got.append(n)
            over = time.perf_counter() - started > budget_s
            if over and len(latencies[0]) >= MIN_QUERIES:
                break
    cases = []
    for spec, lat, got in zip(specs, latencies, rows, strict=True):
        ms = np.array(lat) * 1000
        cases.append(
            Case(
                section=section,
                label=spec.label,
                n=len(lat),
                p50_ms=float(np.percentile(ms, 50)),
                p95_ms=float(np.percentile(ms, 95)),
                max_ms=float(ms.max()),
                mean_rows=float(np.mean(got)),
            )
        )
    return cases


def with_ratios(cases: list[Case]) -> list[Case]:
    """Note on the function's row its p95 over the bare lookup's and the hand-written query's."""
    function, bare, equivalent = cases[0], cases[1], cases[2]
    function.note = (
        f"p95 {function.p95_ms / bare.p95_ms:.1f}x bare, "
        f"{function.p95_ms / equivalent.p95_ms:.1f}x hand-written"
    )
    return cases


# -- index use inside the functions ------------------------------------------------------------


@dataclass
class IndexUse:
    call: str
    when: str
    rows: int
    index_scans: dict[str, int]
    index_tuples: dict[str, int]
    seq_scans: dict[str, int]
    seq_tuples: dict[str, int]


def index_use(
    conn: Conn,
    call: str,
    params: Sequence[Any],
    when: str,
    indexes: Sequence[str],
    tables: Sequence[str],
) -> IndexUse:
    """Scan counters of the current transaction around one call (nothing else runs in it).

    Since Postgres 15 a backend keeps its counters pending for up to a second; forcing a flush
    first leaves the transaction's own counters to count this one call only.
    """
    conn.execute("SELECT pg_stat_force_next_flush()")
    with conn.transaction():
        rows = len(conn.execute(call, params).fetchall())
        counters = {
            i: conn.execute(
                "SELECT pg_stat_get_xact_numscans(%s::regclass), "
                "pg_stat_get_xact_tuples_returned(%s::regclass)",
                [i, i],
            ).fetchone()
            or (0, 0)
            for i in indexes
        }
        seq = conn.execute(
            "SELECT relname, seq_scan, seq_tup_read FROM pg_stat_xact_user_tables "
            "WHERE relname = ANY(%s)",
            [list(tables)],
        ).fetchall()
    return IndexUse(
        call=call % tuple(repr_param(p) for p in params),
        when=when,
        rows=rows,
        index_scans={i: int(c[0]) for i, c in counters.items()},
        index_tuples={i: int(c[1]) for i, c in counters.items()},
        seq_scans={str(r[0]): int(r[1]) for r in seq},
        seq_tuples={str(r[0]): int(r[2]) for r in seq},
    )


def repr_param(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return "q"
    if isinstance(value, Jsonb):
        return f"'{json.dumps(value.obj)}'"
    return repr(value)


def index_use_checks(
    url: str, bands: list[TopicBand], queries: np.ndarray, warm_calls: int
) -> list[IndexUse]:
    archive_idx = [
        LATEST_GIN_INDEX,
        LATEST_AT_INDEX,
        GIN_INDEX,
        VERSION_AT_INDEX,
        "jarvis_archive_pkey",
        "jarvis_archive_sessions_pkey",
        "jarvis_archive_sessions_archive_idx",
    ]
    archive_tables = ["jarvis_archive", "jarvis_archive_sessions"]
    calls: list[tuple[str, list[Any], list[str], list[str]]] = [
        (
            ARCHIVE_FN.format(args="p_topics => %s"),
            [[band_topics(bands, "rare")[0]]],
            archive_idx,
            archive_tables,
        ),
        (
            ARCHIVE_FN.format(args="p_topics => %s"),
            [[band_topics(bands, "common")[0]]],
            archive_idx,
            archive_tables,
        ),
        (
            ARCHIVE_FN.format(args="p_topics => %s"),
            [[band_topics(bands, "absent")[0]]],
            archive_idx,
            archive_tables,
        ),
        (ARCHIVE_FN.format(args="p_entity => %s"), ["tool:redis"], archive_idx, archive_tables),
    ]
    chunk_idx = [HNSW_INDEX, SESSION_INDEX]
    for f in ({}, {"session_ids": [SMALL_SESSION]}, {"source": FILTER_SOURCE}):
        calls.append((FN_SQL, [queries[0], Jsonb(f)], chunk_idx, ["jarvis_memory_chunks"]))
    out: list[IndexUse] = []
    for call, params, indexes, tables in calls:
        with connect(url) as conn:
            out.append(index_use(conn, call, params, "1st call, fresh connection", indexes, tables))
            for _ in range(warm_calls):
                conn.execute(call, params).fetchall()
            out.append(index_use(conn, call, params, f"after {warm_calls} calls", indexes, tables))
    return out


# -- running it all -----------------------------------------------------------------------------


@dataclass
class Results:
    plan: Plan
    environment: dict[str, str]
    chunk_load: Load
    archive_load: Load | None
    topic_bands: dict[str, str]
    cases: list[Case]
    index_use: list[IndexUse]
    total_s: float = 0.0


def run_benchmark(plan: Plan) -> Results:
    started = time.perf_counter()
    rng = np.random.default_rng(plan.seed)
    rnd = random.Random(plan.seed)
    log("starting (or joining) the embedded Postgres")
    with embedded_postgres() as url, connect(url) as conn:
        environment = environment_facts(conn)
        space = make_space(rng)
        log(f"loading {plan.chunks:,} chunks (binary COPY, then the HNSW build)")
        chunk_load = load_chunks(conn, plan, space, rng)
        queries = sample_vectors(
            space, rng, rng.integers(0, CLUSTERS, size=plan.queries), QUERY_SPREAD
        )
        log(f"memory_search unfiltered, {plan.queries} queries")
        cases = memory_unfiltered(conn, queries)
        cases += memory_filtered(conn, queries, plan.budget_s)
        cases += memory_hybrid(conn, queries, plan.budget_s, plan.seed)
        if plan.memory_only:
            results = Results(plan, environment, chunk_load, None, {}, cases, [])
            results.total_s = time.perf_counter() - started
            return results
        log(f"loading {plan.versions:,} archive versions")
        vocab = make_vocabulary(rnd)
        corpus = make_archive(plan.versions, vocab, rnd)
        archive_load = load_archive(conn, corpus)
        bands = topic_bands(vocab, corpus.topic_counts)
        cases += archive_cases(url, bands, plan.queries, plan.budget_s)
        log("index use inside the functions")
        uses = index_use_checks(url, bands, queries, warm_calls=10)
    described = {b.name: b.describe(corpus.topic_counts, len(corpus.rows)) for b in bands}
    results = Results(plan, environment, chunk_load, archive_load, described, cases, uses)
    results.total_s = time.perf_counter() - started
    return results


# -- output -------------------------------------------------------------------------------------


def table(headers: Row, rows: list[Row]) -> list[str]:
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(headers))]
    fmt = "  ".join(
        f"{{:{'<' if i in (0, len(headers) - 1) else '>'}{w}}}" for i, w in enumerate(widths)
    )
    return [fmt.format(*headers).rstrip(), *(fmt.format(*r).rstrip() for r in rows)]


def load_lines(name: str, load: Load) -> list[str]:
    return [
        f"  {name}: {load.rows:,} rows, table {load.table_mb:,.0f} MB, "
        f"index {load.index_mb:,.0f} MB",
        f"    binary COPY {load.copy_s:.1f} s ({load.rows / load.copy_s:,.0f} rows/s), "
        f"index build {load.index_build_s:.1f} s, VACUUM ANALYZE {load.analyze_s:.1f} s",
        f"    {load.index_definition}",
    ]


def case_lines(cases: list[Case]) -> list[str]:
    lines: list[str] = []
    for section in dict.fromkeys(c.section for c in cases):
        rows = [
            (
                c.label,
                str(c.n),
                f"{c.p50_ms:.2f}",
                f"{c.p95_ms:.2f}",
                f"{c.max_ms:.1f}",
                f"{c.mean_rows:.1f}",
                "-" if c.recall is None else f"{c.recall:.3f}",
                c.note,
            )
            for c in cases
            if c.section == section
        ]
        headers = (
            "  " + section,
            "n",
            "p50 ms",
            "p95 ms",
            "max ms",
            "rows",
            "recall@10",
            "plan / note",
        )
        lines += ["", *table(headers, [("  " + r[0], *r[1:]) for r in rows])]
    return lines


def index_use_lines(uses: list[IndexUse]) -> list[str]:
    rows = []
    for u in uses:
        scans = ", ".join(
            f"{short(k)} {v}" + (f" ({u.index_tuples[k]:,} entries)" if v else "")
            for k, v in u.index_scans.items()
        )
        seq = ", ".join(
            f"{short(k)} {u.seq_scans[k]} ({u.seq_tuples[k]:,} rows)" for k in u.seq_scans
        )
        rows.append((u.call, u.when, str(u.rows), scans, seq))
    return table(
        ("  call", "when", "rows", "index scans (entries read)", "seq scans (rows read)"),
        [("  " + r[0], *r[1:]) for r in rows],
    )


def short(name: str) -> str:
    return name.removeprefix("jarvis_").replace("memory_chunks_", "chunks_")


def render(results: Results) -> str:
    p = results.plan
    lines = [
        f"bench_search: {p.chunks:,} chunks, {p.versions:,} versions, {p.queries} queries, "
        f"seed {p.seed}, budget {p.budget_s:g} s per slow case"
    ]
    lines += ["", "environment", *(f"  {k}: {v}" for k, v in sorted(results.environment.items()))]
    lines += [
        "",
        "loading",
        *load_lines("chunks", results.chunk_load),
        *(load_lines("archive", results.archive_load) if results.archive_load else []),
    ]
    lines += ["", "topic bands", *(f"  {k}: {v}" for k, v in results.topic_bands.items())]
    lines += case_lines(results.cases)
    if results.index_use:
        lines += ["", "index use inside the functions (pg_stat_get_xact_numscans around one call)"]
        lines += index_use_lines(results.index_use)
    lines += ["", f"total {results.total_s:.1f} s"]
    return "\n".join(lines)


def as_json(results: Results) -> str:
    data = asdict(results)
    for case in data["cases"]:
        case.pop("results")
    return json.dumps(data, indent=2, default=str)


# -- command line -------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--chunks", type=int, default=None, help="chunks (default 100000)")
    parser.add_argument(
        "--versions", type=int, default=None, help="archive versions (default 100000)"
    )
    parser.add_argument("--queries", type=int, default=None, help="queries per case (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="corpus seed (default 1)")
    parser.add_argument(
        "--budget", type=float, default=None, help="seconds per slow case (default 15)"
    )
    parser.add_argument("--quick", action="store_true", help="smoke size: 10k / 10k, 50 queries")
    parser.add_argument(
        "--memory-only", action="store_true", help="memory_search only (no archive, no index use)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser.parse_args(argv)


def make_plan(args: argparse.Namespace) -> Plan:
    quick = args.quick
    return Plan(
        chunks=args.chunks or (10_000 if quick else 100_000),
        versions=args.versions or (10_000 if quick else 100_000),
        queries=args.queries or (50 if quick else 200),
        seed=args.seed,
        budget_s=args.budget or (3.0 if quick else 15.0),
        memory_only=args.memory_only,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    plan = make_plan(args)
    results = run_benchmark(plan)
    print(as_json(results) if args.json else render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
