"""The I/O limits are the same at every edge: the SQL functions a bot may call directly clamp to
the bounds the Python searches and the MCP tools state (archivist.search; the tools' text is
built from the same constants)."""

from __future__ import annotations

from datetime import timedelta

import psycopg
from support.sources import T0, SourceDB

from archivist.client import archive
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest
from archivist.search import ARCHIVE_MAX_ROWS, MEMORY_MAX_RESULTS

SESSIONS = ARCHIVE_MAX_ROWS + 5


def test_the_sql_searches_clamp_to_the_python_bounds(source: SourceDB, settings: Settings) -> None:
    for n in range(SESSIONS):
        source.add(f"s{n}", [f"we deploy service {n} on Friday", "ok"], start=T0 + timedelta(n))
    source.add("long", [f"turn {n} of a long talk" for n in range(4 * SESSIONS)])
    archive(settings, ArchiveRequest(delay_ms=0))
    vector = "[" + ",".join(["0.1"] * settings.embedding_dim) + "]"
    asked = SESSIONS * 4
    with psycopg.connect(source.url) as conn:
        hybrid = conn.execute(
            "SELECT * FROM hybrid_jarvis_memory_chunks(%s::vector, 'deploy service', %s)",
            [vector, asked],
        ).fetchall()
        nearest = conn.execute(
            "SELECT * FROM match_jarvis_memory_chunks(%s::vector, %s)", [vector, asked]
        ).fetchall()
        rows = conn.execute(
            "SELECT * FROM search_jarvis_archive(p_limit => %s)", [asked]
        ).fetchall()
        windows = [
            str(i)
            for (i,) in conn.execute(
                "SELECT id FROM jarvis_memory_chunks "
                "WHERE source = 'session_turn' AND session_id = 'long'"
            ).fetchall()
        ]
        lent = conn.execute(
            "SELECT DISTINCT chunk_id FROM archivist_turn_neighbours(%s::text[])", [windows]
        ).fetchall()
    assert len(hybrid) == len(nearest) == MEMORY_MAX_RESULTS
    assert len(rows) == ARCHIVE_MAX_ROWS
    # the turns around at most as many windows as a search has hits
    assert len(windows) > MEMORY_MAX_RESULTS and len(lent) == MEMORY_MAX_RESULTS
