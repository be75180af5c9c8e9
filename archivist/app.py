"""The operations the CLI and the demo expose, on the backends the settings describe."""

from __future__ import annotations

from archivist.backends import make_embedder, open_store
from archivist.config import Settings
from archivist.embed.base import Embedder
from archivist.models import RunReport
from archivist.pipeline import Archiver, ArchiveRequest, Progress
from archivist.store.postgres import EmbeddingConfig


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
