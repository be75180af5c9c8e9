"""Retrieval quality of `memory_search` on BEAM, a public long-conversation benchmark.

BEAM (github:mohammadtavakoli78/BEAM, commit b2a3ee8) has no licence file: its data is never
committed here. Fetch the repository, unpack its `chats/100K` folder somewhere temporary and pass
that folder with --beam-dir (or BEAM_DIR). What is known about its shape is in the project's
shared benchmarks notes; the mapping used here:

  * each chat is one person's memory (its sessions are the search's session filter);
  * each batch is a session; its messages are one minute apart from the batch's anchor date
    (carried by its first message, e.g. "March-15-2024") at 09:00 UTC;
  * `chat_trunecated.json` is used where present (BEAM's questions were written on it);
  * the plan markers `->-> 3,2` that end many messages are stripped;
  * a question's evidence is every message id in its `source_chat_ids` (a list, or a dict of
    named lists); `abstention` questions have none and measure the no-answer signal (AUROC).

Halves: chats 1-10 are for tuning, chats 11-20 are held out (--half heldout) and only reported.
`--chats 1-5,9` names the chats instead (for the other splits: `chats/500K` has 35 chats).

Scores per question type and overall: evidence recall@10 (E@10, the share of a question's
evidence messages that the message ids of the first 10 hits cover), the distinct messages and
thousands of characters the 10 hits return, the mean reciprocal rank of the first hit with
evidence (MRR: how high the answer comes, which recall@10 does not see), and for
`knowledge_update` questions how often the updated statement ranks above the original one
(`upd>orig`), and how often it is current in the archive's state or ranks above the original
(`upd known`, issue 23's measure: what a bot reading both the current state and the search
sees).
Baselines, scored the same way: BM25 over 4-message windows with stride 2 within a session (the
published baseline), and BM25 over the archivist's own turn chunks (the same text per hit as
the archivist).

Run:  python -m scripts.evals.beam --beam-dir /tmp/beam/chats/100K --half tune
      python -m scripts.evals.beam --beam-dir ... --half heldout --embedder hash --mode hybrid
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg

from archivist.chunking import chunk_chars
from archivist.config import SearchMode, Settings
from archivist.search import Searcher
from archivist.store import open_store
from scripts.evals.retrieval import embedded_postgres, setting_overrides
from tests.support import retrieval_eval as er
from tests.support import retrieval_set as rs

HALVES = {"tune": range(1, 11), "heldout": range(11, 21), "all": range(1, 21)}
MARKER = re.compile(r"\s*->->\s*\d+\s*,\s*\d+\s*$")
LIMIT = 10


@dataclass(frozen=True)
class BeamQuestion:
    qid: str
    chat: str
    kind: str
    question: str
    evidence: tuple[str, ...]
    original: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()


@dataclass
class BeamSet:
    conversations: list[rs.Conversation]
    questions: list[BeamQuestion]


def _anchor(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.strptime(text.strip(), "%B-%d-%Y").replace(hour=9, tzinfo=UTC)
    except ValueError:
        return None


def _ids(value: Any) -> list[int]:
    """Every message id in a `source_chat_ids` value (a list, nested lists, or a dict of them)."""
    if value is None:
        return []
    if isinstance(value, dict):
        return [i for v in value.values() for i in _ids(v)]
    if isinstance(value, list):
        return [i for v in value for i in _ids(v)]
    return [int(value)]


def load_chat(folder: Path) -> tuple[rs.Conversation, list[BeamQuestion]]:
    """One BEAM chat as a conversation of sessions (one per batch) and its questions."""
    chat_id = folder.name
    path = folder / "chat_trunecated.json"
    batches = json.loads((path if path.exists() else folder / "chat.json").read_text())
    sessions: list[rs.Session] = []
    start = datetime(2024, 1, 1, 9, tzinfo=UTC)
    for batch in batches:
        messages = [m for turn in batch["turns"] for m in turn]
        if not messages:
            continue
        start = _anchor(messages[0].get("time_anchor")) or start
        at = start
        kept = []
        for m in messages:
            content = MARKER.sub("", m["content"] or "")
            kept.append(rs.Message(f"{chat_id}:{m['id']}", m["role"], content, at.isoformat()))
            at += timedelta(minutes=1)
        sid = f"beam-{chat_id}-b{batch['batch_number']}"
        sessions.append(rs.Session(sid, "", at.isoformat(), kept))
        start = at
    known = {m.key for s in sessions for m in s.messages}
    questions: list[BeamQuestion] = []
    probing = json.loads((folder / "probing_questions" / "probing_questions.json").read_text())
    for kind, items in probing.items():
        for n, item in enumerate(items):
            source = item.get("source_chat_ids")
            keys = tuple(dict.fromkeys(f"{chat_id}:{i}" for i in _ids(source)))
            keys = tuple(k for k in keys if k in known)
            original: tuple[str, ...] = ()
            updated: tuple[str, ...] = ()
            if kind == "knowledge_update" and isinstance(source, dict):
                original = tuple(f"{chat_id}:{i}" for i in _ids(source.get("original_info")))
                updated = tuple(f"{chat_id}:{i}" for i in _ids(source.get("updated_info")))
            if kind != "abstention" and not keys:
                continue
            questions.append(
                BeamQuestion(
                    f"{chat_id}/{kind}/{n}",
                    chat_id,
                    kind,
                    item["question"],
                    keys,
                    original,
                    updated,
                )
            )
    return rs.Conversation(f"beam-{chat_id}", chat_id, sessions), questions


def chat_numbers(spec: str) -> list[int]:
    """Chat numbers from "1-5,9" (ranges inclusive)."""
    numbers: list[int] = []
    for part in spec.split(","):
        first, _, last = part.partition("-")
        numbers += range(int(first), int(last or first) + 1)
    return numbers


def load_beam(root: Path, chats: Sequence[int]) -> BeamSet:
    conversations, questions = [], []
    for n in chats:
        folder = root / str(n)
        if not folder.is_dir():
            raise SystemExit(f"error: no BEAM chat folder {folder}")
        conversation, asked = load_chat(folder)
        conversations.append(conversation)
        questions += asked
    return BeamSet(conversations, questions)


# -- scoring ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    keys: frozenset[str]
    chars: int
    score: float


@dataclass
class Score:
    system: str
    recall: dict[str, float]
    n: dict[str, int]
    messages: float  # distinct messages the top 10 cover, on average
    kchars: float  # thousands of characters the top 10 return, on average
    update_first: float  # knowledge updates: the updated statement ranks above the original
    original_first: float
    # knowledge updates: the updated statement is current in the archive's state or ranks above
    # the original (issue 23's measure), over the questions that name an update
    update_known: float | None
    first_evidence_mrr: float  # mean of 1 / rank of the first hit with evidence (0 if none)
    abstention_auroc: float
    p50_ms: float | None = None
    p95_ms: float | None = None
    misses: list[str] = field(default_factory=list)


def _first_rank(hits: Sequence[Hit], keys: Sequence[str]) -> int | None:
    for rank, hit in enumerate(hits[:LIMIT]):
        if hit.keys.intersection(keys):
            return rank
    return None


def score(
    system: str,
    questions: Sequence[BeamQuestion],
    results: Sequence[Sequence[Hit]],
    latencies: Sequence[float] = (),
    current: frozenset[str] | None = None,
    limit: int = LIMIT,
) -> Score:
    by_kind: dict[str, list[float]] = {}
    answered, missing, misses, reciprocal = [], [], [], []
    update_first = original_first = updates = 0
    known = named = 0
    shown = [r[:limit] for r, q in zip(results, questions, strict=True) if q.evidence]
    for q, hits in zip(questions, results, strict=True):
        top = hits[0].score if hits else 0.0
        if not q.evidence:
            missing.append(top)
            continue
        answered.append(top)
        covered = set().union(*(h.keys for h in hits[:limit])) if hits else set()
        recall = len(covered.intersection(q.evidence)) / len(set(q.evidence))
        by_kind.setdefault(q.kind, []).append(recall)
        first = _first_rank(hits, q.evidence)
        reciprocal.append(0.0 if first is None else 1 / (first + 1))
        if recall < 1:
            misses.append(q.qid)
        o, u = _first_rank(hits, q.original), _first_rank(hits, q.updated)
        if q.original and q.updated and set(q.original) != set(q.updated):
            updates += 1
            if u is not None and (o is None or u < o):
                update_first += 1
            elif o is not None and (u is None or o < u):
                original_first += 1
        if q.updated and current is not None:
            named += 1
            known += bool(current.intersection(q.updated)) or (
                u is not None and (o is None or u < o)
            )
    every = [r for v in by_kind.values() for r in v]
    recall_of = {k: statistics.fmean(v) for k, v in sorted(by_kind.items())}
    return Score(
        system=system,
        recall={**recall_of, "all": statistics.fmean(every) if every else 0.0},
        n={k: len(v) for k, v in sorted(by_kind.items())} | {"abstention": len(missing)},
        messages=statistics.fmean(len(set().union(*(h.keys for h in r))) for r in shown)
        if shown
        else 0.0,
        kchars=statistics.fmean(sum(h.chars for h in r) for r in shown) / 1000 if shown else 0.0,
        update_first=update_first / updates if updates else 0.0,
        original_first=original_first / updates if updates else 0.0,
        update_known=known / named if named else None,
        first_evidence_mrr=statistics.fmean(reciprocal) if reciprocal else 0.0,
        abstention_auroc=er.auroc(answered, missing),
        p50_ms=er._percentile(latencies, 50),
        p95_ms=er._percentile(latencies, 95),
        misses=misses,
    )


# -- baselines ----------------------------------------------------------------------------------


def bm25_windows(
    conversation: rs.Conversation, size: int = 4, stride: int = 2
) -> list[tuple[frozenset[str], str]]:
    windows: list[tuple[frozenset[str], str]] = []
    for session in conversation.sessions:
        ms = session.messages
        for start in range(0, max(len(ms) - size, 0) + 1, stride):
            part = ms[start : start + size]
            text = "\n".join(f"{m.role}: {m.content}" for m in part)
            windows.append((frozenset(m.key for m in part), text))
        if len(ms) > size and (len(ms) - size) % stride:
            part = ms[-size:]
            windows.append((frozenset(m.key for m in part), "\n".join(m.content for m in part)))
    return windows


def bm25_same_text(beam: BeamSet, results: Sequence[Sequence[Hit]], name: str) -> Score:
    """BM25 over the 4-message windows given, per question, at least the characters the first
    10 of `results` return (retrieval_eval.within_text): the baseline at the same text."""
    windows = {c.owner: bm25_windows(c) for c in beam.conversations}
    indexes = {owner: er.BM25(w) for owner, w in windows.items()}
    taken = [
        [
            Hit(h.keys, h.chars, h.score)
            for h in er.within_text(
                indexes[q.chat], dict(windows[q.chat]), q.question, sum(x.chars for x in r[:LIMIT])
            )
        ]
        for q, r in zip(beam.questions, results, strict=True)
    ]
    return score(name, beam.questions, taken, limit=max(map(len, taken), default=LIMIT))


def run_bm25(beam: BeamSet, name: str, windows_of: Any) -> Score:
    indexes = {c.owner: er.BM25(windows_of(c)) for c in beam.conversations}
    texts = {c.owner: dict(windows_of(c)) for c in beam.conversations}
    results = []
    for q in beam.questions:
        hits = indexes[q.chat].search(q.question)
        results.append([Hit(h.keys, len(texts[q.chat][h.keys]), h.score) for h in hits])
    return score(name, beam.questions, results)


# -- the archivist --------------------------------------------------------------------------------


def evaluate(
    admin_url: str,
    embedder_name: str,
    beam: BeamSet,
    modes: Sequence[SearchMode],
    overrides: dict[str, Any],
) -> tuple[list[Score], Score]:
    """Archive the chats with one embedder and score each mode; also BM25 over its own turns."""
    database = f"beam_eval_{embedder_name}"
    url = er.fresh_database(admin_url, database)
    try:
        with er.open_embedder(embedder_name, er.EmbedderOptions()) as (embedder, dim):
            settings = Settings(
                database_url=url,
                embedder="hash" if embedder_name == "hash" else "ollama",
                embedding_model=embedder.model,
                embedding_dim=dim,
                data_dir=Path(os.environ.get("TMPDIR", "/tmp")) / "archivist-eval",
                max_sessions=100_000,
                delay_ms=0,
                ollama_retries=0,
                sources={"message_user_id": er.USER_COLUMN},
                **overrides,
            )
            id_to_key = er.load_conversations(url, beam.conversations)
            sessions = sum(len(c.sessions) for c in beam.conversations)
            started = time.monotonic()
            er._archive(settings, embedder, dim, sessions)
            er.log(
                f"{embedder_name}: archived {sessions} sessions in "
                f"{time.monotonic() - started:.1f} s"
            )
            scope = {c.owner: [s.session_id for s in c.sessions] for c in beam.conversations}
            scores = []
            with open_store(settings) as store:
                searcher = Searcher(store, embedder, settings)
                for mode in modes:
                    results, latencies = [], []
                    for q in beam.questions:
                        started = time.perf_counter()
                        hits = searcher.memory_search(
                            q.question, limit=LIMIT, session_ids=scope[q.chat], mode=mode
                        ).hits
                        latencies.append((time.perf_counter() - started) * 1000)
                        results.append(
                            [
                                Hit(
                                    er.hit_keys(h, id_to_key),
                                    len(h.content),
                                    float(h.relevance or 0.0),
                                )
                                for h in hits
                            ]
                        )
                    scores.append(
                        score(
                            f"{embedder_name} {mode}",
                            beam.questions,
                            results,
                            latencies,
                            _current_messages(url, id_to_key),
                        )
                    )
                    scores.append(bm25_same_text(beam, results, "  bm25 at its text"))
            own = _own_turns(url, id_to_key, beam)
            pieces = chunk_chars(embedder.model, settings.chunk_max_chars)
            indexes = {
                c.owner: er.VectorWindows(embedder, bm25_windows(c), pieces)
                for c in beam.conversations
            }
            texts = {c.owner: dict(bm25_windows(c)) for c in beam.conversations}
            windows = [
                [
                    Hit(h.keys, len(texts[q.chat][h.keys]), h.score)
                    for h in indexes[q.chat].search(q.question)
                ]
                for q in beam.questions
            ]
            scores.insert(0, score(f"{embedder_name} windows vec", beam.questions, windows))
            return scores, own
    finally:
        er.drop_database(admin_url, database)


def _current_messages(url: str, id_to_key: dict[str, str]) -> frozenset[str]:
    """The messages the current items of the archive's state refer to (what is true now)."""
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT refs FROM jarvis_state_items WHERE current").fetchall()
    return frozenset(id_to_key[str(r)] for (refs,) in rows for r in refs if str(r) in id_to_key)


def _own_turns(url: str, id_to_key: dict[str, str], beam: BeamSet) -> Score:
    """BM25 over the archivist's own turn chunks: the same text per hit as it returns."""
    owner_of = {s.session_id: c.owner for c in beam.conversations for s in c.sessions}
    pieces: dict[str, list[tuple[frozenset[str], str]]] = {}
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT session_id, content, metadata -> 'message_ids' FROM jarvis_memory_chunks "
            "WHERE source = 'session_turn'"
        ).fetchall()
    for session_id, content, ids in rows:
        keys = frozenset(id_to_key[str(i)] for i in ids or [] if str(i) in id_to_key)
        pieces.setdefault(owner_of[session_id], []).append((keys, content))
    indexes = {owner: er.BM25(p) for owner, p in pieces.items()}
    results = []
    for q in beam.questions:
        results.append(
            [
                Hit(h.keys, len(dict(pieces[q.chat]).get(h.keys, "")), h.score)
                for h in indexes[q.chat].search(q.question)
            ]
        )
    return score("bm25 own turns", beam.questions, results)


def render(scores: Sequence[Score]) -> str:
    kinds = sorted({k for s in scores for k in s.recall if k != "all"})
    n = scores[0].n
    head = f"{'system':<22}" + "".join(
        f"{k[:12] + ' (' + str(n.get(k, 0)) + ')':>18}" for k in kinds
    )
    head += f"{'all':>7}{'MRR':>6}{'msgs':>6}{'kchar':>7}{'upd>orig':>9}{'orig>upd':>9}"
    head += f"{'upd known':>10}{'abst AUC':>9}"
    head += f"{'p50ms':>7}{'p95ms':>7}"
    lines = [head, "-" * len(head)]
    for s in scores:
        lat = (
            f"{s.p50_ms:>7.0f}{s.p95_ms:>7.0f}"
            if s.p50_ms is not None and s.p95_ms is not None
            else f"{'-':>7}{'-':>7}"
        )
        lines.append(
            f"{s.system:<22}"
            + "".join(f"{s.recall.get(k, 0):>18.3f}" for k in kinds)
            + f"{s.recall['all']:>7.3f}{s.first_evidence_mrr:>6.3f}"
            + f"{s.messages:>6.1f}{s.kchars:>7.1f}"
            + f"{s.update_first:>9.2f}{s.original_first:>9.2f}"
            + (f"{s.update_known:>10.2f}" if s.update_known is not None else f"{'-':>10}")
            + f"{s.abstention_auroc:>9.3f}{lat}"
        )
    return "\n".join(lines)


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every run of this scoring takes (BEAM's and REALTALK's)."""
    parser.add_argument("--embedder", action="append", choices=er.EMBEDDERS)
    parser.add_argument("--mode", action="append", choices=er.MODES)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--json", action="store_true")


def run_and_print(data: BeamSet, args: argparse.Namespace) -> int:
    """BM25 over the windows, then each embedder's archive in each mode; one table (or JSON)."""
    scores = [run_bm25(data, "bm25 windows 4/2", bm25_windows)]
    overrides = setting_overrides(args.set)
    with embedded_postgres() as admin_url:
        for name in args.embedder or ["hash"]:
            found, own = evaluate(admin_url, name, data, args.mode or ["hybrid"], overrides)
            scores += [own, *found]
    print(json.dumps([asdict(s) for s in scores], indent=2) if args.json else render(scores))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--beam-dir",
        default=os.environ.get("BEAM_DIR"),
        help="the unpacked chats/100K folder (default: $BEAM_DIR)",
    )
    parser.add_argument("--half", choices=sorted(HALVES), default="tune")
    parser.add_argument("--chats", type=chat_numbers, help="these chats instead: 1-5,9")
    add_run_arguments(parser)
    args = parser.parse_args(argv)
    if not args.beam_dir:
        parser.error("--beam-dir (or BEAM_DIR) is required")
    chats = args.chats or HALVES[args.half]
    beam = load_beam(Path(args.beam_dir), chats)
    er.log(
        f"BEAM {Path(args.beam_dir).name} chats {chats[0]}-{chats[-1]}: "
        f"{len(beam.conversations)} chats, "
        f"{sum(len(s.messages) for c in beam.conversations for s in c.sessions)} messages, "
        f"{sum(bool(q.evidence) for q in beam.questions)} questions with evidence"
    )
    return run_and_print(beam, args)


if __name__ == "__main__":
    sys.exit(main())
