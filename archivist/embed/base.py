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


def embed_documents(
    embedder: Embedder, texts: Sequence[str], piece_chars: int | None = None
) -> tuple[list[Vector], int]:
    """Embed texts as documents in batches; returns the vectors and the number of calls made.

    A model reads at most its input length and silently drops the rest, so a text longer than
    `piece_chars` is embedded in pieces of at most that many characters (`split_text`), and its
    vector is the mean of theirs weighted by length: every part of a long turn window counts.
    """
    prefix = task_prefixes(embedder.model)[0]
    pieces: list[str] = []
    owners: list[int] = []
    for index, text in enumerate(texts):
        parts = split_text(text, piece_chars) if piece_chars and len(text) > piece_chars else []
        for part in parts or [text]:
            pieces.append(part)
            owners.append(index)
    embedded: list[Vector] = []
    calls = 0
    for start in range(0, len(pieces), embedder.batch_size):
        batch = [prefix + t for t in pieces[start : start + embedder.batch_size]]
        embedded.extend(embedder.embed_batch(batch))
        calls += 1
    if len(pieces) == len(texts) or len(embedded) != len(pieces):
        return embedded, calls  # nothing to pool (a short answer is the caller's to refuse)
    return _pooled(embedded, owners, [len(p) for p in pieces], len(texts)), calls


def _pooled(vectors: list[Vector], owners: list[int], weights: list[int], n: int) -> list[Vector]:
    """Per text, the length-weighted mean of its pieces' vectors, scaled to unit length.

    Vectors of differing lengths are left as the first piece's, for the caller to refuse."""
    grouped: list[list[int]] = [[] for _ in range(n)]
    for i, owner in enumerate(owners):
        grouped[owner].append(i)
    pooled: list[Vector] = []
    for members in grouped:
        first = vectors[members[0]]
        if len(members) == 1 or len({len(vectors[i]) for i in members}) > 1:
            pooled.append(first)
            continue
        mean = np.average(
            np.stack([vectors[i] for i in members]), axis=0, weights=[weights[i] for i in members]
        )
        norm = float(np.linalg.norm(mean))
        pooled.append((mean / norm if norm > 0 else mean).astype(np.float32))
    return pooled


def split_text(text: str, max_chars: int) -> list[str]:
    """Cut text into pieces of at most `max_chars`, preferring line and word boundaries."""
    pieces: list[str] = []
    while len(text) > max_chars:
        cut = text.rfind("\n", max_chars // 2, max_chars)
        if cut <= 0:
            cut = text.rfind(" ", max_chars // 2, max_chars)
        if cut <= 0:
            cut = max_chars
        pieces.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    if text.strip():
        pieces.append(text)
    return [p for p in pieces if p]


def embed_query(embedder: Embedder, text: str) -> Vector:
    """Embed one search query with the model's query prefix."""
    return embedder.embed_batch([task_prefixes(embedder.model)[1] + text])[0]


PROBE_TEXT = "dimension probe"


def probe(embedder: Embedder) -> Vector | None:
    """The model's vector for a short fixed text, or None if it answers with none: the one
    check of what a model makes (`reembed` without --dim, a run telling a bad batch from a
    failing model, a server's start checking the recorded dimension)."""
    vectors = embedder.embed_batch([PROBE_TEXT])
    return vectors[0] if len(vectors) == 1 and len(vectors[0]) else None
