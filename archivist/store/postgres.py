"""The store on a direct Postgres connection: what only a direct connection can do.

Over REST the schema can only be checked; on a direct connection `init` applies it (DDL,
archivist.store.migrate), and pgvector's versions are read from the catalog, which works
before any migration exists.
"""

from __future__ import annotations

from archivist.config import DatabaseTimeouts, SourceTables
from archivist.errors import ConfigError
from archivist.store.migrate import AUTHENTICATED, Conn, apply_schema
from archivist.store.protocol import RpcError
from archivist.store.psycopg_rpc import PsycopgRpc, mapped_errors
from archivist.store.store import EmbeddingConfig, Store


class PostgresStore(Store):
    """The store on a direct Postgres connection: it can also apply migrations."""

    def __init__(
        self,
        conn: Conn,
        sources: SourceTables,
        max_message_chars: int | None = None,
        timeouts: DatabaseTimeouts | None = None,
    ) -> None:
        super().__init__(PsycopgRpc(conn, timeouts=timeouts), sources, max_message_chars)
        self.conn = conn
        self.timeouts = timeouts

    schema_fix = "run: archivist init"

    def init(
        self, wanted: EmbeddingConfig, access: str | None = None
    ) -> tuple[list[str], EmbeddingConfig]:
        """Apply pending migrations, the functions and the policy (recording `access` first, if
        given); record the embedding model."""
        if access == AUTHENTICATED:
            row = self.conn.execute(
                "SELECT to_regprocedure('auth.uid()') IS NOT NULL "
                "AND EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated')"
            ).fetchone()
            if not (row and row[0]):
                raise ConfigError(
                    "--allow-authenticated needs Supabase's `authenticated` role and auth.uid(), "
                    "which this database has not got"
                )
        try:
            with mapped_errors():
                applied = apply_schema(self.conn, wanted.model, wanted.dim, self.timeouts, access)
        except RpcError as exc:
            raise self.refused_switch(exc, wanted) from None
        self.adopt_archived_messages()
        return applied, wanted

    def vector_extension(self) -> tuple[str | None, str | None]:
        """Read from the catalog: this works before any migration (doctor on a bare database)."""
        row = self.conn.execute(
            "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector'), "
            "(SELECT default_version FROM pg_available_extensions WHERE name = 'vector')"
        ).fetchone()
        return (row[0], row[1]) if row else (None, None)
