"""Crash anywhere: `kill -9` the archive run at seeded random moments, then run it to its end;
every invariant holds (nothing lost, nothing doubled). `make soak` does the same 50+ times.

Replay a failure with ARCHIVIST_FAULT_SEED=<seed printed in the assertion>.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import psycopg
from support.faults import Corpus, archivist_env, create_sources, kill_at_random, run_to_completion
from support.invariants import summary, violations

CI_KILLS = 6


def test_kill_9_at_random_moments_loses_and_doubles_nothing(db_url: str, tmp_path: Path) -> None:
    seed = int(os.environ.get("ARCHIVIST_FAULT_SEED", "6"))
    rng = random.Random(seed)
    with psycopg.connect(db_url, autocommit=True) as conn:
        create_sources(conn)
        corpus = Corpus(conn, rng)
        corpus.generate(sessions=60, max_messages=60)
        # Small versions: a session takes several commits, so kills land between them too.
        env = archivist_env(db_url, tmp_path, max_messages_per_version="20")

        kills = kill_at_random(env, rng, corpus, CI_KILLS, window_s=1.5)
        run_to_completion(env)

        mid_work = conn.execute(
            "SELECT count(*) FROM archivist_runs WHERE finished_at IS NULL"
        ).fetchone()[0]  # type: ignore[index]
        found = violations(conn)
        counts = summary(conn)
    assert kills == CI_KILLS, f"seed {seed}: only {kills} runs were still going when killed"
    assert mid_work >= 1, f"seed {seed}: no kill interrupted a run at work"
    assert found == [], f"seed {seed}: {found[:20]}"
    assert (counts["lost"], counts["doubled"]) == (0, 0)
    assert counts["sessions"] == len(corpus.sessions)
