"""The embedders: the offline hash embedder, and the Ollama embedder through the real `ollama`
client over real HTTP against the Ollama test double (tests/support/ollama_server.py)."""

from __future__ import annotations

import base64
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.ollama_server import OllamaTestServer

from archivist.embed.base import Embedder, Vector, embed_documents, probe, split_text
from archivist.embed.hashing import HashEmbedder
from archivist.embed.ollama import OllamaEmbedder
from archivist.errors import EmbedError

MakeEmbedder = Callable[..., OllamaEmbedder]


def cosine(a: Vector, b: Vector) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


# --- hash embedder ----------------------------------------------------------------------------


def test_hash_embedder_satisfies_the_protocol() -> None:
    embedder: Embedder = HashEmbedder(dimension=32, batch_size=8)
    assert (embedder.name, embedder.model, embedder.batch_size) == ("hash", "hash-32", 8)


@pytest.mark.parametrize("dimension", [8, 384, 768, 1024])
def test_hash_vectors_have_the_dimension_and_dtype(dimension: int) -> None:
    vectors = HashEmbedder(dimension=dimension).embed_batch(["hello world", "", "x"])
    assert [v.shape for v in vectors] == [(dimension,)] * 3
    assert all(v.dtype == np.float32 for v in vectors)


def test_hash_is_deterministic_within_and_across_processes() -> None:
    text = "Deploy the olive frontend to Vercel on Friday"
    first = HashEmbedder().embed_batch([text])[0]
    assert np.array_equal(first, HashEmbedder().embed_batch([text])[0])
    # Python's hash() is salted per process; blake2b is not.
    script = (
        "import sys; from archivist.embed.hashing import HashEmbedder; "
        f"sys.stdout.write(HashEmbedder().embed_batch([{text!r}])[0].tobytes().hex())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": os.getcwd()}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert bytes.fromhex(out) == first.tobytes()


@given(st.text(max_size=300))
def test_hash_vectors_are_unit_length_and_finite(text: str) -> None:
    vector = HashEmbedder(dimension=64).embed_batch([text])[0]
    assert np.isfinite(vector).all()
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)


def test_hash_batches_equal_one_text_at_a_time() -> None:
    """Texts embedded together (several numpy passes) must not leak into each other."""
    embedder = HashEmbedder(dimension=128)
    texts = [f"message {i} about topic {i % 7} and the deploy" for i in range(300)] + [""]
    together = embedder.embed_batch(texts)
    alone = [embedder.embed_batch([t])[0] for t in texts]
    assert len(together) == len(texts)
    assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(together, alone, strict=True))


def test_hash_ignores_nomic_task_prefixes() -> None:
    embedder = HashEmbedder()
    plain, document, query = embedder.embed_batch(
        ["Vercel deploy", "search_document: Vercel deploy", "search_query: Vercel deploy"]
    )
    assert np.array_equal(plain, document)
    assert np.array_equal(plain, query)


def test_hash_is_case_insensitive_and_counts_words_sublinearly() -> None:
    embedder = HashEmbedder()
    lower, upper, repeated = embedder.embed_batch(["cat dog", "CAT Dog", "cat cat cat cat dog"])
    assert np.array_equal(lower, upper)
    # With raw counts "cat" would weigh 4x "dog"; with 1 + log(4) it weighs about 2.4x.
    cat, dog = embedder.embed_batch(["cat", "dog"])
    assert float(repeated @ cat) / float(repeated @ dog) == pytest.approx(
        (1 + np.log(4)) * float(lower @ cat) / float(lower @ dog), rel=0.05
    )


def test_hash_similarity_is_lexical() -> None:
    query, overlapping, inflected, unrelated = HashEmbedder().embed_batch(
        [
            "deploy the olive frontend to Vercel",
            "we deploy our frontend on Vercel every Friday",
            "deploying frontends",
            "my grandmother bakes plum cakes in autumn",
        ]
    )
    assert cosine(query, overlapping) > cosine(query, unrelated) + 0.3
    assert cosine(query, inflected) > cosine(query, unrelated) + 0.1  # shared trigrams


def test_hash_empty_text_gets_a_fixed_unit_vector() -> None:
    empty, punctuation = HashEmbedder(dimension=16).embed_batch(["", "  !!! ?? "])
    expected = np.zeros(16, dtype=np.float32)
    expected[0] = 1.0
    assert np.array_equal(empty, expected)
    assert np.array_equal(punctuation, expected)


def test_hash_embedder_rejects_a_zero_dimension() -> None:
    with pytest.raises(ValueError):
        HashEmbedder(dimension=0)


# --- Ollama embedder against the test server --------------------------------------------------


@pytest.fixture
def make_embedder(ollama_server: OllamaTestServer) -> Iterator[MakeEmbedder]:
    """OllamaEmbedders aimed at the test server, with fast retries; closed after the test."""
    made: list[OllamaEmbedder] = []

    def make(**kwargs: Any) -> OllamaEmbedder:
        options: dict[str, Any] = {
            "host": ollama_server.url,
            "timeout_s": 2.0,
            "retries": 2,
            "backoff_s": 0.01,
        }
        embedder = OllamaEmbedder(**(options | kwargs))
        made.append(embedder)
        return embedder

    yield make
    for embedder in made:
        embedder.close()


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_ollama_embeds_in_order(
    ollama_server: OllamaTestServer, make_embedder: MakeEmbedder
) -> None:
    texts = ["first text", "second, different text", "third"]
    vectors = make_embedder().embed_batch(texts)
    expected = HashEmbedder(dimension=768).embed_batch(texts)  # what the server computes
    assert all(v.dtype == np.float32 for v in vectors)
    assert all(np.allclose(v, e, atol=1e-6) for v, e in zip(vectors, expected, strict=True))
    assert [(r.model, r.inputs) for r in ollama_server.embed_requests] == [("nomic-embed-text", 3)]


def test_ollama_splits_batches_at_batch_size(
    ollama_server: OllamaTestServer, make_embedder: MakeEmbedder
) -> None:
    vectors = make_embedder(batch_size=4).embed_batch([f"text {i}" for i in range(10)])
    assert len(vectors) == 10
    assert [r.inputs for r in ollama_server.embed_requests] == [4, 4, 2]


def test_embed_documents_counts_calls(
    ollama_server: OllamaTestServer, make_embedder: MakeEmbedder
) -> None:
    vectors, calls = embed_documents(make_embedder(batch_size=3), ["a", "b", "c", "d"])
    assert (len(vectors), calls, len(ollama_server.embed_requests)) == (4, 2, 2)


def test_ollama_sends_nothing_for_no_texts(
    ollama_server: OllamaTestServer, make_embedder: MakeEmbedder
) -> None:
    assert make_embedder().embed_batch([]) == []
    assert ollama_server.requests == []


def test_ollama_retries_a_500(ollama_server: OllamaTestServer, make_embedder: MakeEmbedder) -> None:
    ollama_server.fault, ollama_server.fail_times = "500", 2
    assert len(make_embedder(retries=2).embed_batch(["hello"])) == 1
    assert len(ollama_server.embed_requests) == 3


def test_ollama_gives_up_on_a_persistent_500(
    ollama_server: OllamaTestServer, make_embedder: MakeEmbedder
) -> None:
    ollama_server.fault = "500"
    with pytest.raises(EmbedError, match=r"HTTP 500 \(3 attempts\)") as caught:
        make_embedder(retries=2).embed_batch(["hello"])
    assert "llama runner process has terminated" in str(caught.value)
    assert caught.value.__cause__ is not None
    assert len(ollama_server.embed_requests) == 3


def test_ollama_backs_off_exponentially(
    ollama_server: OllamaTestServer, make_embedder: MakeEmbedder
) -> None:
    ollama_server.fault = "500"
    started = time.monotonic()
    with pytest.raises(EmbedError):
        make_embedder(retries=2, backoff_s=0.05).embed_batch(["hello"])
    assert time.monotonic() - started >= 0.05 + 0.1


def test_ollama_missing_model_says_pull_without_retrying(
    ollama_server: OllamaTestServer, make_embedder: MakeEmbedder
) -> None:
    ollama_server.fault = "404"
    with pytest.raises(EmbedError, match="run: ollama pull nomic-embed-text$"):
        make_embedder().embed_batch(["hello"])
    assert len(ollama_server.embed_requests) == 1


def test_ollama_unknown_model_says_pull(
    ollama_server: OllamaTestServer, make_embedder: MakeEmbedder
) -> None:
    with pytest.raises(EmbedError, match="'mxbai-embed-large' is not available") as caught:
        make_embedder(model="mxbai-embed-large").embed_batch(["hello"])
    assert "ollama pull mxbai-embed-large" in str(caught.value)
    assert ollama_server.url in str(caught.value)


def test_ollama_times_out(ollama_server: OllamaTestServer, make_embedder: MakeEmbedder) -> None:
    ollama_server.fault = "slow"
    started = time.monotonic()
    with pytest.raises(EmbedError, match=r"did not answer within 0\.2 s .*\(2 attempts\)"):
        make_embedder(timeout_s=0.2, retries=1).embed_batch(["hello"])
    assert time.monotonic() - started < ollama_server.delay_s
    assert len(ollama_server.embed_requests) == 2


def test_ollama_retries_after_a_timeout(
    ollama_server: OllamaTestServer, make_embedder: MakeEmbedder
) -> None:
    ollama_server.fault, ollama_server.fail_times = "slow", 1
    assert len(make_embedder(timeout_s=0.2).embed_batch(["hello"])) == 1
    assert len(ollama_server.embed_requests) == 2


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("bad_json", "not an embedding response"),
        ("junk", "not an embedding response"),
        ("wrong_count", "returned 1 vectors for 2 texts"),
        ("ragged", "vectors of unequal length"),
    ],
)
def test_ollama_rejects_malformed_answers_without_retrying(
    ollama_server: OllamaTestServer, make_embedder: MakeEmbedder, fault: Any, message: str
) -> None:
    ollama_server.fault = fault
    with pytest.raises(EmbedError, match=message):
        make_embedder().embed_batch(["one", "two"])
    assert len(ollama_server.embed_requests) == 1


def test_probe_dimension(ollama_server: OllamaTestServer, make_embedder: MakeEmbedder) -> None:
    embedder = make_embedder()

    def dimension() -> int:
        vector = probe(embedder)
        assert vector is not None
        return len(vector)

    assert dimension() == 768
    ollama_server.fault = "wrong_dim"
    assert dimension() == 384
    ollama_server.reset()
    assert dimension() == 768
    assert len(ollama_server.requests) == 1


def test_ollama_cuts_texts_longer_than_the_context(
    ollama_server: OllamaTestServer, make_embedder: MakeEmbedder
) -> None:
    ollama_server.fault, ollama_server.max_input_chars = "400_long", 100
    long_text = "x" * 300
    embedder = make_embedder(batch_size=8)
    vectors = embedder.embed_batch(["short", long_text, "also short"])
    expected = HashEmbedder().embed_batch(["short", long_text[:75], "also short"])
    assert all(np.allclose(v, e, atol=1e-6) for v, e in zip(vectors, expected, strict=True))
    assert embedder.texts_truncated == 1
    # [3] fails -> [short] ok, [long, also] fails -> [long] fails twice (300, 150), 75 ok, [also]
    assert [r.inputs for r in ollama_server.embed_requests] == [3, 1, 2, 1, 1, 1, 1]


def test_ollama_gives_up_on_a_text_that_never_fits(
    ollama_server: OllamaTestServer, make_embedder: MakeEmbedder
) -> None:
    ollama_server.fault, ollama_server.max_input_chars = "400_long", 1
    embedder = make_embedder()
    with pytest.raises(EmbedError, match="too long for nomic-embed-text"):
        embedder.embed_batch(["x" * 100])
    assert embedder.texts_truncated == 0


def test_ollama_server_down(ollama_server: OllamaTestServer, make_embedder: MakeEmbedder) -> None:
    ollama_server.fault = "down"
    with pytest.raises(EmbedError, match="Ollama is not reachable at .*`ollama serve`"):
        make_embedder(retries=1).embed_batch(["hello"])
    assert len(ollama_server.embed_requests) == 2


def test_ollama_retries_a_dropped_connection(
    ollama_server: OllamaTestServer, make_embedder: MakeEmbedder
) -> None:
    ollama_server.fault, ollama_server.fail_times = "down", 1
    assert len(make_embedder().embed_batch(["hello"])) == 1


def test_ollama_nothing_listening(make_embedder: MakeEmbedder) -> None:
    host = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(EmbedError, match=f"not reachable at {host}: connection failed"):
        make_embedder(host=host).embed_batch(["hello"])


def test_has_model(ollama_server: OllamaTestServer, make_embedder: MakeEmbedder) -> None:
    assert make_embedder().has_model()
    assert make_embedder(model="nomic-embed-text:latest").has_model()
    assert not make_embedder(model="nomic-embed-text:v1.5").has_model()
    ollama_server.models = {"mxbai-embed-large:latest"}
    assert not make_embedder().has_model()
    assert [r.path for r in ollama_server.requests] == ["/api/tags"] * 4


def test_has_model_when_ollama_is_down(make_embedder: MakeEmbedder) -> None:
    with pytest.raises(EmbedError, match="not reachable"):
        make_embedder(host=f"127.0.0.1:{free_port()}").has_model()


@pytest.mark.parametrize("fault", ["500", "404", "down", "slow", "bad_json"])
def test_ollama_errors_never_show_credentials(
    ollama_server: OllamaTestServer, make_embedder: MakeEmbedder, fault: Any
) -> None:
    ollama_server.fault = fault
    host = ollama_server.url.replace("http://", "http://user:secret@")
    with pytest.raises(EmbedError) as caught:
        make_embedder(host=host, timeout_s=0.2, retries=0).embed_batch(["hello"])
    message = str(caught.value)
    assert ollama_server.url in message
    assert "secret" not in message
    assert "user" not in message


def test_ollama_sends_url_credentials_as_basic_auth(
    ollama_server: OllamaTestServer, make_embedder: MakeEmbedder
) -> None:
    embedder = make_embedder(host=ollama_server.url.replace("http://", "http://user:s%40cret@"))
    embedder.embed_batch(["hello"])
    assert embedder.host == ollama_server.url
    expected = "Basic " + base64.b64encode(b"user:s@cret").decode()
    assert [r.authorization for r in ollama_server.requests] == [expected]


def test_ollama_host_defaults_to_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "http://10.1.2.3:4444")
    with OllamaEmbedder() as embedder:
        assert embedder.host == "http://10.1.2.3:4444"
    monkeypatch.delenv("OLLAMA_HOST")
    with OllamaEmbedder() as embedder:
        assert embedder.host == "http://127.0.0.1:11434"


def test_a_text_longer_than_the_model_reads_is_embedded_in_pieces_and_pooled() -> None:
    embedder = HashEmbedder(dimension=64)
    text = "ledger postgres " * 20 + "holiday lisbon " * 60
    (pooled,), calls = embed_documents(embedder, [text], piece_chars=400)
    pieces = split_text(text, 400)
    vectors = embedder.embed_batch(pieces)
    expected = np.average(np.stack(vectors), axis=0, weights=[len(p) for p in pieces])
    assert calls == 1 and len(pieces) == 4
    assert np.allclose(pooled, expected / np.linalg.norm(expected), atol=1e-6)
    assert float(pooled @ vectors[-1]) > 0.3  # the end of the text counts, not only its start
    (short,), _ = embed_documents(embedder, ["ledger postgres"], piece_chars=400)
    assert np.allclose(short, embedder.embed_batch(["ledger postgres"])[0])
