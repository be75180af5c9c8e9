"""Making source text safe to store: Postgres text and JSONB hold no NUL and no lone surrogate."""

from __future__ import annotations

import re

from archivist.models import Message

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """`text` without NUL characters and with unencodable surrogates replaced by U+FFFD."""
    text = text.replace("\x00", "")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = _SURROGATE.sub("\ufffd", text)
    return text


def clean_message(message: Message, max_chars: int) -> tuple[Message, list[str]]:
    """The message made storable and cut to `max_chars`; also the names of the repairs made."""
    repairs: list[str] = []
    content = clean_text(message.content)
    if content != message.content:
        repairs.append("unstorable_characters")
    if len(content) > max_chars:
        content = content[:max_chars]
        repairs.append("max_message_chars")
    role = clean_text(message.role).strip().lower() or "unknown"
    if repairs or role != message.role:
        message = message.model_copy(update={"content": content, "role": role})
    return message, repairs
