"""Builds the backends from settings and runs the operations the CLI and the demo expose."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from archivist.config import Settings
from archivist.embed.base import Embedder
from archivist.embed.hashing import HashEmbedder
from archivist.embed.ollama import OllamaEmbedder
from archivist.models import RunReport
from archivist.pipeline import ArchiveRequest, Archiver, Progress
from archivist.store.embedded import embedded_url, start_embedded
from archivist.store.postgres import EmbeddingConfig, PostgresStore, connect

log = logging.getLogger(__name__)


@contextmanager
def open_store(settings: Settings) -> Iterator[PostgresStore]:
    """Connect to `DATABASE_URL`, or start the embedded database when none is set."""
    server: Any = None
    if settings.database_url is not None:
        url = settings.database_url.get_secret_value()
    else:
        server = start_embedded(settings.data_dir)
        url = embedded_url(server)
    store = PostgresStore(connect(url, settings.secrets()), settings.sources)
    try:
        yield store
    finally:
        store.close()
        del server  # the embedded server stops when its last handle is gone


def make_embedder(settings: Settings) -> Embedder:
    """The embedder the settings name."""
    if settings.embedder == "hash":
        return HashEmbedder(dimension=settings.embedding_dim, batch_size=settings.embed_batch_size)
    return OllamaEmbedder(
        model=settings.embedding_model,
        host=settings.ollama_host,
        timeout_s=settings.ollama_timeout_s,
        batch_size=settings.embed_batch_size,
    )


def embedding_config(settings: Settings, embedder: Embedder) -> EmbeddingConfig:
    return EmbeddingConfig(embedder.model, settings.embedding_dim)


def init_database(settings: Settings) -> tuple[list[str], EmbeddingConfig]:
    """Apply migrations and record the embedding model; safe to repeat."""
    with open_store(settings) as store:
        return store.init(embedding_config(settings, make_embedder(settings)))


def archive(
    settings: Settings,
    request: ArchiveRequest,
    progress: Progress | None = None,
    embedder: Embedder | None = None,
) -> RunReport:
    """Run the archivist once. The embedded database is initialised on first use."""
    embedder = embedder or make_embedder(settings)
    with open_store(settings) as store:
        if settings.uses_embedded_database and store.recorded_embedding() is None:
            store.init(embedding_config(settings, embedder))
        return Archiver(store, embedder, settings).run(request, progress)
