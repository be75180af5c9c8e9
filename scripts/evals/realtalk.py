"""Retrieval quality of `memory_search` on REALTALK: 21 days of real messaging-app chats.

REALTALK (github:danny911kr/REALTALK, commit b903e06; arXiv 2502.13270) is ten conversations
between two people each, written by the people themselves, not by a model: typos, slang, short
bursts of messages. It has no licence file: its data is never committed here. Fetch the
repository and unpack its `data/Chat_*.json` files (not `data/locomo/`, another set) into a
temporary folder, then pass that folder with --realtalk-dir (or REALTALK_DIR).

The mapping:
  * each chat is one person's memory (its sessions are the search's session filter);
  * each `session_N` is a session; each message keeps its own `date_time`;
  * the first speaker is `user`, the second `assistant` (a bot's archive has those two roles);
  * a question's evidence is its `evidence` ids (`D3:12`); lists written in one string
    ("D1:11; D3:18"), ranges ("D12:3-D12:5") and trailing dots are read as meant; ids that name
    no message are dropped, and a question left with none is not asked;
  * categories (LoCoMo's numbering): 1 multi-hop, 2 temporal, 3 open-domain.

Halves: the odd chats (1, 3, 5, 7, 9) are for tuning; the even ones (2, 4, 6, 8, 10) are held
out (--half heldout) and only reported. The scoring and the baselines are the BEAM evaluation's
(scripts.evals.beam): E@10, distinct messages and characters in the top 10, MRR; BM25 over
4-message windows with stride 2 and BM25 over the archivist's own turn chunks.

Run:  python -m scripts.evals.realtalk --realtalk-dir /tmp/realtalk/data --half tune
      python -m scripts.evals.realtalk --realtalk-dir /tmp/realtalk/data --items
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from archivist.extract.rules.candidates import rules_candidates
from archivist.models import Message
from scripts.evals import beam as bm
from tests.support import retrieval_eval as er
from tests.support import retrieval_set as rs

HALVES = {"tune": (1, 3, 5, 7, 9), "heldout": (2, 4, 6, 8, 10), "all": tuple(range(1, 11))}
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain"}
_ID = re.compile(r"D(\d+):(\d+)")
_RANGE = re.compile(r"D(\d+):(\d+)\s*-\s*D?(\d+)?:?(\d+)")


def evidence_ids(values: Sequence[str]) -> list[str]:
    """The dialogue ids an `evidence` list names, ranges within one dialogue spelt out."""
    ids: list[str] = []
    for value in values:
        for match in _RANGE.finditer(value):
            dialogue, first, last = match.group(1), int(match.group(2)), int(match.group(4))
            if match.group(3) in (None, dialogue) and first <= last:
                ids += [f"D{dialogue}:{n}" for n in range(first, last + 1)]
        ids += [f"D{d}:{n}" for d, n in _ID.findall(value)]
    return list(dict.fromkeys(ids))


def _at(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%d.%m.%Y, %H:%M:%S").replace(tzinfo=UTC)


def load_chat(path: Path, number: int) -> tuple[rs.Conversation, list[bm.BeamQuestion]]:
    """One REALTALK chat as a conversation of sessions and its questions."""
    chat = json.loads(path.read_text())
    owner = f"realtalk-{number}"
    first = chat["name"]["speaker_1"]
    numbers = sorted(
        int(k.split("_")[1]) for k in chat if re.fullmatch(r"session_\d+", k) and chat[k]
    )
    sessions: list[rs.Session] = []
    for n in numbers:
        messages = [
            rs.Message(
                f"{number}:{m['dia_id']}",
                "user" if m["speaker"] == first else "assistant",
                m.get("clean_text") or "",
                _at(m["date_time"]).isoformat(),
            )
            for m in chat[f"session_{n}"]
        ]
        sessions.append(rs.Session(f"{owner}-s{n}", "", messages[-1].created_at, messages))
    known = {m.key for s in sessions for m in s.messages}
    questions = []
    for i, qa in enumerate(chat["qa"]):
        keys = tuple(
            k for k in (f"{number}:{e}" for e in evidence_ids(qa["evidence"])) if k in known
        )
        if keys and qa.get("category") in CATEGORIES:
            kind = CATEGORIES[qa["category"]]
            questions.append(
                bm.BeamQuestion(f"{number}/{kind}/{i}", owner, kind, qa["question"], keys)
            )
    return rs.Conversation(owner, owner, sessions), questions


def load_realtalk(root: Path, chats: Sequence[int]) -> bm.BeamSet:
    conversations, questions = [], []
    for n in chats:
        found = sorted(root.glob(f"Chat_{n}_*.json"))
        if len(found) != 1:
            raise SystemExit(f"error: no single REALTALK file Chat_{n}_*.json in {root}")
        conversation, asked = load_chat(found[0], n)
        conversations.append(conversation)
        questions += asked
    return bm.BeamSet(conversations, questions)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--realtalk-dir",
        default=os.environ.get("REALTALK_DIR"),
        help="the folder holding Chat_*.json (default: $REALTALK_DIR)",
    )
    parser.add_argument("--half", choices=sorted(HALVES), default="tune")
    parser.add_argument(
        "--items",
        action="store_true",
        help="instead of searching: the state items the rules find, per 1,000 messages",
    )
    bm.add_run_arguments(parser)
    args = parser.parse_args(argv)
    if not args.realtalk_dir:
        parser.error("--realtalk-dir (or REALTALK_DIR) is required")
    chats = HALVES[args.half]
    data = load_realtalk(Path(args.realtalk_dir), chats)
    er.log(
        f"REALTALK chats {','.join(map(str, chats))}: "
        f"{sum(len(c.sessions) for c in data.conversations)} sessions, "
        f"{sum(len(s.messages) for c in data.conversations for s in c.sessions)} messages, "
        f"{len(data.questions)} questions with evidence"
    )
    return print_items(data) if args.items else bm.run_and_print(data, args)


def print_items(data: bm.BeamSet) -> int:
    """The items the rules extractor finds in each session, by type and by who said them.

    Two people chatting decide little: nearly every decision or constraint found here is
    small talk read as one, so fewer is better (a proxy: the chats have no state labels)."""
    found: Counter[tuple[str, str]] = Counter()
    messages = 0
    for conversation in data.conversations:
        for session in conversation.sessions:
            batch = [
                Message(
                    id=m.key,
                    session_id=session.session_id,
                    role=m.role,
                    content=m.content,
                    created_at=datetime.fromisoformat(m.created_at),
                )
                for m in session.messages
            ]
            role = {m.id: m.role for m in batch}
            messages += len(batch)
            found.update((i.type, role[i.refs[0]]) for i in rules_candidates(batch) if i.refs)
    print(f"{messages} messages; items per 1,000 messages (said by user / assistant):")
    for kind in sorted({k for k, _ in found}):
        user, assistant = found[(kind, "user")], found[(kind, "assistant")]
        per = 1000 * (user + assistant) / max(messages, 1)
        print(f"  {kind:<11} {per:6.1f}  ({user} / {assistant})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
