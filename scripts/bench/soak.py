"""Crash soak: `kill -9` the archive run many times at seeded random moments, then check that
nothing was lost and nothing doubled.

A throw-away embedded Postgres (pgserver) in a temporary directory holds a generated corpus
that grows between runs (new messages, late arrivals, summary updates). Each round starts
`python -m archivist archive` and kills it after a random delay; at the end one run goes to
completion and tests/support/invariants.py checks every session.

    make soak                                   (50 kills)
    ARCHIVIST_SOAK_KILLS=200 ARCHIVIST_FAULT_SEED=7 python -m scripts.bench.soak

Prints kills survived, runs killed mid-work, sessions, messages, lost, doubled, and every
violation; exits 1 if any invariant is broken. The same seed replays the same schedule
(timing on a loaded machine still varies what each kill interrupts).
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from pathlib import Path

import psycopg

from archivist.config import Settings
from archivist.store import EmbeddingConfig, PostgresStore
from scripts.bench.kit import embedded_server
from tests.support.faults import (
    Corpus,
    archivist_env,
    create_sources,
    kill_at_random,
    run_to_completion,
)
from tests.support.invariants import summary, violations


def main() -> int:
    kills = int(os.environ.get("ARCHIVIST_SOAK_KILLS", "50"))
    seed = int(os.environ.get("ARCHIVIST_FAULT_SEED", str(random.randrange(1_000_000))))
    sessions = int(os.environ.get("ARCHIVIST_SOAK_SESSIONS", "200"))
    print(f"soak: {kills} kills, seed {seed}, {sessions} sessions", file=sys.stderr)
    rng = random.Random(seed)
    with (
        embedded_server("archivist-soak-") as server,
        tempfile.TemporaryDirectory(prefix="archivist-soak-data-") as tmp,
    ):
        root = Path(tmp)
        url = server.create("soak")
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                PostgresStore(conn, Settings().sources).init(EmbeddingConfig("hash-768", 768))
                create_sources(conn)
                corpus = Corpus(conn, rng)
                corpus.generate(sessions=sessions, max_messages=80)
                env = archivist_env(url, root, max_messages_per_version="20")
                started = time.monotonic()
                made = kill_at_random(env, rng, corpus, kills, window_s=2.0)
                reports = run_to_completion(env)
                mid_work = conn.execute(
                    "SELECT count(*) FROM archivist_runs WHERE finished_at IS NULL"
                ).fetchone()[0]  # type: ignore[index]
                found = violations(conn)
                counts = summary(conn)
        finally:
            server.drop("soak")
    print(f"seed:                 {seed}")
    print(f"kills survived:       {made}")
    print(f"runs killed mid-work: {mid_work}  (had started their run log row)")
    print(f"runs to completion:   {len(reports)}")
    print(f"sessions:             {counts['sessions']} of {len(corpus.sessions)}")
    print(f"messages:             {counts['messages']}")
    print(f"versions, chunks:     {counts['versions']}, {counts['chunks']}")
    print(f"lost:                 {counts['lost']}")
    print(f"doubled:              {counts['doubled']}")
    print(f"violations:           {len(found)}")
    print(f"wall time:            {time.monotonic() - started:.0f} s")
    for line in found[:50]:
        print(f"  {line}")
    ok = not found and made == kills and counts["sessions"] == len(corpus.sessions)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
