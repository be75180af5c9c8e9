"""The LLM extractor's answer: the pydantic model whose JSON Schema is sent as Ollama's `format`,
and the checks every answer goes through before anything of it is used.

The top level is checked strictly: an answer that is not JSON, not an object, or whose
fields have the wrong shape is junk, and the session falls back to the rules. Entries of the
lists (state items, entities, actions) are checked one by one, so one bad entry is dropped
and counted rather than spoiling the answer:

- a state item of a type other than the six, with no text, or whose `refs` name no message
  of the batch is dropped (refs outside the batch are removed from a kept item);
- an invalid status becomes the type's default with confidence `low`
  (`state.items.validated_status`), and `supersedes` naming no existing item is cleared.

Even a valid item is only a *candidate*: reconciliation decides whether it is inserted,
merged, supersedes or conflicts.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from archivist.models import EntityType
from archivist.state.items import CandidateItem, validated_status

MAX_TAGS = 3
_M = TypeVar("_M", bound=BaseModel)


class LlmEntity(BaseModel):
    model_config = ConfigDict(extra="ignore")

    type: EntityType
    name: str = Field(min_length=1, max_length=200)


class LlmAction(BaseModel):
    model_config = ConfigDict(extra="ignore")

    description: str = Field(min_length=1, max_length=500)
    outcome: Literal["planned", "done", "blocked"] | None = None


class LlmAnswer(BaseModel):
    """The whole answer: the merged v1 fields of the session so far, and new state items."""

    model_config = ConfigDict(extra="ignore")

    summary: str = Field(description="2-4 sentences: what the session is about, where it is.")
    topics: list[str] = Field(description="Short topic labels, most important first.")
    decisions: list[str] = Field(description="Every decision made so far, one sentence each.")
    entities: list[LlmEntity]
    actions: list[LlmAction]
    preferences: list[str] = Field(description="Preferences the user showed.")
    items: list[CandidateItem] = Field(
        description="New or changed state items only, supported by the new messages."
    )


def answer_schema() -> dict[str, Any]:
    """The JSON Schema sent as `format`, so the model's decoding is constrained to it."""
    return LlmAnswer.model_json_schema()


class AnswerError(ValueError):
    """The answer is junk: not JSON, not an object, or a field of the wrong shape."""


@dataclass
class CheckedAnswer:
    """An answer with its invalid entries removed; `dropped` counts them."""

    answer: LlmAnswer
    dropped: int


_LISTS = ("entities", "actions", "items")


def check_answer(
    text: str, allowed_refs: Collection[str], known_uids: Collection[str]
) -> CheckedAnswer:
    """Parse and check an answer (see the module docstring); raises `AnswerError` on junk."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AnswerError(f"not JSON ({exc.msg} at character {exc.pos})") from None
    if not isinstance(data, dict):
        raise AnswerError(f"a JSON {type(data).__name__}, not an object")
    entries = {name: data.pop(name, None) for name in _LISTS}
    for name, value in entries.items():
        if not isinstance(value, list):
            raise AnswerError(f"'{name}' is not a list")
    try:
        answer = LlmAnswer.model_validate({**data, "entities": [], "actions": [], "items": []})
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        raise AnswerError(f"'{where}': {error['msg']}") from None
    entities = [e for e in (_valid(LlmEntity, raw) for raw in entries["entities"]) if e]
    actions = [a for a in (_valid(LlmAction, raw) for raw in entries["actions"]) if a]
    items = [
        i for i in (_checked_item(raw, allowed_refs, known_uids) for raw in entries["items"]) if i
    ]
    answer.entities, answer.actions, answer.items = entities, actions, items
    total = sum(len(v) for v in entries.values())
    return CheckedAnswer(answer, total - len(entities) - len(actions) - len(items))


def _valid(model: type[_M], raw: Any) -> _M | None:
    try:
        return model.model_validate(raw)
    except ValidationError:
        return None


def _checked_item(
    raw: Any, allowed_refs: Collection[str], known_uids: Collection[str]
) -> CandidateItem | None:
    """The item with only refs of the batch and a valid status, or None if it must be dropped."""
    if isinstance(raw, dict) and isinstance(raw.get("topic_tags"), list):
        raw = {**raw, "topic_tags": raw["topic_tags"][:MAX_TAGS]}
    item = _valid(CandidateItem, raw)
    if item is None or not item.text.strip():
        return None
    refs = list(dict.fromkeys(str(r) for r in item.refs if str(r) in allowed_refs))
    if not refs:
        return None
    status, valid = validated_status(item.type, item.status)
    return item.model_copy(
        update={
            "text": item.text.strip(),
            "refs": refs,
            "status": status,
            "confidence": item.confidence if valid else "low",
            "supersedes": item.supersedes if item.supersedes in known_uids else None,
        }
    )
