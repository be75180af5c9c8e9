"""The database the settings describe: `DATABASE_URL`, Supabase over REST, or the embedded one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from archivist.config import Settings
from archivist.errors import ConfigError
from archivist.extras import needs_extra
from archivist.store.connection import connect
from archivist.store.embedded import embedded_url, schema_fix, start_embedded
from archivist.store.postgres import PostgresStore
from archivist.store.protocol import Rpc
from archivist.store.store import Store

# What `pip install 'archivist[supabase]'` brings that the REST transport imports.
_SUPABASE = (
    "supabase",
    "postgrest",
    "supabase_auth",
    "supabase_functions",
    "storage3",
    "realtime",
    "yarl",
)


@contextmanager
def open_store(settings: Settings, create: bool = False) -> Iterator[Store]:
    """One store on one connection: `DATABASE_URL`, or Supabase over REST, or the embedded
    database (made first only with `create`). `archivist.client.Archivist` keeps a pool instead."""
    if settings.uses_supabase:
        store = Store(supabase_rpc(settings), settings.sources, settings.max_message_chars)
        try:
            yield store
        finally:
            store.close()
        return
    with open_postgres_store(settings, create) as postgres:
        yield postgres


@contextmanager
def open_postgres_store(settings: Settings, create: bool = False) -> Iterator[PostgresStore]:
    """A direct connection: `DATABASE_URL`, or the embedded database when none is set."""
    with database_url(settings, create) as url:
        store = PostgresStore(
            connect(url, settings), settings.sources, settings.max_message_chars, settings.timeouts
        )
        store.schema_fix = schema_fix(settings, store.schema_fix)
        try:
            yield store
        finally:
            store.close()


def supabase_rpc(settings: Settings) -> Rpc:
    """The REST transport to Supabase the settings describe."""
    with needs_extra("supabase", "The Supabase REST transport (SUPABASE_URL)", _SUPABASE):
        from archivist.store.rest import SupabaseRpc  # supabase-py is slow to import

    if settings.supabase_service_role_key is None or settings.supabase_url is None:
        raise ConfigError(
            "SUPABASE_URL is set but SUPABASE_SERVICE_ROLE_KEY is not; set both "
            "(Project Settings > API), or DATABASE_URL for a direct connection"
        )
    return SupabaseRpc(
        settings.supabase_url,
        settings.supabase_service_role_key.get_secret_value(),
        settings.secrets(),
        claim_ttl_s=settings.claim_ttl_s,
    )


@contextmanager
def database_url(settings: Settings, create: bool = False) -> Iterator[str]:
    """`DATABASE_URL`, or the embedded database's, which runs at least while the body does
    (made first only with `create`)."""
    if settings.database_url is not None:
        yield settings.database_url.get_secret_value()
        return
    server = start_embedded(settings.data_dir, create)
    try:
        yield embedded_url(server)
    finally:
        del server  # the embedded server stops when its last handle is gone
