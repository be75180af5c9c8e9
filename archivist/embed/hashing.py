"""An offline embedder: feature hashing of words and character trigrams.

The vectors are lexical, NOT semantic: texts that share words (or pieces of words) score a
higher cosine than texts that do not, but synonyms and paraphrases are not recognised. The
hash embedder exists for demos, tests, benchmarks and machines without Ollama.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from archivist.embed.base import Vector, task_prefixes

_TOKEN = re.compile(r"\w+")
# Callers may add nomic's task prefixes; ignoring them keeps documents and queries comparable.
_PREFIXES = task_prefixes("nomic-embed-text")
# Texts embedded with one round of numpy calls; bounds the temporary arrays.
_TEXTS_PER_PASS = 128

Buckets = npt.NDArray[np.intp]
Signs = npt.NDArray[np.float64]


@functools.lru_cache(maxsize=1 << 17)
def _token_features(token: str, dimension: int) -> tuple[Buckets, Signs]:
    """Bucket and sign of each feature of a token: the word and the trigrams of `<token>`.

    The boundary marks give short words trigrams of their own and let prefixes and suffixes
    count. Word and trigram features live in separate key spaces (`w` and `t`), so the word
    `abc` and the trigram `abc` differ. blake2b because Python's `hash()` changes from one
    process to the next. Cached because chat text repeats its words.
    """
    padded = f"<{token}>"
    keys = [b"w" + token.encode()]
    keys.extend(b"t" + padded[i : i + 3].encode() for i in range(len(padded) - 2))
    hashes = np.fromiter(
        (int.from_bytes(hashlib.blake2b(k, digest_size=8).digest(), "little") for k in keys),
        dtype=np.uint64,
        count=len(keys),
    )
    buckets = ((hashes >> np.uint64(1)) % np.uint64(dimension)).astype(np.intp)
    return buckets, np.where(hashes & np.uint64(1), -1.0, 1.0)


def _strip_prefix(text: str) -> str:
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text


def hash_model(dimension: int) -> str:
    """The model name the hash embedder of `dimension` records ("hash-768")."""
    return f"hash-{dimension}"


class HashEmbedder:
    """Deterministic, offline, lexical (NOT semantic) embeddings of a fixed dimension.

    Each text becomes lowercase word tokens; each token contributes its own feature and the
    character trigrams of `<token>`, hashed (blake2b) to a bucket and a sign and weighted by
    the token's sublinear term frequency, 1 + log(tf). The vector is L2-normalised. A text
    without any word gets a fixed unit vector (on bucket 0), so its cosine is still defined.
    A leading nomic task prefix (`search_document: `, `search_query: `) is ignored.
    """

    name = "hash"

    def __init__(self, dimension: int = 768, batch_size: int = 64) -> None:
        if dimension < 1 or batch_size < 1:
            raise ValueError("dimension and batch_size must be positive")
        self.dimension = dimension
        self.batch_size = batch_size
        self.model = hash_model(dimension)

    def embed_batch(self, texts: Sequence[str]) -> list[Vector]:
        """One vector per text, in order; any number of texts."""
        vectors: list[Vector] = []
        for start in range(0, len(texts), _TEXTS_PER_PASS):
            vectors.extend(self._embed_pass(texts[start : start + _TEXTS_PER_PASS]))
        return vectors

    def _embed_pass(self, texts: Sequence[str]) -> list[Vector]:
        counts = [Counter(_TOKEN.findall(_strip_prefix(text).lower())) for text in texts]
        matrix = np.zeros((len(texts), self.dimension), dtype=np.float64)
        if any(counts):
            matrix += self._summed_features(counts)
        matrix[np.linalg.norm(matrix, axis=1) == 0.0, 0] = 1.0  # no words, or all cancelled
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        return list(matrix.astype(np.float32))

    def _summed_features(self, counts: list[Counter[str]]) -> npt.NDArray[np.float64]:
        """Each text's weighted, signed features summed into its buckets, with numpy.

        The distinct tokens of the pass are looked up once and their features laid end to
        end; every (text, token) pair then gathers its token's slice, so the work per token
        occurrence happens in numpy rather than in Python.
        """
        vocabulary = {token: row for row, token in enumerate(set().union(*counts))}
        tables = [_token_features(token, self.dimension) for token in vocabulary]
        buckets = np.concatenate([b for b, _ in tables])
        signs = np.concatenate([s for _, s in tables])
        sizes = np.array([len(b) for b, _ in tables], dtype=np.intp)
        starts = np.cumsum(sizes) - sizes

        rows = np.fromiter(
            itertools.chain.from_iterable(map(vocabulary.__getitem__, c) for c in counts), np.intp
        )
        tfs = np.fromiter(itertools.chain.from_iterable(c.values() for c in counts), np.float64)
        text_offsets = np.repeat(
            np.arange(len(counts), dtype=np.intp) * self.dimension, [len(c) for c in counts]
        )
        pair_sizes = sizes[rows]
        gather = np.repeat(starts[rows] - (np.cumsum(pair_sizes) - pair_sizes), pair_sizes)
        gather += np.arange(gather.size)

        cells = buckets[gather] + np.repeat(text_offsets, pair_sizes)
        weights = signs[gather] * np.repeat(1.0 + np.log(tfs), pair_sizes)
        summed = np.bincount(cells, weights=weights, minlength=len(counts) * self.dimension)
        return np.asarray(summed, dtype=np.float64).reshape(len(counts), self.dimension)
