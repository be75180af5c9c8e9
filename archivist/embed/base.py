"""The embedding interface: one primitive, `embed_batch`, everything else built on it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]

# nomic-embed-text is trained with task prefixes; without them retrieval quality drops.
_TASK_PREFIXES: dict[str, tuple[str, str]] = {
    "nomic-embed-text": ("search_document: ", "search_query: "),
}


class Embedder(Protocol):
    """Turns texts into vectors of one fixed model."""

    @property
    def name(self) -> str:
        """Backend name shown to users (`ollama`, `hash`)."""
        ...

    @property
    def model(self) -> str:
        """Model identifier recorded with every chunk and checked against the database."""
        ...

    @property
    def batch_size(self) -> int:
        """How many texts one `embed_batch` call may carry."""
        ...

    def embed_batch(self, texts: Sequence[str]) -> list[Vector]:
        """Embed at most `batch_size` texts, one vector each, in order."""
        ...


def task_prefixes(model: str) -> tuple[str, str]:
    """The (document, query) prefixes a model expects; empty strings when it has none."""
    base = model.split(":", 1)[0]
    return _TASK_PREFIXES.get(base, ("", ""))


def embed_documents(embedder: Embedder, texts: Sequence[str]) -> tuple[list[Vector], int]:
    """Embed texts as documents in batches; returns the vectors and the number of calls made."""
    prefix = task_prefixes(embedder.model)[0]
    vectors: list[Vector] = []
    calls = 0
    for start in range(0, len(texts), embedder.batch_size):
        batch = [prefix + t for t in texts[start : start + embedder.batch_size]]
        vectors.extend(embedder.embed_batch(batch))
        calls += 1
    return vectors, calls


def embed_query(embedder: Embedder, text: str) -> Vector:
    """Embed one search query with the model's query prefix."""
    return embedder.embed_batch([task_prefixes(embedder.model)[1] + text])[0]
