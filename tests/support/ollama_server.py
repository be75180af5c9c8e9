"""A TEST DOUBLE of the Ollama HTTP API: a small server on 127.0.0.1 for the test suite.

It is not Ollama and computes nothing semantic. It answers the endpoints the archivist uses,
the way Ollama does, so the real `ollama` client can talk to it over real HTTP:

    POST /api/embed    {"model", "input": str | [str]} -> {"model", "embeddings": [[...]]}
    GET  /api/tags     the available models ("nomic-embed-text:latest")
    GET  /api/version  {"version": ...}
    POST /api/show     {"model"} -> details and model_info with the embedding length

Embeddings are deterministic: the archivist's offline `HashEmbedder` of `dimension` (768),
or of the model's own dimension in `dimensions` (e.g. {"all-minilm": 384}); or a model's own
function in `embed_fns` (texts -> vectors), which serves a real sentence embedder over this API
(tests/support/retrieval_eval.py does, with all-MiniLM-L6-v2).
Unknown models get Ollama's 404 ("model ... not found, try pulling it first").

Misbehaviour is set at runtime on the server object: `fault` is one of
    "500"        HTTP 500 on every endpoint
    "404"        model not found on /api/embed and /api/show
    "400_long"   Ollama's context-length 400 when an input is longer than `max_input_chars`
    "slow"       wait `delay_s` before answering normally (cut short when the server closes)
    "bad_json"   HTTP 200 with a body that is not JSON
    "wrong_dim"  embeddings of 384 dimensions
    "down"       close the connection without answering
    "wrong_count", "ragged", "junk"
                 /api/embed answers one vector too few, vectors of unequal length, or
                 strings instead of numbers
and `fail_times` limits it to the first N requests it applies to (None: every request), so a
test can check that a retry succeeds; `fault_after` answers the first N /api/embed requests
normally before the fault starts (a server that goes down, or loses its model, mid-run).
Every request is recorded in `requests`.

Latency, like a real server's (no fault needed): a healthy /api/embed takes `embed_s` plus
`embed_per_text_s` per text, and at most `parallel` of them run at once (Ollama's
OLLAMA_NUM_PARALLEL; None: no limit); the others queue. `embed_busy_s` adds up the time they
took, so a benchmark can tell the embedding time a run needed from the wall time it took;
`embed_spans` holds each healthy /api/embed's texts and when it was answered (its start and
end on `time.monotonic()`, its wait for a slot included), so a test can see which requests
were in flight at once.

Faults of some inputs only (the server is fine, some texts are not): `poison` maps a marker to
one of "nan" (that text's vector holds NaN), "short" (that text's vector has 384 dimensions)
or "missing" (no vector for that text); /api/embed answers every text containing the marker
that way and the others normally.

Chat (for the LLM extractor) is separate from the faults above:

    POST /api/chat     {"model", "messages", "format", "options", "stream"} -> the next of
                       `chat_replies` as the assistant's content (the last one repeats),
                       streamed as NDJSON parts when "stream" is true, one object when not

Chat models must be in `models` (else Ollama's 404). `chat_fault` is one of "slow" (wait
`delay_s` first), "drip" (stream parts `drip_s` apart), "500", "down", "bad_stream" (HTTP 200
with lines that are not JSON). The request bodies are kept in `chat_requests`.

Use the `ollama_server` fixture: a fresh server per test, shut down after it.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest

from archivist.embed.hashing import HashEmbedder

Fault = Literal[
    "500",
    "404",
    "400_long",
    "slow",
    "bad_json",
    "wrong_dim",
    "down",
    "wrong_count",
    "ragged",
    "junk",
]
ChatFault = Literal["slow", "drip", "500", "down", "bad_stream"]
EmbedFn = Callable[[Sequence[str]], Sequence[Sequence[float]]]
Poison = Literal["nan", "short", "missing"]

WRONG_DIMENSION = 384
CONTEXT_ERROR = "the input length exceeds the context length"
# Which faults each endpoint acts out; the others it answers normally.
_ANY_ENDPOINT = {"500", "slow", "bad_json", "down"}
_FAULTS_BY_PATH: dict[str, set[str]] = {
    "/api/embed": _ANY_ENDPOINT | {"404", "400_long", "wrong_dim", "wrong_count", "ragged", "junk"},
    "/api/show": _ANY_ENDPOINT | {"404"},
    "/api/tags": _ANY_ENDPOINT,
    "/api/version": _ANY_ENDPOINT,
}


@dataclass(frozen=True)
class EmbedSpan:
    """A healthy /api/embed: its texts, and when it arrived and was answered (monotonic s)."""

    texts: tuple[str, ...]
    started: float
    ended: float


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it."""

    method: str
    path: str
    model: str | None
    inputs: int  # texts in an /api/embed request, else 0
    authorization: str | None


class OllamaTestServer:
    """The test double; see the module docstring. Attributes may be changed at any time."""

    def __init__(
        self,
        dimension: int = 768,
        models: tuple[str, ...] = ("nomic-embed-text:latest",),
        dimensions: dict[str, int] | None = None,
        embed_fns: dict[str, EmbedFn] | None = None,
    ) -> None:
        self.dimension = dimension
        self.dimensions = {_with_tag(m): d for m, d in (dimensions or {}).items()}
        self.embed_fns = {_with_tag(m): f for m, f in (embed_fns or {}).items()}
        self.models = set(models) | set(self.dimensions)
        self.fault: Fault | None = None
        self.poison: dict[str, Poison] = {}
        self.fail_times: int | None = None
        self.fault_after = 0
        self.delay_s = 5.0
        self.embed_s = 0.0
        self.embed_per_text_s = 0.0
        self.parallel: int | None = None
        self.embed_busy_s = 0.0
        self.embed_spans: list[EmbedSpan] = []
        self._slots: threading.Semaphore | None = None
        self.max_input_chars = 8000
        self.requests: list[RecordedRequest] = []
        self.chat_replies: list[str] = ['{"items": []}']
        self.chat_fault: ChatFault | None = None
        self.drip_s = 0.2
        self.chat_requests: list[dict[str, Any]] = []
        self._faults_served = 0
        self._healthy_embeds = 0
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd = _HTTPServer(self)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()

    @property
    def embed_requests(self) -> list[RecordedRequest]:
        """The /api/embed requests received so far."""
        return [r for r in self.requests if r.path == "/api/embed"]

    def reset(self) -> None:
        """No fault, no recorded requests."""
        with self._lock:
            self.fault = None
            self.poison = {}
            self.fail_times = None
            self.fault_after = 0
            self._faults_served = 0
            self._healthy_embeds = 0
            self.requests.clear()
            self.embed_spans.clear()

    def close(self) -> None:
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def take_fault(self, path: str, inputs: list[str]) -> Fault | None:
        """The fault to act out for this request, counting it against `fail_times`."""
        with self._lock:
            fault = self.fault
            if fault is None or fault not in _FAULTS_BY_PATH.get(path, set()):
                return None
            if path == "/api/embed" and self._healthy_embeds < self.fault_after:
                self._healthy_embeds += 1
                return None
            if self._healthy_embeds < self.fault_after:
                return None
            if fault == "400_long" and all(len(t) <= self.max_input_chars for t in inputs):
                return None
            if self.fail_times is not None and self._faults_served >= self.fail_times:
                return None
            self._faults_served += 1
            return fault

    def pause(self) -> None:
        """The "slow" fault's wait, cut short when the server closes."""
        self._closing.wait(self.delay_s)

    def compute(self, texts: int) -> None:
        """A healthy embedding's latency: wait for one of `parallel` slots, then for the time
        `texts` texts take."""
        took = self.embed_s + self.embed_per_text_s * texts
        if took <= 0:
            return
        with self._lock:
            if self.parallel is not None and self._slots is None:
                self._slots = threading.BoundedSemaphore(self.parallel)
            slots = self._slots
        if slots is not None:
            slots.acquire()
        try:
            self._closing.wait(took)
        finally:
            if slots is not None:
                slots.release()
        with self._lock:
            self.embed_busy_s += took

    def answered(self, texts: list[str], started: float) -> None:
        """Record a healthy embedding, answered now."""
        with self._lock:
            self.embed_spans.append(EmbedSpan(tuple(texts), started, time.monotonic()))

    def next_chat_reply(self, body: dict[str, Any]) -> str:
        """Record a chat request; the content to answer it with."""
        with self._lock:
            self.chat_requests.append(body)
            if len(self.chat_replies) > 1:
                return self.chat_replies.pop(0)
            return self.chat_replies[0]

    def wait(self, seconds: float) -> None:
        """Sleep, cut short when the server closes."""
        self._closing.wait(seconds)

    def knows(self, model: str) -> bool:
        return _with_tag(model) in {_with_tag(m) for m in self.models}

    def dimension_of(self, model: str) -> int:
        return self.dimensions.get(_with_tag(model), self.dimension)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: OllamaTestServer) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet when a client went away (it timed out on a slow answer)."""
        if not isinstance(sys.exception(), ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output clean."""

    def do_GET(self) -> None:
        self._serve({})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            body = None
        if not isinstance(body, dict):
            self._json(400, {"error": "invalid JSON body"})
            return
        if self.path == "/api/chat":
            _serve_chat(self, body)
            return
        self._serve(body)

    def _serve(self, body: dict[str, Any]) -> None:
        state = self.server.state
        model = body.get("model")
        inputs = _inputs(body.get("input"))
        texts = inputs or []
        state.record(
            RecordedRequest(
                self.command,
                self.path,
                model if isinstance(model, str) else None,
                len(texts) if self.path == "/api/embed" else 0,
                self.headers.get("Authorization"),
            )
        )
        fault = state.take_fault(self.path, texts)
        if fault == "down":
            self.close_connection = True
            return
        if fault == "slow":
            state.pause()
        if fault in {"500", "404", "400_long", "bad_json"}:
            self._fault(fault, model)
        elif fault in {"wrong_count", "ragged", "junk"}:
            self._json(200, _malformed(fault, str(model), len(texts)))
        else:
            self._route(body, inputs, wrong_dimension=fault == "wrong_dim")

    def _fault(self, fault: str, model: Any) -> None:
        if fault == "500":
            self._json(500, {"error": "llama runner process has terminated: exit status 2"})
        elif fault == "404":
            self._json(404, {"error": f'model "{model}" not found, try pulling it first'})
        elif fault == "400_long":
            self._json(400, {"error": CONTEXT_ERROR})
        else:
            self._send(200, b'{"embeddings": [[0.1, 0.2', "application/json")

    def _route(self, body: dict[str, Any], inputs: list[str] | None, wrong_dimension: bool) -> None:
        state = self.server.state
        if self.path == "/api/version" and self.command == "GET":
            self._json(200, {"version": "0.13.5"})
        elif self.path == "/api/tags" and self.command == "GET":
            self._json(200, {"models": [_model_entry(name) for name in sorted(state.models)]})
        elif self.path in {"/api/embed", "/api/show"} and self.command == "POST":
            model = body.get("model")
            if not isinstance(model, str) or not state.knows(model):
                self._json(404, {"error": f'model "{model}" not found, try pulling it first'})
            elif self.path == "/api/show":
                self._json(200, _show(state.dimension_of(model)))
            elif inputs is None:
                self._json(400, {"error": "invalid input type"})
            else:
                dimension = WRONG_DIMENSION if wrong_dimension else state.dimension_of(model)
                embed_fn = None if wrong_dimension else state.embed_fns.get(_with_tag(model))
                started = time.monotonic()
                state.compute(len(inputs))
                answer = _embed_answer(model, inputs, dimension, embed_fn)
                state.answered(inputs, started)
                self._json(200, _poisoned(answer, inputs, state.poison))
        else:
            self._send(404, b"404 page not found", "text/plain")

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json; charset=utf-8")

    def _send(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _inputs(value: Any) -> list[str] | None:
    """Ollama's `input`: one string or a list of strings; None when it is neither (or absent)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def _embed_answer(
    model: str, inputs: list[str], dimension: int, embed_fn: EmbedFn | None
) -> dict[str, Any]:
    if embed_fn is not None:
        vectors = [[float(x) for x in v] for v in embed_fn(inputs)]
    else:
        vectors = [v.tolist() for v in HashEmbedder(dimension=dimension).embed_batch(inputs)]
    return {
        "model": model,
        "embeddings": vectors,
        "total_duration": 1000,
        "load_duration": 10,
        "prompt_eval_count": sum(len(t.split()) for t in inputs),
    }


def _poisoned(
    answer: dict[str, Any], inputs: list[str], poison: dict[str, Poison]
) -> dict[str, Any]:
    """The answer with the vectors of texts holding a `poison` marker spoilt (see above)."""
    vectors = []
    for text, vector in zip(inputs, answer["embeddings"], strict=True):
        kind = next((k for marker, k in poison.items() if marker in text), None)
        if kind == "nan":
            vectors.append([float("nan")] * len(vector))
        elif kind == "short":
            vectors.append(vector[:WRONG_DIMENSION])
        elif kind is None:
            vectors.append(vector)
    return {**answer, "embeddings": vectors}


def _malformed(fault: str, model: str, count: int) -> dict[str, Any]:
    """An /api/embed answer of the right JSON shape with the wrong content."""
    if fault == "wrong_count":
        embeddings: list[list[Any]] = [[0.5, 0.5]] * (count - 1)
    elif fault == "ragged":
        embeddings = [[0.5] * (2 + i) for i in range(count)]
    else:
        embeddings = [["not", "a", "number"]] * count
    return {"model": model, "embeddings": embeddings}


def _with_tag(model: str) -> str:
    return model if ":" in model.rpartition("/")[2] else f"{model}:latest"


def _model_entry(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": "2025-01-01T00:00:00Z",
        "size": 274302450,
        "digest": "0" * 64,
        "details": {"format": "gguf", "family": "nomic-bert", "parameter_size": "137M"},
    }


def _show(dimension: int) -> dict[str, Any]:
    return {
        "modelfile": "",
        "details": {"format": "gguf", "family": "nomic-bert", "parameter_size": "137M"},
        "model_info": {
            "general.architecture": "nomic-bert",
            "nomic-bert.embedding_length": dimension,
            "nomic-bert.context_length": 2048,
        },
        "capabilities": ["embedding"],
    }


def _serve_chat(handler: _Handler, body: dict[str, Any]) -> None:
    """/api/chat, as Ollama answers it (see the module docstring)."""
    state = handler.server.state
    model = body.get("model")
    reply = state.next_chat_reply(body)
    fault = state.chat_fault
    if fault == "down":
        handler.close_connection = True
        return
    if fault == "slow":
        state.pause()
    if fault == "500":
        handler._json(500, {"error": "llama runner process has terminated: exit status 2"})
        return
    if not isinstance(model, str) or not state.knows(model):
        handler._json(404, {"error": f'model "{model}" not found, try pulling it first'})
        return
    if not body.get("stream", True):
        handler._json(200, _chat_part(model, reply, done=True))
        return
    handler.send_response(200)
    handler.send_header("Content-Type", "application/x-ndjson")
    handler.end_headers()  # no length: HTTP/1.0, the body ends when the connection closes
    if fault == "bad_stream":
        handler.wfile.write(b"<html>not a stream</html>\n")
        return
    third = max(1, len(reply) // 3)
    pieces = [reply[i : i + third] for i in range(0, len(reply), third)]
    for piece in [*pieces, ""]:
        if fault == "drip":
            state.wait(state.drip_s)
        line = json.dumps(_chat_part(model, piece, done=piece == "")) + "\n"
        handler.wfile.write(line.encode())
        handler.wfile.flush()


def _chat_part(model: str, content: str, done: bool) -> dict[str, Any]:
    part: dict[str, Any] = {
        "model": model,
        "created_at": "2025-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": content},
        "done": done,
    }
    if done:
        part.update(done_reason="stop", total_duration=1000, eval_count=len(content.split()))
    return part


@pytest.fixture
def ollama_server() -> Iterator[OllamaTestServer]:
    """A fresh Ollama test double for one test, shut down after it."""
    server = OllamaTestServer()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def ollama() -> Iterator[OllamaTestServer]:
    """One Ollama test double shared by a module's tests (which leave its faults alone)."""
    server = OllamaTestServer()
    try:
        yield server
    finally:
        server.close()
