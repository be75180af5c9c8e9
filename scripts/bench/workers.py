"""Benchmark of scaling out: W archive workers over one database, with the claim queue.

For each embedder and each W, on a fresh database (a clone of a migrated template on one
embedded Postgres, see scripts/bench/kit.py) holding the same generated corpus (N sessions x M
messages, scripts/bench/corpus.py's generator), W workers archive every pending session,
either as W separate `python -m archivist archive --json` processes started together (how N
cron entries or N hosts run) or as one `archive --workers W`. Measured per row:

- wall s (the last worker's end), sessions/s, speed-up over W = 1 of the same embedder and
  mode, efficiency (speed-up / W);
- wasted reads: the sessions the workers read for nothing, reported `skipped` (another held
  it) or `unchanged` (another had just archived it), and the claims that passed sessions over
  without reading them (`passed_over`, held / gone: one lock attempt each, inside one call);
- duplicates: archive versions written beyond one per session (must be 0);
- the COPY floor: a binary COPY of every row the run wrote (chunks, versions, watermarks,
  message hashes, state items) into copies of their tables with the same indexes: what the
  database needs at least to store the result;
- with the latency-bound embedder, the embedding time the server spent (its requests' summed
  latency), the ideal wall time (that time / the server's parallelism + the COPY floor), the
  wall time's ratio to it, and to the offline embedder's wall time of the same W and mode (how
  much of the embedding latency the run failed to hide behind its own work);
- where the time went (a second table): the CPU time of the workers' processes and of
  Postgres (its backends, reaped by the postmaster: Linux /proc), and the time spent inside
  `archivist_commit_version` and, of that, `archivist_index_state` (the current state across
  sessions), from Postgres's `track_functions`. With `--current-state on off` each row is run
  again with that function a no-op in its throw-away database (commits store no current state
  across sessions): what storing it costs a run.

Embedders: `offline` (the hash embedder, in the workers' processes: the archivist's and
Postgres's own cost) and `latency` (the Ollama test double, tests/support/ollama_server.py,
answering with 40 ms per request + 2 ms per text, at most 4 requests at once, like an Ollama
with OLLAMA_NUM_PARALLEL=4; the real OllamaEmbedder talks to it over HTTP).

Run:  python -m scripts.bench.workers                          (120 x 20, W = 1 2, both modes)
      python -m scripts.bench.workers --sessions 1200 --messages 40 --workers 1 2 4 8 12 \\
          --embedders offline --modes separate --users 120 --json
With --users U the sessions belong to U users (s mod U), the messages carry a user_id column
and the workers read it (sources.message_user_id): each user's current state is its own scope,
as in a bot with per-user memory. Without, every session is in one scope, whose state the
commits store one at a time (its advisory lock).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import psycopg

from archivist.config import Settings
from archivist.store import EmbeddingConfig, PostgresStore
from scripts.bench import corpus, kit
from tests.support.ollama_server import OllamaTestServer

LATENCY_REQUEST_S = 0.040
LATENCY_TEXT_S = 0.002
LATENCY_PARALLEL = 4
CORPUS_DB = "bench_workers_corpus"
# --current-state off: a commit stores its session's items but not the current state across
# sessions (the throw-away database's archivist_index_state does nothing), for the cost of it.
NO_CURRENT_STATE = (
    "CREATE OR REPLACE FUNCTION archivist_index_state(p_session_id text, p_archive_id uuid, "
    "p_user_id text, p_items jsonb) RETURNS void LANGUAGE sql AS 'SELECT'"
)


@dataclass
class Row:
    embedder: str
    mode: str
    workers: int
    seconds: float
    sessions: int
    archived: int
    failed: int
    skipped: int
    unchanged: int
    held: int
    gone: int
    duplicates: int
    copy_floor_s: float
    embed_busy_s: float = 0.0
    embed_requests: int = 0
    speed_up: float = 0.0
    efficiency: float = 0.0
    workers_cpu_s: float = 0.0
    postgres_cpu_s: float = 0.0  # 0: not measured (no /proc)
    commit_db_s: float = 0.0  # inside archivist_commit_version
    state_db_s: float = 0.0  # of that, inside archivist_index_state
    current_state: bool = True  # False: archivist_index_state made a no-op (--current-state off)

    @property
    def wasted(self) -> int:
        return self.skipped + self.unchanged

    @property
    def ideal_s(self) -> float:
        """The embedding time over the server's parallelism, plus the database floor."""
        return self.embed_busy_s / LATENCY_PARALLEL + self.copy_floor_s


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def environment(
    url: str, embedder: str, ollama_url: str, data_dir: Path, concurrency: int, users: bool
) -> dict[str, str]:
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("ARCHIVIST_")}
    env = {
        **inherited,
        "DATABASE_URL": url,
        "ARCHIVIST_CONFIG": "",
        "ARCHIVIST_DATA_DIR": str(data_dir),
        "ARCHIVIST_DELAY_MS": "0",
        "ARCHIVIST_MAX_SESSIONS": "100000",
        "ARCHIVIST_EMBED_CONCURRENCY": str(concurrency),
    }
    if users:
        env["ARCHIVIST_MESSAGE_USER_ID"] = corpus.USER_COLUMN
    if embedder == "latency":
        env.update(
            ARCHIVIST_EMBEDDER="ollama",
            ARCHIVIST_EMBEDDING_MODEL="nomic-embed-text",
            OLLAMA_HOST=ollama_url,
        )
    else:
        env["ARCHIVIST_EMBEDDER"] = "hash"
    return env


def postgres_cpu_s(url: str) -> float:
    """The CPU time of the server's postmaster and of the backends it reaped (Linux /proc; 0
    elsewhere): a run's connections end with it, so the difference around a run is its own."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT pg_backend_pid()").fetchone()
        stat = Path(f"/proc/{row[0] if row else 0}/stat")  # read while the backend lives
        if not stat.exists():
            return 0.0
        postmaster = stat.read_text().rsplit(")", 1)[1].split()[1]
    fields = Path(f"/proc/{postmaster}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def children_cpu_s() -> float:
    """The CPU time of this process's ended children (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def function_seconds(url: str) -> dict[str, float]:
    """Seconds spent inside each function so far (`track_functions`), by name."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT funcname, total_time FROM pg_stat_user_functions").fetchall()
    return {str(name): float(ms) / 1000 for name, ms in rows}


def run_workers(env: dict[str, str], mode: str, workers: int) -> tuple[float, list[dict[str, Any]]]:
    """Start the workers together; the wall time until the last one ends, and their reports."""
    archive = [sys.executable, "-m", "archivist", "archive", "--json"]
    commands = (
        [archive] * workers if mode == "separate" else [[*archive, "--workers", str(workers)]]
    )
    started = time.perf_counter()
    processes = [
        subprocess.Popen(c, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for c in commands
    ]
    outputs = [p.communicate(timeout=3600) for p in processes]
    seconds = time.perf_counter() - started
    for process, (_, err) in zip(processes, outputs, strict=True):
        if process.returncode != 0:
            raise SystemExit(f"a worker failed (exit {process.returncode}): {err.strip()[-500:]}")
    return seconds, [json.loads(out) for out, _ in outputs]


def measure(
    server: corpus.Server,
    args: argparse.Namespace,
    embedder: str,
    mode: str,
    workers: int,
    ollama: OllamaTestServer,
    root: Path,
    floor: float | None,
    current_state: bool = True,
) -> Row:
    name = f"bench_workers_{embedder}_{mode}_{workers}"
    url = server.create(name, CORPUS_DB)
    try:
        if not current_state:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(NO_CURRENT_STATE)
        if embedder == "latency":
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("DELETE FROM archivist_meta WHERE key LIKE 'embedding_%'")
                PostgresStore(conn, Settings().sources).init(
                    EmbeddingConfig("nomic-embed-text", 768)
                )
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"ALTER DATABASE {name} SET track_functions = 'pl'")
        ollama.embed_busy_s = 0.0
        ollama.requests.clear()
        env = environment(
            url, embedder, ollama.url, root / name, args.embed_concurrency, args.users > 0
        )
        cpu, postgres = children_cpu_s(), postgres_cpu_s(url)
        seconds, reports = run_workers(env, mode, workers)
        time.sleep(1)  # the backends' last statistics, and their reaping
        cpu, postgres = children_cpu_s() - cpu, postgres_cpu_s(url) - postgres
        spent = function_seconds(url)
        outcomes = [s for r in reports for s in r["sessions"]]
        with psycopg.connect(url, autocommit=True) as conn:
            # Each session's corpus fits one version: any more is a session archived twice.
            row = conn.execute(
                "SELECT count(*) - count(DISTINCT session_id) FROM jarvis_archive"
            ).fetchone()
            archived = [s["session_id"] for s in outcomes if s["status"] == "archived"]
            duplicates = (int(row[0]) if row else 0) + len(archived) - len(set(archived))
        # The rows written are the same at every W: their COPY is timed once per corpus.
        floor = floor if floor is not None else corpus.copy_baseline(url).all_indexed_s
        return Row(
            embedder=embedder,
            mode=mode,
            workers=workers,
            seconds=seconds,
            sessions=args.sessions,
            archived=sum(s["status"] == "archived" for s in outcomes),
            failed=sum(s["status"] == "failed" for s in outcomes),
            skipped=sum(s["status"] == "skipped" for s in outcomes),
            unchanged=sum(s["status"] == "unchanged" for s in outcomes),
            held=sum(r.get("passed_over", {}).get("held", 0) for r in reports),
            gone=sum(r.get("passed_over", {}).get("gone", 0) for r in reports),
            duplicates=duplicates,
            copy_floor_s=floor,
            embed_busy_s=ollama.embed_busy_s if embedder == "latency" else 0.0,
            embed_requests=len(ollama.embed_requests) if embedder == "latency" else 0,
            workers_cpu_s=cpu,
            postgres_cpu_s=postgres,
            commit_db_s=spent.get("archivist_commit_version", 0.0),
            state_db_s=spent.get("archivist_index_state", 0.0),
            current_state=current_state,
        )
    finally:
        server.drop(name)


def render(rows: list[Row], facts: dict[str, str]) -> str:
    head = (
        "| embedder | mode | W | current state | wall s | sessions/s | speed-up | efficiency "
        "| wasted reads "
        "(skipped + unchanged) | passed over (held / gone) | duplicates | COPY floor s "
        "| embed requests | embed s / 4 + floor | wall / ideal | wall / offline wall |"
    )
    offline = {
        (r.mode, r.workers, r.current_state): r.seconds for r in rows if r.embedder == "offline"
    }
    lines = [
        " ".join(f"{k}: {v};" for k, v in facts.items()),
        "",
        head,
        "|" + "---|" * (head.count("|") - 1),
    ]
    for r in rows:
        ideal = r.ideal_s if r.embedder == "latency" else 0.0
        offline_s = offline.get((r.mode, r.workers, r.current_state))
        lines.append(
            f"| {r.embedder} | {r.mode} | {r.workers} | {'on' if r.current_state else 'off'} | "
            f"{r.seconds:.1f} | {r.archived / r.seconds:.1f} | {r.speed_up:.2f}x | "
            f"{r.efficiency:.2f} | "
            f"{r.wasted} ({r.skipped} + {r.unchanged}) | {r.held} / {r.gone} | {r.duplicates} | "
            f"{r.copy_floor_s:.2f} | {r.embed_requests or '-'} | "
            f"{f'{ideal:.1f}' if ideal else '-'} | "
            f"{f'{r.seconds / ideal:.2f}x' if ideal else '-'} | "
            f"{_ratio(r.seconds, offline_s) if ideal else '-'} |"
        )
    lines += [
        "",
        "| embedder | mode | W | current state | wall s | workers' CPU s | Postgres CPU s "
        "| in archivist_commit_version s | of which archivist_index_state s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.embedder} | {r.mode} | {r.workers} | {'on' if r.current_state else 'off'} | "
            f"{r.seconds:.1f} | {r.workers_cpu_s:.1f} | "
            f"{f'{r.postgres_cpu_s:.1f}' if r.postgres_cpu_s else '-'} | {r.commit_db_s:.1f} | "
            f"{r.state_db_s:.1f} |"
        )
    return "\n".join(lines)


def _ratio(seconds: float, reference: float | None) -> str:
    return f"{seconds / reference:.2f}x" if reference else "-"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=120)
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument(
        "--users",
        type=int,
        default=0,
        help="spread the sessions over this many users (per-user memory); 0: no user ids, "
        "every session in one scope",
    )
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--embedders", nargs="+", choices=["offline", "latency"], default=["offline", "latency"]
    )
    parser.add_argument("--modes", nargs="+", choices=["separate", "flag"], default=["separate"])
    parser.add_argument(
        "--current-state",
        nargs="+",
        choices=["on", "off"],
        default=["on"],
        help="off: commits store no current state across sessions (its cost, beside 'on')",
    )
    parser.add_argument(
        "--embed-concurrency", type=int, default=4, help="the workers' embed_concurrency"
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    ollama = OllamaTestServer()
    ollama.embed_s, ollama.embed_per_text_s = LATENCY_REQUEST_S, LATENCY_TEXT_S
    ollama.parallel = LATENCY_PARALLEL
    rows: list[Row] = []
    try:
        with kit.embedded_server() as shared, tempfile.TemporaryDirectory() as tmp:
            server = corpus.Server(shared)
            server.create_template()
            # Every row starts from a copy of one loaded corpus: loading it per row took as
            # long as the run on a 16-core machine.
            corpus.load_corpus(
                server.clone(CORPUS_DB), args.seed, "w", args.sessions, args.messages, args.users
            )
            for embedder, mode, state in itertools.product(
                args.embedders, args.modes, args.current_state
            ):
                one: Row | None = None
                for workers in args.workers:
                    log(f"{embedder}, {mode}, W={workers}, current state {state}")
                    floor = rows[0].copy_floor_s if rows else None
                    row = measure(
                        server,
                        args,
                        embedder,
                        mode,
                        workers,
                        ollama,
                        Path(tmp),
                        floor,
                        current_state=state == "on",
                    )
                    log(f"  {row.seconds:.1f} s wall, COPY floor {row.copy_floor_s:.1f} s")
                    one = row if workers == 1 else one
                    if one is not None:
                        row.speed_up = one.seconds / row.seconds
                        row.efficiency = row.speed_up / workers
                    rows.append(row)
            facts = {
                "corpus": f"{args.sessions} sessions x {args.messages} messages, "
                + (f"{args.users} users" if args.users else "no user ids"),
                "cpus": str(os.cpu_count()),
                "latency server": f"{LATENCY_REQUEST_S * 1000:.0f} ms/request + "
                f"{LATENCY_TEXT_S * 1000:.0f} ms/text, {LATENCY_PARALLEL} at once",
            }
            server.drop(CORPUS_DB)
            server.drop(corpus.TEMPLATE_DB)
    finally:
        ollama.close()
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=2))
    else:
        print(render(rows, facts))
    bad = [r for r in rows if r.duplicates or r.failed or r.archived != r.sessions]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
