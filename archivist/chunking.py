"""Builds the chunks of a session: its summary, its extraction, and windows of turns.

Turn windows sit at fixed turn positions (window k holds turns k*W .. k*W+W-1), so appending
messages only changes the last, partial window and adds new ones; earlier windows keep their
text and therefore their ids and embeddings. A window longer than the chunk size is cut into
pieces at message boundaries (a single long message into several pieces).

Each turn is rendered as `Speaker: text`, the speaker being the role's label (`User`,
`Assistant`, or whatever `speaker_labels` maps a role to, e.g. a person's name), as people ask
("what did Maya say about ..."); a role without a label is rendered as it is stored.

How much text a chunk may hold depends on the embedding model: a model reads at most its input
length in tokens and silently drops the rest. `chunk_chars` turns a model's input length into
characters with a ratio measured, not guessed: over the 2,283 four-message windows of the
retrieval set (scripts/retrieval_set.py), all-MiniLM-L6-v2's WordPiece tokenizer gives 4.0
characters per token at the median and 3.4 at the 5th percentile (the project's README: 3.5);
3.4 is used, so 95 % of chat text fits. The input lengths are the models' context sizes as
Ollama serves them.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping, Sequence

from archivist.models import Chunk, ChunkSource, Extraction, Message, Span
from archivist.state.items import StateItem

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
) -> list[Chunk]:
    return [
        Chunk(
            id=chunk_id(session_id, source, slot, i, text, model),
            session_id=session_id,
            source=source,
            slot=slot,
            content=text,
            content_hash=hashlib.sha256(text.encode()).hexdigest(),
            metadata={**meta, "version": version},
        )
        for i, (text, meta) in enumerate(pieces)
    ]


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


def render_extraction(extraction: Extraction) -> str:
    """The searchable text of an extraction (no counters, so it changes only with its facts)."""
    lines = [f"Summary: {extraction.summary}"] if extraction.summary else []
    if extraction.topics:
        lines.append("Topics: " + ", ".join(extraction.topics))
    lines += [f"Decision: {d.text}" for d in extraction.decisions]
    lines += [f"Action ({a.outcome or 'noted'}): {a.description}" for a in extraction.actions]
    if extraction.entities:
        lines.append("Entities: " + ", ".join(e.name for e in extraction.entities))
    lines += [f"Preference: {p}" for p in extraction.preferences_inferred]
    return "\n".join(lines)


def extraction_chunks(
    session_id: str, extraction: Extraction, model: str, version: int, max_chars: int
) -> list[Chunk]:
    """The extraction rendered as text, as one or more chunks."""
    text = render_extraction(extraction)
    coverage = _span_coverage(extraction.span)
    pieces = [(p, coverage) for p in split_text(text, max_chars)]
    return _make_chunks(session_id, "archive_extraction", EXTRACTION_SLOT, pieces, model, version)


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
    """Consecutive turns as chunks of at most `max_chars`, each knowing the messages it covers."""
    pieces: list[tuple[str, dict[str, object]]] = []
    lines: list[str] = []
    covered: list[Message] = []

    def flush() -> None:
        if lines:
            pieces.append(("\n".join(lines), _coverage(index, covered)))
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
    fresh chunk with fresh metadata while an unchanged one keeps its chunk and its vector.
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
                    "topic_tags": item.topic_tags,
                    "message_ids": list(item.refs),
                    "first_at": item.created_at.isoformat() if item.created_at else None,
                    "last_at": item.last_seen_at.isoformat() if item.last_seen_at else None,
                    "version": version,
                },
            )
        )
    return chunks
