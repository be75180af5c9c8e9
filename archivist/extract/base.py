"""The extractor contract: version N + new messages -> version N+1 and candidate state items.

An extractor proposes; it never decides. Its candidates go through the pipeline's
deterministic reconciliation like any other, whichever extractor produced them. The
`ExtractorRecord` it returns is stored with the version (the `extractor` columns and the
extraction's `extractor` field), so every version says what produced it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from archivist.errors import ExtractError
from archivist.extract.rules import (
    EXTRACTOR_NAME,
    EXTRACTOR_VERSION,
    extend_extraction,
    rules_candidates,
)
from archivist.models import Extraction, ExtractorRecord, Message, SessionSummary
from archivist.state.items import CandidateItem, StateItem

log = logging.getLogger(__name__)

__all__ = [
    "ExtractionResult",
    "Extractor",
    "ExtractorRecord",
    "RulesExtractor",
]


@dataclass
class ExtractionResult:
    """What one extractor call produced for one session's batch of messages."""

    extraction: Extraction
    candidates: list[CandidateItem]
    record: ExtractorRecord
    dropped_items: int = 0  # invalid LLM items (and entries) dropped


class Extractor(Protocol):
    def extract(
        self,
        previous: Extraction | None,
        session_id: str,
        messages: Sequence[Message],
        summary: SessionSummary | None,
        existing_items: Sequence[StateItem],
    ) -> ExtractionResult: ...


def stamped(extraction: Extraction, record: ExtractorRecord) -> Extraction:
    """The extraction with its `extractor` field set to the record."""
    return extraction.model_copy(update={"extractor": record})


class RulesExtractor:
    """The deterministic default, no model, no network: the v1 fields from
    `rules.extend_extraction`, the candidate state items from `rules.rules_candidates`."""

    record = ExtractorRecord(name=EXTRACTOR_NAME, version=EXTRACTOR_VERSION)

    def extract(
        self,
        previous: Extraction | None,
        session_id: str,
        messages: Sequence[Message],
        summary: SessionSummary | None,
        existing_items: Sequence[StateItem],
    ) -> ExtractionResult:
        """Version N+1 by the rules."""
        return self.fallback(previous, session_id, messages, summary, existing_items, None)

    def fallback(
        self,
        previous: Extraction | None,
        session_id: str,
        messages: Sequence[Message],
        summary: SessionSummary | None,
        existing_items: Sequence[StateItem],
        reason: str | None,
    ) -> ExtractionResult:
        """Version N+1 by the rules, recording why another extractor was not used. A fault of
        the rules on this session's text fails the session alone (it is held back and retried
        like any session whose input fails), not the run: a run from cron meets the same
        session first every night."""
        record = replace(self.record, fallback_reason=reason)
        try:
            extraction = extend_extraction(previous, session_id, messages, summary)
            candidates = rules_candidates(messages)
        except Exception as exc:
            # (the traceback, for a bug report: `archivist archive -v --session-id S`)
            log.info("the rules extractor failed on session %s", session_id, exc_info=True)
            raise ExtractError(f"the rules extractor failed: {type(exc).__name__}") from exc
        return ExtractionResult(stamped(extraction, record), candidates, record)
