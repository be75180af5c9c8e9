"""Builds the store and the embedder the settings describe."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from archivist.config import Settings
from archivist.embed.base import Embedder
from archivist.embed.hashing import HashEmbedder
from archivist.embed.ollama import OllamaEmbedder
from archivist.store.embedded import embedded_url, start_embedded
from archivist.store.postgres import PostgresStore, connect


@contextmanager
def open_store(settings: Settings) -> Iterator[PostgresStore]:
    """Connect to `DATABASE_URL`, or start the embedded database when none is set."""
    server: Any = None
    if settings.database_url is not None:
        url = settings.database_url.get_secret_value()
    else:
        server = start_embedded(settings.data_dir)
        url = embedded_url(server)
    store = PostgresStore(
        connect(url, settings.secrets()), settings.sources, settings.max_message_chars
    )
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
