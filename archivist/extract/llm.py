"""The opt-in LLM extractor: one Ollama chat call per session per run, rules as the fallback.

The call sends the prompt of `prompt.py` with `format` = the JSON Schema of
`llm_output.LlmAnswer` and temperature 0, streamed, under a wall-clock deadline
(`llm_timeout_s`: checked between streamed parts, and every read is bounded by it too). The
answer is checked by `llm_output.check_answer`. When anything goes wrong the session's version
comes from the rules extractor instead, and its record says why (`fallback_reason`, one of):

    prompt_too_long   the batch does not fit llm_max_prompt_chars
    timeout           no complete answer within llm_timeout_s
    connection_error  Ollama unreachable, or the connection dropped
    model_not_found   the model is not pulled (HTTP 404)
    http_error        any other HTTP error status
    invalid_output    the answer is not JSON, or not of the schema's shape

A reason is `"<kind>: <detail>"`. The LLM's items are only candidates: the pipeline
reconciles them like any other.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Sequence
from typing import Any

import httpx
import ollama
from pydantic import ValidationError

from archivist.embed.ollama import DEFAULT_HOST, _brief, _split_credentials, _with_tag
from archivist.errors import ExtractError
from archivist.extract.base import ExtractionResult, RulesExtractor, stamped
from archivist.extract.llm_output import AnswerError, LlmAnswer, answer_schema, check_answer
from archivist.extract.prompt import PROMPT_VERSION, Prompt, PromptTooLong, build_prompt
from archivist.extract.rules import (
    MAX_ACTIONS,
    MAX_DECISIONS,
    MAX_ENTITIES,
    MAX_PREFERENCES,
    MAX_SUMMARY_CHARS,
    MAX_TOPICS,
    entity_key,
    extend_span,
)
from archivist.models import (
    Action,
    Decision,
    Entity,
    Extraction,
    ExtractorRecord,
    Message,
    SessionSummary,
)
from archivist.state.items import StateItem

log = logging.getLogger(__name__)

EXTRACTOR_NAME = "ollama"
EXTRACTOR_VERSION = "1"


class _Failure(Exception):
    """The LLM gave no usable answer; the message is the fallback reason."""


class OllamaExtractor:
    """Extracts with an Ollama chat model; see the module docstring."""

    def __init__(
        self,
        model: str,
        host: str | None = None,
        timeout_s: float = 15.0,
        max_prompt_chars: int = 24_000,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        self.model = model
        self.timeout_s = timeout_s
        self.max_prompt_chars = max_prompt_chars
        address, auth = _split_credentials(host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST)
        self.host = address  # without credentials: safe to show
        self._client = ollama.Client(host=address, timeout=timeout_s, auth=auth)
        self._schema = answer_schema()
        self.rules = RulesExtractor()
        self.record = ExtractorRecord(
            name=EXTRACTOR_NAME,
            version=EXTRACTOR_VERSION,
            model=model,
            prompt_version=PROMPT_VERSION,
        )

    def extract(
        self,
        previous: Extraction | None,
        session_id: str,
        messages: Sequence[Message],
        summary: SessionSummary | None,
        existing_items: Sequence[StateItem],
    ) -> ExtractionResult:
        """Version N+1 by the model, or by the rules when the model fails (see the module)."""
        if not messages:  # only the bot's summary changed: nothing for the model to read
            return self.rules.extract(previous, session_id, messages, summary, existing_items)
        try:
            prompt = build_prompt(
                previous, messages, summary, existing_items, self.max_prompt_chars
            )
            checked = check_answer(
                self._chat(prompt), prompt.ref_ids, {i.uid for i in existing_items}
            )
        except (_Failure, PromptTooLong, AnswerError) as exc:
            reason = _reason(exc)
            log.info("session %s: LLM answer not used (%s); rules instead", session_id, reason)
            return self.rules.fallback(
                previous, session_id, messages, summary, existing_items, reason
            )
        if prompt.clipped:
            log.info("session %s: %d messages clipped for the prompt", session_id, prompt.clipped)
        extraction = _extraction(checked.answer, previous, session_id, messages)
        return ExtractionResult(
            stamped(extraction, self.record),
            list(checked.answer.items),
            self.record,
            checked.dropped,
        )

    def has_model(self) -> bool:
        """Whether Ollama has the model pulled (`llama3.2` matches `llama3.2:latest`)."""
        try:
            listed = self._client.list().models
        except (ConnectionError, httpx.TransportError, ollama.ResponseError) as exc:
            raise ExtractError(f"Ollama is not reachable at {self.host}: {_brief(exc)}") from exc
        return any(_with_tag(m.model or "") == _with_tag(self.model) for m in listed)

    def _chat(self, prompt: Prompt) -> str:
        """The model's whole answer, streamed under the deadline; raises `_Failure`."""
        deadline = time.monotonic() + self.timeout_s
        parts: list[str] = []
        stream: Any = None
        try:
            stream = self._client.chat(
                model=self.model,
                messages=[
                    {"role": "system", "content": prompt.system},
                    {"role": "user", "content": prompt.user},
                ],
                format=self._schema,
                options={"temperature": 0},
                stream=True,
            )
            for part in stream:
                parts.append(part.message.content or "")
                if part.done:
                    break
                if time.monotonic() > deadline:
                    raise self._timeout()
        except httpx.TimeoutException as exc:
            raise self._timeout() from exc
        except (ConnectionError, httpx.TransportError) as exc:
            raise _Failure(f"connection_error: Ollama at {self.host}: {_brief(exc)}") from exc
        except ollama.ResponseError as exc:
            raise _Failure(self._refusal(exc)) from exc
        except (json.JSONDecodeError, ValidationError) as exc:
            raise _Failure(f"invalid_output: not an Ollama chat stream: {_brief(exc)}") from exc
        finally:
            if stream is not None:
                stream.close()  # a generator: closes the HTTP response
        return "".join(parts)

    def _timeout(self) -> _Failure:
        return _Failure(
            f"timeout: {self.model} gave no complete answer within {self.timeout_s:g} s"
        )

    def _refusal(self, exc: ollama.ResponseError) -> str:
        if exc.status_code == 404 and "page not found" not in str(exc.error).lower():
            return f"model_not_found: run ollama pull {self.model}"
        return f"http_error: HTTP {exc.status_code}: {_brief(exc)}"


def _reason(exc: Exception) -> str:
    if isinstance(exc, PromptTooLong):
        return f"prompt_too_long: {exc}"
    if isinstance(exc, AnswerError):
        return f"invalid_output: {exc}"
    return str(exc)


def _extraction(
    answer: LlmAnswer, previous: Extraction | None, session_id: str, messages: Sequence[Message]
) -> Extraction:
    """The v1 fields from the answer, with the rules extractor's caps (oldest dropped first)."""
    entities: dict[str, Entity] = {}
    for e in answer.entities:
        key = entity_key(e.type, e.name)
        entities.setdefault(key, Entity(type=e.type, name=e.name.strip(), key=key))
    summary = " ".join(answer.summary.split())
    return Extraction(
        session_id=session_id,
        span=extend_span(previous, messages),
        summary=summary[: MAX_SUMMARY_CHARS - 1] + "\u2026"
        if len(summary) > MAX_SUMMARY_CHARS
        else summary,
        topics=_unique(answer.topics)[:MAX_TOPICS],
        decisions=[Decision(text=t) for t in _unique(answer.decisions)][-MAX_DECISIONS:],
        entities=list(entities.values())[-MAX_ENTITIES:],
        actions=[
            Action(description=a.description.strip(), outcome=a.outcome) for a in answer.actions
        ][-MAX_ACTIONS:],
        preferences_inferred=_unique(answer.preferences)[-MAX_PREFERENCES:],
    )


def _unique(texts: Sequence[str]) -> list[str]:
    """Stripped, non-empty, first occurrence kept."""
    return list(dict.fromkeys(t.strip() for t in texts if t.strip()))
