"""The embedder the settings name."""

from __future__ import annotations

from archivist.config import Settings
from archivist.embed.base import Embedder
from archivist.embed.hashing import HashEmbedder, hash_model


def make_embedder(settings: Settings, timeout_s: float | None = None) -> Embedder:
    """The embedder the settings name (with a shorter timeout if given)."""
    if settings.embedder == "hash":
        return HashEmbedder(dimension=settings.embedding_dim, batch_size=settings.embed_batch_size)
    from archivist.embed.ollama import OllamaEmbedder  # the ollama client is slow to import

    return OllamaEmbedder(
        model=settings.embedding_model,
        host=settings.ollama_host,
        timeout_s=timeout_s or settings.ollama_timeout_s,
        batch_size=settings.embed_batch_size,
        retries=settings.ollama_retries,
        backoff_s=settings.ollama_backoff_s,
    )


def configured_model(settings: Settings) -> str:
    """The model the settings' embedder records, without building it ("hash-768" for the
    offline embedder, whose model is no setting)."""
    if settings.embedder == "hash":
        return hash_model(settings.embedding_dim)
    return settings.embedding_model
