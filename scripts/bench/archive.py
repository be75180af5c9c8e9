"""Benchmark of `archivist archive` on a synthetic corpus in a throw-away embedded Postgres.

Everything runs against one embedded Postgres 16 + pgvector (`pgserver`, see scripts/bench/kit.py:
started in a temporary directory and deleted afterwards, or the one scripts/bench/all.py shares);
the offline hash embedder (`hash-768`) is used, so the numbers
are those of the archivist and of Postgres, not of a model server. Measured, in this order:

1. Full archive of N sessions x M messages (default 1000 x 40, half of the sessions with a bot
   summary): wall time, sessions/s, messages/s, chunks/s, embedding calls and texts, chunks
   written, and where the time goes: embedding (`embed_batch`), `PostgresStore.commit_version`
   (building the payload, sending it, and the `archivist_commit_version` function; it runs in
   the run's commit thread, beside the rest, so its share overlaps theirs), the time the run
   waits for a commit and lets its session go, the rules extractor, the one read per session
   (`claim_read`: the claim and the read), and the rest; the statements Postgres received (counted
   in its log, on a copy of the database in an untimed run) per archived session.
2. Database write cost per chunk: the time inside `commit_version` divided by the chunks it
   inserted, next to a bare binary COPY of the very same chunk rows, selected back, into a copy
   of `jarvis_memory_chunks` with all its indexes (HNSW and full text included) and into one
   without any index; and the whole run next to a binary COPY of every row it wrote (chunks,
   versions, watermarks, message hashes, state items) into copies of their tables with the
   same indexes.
3. A re-run on unchanged data: it must embed nothing (the script exits 1 otherwise).
4. 10 % growth: M/10 more messages appended to every session, then an incremental run; the
   texts it embedded, by the source of the chunk that holds them.
5. Peak RSS of the archivist process: a child process (this script in its hidden `--child-url`
   mode) runs `archive` on a prepared database and reports its own peak RSS since `archive()`
   started (VmHWM after a /proc/self/clear_refs reset; `ru_maxrss` where /proc is missing, which
   also counts what the process inherited from its parent), for a corpus of 10k and of 100k
   messages (memory should not grow with the number of sessions) and for one session of 20,000
   messages (memory should stay bounded by `max_messages_per_version`).
   These databases lack the chunk table's search indexes (HNSW, full text) and commit
   asynchronously: that only spares the server, the measured process runs the same code.

The corpus is generated from `--seed` with `random.Random` (same seed, same corpus) and loaded
with binary COPY. Progress goes to stderr; the result table (or `--json`) goes to stdout. The
exit status is 1 if the unchanged re-run embedded anything or a session failed.

Run:  make bench                                  (python -m scripts.bench.archive)
      python -m scripts.bench.archive --quick          (smoke size, well under 30 s)
      python -m scripts.bench.archive --sessions 200 --messages 60 --seed 7 --json
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import psycopg

import archivist.extract.base as extract_base_module
from archivist.client import archive
from archivist.config import Settings
from archivist.embed.base import Vector
from archivist.embed.hashing import HashEmbedder
from archivist.models import RunReport
from archivist.pipeline import ArchiveRequest
from archivist.pipeline.run import Archiver
from archivist.store import CommitResult, PostgresStore, SessionSelection
from scripts.bench import kit
from scripts.bench.corpus import (
    EMBEDDING,
    TEMPLATE_DB,
    WRITTEN_TABLES,
    CopyStats,
    Server,
    copy_baseline,
    grow_corpus,
    load_corpus,
)
from tests.support.statements import StatementLog


def server_facts(url: str) -> dict[str, str]:
    with psycopg.connect(url, autocommit=True) as conn:
        facts = {
            "postgres": str(conn.execute("SHOW server_version").fetchone()[0]),  # type: ignore[index]
            "pgvector": str(
                conn.execute(
                    "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
                ).fetchone()[0]  # type: ignore[index]
            ),
        }
        names = conn.execute("SELECT name FROM archivist_migrations ORDER BY name").fetchall()
        facts["migrations"] = ", ".join(str(n) for (n,) in names)
        for name in ("fsync", "synchronous_commit", "shared_buffers", "maintenance_work_mem"):
            facts[name] = str(conn.execute(f"SHOW {name}").fetchone()[0])  # type: ignore[index]
    return facts


# -- instrumented archive runs ------------------------------------------------------------------


class CountingEmbedder(HashEmbedder):
    """The hash embedder, counting `embed_batch` calls, texts and the time spent in them."""

    def __init__(self, dimension: int = 768, batch_size: int = 64) -> None:
        super().__init__(dimension=dimension, batch_size=batch_size)
        self.calls = 0
        self.texts = 0
        self.seconds = 0.0
        self.sent: list[str] = []

    def embed_batch(self, texts: Sequence[str]) -> list[Vector]:
        started = time.perf_counter()
        try:
            return super().embed_batch(texts)
        finally:
            self.seconds += time.perf_counter() - started
            self.calls += 1
            self.texts += len(texts)
            self.sent += texts


@dataclass
class Timer:
    calls: int = 0
    seconds: float = 0.0


@contextmanager
def timed(
    owner: Any, name: str, timer: Timer, on_result: Callable[[Any], None] | None = None
) -> Iterator[None]:
    """Replace `owner.name` by a wrapper that adds its time to `timer`, restored on exit.

    A name the library no longer has is left alone (its timer stays at zero).
    """
    original = getattr(owner, name, None)
    if original is None:
        log(f"note: {getattr(owner, '__name__', owner)}.{name} not found; not timed")
        yield
        return

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            result = original(*args, **kwargs)
        finally:
            timer.seconds += time.perf_counter() - started
            timer.calls += 1
        if on_result is not None:
            on_result(result)
        return result

    setattr(owner, name, wrapper)
    try:
        yield
    finally:
        setattr(owner, name, original)


@dataclass
class Probes:
    """Timers around the archivist's phases (the benchmark patches them, only in this process)."""

    select: Timer = field(default_factory=Timer)
    read: Timer = field(default_factory=Timer)
    extract: Timer = field(default_factory=Timer)
    commit: Timer = field(default_factory=Timer)
    settle: Timer = field(default_factory=Timer)
    inserted: int = 0
    deleted: int = 0

    def _count(self, result: CommitResult) -> None:
        self.inserted += result.chunks_inserted
        self.deleted += result.chunks_deleted

    @contextmanager
    def installed(self) -> Iterator[None]:
        with ExitStack() as stack:
            stack.enter_context(timed(PostgresStore, "pending_claims", self.select))
            # The one read of a session (with its claim): messages, state, chunks, item vectors.
            stack.enter_context(timed(PostgresStore, "claim_read", self.read))
            stack.enter_context(timed(extract_base_module, "extend_extraction", self.extract))
            stack.enter_context(timed(PostgresStore, "commit_version", self.commit, self._count))
            # The run waiting for a commit (made beside it) and letting its session go.
            stack.enter_context(timed(Archiver, "_settle", self.settle))
            yield


@dataclass
class RunStats:
    label: str
    seconds: float
    sessions_seen: int
    sessions_archived: int
    sessions_failed: int
    new_messages: int
    versions: int
    embed_calls: int
    texts_embedded: int
    chunks_inserted: int
    chunks_removed: int
    embed_s: float
    commit_s: float
    settle_s: float
    extract_s: float
    read_s: float
    select_s: float
    failures: list[str]
    statements: int = 0  # received by Postgres during the run (its log), 0: not counted
    embedded_by_source: dict[str, int] = field(default_factory=dict)

    @property
    def statements_per_session(self) -> float:
        return self.statements / self.sessions_archived if self.sessions_archived else 0.0

    @property
    def other_s(self) -> float:
        measured = (self.embed_s + self.settle_s + self.extract_s + self.read_s) + self.select_s
        return max(0.0, self.seconds - measured)


def run_archive(url: str, data_dir: Path, limit: int, label: str) -> RunStats:
    """One `archive` run over (at most) `limit` sessions, fully instrumented."""
    settings = Settings(database_url=url, embedder="hash", data_dir=data_dir)
    embedder = CountingEmbedder(settings.embedding_dim, settings.embed_batch_size)
    probes = Probes()
    request = ArchiveRequest(selection=SessionSelection(limit=limit), delay_ms=0)
    with probes.installed():
        started = time.perf_counter()
        report = archive(settings, request, embedder=embedder)
        seconds = time.perf_counter() - started
    return RunStats(
        label=label,
        seconds=seconds,
        sessions_seen=len(report.sessions),
        sessions_archived=report.count("archived"),
        sessions_failed=len(report.failed),
        new_messages=sum(s.new_messages for s in report.sessions),
        versions=probes.commit.calls,
        embed_calls=embedder.calls,
        texts_embedded=embedder.texts,
        chunks_inserted=probes.inserted,
        chunks_removed=probes.deleted,
        embed_s=embedder.seconds,
        commit_s=probes.commit.seconds,
        settle_s=probes.settle.seconds,
        extract_s=probes.extract.seconds,
        read_s=probes.read.seconds,
        select_s=probes.select.seconds,
        failures=[f"{s.session_id}: {s.reason}" for s in report.failed][:5],
        embedded_by_source=embedded_by_source(url, embedder.sent),
    )


def embedded_by_source(url: str, texts: list[str]) -> dict[str, int]:
    """How many of the embedded texts each chunk source holds (texts no chunk holds: other)."""
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT DISTINCT content, source FROM jarvis_memory_chunks").fetchall()
    source = {str(content): str(kind) for content, kind in rows}
    counts: dict[str, int] = {}
    for text in texts:
        kind = source.get(text, "other (state candidates)")
        counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items()))


def count_statements(server: Server, url: str, database: str, data_dir: Path, limit: int) -> int:
    """The statements an archive run sends, counted in the server's log.

    The counted run works on a copy of the database, made before the timed run, so that
    statement logging (which costs time of its own) does not slow the timed run.
    """
    copy = f"{database}_counted"
    with psycopg.connect(server.admin_url, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
            [database],
        )
    server.create(copy, database)
    log_ = StatementLog(server.admin_url, copy)
    log_.enable()
    try:
        log_.start()
        settings = Settings(database_url=server.url(copy), embedder="hash", data_dir=data_dir)
        request = ArchiveRequest(selection=SessionSelection(limit=limit), delay_ms=0)
        archive(settings, request, embedder=HashEmbedder())
        return log_.count()
    finally:
        server.drop(copy)


# -- peak RSS in a child process ----------------------------------------------------------------


def peak_rss_mb() -> float:
    """This process's peak resident set size.

    On Linux, VmHWM of /proc/self/status: `ru_maxrss` is no good there, because a child keeps
    in it the RSS its parent had when it forked (the benchmark's parent holds the whole COPY
    baseline by then), and /proc/self/clear_refs does not reset that part. Elsewhere
    `ru_maxrss` (KiB on Linux, bytes on macOS).
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, IndexError, ValueError):
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def current_rss_mb() -> float:
    """This process's resident set size now (Linux), or its peak where /proc is missing."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return peak_rss_mb()
    return pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


def reset_peak_rss() -> bool:
    """Reset the peak RSS to the current RSS (Linux), so it measures what follows only."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def child_main(url: str, limit: int) -> int:
    """Hidden mode: archive the prepared database and print one JSON line about it."""
    reset = reset_peak_rss()
    baseline = current_rss_mb()
    settings = Settings(database_url=url, embedder="hash", data_dir=Path(tempfile.gettempdir()))
    request = ArchiveRequest(selection=SessionSelection(limit=limit), delay_ms=0)
    started = time.perf_counter()
    report: RunReport = archive(settings, request)
    result = {
        "seconds": time.perf_counter() - started,
        "baseline_rss_mb": baseline,
        "peak_rss_mb": peak_rss_mb(),
        "peak_since": "archive() started" if reset else "process started",
        "end_rss_mb": current_rss_mb(),
        "sessions": report.count("archived"),
        "failed": len(report.failed),
        "messages": sum(s.new_messages for s in report.sessions),
        "chunks": sum(s.chunks_added for s in report.sessions),
        "versions": sum(s.version_to - s.version_from for s in report.sessions),
    }
    print(json.dumps(result))
    return 0


@dataclass
class RssCase:
    label: str
    sessions: int
    messages: int
    load_s: float = 0.0
    seconds: float = 0.0
    baseline_rss_mb: float = 0.0
    peak_rss_mb: float = 0.0
    end_rss_mb: float = 0.0
    peak_since: str = ""
    chunks: int = 0
    versions: int = 0
    failed: int = 0
    error: str = ""


def lighten_for_rss(url: str) -> None:
    """Drop the chunk table's search indexes and make commits asynchronous in this database.

    Only the Postgres server does less work: the archivist process whose memory is measured
    runs the same code, so its peak RSS is unchanged and the runs take far less time.
    """
    keep = ("jarvis_memory_chunks_pkey", "jarvis_memory_chunks_session_idx")
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'jarvis_memory_chunks' "
            "AND indexname <> ALL(%s)",
            [list(keep)],
        ).fetchall()
        for (index,) in rows:
            conn.execute(f'DROP INDEX "{index}"')
        database = conn.execute("SELECT current_database()").fetchone()[0]  # type: ignore[index]
        conn.execute(f'ALTER DATABASE "{database}" SET synchronous_commit = off')


def run_child(url: str, limit: int) -> dict[str, Any]:
    """This script in its hidden child mode; returns the JSON line it printed."""
    command = [sys.executable, "-m", "scripts.bench.archive", "--child-url", url]
    command += ["--child-limit", str(limit)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=kit.ROOT, check=False)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or ["(no output)"]
        raise RuntimeError(f"child exited with {done.returncode}: {lines[-1]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def rss_case(server: Server, seed: int, label: str, sessions: int, messages: int) -> RssCase:
    """Load a corpus into its own database and archive it in a child process."""
    name = f"bench_rss_{sessions}x{messages}"
    url = server.clone(name)
    case = RssCase(label=label, sessions=sessions, messages=sessions * messages)
    try:
        lighten_for_rss(url)
        case.load_s = load_corpus(url, seed, "r", sessions, messages)
        result = run_child(url, sessions)
    except (RuntimeError, ValueError, psycopg.Error) as exc:
        case.error = str(exc)
        return case
    finally:
        server.drop(name)
    case.seconds = result["seconds"]
    case.baseline_rss_mb = result["baseline_rss_mb"]
    case.peak_rss_mb = result["peak_rss_mb"]
    case.end_rss_mb = result["end_rss_mb"]
    case.peak_since = result["peak_since"]
    case.chunks = result["chunks"]
    case.versions = result["versions"]
    case.failed = result["failed"]
    return case


# -- the benchmark ------------------------------------------------------------------------------


@dataclass
class Plan:
    sessions: int
    messages: int
    growth: int
    rss_sizes: list[tuple[int, int]]
    big_session: int
    seed: int


@dataclass
class Results:
    plan: Plan
    environment: dict[str, str]
    load_s: float
    full: RunStats
    copy: CopyStats
    rerun: RunStats
    growth_added: int
    growth: RunStats
    rss: list[RssCase]
    total_s: float = 0.0

    @property
    def ok(self) -> bool:
        runs = (self.full, self.rerun, self.growth)
        return (
            self.rerun.embed_calls == 0
            and not any(r.sessions_failed for r in runs)
            and not any(c.failed or c.error for c in self.rss)
        )


_STARTED = time.perf_counter()


def log(message: str) -> None:
    elapsed = time.perf_counter() - _STARTED
    print(f"[bench {elapsed:6.1f}s] {message}", file=sys.stderr, flush=True)


def run_benchmark(plan: Plan, shared: kit.Server, root: Path) -> Results:
    started = time.perf_counter()
    server = Server(shared)
    try:
        server.create_template()
        url = server.clone("bench")
        environment = environment_facts(url)
        n, m = plan.sessions, plan.messages
        log(f"loading {n} x {m} messages")
        load_s = load_corpus(url, plan.seed, "s", n, m)
        log("counting the statements of the full run (on a copy of the database)")
        full_statements = count_statements(server, url, "bench", root / "data", n)
        log("archiving (full run)")
        full = run_archive(url, root / "data", n, "full")
        full.statements = full_statements
        log("COPY baseline")
        copy = copy_baseline(url)
        log("re-run on unchanged data")
        rerun = run_archive(url, root / "data", n, "unchanged")
        log(f"appending {plan.growth} messages to every session and re-running")
        added = grow_corpus(url, plan.seed, "s", n, m, plan.growth)
        growth_statements = count_statements(server, url, "bench", root / "data", n)
        growth = run_archive(url, root / "data", n, "growth")
        growth.statements = growth_statements
        server.drop("bench")
        rss = []
        for sessions, messages in plan.rss_sizes:
            log(f"peak RSS: {sessions} x {messages} messages in a child process")
            label = f"{sessions * messages:,} messages ({sessions} x {messages})"
            rss.append(rss_case(server, plan.seed, label, sessions, messages))
        if plan.big_session:
            log(f"peak RSS: one session of {plan.big_session} messages in a child process")
            label = f"1 session x {plan.big_session:,} messages"
            rss.append(rss_case(server, plan.seed, label, 1, plan.big_session))
    finally:
        server.drop(TEMPLATE_DB)
    results = Results(plan, environment, load_s, full, copy, rerun, added, growth, rss)
    results.total_s = time.perf_counter() - started
    return results


def environment_facts(url: str) -> dict[str, str]:
    settings = Settings()
    facts = {
        "python": platform.python_version(),
        "cpus": str(os.cpu_count()),
        "embedder": f"{EMBEDDING.model} (HashEmbedder, batch {settings.embed_batch_size})",
        "turns_per_window": str(settings.turns_per_window),
        "chunk_max_chars": str(settings.chunk_max_chars),
        "max_messages_per_version": str(settings.max_messages_per_version),
    }
    facts.update(server_facts(url))
    return facts


# -- output -------------------------------------------------------------------------------------

Row = tuple[str, str]


def per_s(count: float, seconds: float) -> str:
    return f"{count / seconds:,.1f}" if seconds > 0 else "-"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.3f} ms"


def share(part: float, whole: float) -> str:
    return f"{part:8.2f} s  {100 * part / whole:5.1f} %" if whole > 0 else f"{part:8.2f} s"


def run_rows(run: RunStats) -> list[Row]:
    rows: list[Row] = [
        ("wall time", f"{run.seconds:.2f} s"),
        ("sessions archived / seen", f"{run.sessions_archived:,} / {run.sessions_seen:,}"),
        ("sessions failed", f"{run.sessions_failed:,}"),
        ("versions committed", f"{run.versions:,}"),
        ("new messages", f"{run.new_messages:,}"),
        ("embedding calls", f"{run.embed_calls:,}"),
        ("texts embedded", f"{run.texts_embedded:,}"),
        (
            "  by chunk source",
            ", ".join(f"{k} {v:,}" for k, v in run.embedded_by_source.items()) or "-",
        ),
        (
            "statements Postgres received",
            f"{run.statements:,} ({run.statements_per_session:.1f} per archived session)"
            if run.statements
            else "not counted",
        ),
        ("chunks written (inserted)", f"{run.chunks_inserted:,}"),
        ("chunks removed", f"{run.chunks_removed:,}"),
    ]
    rows += [("failure", f) for f in run.failures]
    return rows


def throughput_rows(run: RunStats) -> list[Row]:
    return [
        ("sessions/s", per_s(run.sessions_archived, run.seconds)),
        ("messages/s", per_s(run.new_messages, run.seconds)),
        ("chunks/s", per_s(run.chunks_inserted, run.seconds)),
    ]


def breakdown_rows(run: RunStats) -> list[Row]:
    total = run.seconds
    return [
        ("embedding (embed_batch)", share(run.embed_s, total)),
        ("commit_version (DB write, beside the rest)", share(run.commit_s, total)),
        ("waiting for commits, letting sessions go", share(run.settle_s, total)),
        ("rules extractor", share(run.extract_s, total)),
        ("reading sessions (claim_read)", share(run.read_s, total)),
        ("selecting sessions", share(run.select_s, total)),
        ("rest (planning, chunking, per-run queries)", share(run.other_s, total)),
        ("everything but embedding", share(total - run.embed_s, total)),
    ]


def copy_rows(full: RunStats, copy: CopyStats) -> list[Row]:
    commit = full.commit_s / full.chunks_inserted if full.chunks_inserted else 0.0
    indexed = copy.indexed_s / copy.rows if copy.rows else 0.0
    bare = copy.bare_s / copy.rows if copy.rows else 0.0
    return [
        ("chunks", f"{full.chunks_inserted:,} committed, {copy.rows:,} copied"),
        ("commit_version per version", ms(full.commit_s / full.versions if full.versions else 0)),
        ("commit_version per chunk", ms(commit)),
        ("binary COPY per chunk, all indexes", ms(indexed)),
        ("binary COPY per chunk, no index", ms(bare)),
        ("commit_version / COPY (indexes)", f"{commit / indexed:.2f} x" if indexed else "-"),
        ("commit_version / COPY (no index)", f"{commit / bare:.2f} x" if bare else "-"),
        ("COPY total, all indexes / none", f"{copy.indexed_s:.2f} s / {copy.bare_s:.2f} s"),
        (
            "COPY of every row the run wrote",
            f"{copy.all_rows:,} rows ({', '.join(WRITTEN_TABLES)}), {copy.all_indexed_s:.2f} s",
        ),
        (
            "whole archive run / that COPY",
            f"{full.seconds / copy.all_indexed_s:.2f} x" if copy.all_indexed_s else "-",
        ),
    ]


def rss_rows(cases: list[RssCase]) -> list[Row]:
    since = {case.peak_since for case in cases if case.peak_since} or {"-"}
    rows: list[Row] = [
        ("peak measured since", ", ".join(sorted(since))),
        ("databases", "no chunk search indexes, asynchronous commit (spares the server only)"),
        ("corpus", "  peak MB  start MB    end MB   time s    chunks  versions"),
    ]
    for case in cases:
        if case.error:
            rows.append((case.label, f"ERROR: {case.error}"))
            continue
        rows.append(
            (
                case.label,
                f"{case.peak_rss_mb:9.1f} {case.baseline_rss_mb:9.1f} {case.end_rss_mb:9.1f} "
                f"{case.seconds:8.1f} {case.chunks:9,} {case.versions:9,}"
                + (f"  {case.failed} FAILED" if case.failed else ""),
            )
        )
    return rows


def render(results: Results) -> str:
    plan = results.plan
    corpus = plan.sessions * plan.messages
    sections: list[tuple[str, list[Row]]] = [
        ("environment", sorted(results.environment.items())),
        (
            f"corpus: {plan.sessions:,} sessions x {plan.messages} messages, seed {plan.seed}",
            [
                ("messages", f"{corpus:,}"),
                ("session summaries", f"{(plan.sessions + 1) // 2:,}"),
                ("generate + binary COPY", f"{results.load_s:.2f} s"),
            ],
        ),
        ("full archive", run_rows(results.full) + throughput_rows(results.full)),
        ("full archive: where the time goes", breakdown_rows(results.full)),
        (
            "DB write per chunk vs bare binary COPY of the same rows",
            copy_rows(results.full, results.copy),
        ),
        ("re-run on unchanged data (must embed nothing)", run_rows(results.rerun)),
        (
            f"10 % growth: +{plan.growth} messages per session ({results.growth_added:,} rows)",
            run_rows(results.growth) + breakdown_rows(results.growth),
        ),
        (
            "peak RSS of the archivist process (a child process, VmHWM)",
            rss_rows(results.rss),
        ),
        (
            "verdict",
            [
                ("unchanged re-run embedding calls", f"{results.rerun.embed_calls} (must be 0)"),
                ("result", "OK" if results.ok else "FAILED"),
                ("benchmark total time", f"{results.total_s:.1f} s"),
            ],
        ),
    ]
    width = max(len(label) for _, rows in sections for label, _ in rows) + 2
    lines: list[str] = []
    for title, rows in sections:
        lines += ["", title, "-" * len(title)]
        lines += [f"  {label:<{width}}{value}" for label, value in rows]
    return "\n".join(lines[1:])


def as_json(results: Results) -> str:
    data = asdict(results)
    for name in ("full", "rerun", "growth"):
        data[name]["other_s"] = getattr(results, name).other_s
    data["ok"] = results.ok
    return json.dumps(data, indent=2, default=str)


# -- command line -------------------------------------------------------------------------------


def parse_size(text: str) -> tuple[int, int]:
    sessions, _, messages = text.lower().partition("x")
    return int(sessions), int(messages)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sessions", type=int, default=None, help="sessions (default 1000)")
    parser.add_argument("--messages", type=int, default=None, help="messages each (default 40)")
    parser.add_argument("--seed", type=int, default=1, help="corpus seed (default 1)")
    parser.add_argument("--quick", action="store_true", help="small smoke-test sizes")
    parser.add_argument(
        "--rss",
        type=parse_size,
        nargs="*",
        default=None,
        metavar="NxM",
        help="corpora for the peak RSS runs (default 250x40 2500x40; none to skip)",
    )
    parser.add_argument(
        "--big-session",
        type=int,
        default=None,
        help="messages of the single-session RSS run (default 20000; 0 to skip)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--child-url", help=argparse.SUPPRESS)
    parser.add_argument("--child-limit", type=int, default=0, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def make_plan(args: argparse.Namespace) -> Plan:
    quick = args.quick
    sessions = args.sessions or (40 if quick else 1000)
    messages = args.messages or 40
    rss = args.rss if args.rss is not None else ([(10, 40), (100, 40)] if quick else None)
    big = args.big_session if args.big_session is not None else (1000 if quick else 20_000)
    return Plan(
        sessions=sessions,
        messages=messages,
        growth=max(1, messages // 10),
        rss_sizes=rss if rss is not None else [(250, 40), (2500, 40)],
        big_session=big,
        seed=args.seed,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child_url:
        return child_main(args.child_url, args.child_limit)
    plan = make_plan(args)
    log("starting (or joining) the embedded Postgres")
    with (
        kit.embedded_server() as server,
        tempfile.TemporaryDirectory(prefix="archivist-bench-data-") as tmp,
    ):
        results = run_benchmark(plan, server, Path(tmp))
    print(as_json(results) if args.json else render(results))
    if not results.ok:
        log("FAILED: the unchanged re-run embedded something, or a session failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
