"""Test helper: the bot's `session_messages` / `session_summaries` tables and ways to fill them."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from archivist.config import Settings
from archivist.source_tables import source_tables_sql

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@dataclass
class SourceDB:
    conn: psycopg.Connection[tuple[Any, ...]]
    url: str

    @classmethod
    @contextmanager
    def create(cls, url: str, id_type: str = "bigint") -> Iterator[SourceDB]:
        """Create the source tables; `id_type` is the SQL type of `session_messages.id`."""
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(source_tables_sql(id_type))
            yield cls(conn, url)

    def add(
        self,
        session_id: str,
        contents: Iterable[str | None],
        start: datetime = T0,
        step: timedelta = timedelta(minutes=1),
        roles: Iterable[str] | None = None,
        ids: Iterable[Any] | None = None,
    ) -> list[Any]:
        """Append messages (alternating user/assistant unless `roles` given); returns their ids."""
        contents = list(contents)
        roles = (
            list(roles)
            if roles is not None
            else ["user" if i % 2 == 0 else "assistant" for i in range(len(contents))]
        )
        ids = list(ids) if ids is not None else [self._next_id() + i for i in range(len(contents))]
        rows = [
            (mid, session_id, role, content, start + step * i)
            for i, (mid, role, content) in enumerate(zip(ids, roles, contents, strict=True))
        ]
        with self.conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO session_messages (id, session_id, role, content, created_at) "
                "VALUES (%s, %s, %s, %s, %s)",
                rows,
            )
        return ids

    def _next_id(self) -> int:
        row = self.conn.execute("SELECT coalesce(max(id::bigint), 0) + 1 FROM session_messages")
        return int(row.fetchone()[0])  # type: ignore[index]

    def summarize(self, session_id: str, text: str, at: datetime) -> None:
        self.conn.execute(
            "INSERT INTO session_summaries VALUES (%s, %s, %s) ON CONFLICT (session_id) "
            "DO UPDATE SET summary_text = excluded.summary_text, updated_at = excluded.updated_at",
            [session_id, text, at],
        )

    def count(self, table: str) -> int:
        return int(self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])  # type: ignore[index]

    def snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        """Everything the archivist writes, for before/after comparisons."""
        tables = {
            "jarvis_archive": "SELECT id, session_id, version, extraction FROM jarvis_archive",
            "jarvis_memory_chunks": "SELECT id, session_id, slot, content, embedding::text "
            "FROM jarvis_memory_chunks",
            "jarvis_archive_sessions": "SELECT * FROM jarvis_archive_sessions",
        }
        return {t: sorted(self.conn.execute(q).fetchall(), key=repr) for t, q in tables.items()}


def run_archivist(
    args: Sequence[str], env: Mapping[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`python -m archivist ARGS`, the real entry point, with `env` over a clean environment:
    no database, Supabase or archivist settings inherited from the caller, no config file."""
    inherited = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_", "SUPABASE_", "ARCHIVIST_"))
    }
    return subprocess.run(
        [sys.executable, "-m", "archivist", *args],
        env={**inherited, "ARCHIVIST_CONFIG": "", **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_cli(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m archivist ARGS` against the settings' database with the offline embedder."""
    return run_archivist(args, {**_database_env(settings), "ARCHIVIST_EMBEDDER": "hash"})


def _database_env(settings: Settings) -> dict[str, str]:
    if settings.database_url is not None:
        return {"DATABASE_URL": settings.database_url.get_secret_value()}
    assert settings.supabase_url and settings.supabase_service_role_key
    return {
        "SUPABASE_URL": settings.supabase_url,
        "SUPABASE_SERVICE_ROLE_KEY": settings.supabase_service_role_key.get_secret_value(),
    }
