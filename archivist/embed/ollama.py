"""Embeddings from an Ollama server, through the official `ollama` client.

Every failure ends in an `EmbedError` whose message says what to do. Connection errors,
timeouts and HTTP 5xx are retried with exponential backoff; a missing model is not. Recent
Ollama answers 400 instead of truncating an input longer than the model's context, so such
a batch is split to find the long text, which is then cut until it fits (and counted).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import TypeVar
from urllib.parse import unquote

import httpx
import numpy as np
import ollama
from pydantic import ValidationError

from archivist.embed.base import Vector
from archivist.errors import EmbedError, EmbedUnavailableError, ModelNotFoundError

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_HOST = "http://127.0.0.1:11434"
# How often a single text is halved before giving up on it.
_MAX_CUTS = 4
# Ollama says "the input length exceeds the context length".
_CONTEXT_ERRORS = ("context length", "input length")


class _InputTooLong(Exception):
    """Ollama refused a request because one of its texts exceeds the model's context."""


class OllamaEmbedder:
    """Embeds texts with one Ollama model; see the module docstring for failure handling."""

    name = "ollama"

    def __init__(
        self,
        model: str = "nomic-embed-text",
        host: str | None = None,
        timeout_s: float = 30.0,
        batch_size: int = 64,
        retries: int = 3,
        backoff_s: float = 0.5,
    ) -> None:
        if timeout_s <= 0 or batch_size < 1 or retries < 0 or backoff_s < 0:
            raise ValueError(
                "timeout_s and batch_size must be positive, retries and backoff_s >= 0"
            )
        self.model = model
        self.batch_size = batch_size
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.texts_truncated = 0
        address, auth = _split_credentials(host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST)
        self.host = address  # without credentials: safe to show
        self._client = ollama.Client(host=address, timeout=timeout_s, auth=auth)

    def __enter__(self) -> OllamaEmbedder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP connections."""
        self._client.close()  # type: ignore[no-untyped-call]  # unannotated in ollama

    def embed_batch(self, texts: Sequence[str]) -> list[Vector]:
        """One float32 vector per text, in order, in requests of at most `batch_size` texts."""
        vectors: list[Vector] = []
        for start in range(0, len(texts), self.batch_size):
            vectors.extend(self._embed_fitting(list(texts[start : start + self.batch_size])))
        return vectors

    def has_model(self) -> bool:
        """Whether Ollama has the model pulled (`nomic-embed-text` matches `...:latest`)."""
        wanted = _with_tag(self.model)
        listed = self._call(self._client.list).models
        return any(_with_tag(m.model or "") == wanted for m in listed)

    def _embed_fitting(self, texts: list[str]) -> list[Vector]:
        """Embed texts; when one is too long for the model, split the batch to find it."""
        try:
            return self._embed(texts)
        except _InputTooLong:
            if len(texts) == 1:
                return [self._embed_cut(texts[0])]
            middle = len(texts) // 2
            return self._embed_fitting(texts[:middle]) + self._embed_fitting(texts[middle:])

    def _embed_cut(self, text: str) -> Vector:
        """Embed the text cut to half its length, again and again, until it fits the context."""
        for _ in range(_MAX_CUTS):
            text = text[: len(text) // 2]
            try:
                vector = self._embed([text])[0]
            except _InputTooLong:
                continue
            self.texts_truncated += 1
            log.warning("cut a text to %d characters to fit %s's context", len(text), self.model)
            return vector
        raise EmbedError(
            f"a text is too long for {self.model} even when cut to {len(text)} characters; "
            "use smaller chunks"
        )

    def _embed(self, texts: list[str]) -> list[Vector]:
        response = self._call(lambda: self._client.embed(model=self.model, input=texts))
        return self._vectors(response.embeddings, len(texts))

    def _call(self, request: Callable[[], T]) -> T:
        """Send a request, retrying what may pass later: connection errors, timeouts, 5xx."""
        failure: Exception
        for attempt in range(self.retries + 1):
            try:
                return request()
            except ollama.ResponseError as exc:
                if exc.status_code < 500:
                    raise self._refusal(exc) from exc
                failure = exc
            except (ConnectionError, httpx.TransportError) as exc:
                failure = exc
            except (json.JSONDecodeError, ValidationError) as exc:
                raise EmbedError(
                    f"Ollama at {self.host} sent an answer that is not an embedding response: "
                    f"{_brief(exc)}"
                ) from exc
            if attempt < self.retries:
                delay = self.backoff_s * 2**attempt
                log.info("Ollama request failed (%s); retry in %.2f s", _brief(failure), delay)
                time.sleep(delay)
        raise self._unavailable(failure) from failure

    def _refusal(self, exc: ollama.ResponseError) -> Exception:
        """The error for an HTTP 4xx: the model is missing, an input is too long, or else."""
        text = str(exc.error).lower()
        if exc.status_code == 404 and "page not found" not in text:
            return ModelNotFoundError(
                f"embedding model '{self.model}' is not available in Ollama at {self.host}; "
                f"run: ollama pull {self.model}"
            )
        if exc.status_code == 400 and any(marker in text for marker in _CONTEXT_ERRORS):
            return _InputTooLong(exc.error)
        return EmbedError(
            f"Ollama at {self.host} refused the request (HTTP {exc.status_code}: {_brief(exc)})"
        )

    def _unavailable(self, exc: Exception) -> EmbedUnavailableError:
        """The error once retries are spent."""
        attempts = f"{self.retries + 1} attempt{'s' if self.retries else ''}"
        if isinstance(exc, httpx.TimeoutException):
            return EmbedUnavailableError(
                f"Ollama did not answer within {self.timeout_s:g} s at {self.host} ({attempts}); "
                "it may still be loading the model: retry, or raise the timeout"
            )
        if isinstance(exc, ollama.ResponseError):
            return EmbedUnavailableError(
                f"Ollama at {self.host} failed with HTTP {exc.status_code} ({attempts}): "
                f"{_brief(exc)}; see the Ollama server log"
            )
        return EmbedUnavailableError(
            f"Ollama is not reachable at {self.host}: {_brief(exc)} ({attempts}); "
            "start it with `ollama serve` or set OLLAMA_HOST"
        )

    def _vectors(self, embeddings: Sequence[Sequence[float]], expected: int) -> list[Vector]:
        """Check an answer's shape and values; the vectors as float32 arrays."""
        if len(embeddings) != expected:
            raise EmbedError(
                f"Ollama at {self.host} returned {len(embeddings)} vectors for {expected} texts"
            )
        try:
            matrix = np.asarray(embeddings, dtype=np.float32)
        except (TypeError, ValueError) as exc:  # ragged rows
            raise EmbedError(
                f"Ollama at {self.host} returned vectors of unequal length from {self.model}"
            ) from exc
        if matrix.ndim != 2 or matrix.shape[1] == 0 or not np.isfinite(matrix).all():
            raise EmbedError(f"Ollama at {self.host} returned empty or non-finite vectors")
        return list(matrix)


def _split_credentials(host: str) -> tuple[str, httpx.BasicAuth | None]:
    """The host without `user:password@`, and those credentials as HTTP basic auth.

    The address is what error messages show; the credentials go only into the auth header.
    """
    scheme, separator, rest = host.partition("://")
    if not separator:
        scheme, rest = "", host
    authority, slash, path = rest.partition("/")
    userinfo, at, hostport = authority.rpartition("@")
    if not at:
        return host, None
    user, _, password = userinfo.partition(":")
    return f"{scheme}{separator}{hostport}{slash}{path}", httpx.BasicAuth(
        unquote(user), unquote(password)
    )


def _with_tag(model: str) -> str:
    """`nomic-embed-text` -> `nomic-embed-text:latest`, as Ollama lists models."""
    return model if ":" in model.rpartition("/")[2] else f"{model}:latest"


def _brief(exc: BaseException, limit: int = 200) -> str:
    """An exception as one short line (error bodies may be whole HTML pages)."""
    if isinstance(exc, ollama.ResponseError):
        text = str(exc.error)
    elif isinstance(exc, ConnectionError):
        text = "connection failed"  # the client's own message is a paragraph
    else:
        text = str(exc) or type(exc).__name__
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
