"""`Archivist`: the library's front door, a client that keeps its connections across calls.

    with Archivist.from_env() as archivist:
        for question in questions:
            hits = archivist.memory_search(question, limit=5).hits

Every command is one of its methods (init, the schema script, status, doctor, reembed,
archive, prune-check, forget, the searches, the state views, conflicts and history); the CLI
and the MCP server build a client from the settings and call them.

One client holds one pool of database connections (`psycopg_pool`; direct Postgres and the
embedded database) or one REST client (Supabase), its embedders, and the outcome of the
readiness check (migrations applied, the configured embedding model recorded), which runs
once, on the first call that needs it, instead of on every call. Its methods are safe to call
from several threads at once; they share at most `pool_max_size` connections.

The functions `memory_search`, `archive_search`, `search` (also importable from `archivist`)
and `archive` open a client for one call and close it.

Inside: `archivist.py` (the client), `connections.py` (what it holds open), `runs.py` (archive
runs, in this process or in workers), `calls.py` (the one-call functions).
"""

from archivist.client.archivist import Archivist
from archivist.client.calls import archive, archive_search, memory_search, search

__all__ = ["Archivist", "archive", "archive_search", "memory_search", "search"]
