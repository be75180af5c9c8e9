"""Builds the store, the embedder and the extractor the settings describe."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from archivist.config import Settings
from archivist.embed.base import Embedder
from archivist.embed.hashing import HashEmbedder
from archivist.embed.ollama import OllamaEmbedder
from archivist.extract.base import Extractor, RulesExtractor
from archivist.extract.llm import OllamaExtractor
from archivist.store.connection import connect
from archivist.store.embedded import embedded_url, start_embedded
from archivist.store.postgres import PostgresStore


@contextmanager
def open_store(settings: Settings) -> Iterator[PostgresStore]:
    """Connect to `DATABASE_URL`, or start the embedded database when none is set."""
    server: Any = None
    if settings.database_url is not None:
        url = settings.database_url.get_secret_value()
    else:
        server = start_embedded(settings.data_dir)
        url = embedded_url(server)
    store = PostgresStore(connect(url, settings), settings.sources)
    try:
        yield store
    finally:
        store.close()
        del server  # the embedded server stops when its last handle is gone


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
