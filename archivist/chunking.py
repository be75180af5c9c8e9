"""Builds the chunks of a session: its summary, its extraction, and windows of turns.

Turn windows sit at fixed turn positions (window k holds turns k*W .. k*W+W-1), so appending
messages only changes the last, partial window and adds new ones; earlier windows keep their
text and therefore their ids and embeddings. A window longer than the chunk size is cut into
pieces at message boundaries (a single long message into several pieces).

The extraction is cut the same way, by what it holds rather than by position: the summary and
topics (which change with nearly every version) go in one head piece together with the newest
entities and preferences, and the older ones in groups whose ends depend on their own content
(`extraction_pieces`). A version therefore changes the head and only a group whose facts
changed, not every piece after it. Decisions and actions are not in these pieces: they are
state items, whose chunks hold them once (in the extraction, every new decision re-embedded
the pieces around it).

Each turn is rendered as `Speaker: text`, the speaker being the role's label (`User`,
`Assistant`, or whatever `speaker_labels` maps a role to, e.g. a person's name), as people ask
("what did Maya say about ..."); a role without a label is rendered as it is stored.

How much text a chunk may hold depends on the embedding model: a model reads at most its input
length in tokens and silently drops the rest. `chunk_chars` turns a model's input length into
characters with a ratio measured, not guessed: over the 2,283 four-message windows of the
retrieval set (tests/support/retrieval_set.py), all-MiniLM-L6-v2's WordPiece tokenizer gives 4.0
characters per token at the median and 3.4 at the 5th percentile (the project's README: 3.5);
3.4 is used, so 95 % of chat text fits. The input lengths are the models' context sizes as
Ollama serves them.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from archivist.embed.base import split_text
from archivist.models import Chunk, ChunkSource, Extraction, Message, Span
from archivist.state.items import StateItem, is_standing_rule

SUMMARY_SLOT = "summary"
EXTRACTION_SLOT = "extraction"
STATE_SLOT = "state"

# Input lengths in tokens of common Ollama embedding models (their context sizes as Ollama
# serves them); a model not listed is taken to read whole chunks.
MODEL_INPUT_TOKENS: dict[str, int] = {
    "all-minilm": 256,
    "nomic-embed-text": 2048,
    "mxbai-embed-large": 512,
    "snowflake-arctic-embed": 512,
    "bge-m3": 8192,
}
CHARS_PER_TOKEN = 3.4  # measured; see the module docstring
_SPECIAL_TOKENS = 2  # [CLS] and [SEP] (or the model's equivalents) take two places
DEFAULT_SPEAKERS: dict[str, str] = {"user": "User", "assistant": "Assistant"}
# An extraction group holds at least GROUP_LEAST of a chunk's characters, then ends after each
# further fact with a chance of its length over GROUP_TARGET of them (see `_groups`).
GROUP_LEAST = 1 / 8
GROUP_TARGET = 1 / 3


def chunk_chars(model: str, max_chars: int, input_tokens: int | None = None) -> int:
    """The most characters a chunk for `model` holds: `max_chars`, or less if the model reads less.

    `input_tokens` overrides the table (a setting, for a model it does not know).
    """
    tokens = input_tokens or MODEL_INPUT_TOKENS.get(model.split(":", 1)[0])
    if tokens is None:
        return max_chars
    return min(max_chars, int((tokens - _SPECIAL_TOKENS) * CHARS_PER_TOKEN))


def render_turn(message: Message, speakers: Mapping[str, str] = DEFAULT_SPEAKERS) -> str:
    """One turn as `Speaker: text`."""
    role = message.role.strip()
    return f"{speakers.get(role.lower(), role)}: {message.content.strip()}"


def window_slot(index: int) -> str:
    return f"turns:{index:06d}"


def late_slot(version: int) -> str:
    """Where the late arrivals a version found go, leaving the turn windows as they were."""
    return f"late:{version:06d}"


def edit_slot(version: int) -> str:
    """Where a version puts the new text of messages it archived before (edited, or deleted
    and inserted again): the slots holding their earlier text stay as they were."""
    return f"edit:{version:06d}"


def undated_slot(version: int) -> str:
    """Where a version puts messages without a usable `created_at` (they have no window)."""
    return f"undated:{version:06d}"


def chunk_id(session_id: str, source: str, slot: str, piece: int, text: str, model: str) -> str:
    """A UUID derived from everything that makes a chunk what it is."""
    key = "\x1f".join([session_id, source, slot, str(piece), model, text])
    return str(uuid.UUID(bytes=hashlib.sha256(key.encode()).digest()[:16]))


def _make_chunks(
    session_id: str,
    source: ChunkSource,
    slot: str,
    pieces: Sequence[tuple[str, dict[str, object]]],
    model: str,
    version: int,
    positional: bool = True,
) -> list[Chunk]:
    """Chunks of `pieces`; their ids cover each piece's place among them if `positional`."""
    return [
        Chunk(
            id=chunk_id(session_id, source, slot, i if positional else 0, text, model),
            session_id=session_id,
            source=source,
            slot=slot,
            content=text,
            content_hash=hashlib.sha256(text.encode()).hexdigest(),
            metadata={**meta, "version": version},
        )
        for i, (text, meta) in enumerate(pieces)
    ]


def _span_coverage(span: Span) -> dict[str, object]:
    """The time range a whole-session chunk covers, for time-filtered searches."""
    return {
        "first_at": span.first_turn_at.isoformat() if span.first_turn_at else None,
        "last_at": span.last_turn_at.isoformat() if span.last_turn_at else None,
    }


def summary_chunks(
    session_id: str, summary: str | None, span: Span, model: str, version: int, max_chars: int
) -> list[Chunk]:
    """The bot's own session summary, as one or more chunks."""
    if not summary or not summary.strip():
        return []
    pieces = [(p, _span_coverage(span)) for p in split_text(summary.strip(), max_chars)]
    return _make_chunks(session_id, "session_summary", SUMMARY_SLOT, pieces, model, version)


def _boundary_draw(key: str) -> float:
    """A number in [0, 1) fixed by `key` alone (the same in every process and version)."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest()) / 2**64


@dataclass(frozen=True)
class _Section:
    """Lines of one kind of fact, oldest first: each line's text and the key its place in the
    pieces is decided by (its fact without what may change about it, e.g. an entity's name)."""

    units: list[tuple[str, str]]  # (key, rendered unit)
    prefix: str = ""  # put before a group's units (e.g. "Entities: ")
    joiner: str = "\n"

    def render(self, units: Sequence[str]) -> str:
        return self.prefix + self.joiner.join(units)


def _groups(section: _Section, max_chars: int) -> tuple[list[str], str | None]:
    """The section's closed groups, and its open last group (None if it has none).

    Once a group holds GROUP_LEAST of `max_chars`, it ends after a unit whose key draws below
    the unit's length over GROUP_TARGET of `max_chars` (so a group holds about their sum
    whatever its units' lengths); it also ends before a unit that would take it over
    `max_chars`. Where a group ends depends only on the units since the previous end: a
    changed, inserted or removed unit changes its own group (and the next, if the end moves),
    never the groups elsewhere. An entity's key is its `type:slug`, so an entity shown under
    another name changes its group's text but not where the group ends.
    """
    target, least = max_chars * GROUP_TARGET, max_chars * GROUP_LEAST
    closed: list[str] = []
    group: list[str] = []
    for key, unit in section.units:
        if group and len(section.render([*group, unit])) > max_chars:
            closed.append(section.render(group))
            group = []
        group.append(unit)
        size = len(section.render(group))
        if size >= least and _boundary_draw(key) < len(unit) / target:
            closed.append(section.render(group))
            group = []
    return closed, (section.render(group) if group else None)


def extraction_pieces(extraction: Extraction, max_chars: int) -> list[str]:
    """The searchable text of an extraction, as pieces of at most `max_chars` that stay the same
    while the facts they hold do (no counters: a piece changes only with its facts).

    Each section (entities, preferences) is cut into groups where its content says
    (`_groups`); a section's last, open group is where a version appends. The head piece holds
    the summary and topics, which change with nearly every version, and as many open groups as
    fit; open groups that do not fit share pieces of their own. So a version that appends
    facts changes the head and, now and then, closes a group; one that drops an older fact
    changes the group holding it. A small extraction is one piece. Decisions and actions are
    left to the state items' chunks (see the module docstring).
    """
    head = [f"Summary: {extraction.summary}"] if extraction.summary else []
    if extraction.topics:
        head.append("Topics: " + ", ".join(extraction.topics))
    sections = [
        _Section([(e.key, e.name) for e in extraction.entities], "Entities: ", ", "),
        _Section([(p, f"Preference: {p}") for p in extraction.preferences_inferred]),
    ]
    closed: list[str] = []
    spilled: list[str] = []
    for section in sections:
        groups, open_group = _groups(section, max_chars)
        closed += groups
        if open_group is None:
            continue
        if len("\n".join([*head, open_group])) <= max_chars:
            head.append(open_group)
        else:
            spilled.append(open_group)
    pieces = split_text("\n".join(head), max_chars) if head else []
    for text in [*_packed(spilled, max_chars), *closed]:
        pieces += split_text(text, max_chars)
    return list(dict.fromkeys(pieces))


def _packed(texts: Sequence[str], max_chars: int) -> list[str]:
    """`texts` joined by lines into as few pieces of at most `max_chars` as keep their order."""
    pieces: list[str] = []
    for text in texts:
        if pieces and len(pieces[-1]) + 1 + len(text) <= max_chars:
            pieces[-1] += "\n" + text
        else:
            pieces.append(text)
    return pieces


def extraction_chunks(
    session_id: str, extraction: Extraction, model: str, version: int, max_chars: int
) -> list[Chunk]:
    """The extraction's pieces (`extraction_pieces`) as chunks.

    A piece's id does not depend on its place among the pieces, so a piece that stays the same
    keeps its row when a group is added before it.
    """
    coverage = _span_coverage(extraction.span)
    pieces = [
        (p, {**coverage, "message_ids": _named_in(p, extraction)})
        for p in extraction_pieces(extraction, max_chars)
    ]
    return _make_chunks(
        session_id, "archive_extraction", EXTRACTION_SLOT, pieces, model, version, positional=False
    )


def _named_in(piece: str, extraction: Extraction) -> list[str]:
    """What an extraction piece stands for, in order, once each: the messages its summary was
    taken from (`summary_refs`, when the piece holds the whole summary line; a summary cut over
    two pieces names none in either), then those that named the entities it lists (their refs).
    Topics and preferences name none: topics are counted over the whole conversation, and a
    preference does not keep the message it was inferred from."""
    summary = [*extraction.summary_refs] if f"Summary: {extraction.summary}" in piece else []
    named = (ref for e in extraction.entities if e.refs and e.name in piece for ref in e.refs)
    return list(dict.fromkeys([*summary, *named]))


def window_chunks(
    session_id: str,
    slot: str,
    messages: Sequence[Message],
    model: str,
    version: int,
    max_chars: int,
    index: int | None = None,
    speakers: Mapping[str, str] = DEFAULT_SPEAKERS,
) -> list[Chunk]:
    """Consecutive turns as chunks of at most `max_chars`, each knowing the messages it covers
    and where each of their turns starts in its text (`turn_starts`, for excerpts)."""
    pieces: list[tuple[str, dict[str, object]]] = []
    lines: list[str] = []
    covered: list[Message] = []

    def flush() -> None:
        if lines:
            starts = [0]
            for line in lines[:-1]:
                starts.append(starts[-1] + len(line) + 1)
            pieces.append(("\n".join(lines), {**_coverage(index, covered), "turn_starts": starts}))
            lines.clear()
            covered.clear()

    for message in messages:
        line = render_turn(message, speakers)
        if len(line) > max_chars:
            flush()
            for part in split_text(line, max_chars):
                pieces.append((part, _coverage(index, [message])))
            continue
        if lines and sum(len(x) + 1 for x in lines) + len(line) > max_chars:
            flush()
        lines.append(line)
        covered.append(message)
    flush()
    return _make_chunks(session_id, "session_turn", slot, pieces, model, version)


def _coverage(index: int | None, messages: Sequence[Message]) -> dict[str, object]:
    return {
        **({"window": index} if index is not None else {}),
        "message_ids": [m.id for m in messages],
        "first_at": messages[0].created_at.isoformat(),
        "last_at": messages[-1].created_at.isoformat(),
    }


def state_item_chunks(
    session_id: str, items: Sequence[StateItem], model: str, version: int
) -> list[Chunk]:
    """One chunk per item that is not superseded, its content exactly the item's text.

    The content is the text alone so that the chunk's vector is the one reconciliation compares
    the next candidates with; the id also covers status and conflict, so a changed item gets a
    fresh chunk with fresh metadata while an unchanged one keeps its chunk and its vector. A
    standing rule is marked `standing`: a search offers it to the queries about its matter
    (archivist_standing_rule, sql/functions/search_hybrid.sql).
    """
    chunks = []
    for item in items:
        if item.status == "superseded":
            continue
        key = "\x1f".join([item.uid, item.status, str(item.conflict), item.text, *item.refs])
        chunks.append(
            Chunk(
                id=chunk_id(session_id, "state_item", STATE_SLOT, 0, key, model),
                session_id=session_id,
                source="state_item",
                slot=STATE_SLOT,
                content=item.text,
                content_hash=hashlib.sha256(item.text.encode()).hexdigest(),
                metadata={
                    "uid": item.uid,
                    "type": item.type,
                    "status": item.status,
                    "conflict": item.conflict,
                    "standing": item.type == "constraint" and is_standing_rule(item.text),
                    "topic_tags": item.topic_tags,
                    "message_ids": list(item.refs),
                    "first_at": item.created_at.isoformat() if item.created_at else None,
                    "last_at": item.last_seen_at.isoformat() if item.last_seen_at else None,
                    "version": version,
                },
            )
        )
    return chunks
