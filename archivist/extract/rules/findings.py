"""What the rules find in a sentence: the typed findings `analysis.analyse` returns in order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from archivist.models import EntityType


@dataclass(frozen=True)
class DecisionHit:
    text: str
    domain: str | None


@dataclass(frozen=True)
class ActionHit:
    text: str
    outcome: Literal["planned", "done"]


@dataclass(frozen=True)
class Completion:
    """Completion language: `text` as said, `stems` to match it against planned actions."""

    text: str
    stems: frozenset[str]


@dataclass(frozen=True)
class PreferenceHit:
    text: str


@dataclass(frozen=True)
class EntityHit:
    type: EntityType
    name: str


Finding = DecisionHit | ActionHit | Completion | PreferenceHit | EntityHit


@dataclass(frozen=True)
class Analysis:
    """A message's findings in text order, and its conversational sentences (for topics)."""

    findings: list[Finding]
    sentences: list[str]
