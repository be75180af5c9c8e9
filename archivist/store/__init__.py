"""The archive's database: the neutral `Store`, the `Rpc` protocol and its transports.

Code above the store imports what it needs from here, never psycopg: database errors are
mapped at this package's edge. The Supabase REST transport is the one module imported on its
own (`archivist.store.rest`), and only when it is used: supabase-py is an optional extra,
and slow to import.
"""

from archivist.store.connection import connect
from archivist.store.embedded import (
    DEMO_FOLDER,
    embedded_exists,
    pgserver_module,
    reading_settings,
    record_demo_embedding,
    schema_fix,
    stop_embedded,
)
from archivist.store.migrate import (
    AUTHENTICATED,
    PRIVATE,
    Conn,
    EditedMigrationError,
    migration_script,
)
from archivist.store.opening import (
    database_url,
    open_postgres_store,
    open_store,
    supabase_rpc,
)
from archivist.store.pool import PooledRpc
from archivist.store.postgres import PostgresStore
from archivist.store.protocol import (
    Json,
    LockTimeoutError,
    MissingFunctionError,
    QueryTimeoutError,
    Rpc,
    RpcError,
    SourceSchemaError,
    Vectors,
    parse_vector,
    vector_text,
)
from archivist.store.psycopg_rpc import DatabaseError, PsycopgRpc, database_error_line
from archivist.store.reembed import ReembedStore, StoredChunk
from archivist.store.store import (
    Claim,
    CommitResult,
    EmbeddingConfig,
    MigrationsMissingError,
    ModelMismatchError,
    SessionSelection,
    Store,
    message_from_row,
    session_state_from_row,
)

__all__ = [
    "AUTHENTICATED",
    "DEMO_FOLDER",
    "PRIVATE",
    "Claim",
    "CommitResult",
    "Conn",
    "DatabaseError",
    "EditedMigrationError",
    "EmbeddingConfig",
    "Json",
    "LockTimeoutError",
    "MigrationsMissingError",
    "MissingFunctionError",
    "ModelMismatchError",
    "PooledRpc",
    "PostgresStore",
    "PsycopgRpc",
    "QueryTimeoutError",
    "ReembedStore",
    "Rpc",
    "RpcError",
    "SessionSelection",
    "SourceSchemaError",
    "Store",
    "StoredChunk",
    "Vectors",
    "connect",
    "database_error_line",
    "database_url",
    "embedded_exists",
    "message_from_row",
    "migration_script",
    "open_postgres_store",
    "open_store",
    "parse_vector",
    "pgserver_module",
    "reading_settings",
    "schema_fix",
    "stop_embedded",
    "record_demo_embedding",
    "session_state_from_row",
    "supabase_rpc",
    "vector_text",
]
