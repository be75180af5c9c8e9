"""The extractor the settings name, and the embedder a search uses; the store and the embedder
the settings describe are built in `archivist.store` and `archivist.embed.configured`."""

from __future__ import annotations

from archivist.config import Settings
from archivist.embed.base import Embedder
from archivist.embed.configured import make_embedder
from archivist.embed.hashing import HashEmbedder
from archivist.extract.base import Extractor, RulesExtractor
from archivist.extract.llm import OllamaExtractor
from archivist.store import (
    EmbeddingConfig,
    database_url,
    open_postgres_store,
    open_store,
    supabase_rpc,
)

__all__ = [
    "database_url",
    "make_embedder",
    "make_extractor",
    "make_llm_extractor",
    "open_postgres_store",
    "open_store",
    "search_embedder",
    "supabase_rpc",
]

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
