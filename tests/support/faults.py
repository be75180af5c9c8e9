"""Fault-injection helpers: a generated corpus, `python -m archivist archive` as a subprocess,
and `kill -9` at seeded random moments. Used by tests/db/test_crash.py and scripts/bench/soak.py.

Everything random comes from one `random.Random(seed)`, so a failing seed replays.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg

from archivist.source_tables import source_tables_sql

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
WORDS = (
    "deploy vercel postgres redis kafka lisbon budget oauth token refresh bug fix plan release "
    "review cache memcached pipeline schema index migration docs meeting friday invoice"
).split()

_HARNESS_VARIABLES = {"ARCHIVIST_FAULT_SEED", "ARCHIVIST_SOAK_KILLS", "ARCHIVIST_SOAK_SESSIONS"}

Conn = psycopg.Connection[tuple[Any, ...]]


def archivist_env(db_url: str, workdir: Path, **settings: str) -> dict[str, str]:
    """Environment for a subprocess run on `db_url`: offline embedder, no delay, no config."""
    # The fault and soak knobs are not archivist settings (an unknown ARCHIVIST_ name is an error).
    inherited = {k: v for k, v in os.environ.items() if k not in _HARNESS_VARIABLES}
    env = {
        **inherited,
        "DATABASE_URL": db_url,
        "ARCHIVIST_EMBEDDER": "hash",
        "ARCHIVIST_DELAY_MS": "0",
        "ARCHIVIST_MAX_SESSIONS": "100000",
        "ARCHIVIST_DATA_DIR": str(workdir / "data"),
        "ARCHIVIST_CONFIG": "",
        "COLUMNS": "200",
    }
    env.update({f"ARCHIVIST_{k.upper()}": v for k, v in settings.items()})
    return env


def start_archive(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    """Start `python -m archivist archive --json ARGS` in the background."""
    return start_interruptible([sys.executable, "-m", "archivist", "archive", "--json", *args], env)


def start_interruptible(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    """Start `args` (output piped, as text) so that Ctrl-C (SIGINT) reaches it even when this
    process ignores the signal, as a background job of a shell script does (`pytest &`): an
    ignored signal stays ignored across exec, a handled one is the default again. Tests run in
    the main thread, the only one that may set a handler."""
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(
            args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    finally:
        signal.signal(signal.SIGINT, before)


def run_archive(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m archivist archive --json ARGS` to its end."""
    return subprocess.run(
        [sys.executable, "-m", "archivist", "archive", "--json", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def create_sources(conn: Conn) -> None:
    conn.execute(source_tables_sql())


@dataclass
class Corpus:
    """A generated chat corpus that can grow: new messages, late arrivals, summaries."""

    conn: Conn
    rng: random.Random
    sessions: list[str] = field(default_factory=list)
    next_id: int = 1
    clock: dict[str, datetime] = field(default_factory=dict)

    def _text(self) -> str:
        words = self.rng.choices(WORDS, k=self.rng.randint(3, 40))
        return f"msg {self.next_id}: " + " ".join(words)

    def add_messages(self, session_id: str, count: int, late: bool = False) -> None:
        rows = []
        for _ in range(count):
            if late and session_id in self.clock:
                at = T0 + (self.clock[session_id] - T0) * self.rng.random()
            else:
                at = self.clock.get(session_id, T0) + timedelta(seconds=self.rng.choice([0, 30]))
                self.clock[session_id] = at
            role = "user" if self.next_id % 2 else "assistant"
            rows.append((self.next_id, session_id, role, self._text(), at))
            self.next_id += 1
        with self.conn.cursor() as cur:
            cur.executemany("INSERT INTO session_messages VALUES (%s, %s, %s, %s, %s)", rows)

    def summarize(self, session_id: str) -> None:
        at = self.clock.get(session_id, T0) + timedelta(minutes=1)
        text = f"summary of {session_id}: " + " ".join(self.rng.choices(WORDS, k=12))
        self.conn.execute(
            "INSERT INTO session_summaries VALUES (%s, %s, %s) ON CONFLICT (session_id) DO "
            "UPDATE SET summary_text = excluded.summary_text, updated_at = excluded.updated_at",
            [session_id, text, at],
        )

    def generate(self, sessions: int, max_messages: int) -> None:
        """`sessions` new sessions of 1..max_messages messages, some with a summary."""
        for _ in range(sessions):
            session_id = f"s{len(self.sessions):05d}"
            self.sessions.append(session_id)
            self.add_messages(session_id, self.rng.randint(1, max_messages))
            if self.rng.random() < 0.3:
                self.summarize(session_id)

    def grow(self) -> None:
        """Activity between runs: new messages, late arrivals, summary updates."""
        for session_id in self.rng.sample(self.sessions, k=max(1, len(self.sessions) // 5)):
            roll = self.rng.random()
            if roll < 0.6:
                self.add_messages(session_id, self.rng.randint(1, 20))
            elif roll < 0.8:
                self.add_messages(session_id, self.rng.randint(1, 3), late=True)
            else:
                self.summarize(session_id)


def kill_at_random(
    env: dict[str, str], rng: random.Random, corpus: Corpus, kills: int, window_s: float
) -> int:
    """Start runs and `kill -9` each at a random moment; returns the kills made.

    Most kills land within `window_s` after the run logged its start (so they interrupt work:
    reads, embedding, commits); one in five lands at a random moment of start-up. A run that
    ended before its moment came is not a kill; the corpus grows between runs so that later
    runs still have work to be killed in.
    """
    made = attempts = 0
    while made < kills and attempts < kills * 4:
        attempts += 1
        last_run = _last_run_id(corpus.conn)
        process = start_archive(env)
        if rng.random() < 0.2:
            time.sleep(rng.uniform(0.0, 1.0))
        else:
            delay = rng.uniform(0.0, window_s)
            deadline = time.monotonic() + 30
            while _last_run_id(corpus.conn) == last_run and process.poll() is None:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.02)
            time.sleep(delay)
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            made += 1
        process.communicate()
        corpus.grow()
    return made


def _last_run_id(conn: Conn) -> int:
    row = conn.execute("SELECT coalesce(max(id), 0) FROM archivist_runs").fetchone()
    return int(row[0]) if row else 0


def run_to_completion(env: dict[str, str], max_runs: int = 10) -> list[dict[str, Any]]:
    """Run until a run finds nothing pending; returns each run's JSON report."""
    import json

    reports = []
    for _ in range(max_runs):
        done = run_archive(env)
        if done.returncode != 0:
            raise AssertionError(f"archive exited {done.returncode}: {done.stderr[-2000:]}")
        report = json.loads(done.stdout)
        reports.append(report)
        if not report["sessions"]:
            return reports
    raise AssertionError(f"still pending after {max_runs} runs")
