"""Every benchmark in scripts/ on one embedded Postgres: one pgserver start-up for all of them.

Starts pgserver once (scripts/bench/kit.py), exports its admin URL as `ARCHIVIST_BENCH_PG`, and
runs each benchmark script in turn as its own process; each script then creates and drops its
databases on that server instead of starting one of its own. A script's output goes to stdout
under a heading; the exit status is 1 if any script failed.

Run:  python -m scripts.bench.all                      (every benchmark at its quick size)
      python -m scripts.bench.all --full               (their default sizes: long)
      python -m scripts.bench.all --only archive search
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Sequence

from scripts.bench.kit import ROOT, SERVER_ENV, embedded_server

# name -> (module, arguments at the quick size, arguments at the full size)
BENCHMARKS: dict[str, tuple[str, list[str], list[str]]] = {
    "archive": ("scripts.bench.archive", ["--quick"], []),
    "search": ("scripts.bench.search", ["--quick"], []),
    "reembed": ("scripts.bench.reembed", ["--chunks", "2000"], []),
    "client": ("scripts.bench.client", ["--calls", "50", "--sessions", "30"], []),
    "current": (
        "scripts.bench.current",
        ["--sessions", "1000", "--users", "20", "--held", "50", "--calls", "50"],
        [],
    ),
    "transports": ("scripts.bench.transports", ["--sessions", "20"], []),
    "lock_waits": ("scripts.bench.lock_waits", [], []),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--full", action="store_true", help="each benchmark's default size")
    parser.add_argument("--only", nargs="+", choices=sorted(BENCHMARKS), help="these only")
    args = parser.parse_args(argv)
    failed: list[str] = []
    with embedded_server() as server:
        env = {**os.environ, SERVER_ENV: server.admin_url}
        for name in args.only or list(BENCHMARKS):
            module, quick, full = BENCHMARKS[name]
            command = [sys.executable, "-m", module, *(full if args.full else quick)]
            title = f"== {name}: {' '.join(command[1:])}"
            print(f"\n{title}\n{'=' * len(title)}", flush=True)
            started = time.perf_counter()
            done = subprocess.run(command, env=env, cwd=ROOT, check=False)
            print(f"({name}: exit {done.returncode}, {time.perf_counter() - started:.1f} s)")
            if done.returncode != 0:
                failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
