"""Retrieval quality of `memory_search` on a labelled set, per embedder and per ranking mode.

The labelled set lives in `tests/retrieval/`: `conversations.json` (synthetic bot conversations,
each message with a stable key like `ops-db-disk-full#14`) and `questions.json` (questions, each
with the keys of the messages that hold the answer). The script starts its own embedded Postgres
(pgserver, in a temporary directory deleted afterwards), loads the conversations into the bot's
source tables, runs `archive` once, then asks every question with `Searcher.memory_search` in
each mode ("vector", "text", "hybrid", limit 10).

A question is found at k when one of the first k hits is a `session_turn` chunk whose
`metadata.message_ids` contains one of its answer messages. Reported per embedder and mode:
recall@5, recall@10 and MRR@10 (the mean of 1/rank of the first such hit, 0 beyond 10), over
all questions and per question kind (lexical, paraphrase, specific, multi-answer).

Embedders:
  hash         the offline HashEmbedder (lexical, not semantic), in process
  ollama-test  the real OllamaEmbedder (nomic-embed-text, 768-d) against the Ollama test double
               of tests/ollama_server.py, whose vectors are the hash embedder's: it measures the
               HTTP path and the nomic task prefixes, not a semantic model
  ollama       a real Ollama at --ollama-host (model --ollama-model, --ollama-dim dimensions)

Run:  python scripts/eval_retrieval.py                       (hash and ollama-test)
      python scripts/eval_retrieval.py --embedder hash --json
      python scripts/eval_retrieval.py --embedder ollama --ollama-host http://127.0.0.1:11434

The core (`load_labelled_set`, `check_labelled_set`, `evaluate_embedder`, `run_evaluation`) is
importable, for the test suite. The exit status is 0 whatever the scores; 2 when the evaluation
cannot run (an unreachable Ollama, a malformed labelled set).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, get_args

import psycopg
from psycopg.conninfo import make_conninfo

from archivist.app import archive
from archivist.backends import open_store
from archivist.config import SearchMode, Settings
from archivist.embed.base import Embedder
from archivist.embed.hashing import HashEmbedder
from archivist.embed.ollama import OllamaEmbedder
from archivist.errors import ArchivistError
from archivist.pipeline import ArchiveRequest
from archivist.search import Searcher
from archivist.store.postgres import EmbeddingConfig, SessionSelection

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "tests" / "retrieval"
TESTS_DIR = ROOT / "tests"
MODES: tuple[SearchMode, ...] = get_args(SearchMode)
EMBEDDERS = ("hash", "ollama-test", "ollama")
DEFAULT_EMBEDDERS = ("hash", "ollama-test")
KINDS = ("lexical", "paraphrase", "specific")
LIMIT = 10

SOURCE_DDL = """
CREATE TABLE session_messages (
    id bigint PRIMARY KEY,
    session_id text NOT NULL,
    role text,
    content text,
    created_at timestamptz
);
CREATE INDEX ON session_messages (session_id, created_at, id);
CREATE TABLE session_summaries (
    session_id text PRIMARY KEY,
    summary_text text,
    updated_at timestamptz
);
"""


# -- the labelled set ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    question: str
    kind: str
    answers: tuple[str, ...]


@dataclass(frozen=True)
class LabelledSet:
    conversations: list[dict[str, Any]]
    questions: list[Question]

    @property
    def message_keys(self) -> set[str]:
        return {m["key"] for c in self.conversations for m in c["messages"]}


def load_labelled_set(data_dir: Path = DATA_DIR) -> LabelledSet:
    """Read `conversations.json` and `questions.json` from `data_dir`."""
    conversations = json.loads((data_dir / "conversations.json").read_text(encoding="utf-8"))
    questions = json.loads((data_dir / "questions.json").read_text(encoding="utf-8"))
    return LabelledSet(
        conversations=conversations["conversations"],
        questions=[
            Question(q["question"], q.get("kind", "lexical"), tuple(q["answers"]))
            for q in questions["questions"]
        ],
    )


def check_labelled_set(labelled: LabelledSet) -> list[str]:
    """What is wrong with the set (empty when it is well-formed)."""
    problems: list[str] = []
    sessions = [c["session_id"] for c in labelled.conversations]
    if len(set(sessions)) != len(sessions):
        problems.append("duplicate session ids")
    keys: list[str] = []
    for conv in labelled.conversations:
        problems += _conversation_problems(conv)
        keys += [m["key"] for m in conv["messages"]]
    if len(set(keys)) != len(keys):
        problems.append("duplicate message keys")
    known = set(keys)
    for q in labelled.questions:
        if not q.question.strip() or not q.answers:
            problems.append(f"question without text or answers: {q.question!r}")
        if q.kind not in KINDS:
            problems.append(f"unknown kind {q.kind!r}: {q.question!r}")
        problems += [f"unknown answer {a!r}: {q.question!r}" for a in q.answers if a not in known]
    return problems


def _conversation_problems(conv: dict[str, Any]) -> list[str]:
    session_id = conv["session_id"]
    problems: list[str] = []
    previous: datetime | None = None
    for n, message in enumerate(conv["messages"], start=1):
        if message["key"] != f"{session_id}#{n}":
            problems.append(f"{session_id}: message {n} has key {message['key']!r}")
        if message["role"] not in ("user", "assistant") or not message["content"].strip():
            problems.append(f"{message['key']}: bad role or empty content")
        at = datetime.fromisoformat(message["created_at"])
        if previous is not None and at <= previous:
            problems.append(f"{message['key']}: created_at not after the previous message")
        previous = at
    return problems


# -- scores -------------------------------------------------------------------------------------


@dataclass
class Score:
    """One embedder and mode over a set of questions."""

    embedder: str
    mode: str
    n: int
    recall_at_5: float
    recall_at_10: float
    mrr_at_10: float
    by_kind: dict[str, dict[str, float]] = field(default_factory=dict)
    misses_at_10: list[str] = field(default_factory=list)


def first_rank(hits: Sequence[Any], answer_ids: set[str]) -> int | None:
    """The 1-based rank of the first turn chunk covering an answer message, if any."""
    for rank, hit in enumerate(hits, start=1):
        covered = hit.metadata.get("message_ids") or []
        if hit.source == "session_turn" and answer_ids.intersection(map(str, covered)):
            return rank
    return None


def summarise(ranks: Sequence[int | None]) -> dict[str, float]:
    """recall@5, recall@10, MRR@10 and n of a list of first ranks."""
    n = len(ranks)
    if n == 0:
        return {"n": 0, "recall_at_5": 0.0, "recall_at_10": 0.0, "mrr_at_10": 0.0}
    return {
        "n": n,
        "recall_at_5": sum(r is not None and r <= 5 for r in ranks) / n,
        "recall_at_10": sum(r is not None and r <= 10 for r in ranks) / n,
        "mrr_at_10": sum(1 / r for r in ranks if r is not None and r <= 10) / n,
    }


def _groups(questions: Sequence[Question]) -> dict[str, list[int]]:
    """Question indexes per kind, plus those with several answer messages."""
    groups: dict[str, list[int]] = {kind: [] for kind in (*KINDS, "multi-answer")}
    for i, q in enumerate(questions):
        groups.setdefault(q.kind, []).append(i)
        if len(q.answers) > 1:
            groups["multi-answer"].append(i)
    return groups


def score(
    embedder: str, mode: str, questions: Sequence[Question], ranks: Sequence[int | None]
) -> Score:
    overall = summarise(ranks)
    return Score(
        embedder=embedder,
        mode=mode,
        n=int(overall["n"]),
        recall_at_5=overall["recall_at_5"],
        recall_at_10=overall["recall_at_10"],
        mrr_at_10=overall["mrr_at_10"],
        by_kind={
            kind: summarise([ranks[i] for i in indexes])
            for kind, indexes in _groups(questions).items()
        },
        misses_at_10=[q.question for q, r in zip(questions, ranks, strict=True) if r is None],
    )


# -- the database -------------------------------------------------------------------------------


@contextmanager
def embedded_postgres() -> Iterator[str]:
    """A throw-away embedded Postgres (pgserver); yields its admin connection URL."""
    with tempfile.TemporaryDirectory(prefix="archivist-eval-") as tmp:
        os.chmod(tmp, 0o755)  # pgserver runs Postgres as another user when started by root
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pgserver/platformdirs warn about XDG_RUNTIME_DIR
            import pgserver

            server: Any = pgserver.get_server(Path(tmp) / "pgdata", cleanup_mode="delete")
        try:
            yield str(server.get_uri())
        finally:
            server.cleanup()


def fresh_database(admin_url: str, name: str) -> str:
    """(Re)create database `name` on the server of `admin_url`; returns its connection string."""
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return make_conninfo(admin_url, dbname=name)


def drop_database(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def load_conversations(url: str, conversations: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Create the source tables and insert every message; returns message key -> id (text)."""
    ids: dict[str, str] = {}
    rows: list[tuple[int, str, str, str, datetime]] = []
    for conv in conversations:
        for message in conv["messages"]:
            mid = len(rows) + 1
            ids[message["key"]] = str(mid)
            rows.append(
                (
                    mid,
                    conv["session_id"],
                    message["role"],
                    message["content"],
                    datetime.fromisoformat(message["created_at"]),
                )
            )
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(SOURCE_DDL)
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO session_messages (id, session_id, role, content, created_at) "
                "VALUES (%s, %s, %s, %s, %s)",
                rows,
            )
    return ids


# -- embedders ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class EmbedderOptions:
    ollama_host: str | None = None
    ollama_model: str = "nomic-embed-text"
    ollama_dim: int = 768


@contextmanager
def open_embedder(name: str, options: EmbedderOptions) -> Iterator[tuple[Embedder, int]]:
    """The embedder called `name` and its dimension, with any test server it needs."""
    if name == "hash":
        yield HashEmbedder(dimension=768), 768
    elif name == "ollama-test":
        if str(TESTS_DIR) not in sys.path:
            sys.path.insert(0, str(TESTS_DIR))
        from ollama_server import OllamaTestServer

        server = OllamaTestServer(dimension=768)
        try:
            with OllamaEmbedder(model="nomic-embed-text", host=server.url) as embedder:
                yield embedder, 768
        finally:
            server.close()
    elif name == "ollama":
        host = options.ollama_host or os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434"
        with OllamaEmbedder(model=options.ollama_model, host=host, timeout_s=120) as embedder:
            yield embedder, options.ollama_dim
    else:
        raise ValueError(f"unknown embedder {name!r}; one of {', '.join(EMBEDDERS)}")


# -- the evaluation -----------------------------------------------------------------------------


def evaluate_embedder(
    admin_url: str,
    name: str,
    labelled: LabelledSet,
    modes: Sequence[SearchMode] = MODES,
    options: EmbedderOptions | None = None,
    recency_weight: float | None = None,
) -> list[Score]:
    """Archive the set into a fresh database with one embedder and score every mode."""
    database = f"retrieval_eval_{name.replace('-', '_')}"
    url = fresh_database(admin_url, database)
    try:
        with open_embedder(name, options or EmbedderOptions()) as (embedder, dim):
            settings = Settings(
                database_url=url,
                embedder="hash" if name == "hash" else "ollama",
                embedding_model=embedder.model,
                embedding_dim=dim,
                data_dir=Path(tempfile.gettempdir()) / "archivist-eval",
                max_sessions=10_000,
                delay_ms=0,
                ollama_retries=0,
                **({} if recency_weight is None else {"search_recency_weight": recency_weight}),
            )
            key_to_id = load_conversations(url, labelled.conversations)
            _archive(settings, embedder, dim, len(labelled.conversations))
            return _score_modes(settings, embedder, name, labelled.questions, key_to_id, modes)
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
    questions: Sequence[Question],
    key_to_id: dict[str, str],
    modes: Sequence[SearchMode],
) -> list[Score]:
    with open_store(settings) as store:
        searcher = Searcher(store, embedder, settings)
        scores = []
        for mode in modes:
            ranks = [
                first_rank(
                    searcher.memory_search(q.question, limit=LIMIT, mode=mode).hits,
                    {key_to_id[a] for a in q.answers},
                )
                for q in questions
            ]
            scores.append(score(name, mode, questions, ranks))
        return scores


def run_evaluation(
    embedders: Sequence[str] = DEFAULT_EMBEDDERS,
    modes: Sequence[SearchMode] = MODES,
    data_dir: Path = DATA_DIR,
    options: EmbedderOptions | None = None,
    admin_url: str | None = None,
    recency_weight: float | None = None,
) -> list[Score]:
    """Every embedder x mode; on the given server, or on a throw-away embedded one."""
    labelled = load_labelled_set(data_dir)
    problems = check_labelled_set(labelled)
    if problems:
        raise ValueError("the labelled set is malformed: " + "; ".join(problems[:5]))
    if admin_url is None:
        with embedded_postgres() as url:
            return run_evaluation(embedders, modes, data_dir, options, url, recency_weight)
    scores: list[Score] = []
    for name in embedders:
        started = time.monotonic()
        scores += evaluate_embedder(admin_url, name, labelled, modes, options, recency_weight)
        log(f"{name}: {time.monotonic() - started:.1f} s")
    return scores


# -- output -------------------------------------------------------------------------------------


def render(scores: Sequence[Score]) -> str:
    """The results table, then recall@10 per question kind."""
    lines = [
        f"{'embedder':<12} {'mode':<7} {'recall@5':>8} {'recall@10':>9} {'MRR@10':>7} {'n':>4}",
        "-" * 52,
    ]
    lines += [
        f"{s.embedder:<12} {s.mode:<7} {s.recall_at_5:>8.3f} {s.recall_at_10:>9.3f} "
        f"{s.mrr_at_10:>7.3f} {s.n:>4}"
        for s in scores
    ]
    kinds = list(scores[0].by_kind) if scores else []
    header = " ".join(f"{k + ' (' + str(int(scores[0].by_kind[k]['n'])) + ')':>17}" for k in kinds)
    lines += ["", "recall@10 by question kind", f"{'embedder':<12} {'mode':<7} {header}"]
    lines += [
        f"{s.embedder:<12} {s.mode:<7} "
        + " ".join(f"{s.by_kind[k]['recall_at_10']:>17.3f}" for k in kinds)
        for s in scores
    ]
    return "\n".join(lines)


def as_json(scores: Sequence[Score]) -> str:
    return json.dumps({"limit": LIMIT, "results": [asdict(s) for s in scores]}, indent=2)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--embedder",
        action="append",
        choices=EMBEDDERS,
        help="repeatable; default: hash and ollama-test",
    )
    parser.add_argument("--mode", action="append", choices=MODES, help="repeatable; default: all")
    parser.add_argument("--ollama-host", help="for --embedder ollama (default: $OLLAMA_HOST)")
    parser.add_argument("--ollama-model", default="nomic-embed-text")
    parser.add_argument("--ollama-dim", type=int, default=768)
    parser.add_argument(
        "--recency-weight", type=float, help="search_recency_weight (default: the settings')"
    )
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        scores = run_evaluation(
            embedders=args.embedder or DEFAULT_EMBEDDERS,
            modes=args.mode or MODES,
            data_dir=args.data_dir,
            options=EmbedderOptions(args.ollama_host, args.ollama_model, args.ollama_dim),
            recency_weight=args.recency_weight,
        )
    except (ArchivistError, ValueError) as exc:
        log(f"error: {exc}")
        return 2
    print(as_json(scores) if args.json else render(scores))
    return 0


if __name__ == "__main__":
    sys.exit(main())
