"""Builds the store, the embedder and the extractor the settings describe."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from archivist.config import Settings
from archivist.embed.base import Embedder
from archivist.embed.hashing import HashEmbedder
from archivist.embed.ollama import OllamaEmbedder
from archivist.errors import ConfigError
from archivist.extract.base import Extractor, RulesExtractor
from archivist.extract.llm import OllamaExtractor
from archivist.extras import needs_extra
from archivist.store import (
    EmbeddingConfig,
    PostgresStore,
    Rpc,
    Store,
    connect,
    embedded_url,
    start_embedded,
)

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
    """Connect to `DATABASE_URL`, or to Supabase over REST, or start the embedded database
    (made first only with `create`)."""
    if settings.uses_supabase:
        with _supabase_store(settings) as store:
            yield store
        return
    with open_postgres_store(settings, create) as postgres:
        yield postgres


@contextmanager
def _supabase_store(settings: Settings) -> Iterator[Store]:
    store = Store(supabase_rpc(settings), settings.sources, settings.max_message_chars)
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


@contextmanager
def open_postgres_store(settings: Settings, create: bool = False) -> Iterator[PostgresStore]:
    """A direct connection: `DATABASE_URL`, or the embedded database when none is set."""
    with database_url(settings, create) as url:
        store = PostgresStore(
            connect(url, settings), settings.sources, settings.max_message_chars, settings.timeouts
        )
        try:
            yield store
        finally:
            store.close()


def make_embedder(settings: Settings, timeout_s: float | None = None) -> Embedder:
    """The embedder the settings name (with a shorter timeout if given)."""
    if settings.embedder == "hash":
        return HashEmbedder(dimension=settings.embedding_dim, batch_size=settings.embed_batch_size)
    return OllamaEmbedder(
        model=settings.embedding_model,
        host=settings.ollama_host,
        timeout_s=timeout_s or settings.ollama_timeout_s,
        batch_size=settings.embed_batch_size,
        retries=settings.ollama_retries,
        backoff_s=settings.ollama_backoff_s,
    )


_EMBEDDING_SETTINGS = frozenset({"embedder", "embedding_model", "embedding_dim"})


def search_embedder(
    settings: Settings, recorded: EmbeddingConfig | None, timeout_s: float | None = None
) -> Embedder:
    """The embedder for searching a database: the configured one if any embedding setting was
    given, else the one whose model the database records (so a database archived with the
    offline `hash` embedder is searched with it, without a flag)."""
    if recorded is None or _EMBEDDING_SETTINGS & settings.model_fields_set:
        return make_embedder(settings, timeout_s)
    if recorded.model == HashEmbedder(dimension=recorded.dim).model:
        return HashEmbedder(dimension=recorded.dim, batch_size=settings.embed_batch_size)
    return make_embedder(
        settings.model_copy(
            update={
                "embedder": "ollama",
                "embedding_model": recorded.model,
                "embedding_dim": recorded.dim,
            }
        ),
        timeout_s,
    )


def make_extractor(settings: Settings) -> Extractor:
    """The extractor the settings name: the rules, or an Ollama chat model."""
    if settings.extractor == "ollama":
        return make_llm_extractor(settings)
    return RulesExtractor()


def make_llm_extractor(settings: Settings) -> OllamaExtractor:
    """The Ollama extractor of `llm_model` on `ollama_host`."""
    return OllamaExtractor(
        model=settings.llm_model,
        host=settings.ollama_host,
        timeout_s=settings.llm_timeout_s,
        max_prompt_chars=settings.llm_max_prompt_chars,
    )
