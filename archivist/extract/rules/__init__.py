"""The deterministic rules extractor: no model, no network, the same answer every time.

The package follows the order a message is read in: `text` (prose, sentences, task lists),
`vocabulary` (the words the rules know), `phrases` (clauses as short item texts), `guards`
(questions and hedges yield nothing), `decisions`, `actions` (with completions and
preferences), `entities`, and `analysis` (one message's findings in order). Then the two
consumers of those findings: `extraction` folds them into the v1 `Extraction` (with `topics`),
and `candidates` turns them into candidate state items for reconciliation.
"""

from archivist.extract.rules.candidates import earlier_contradictions, rules_candidates
from archivist.extract.rules.entities import entity_key
from archivist.extract.rules.extraction import (
    EXTRACTOR_NAME,
    EXTRACTOR_VERSION,
    MAX_ACTIONS,
    MAX_DECISIONS,
    MAX_ENTITIES,
    MAX_PREFERENCES,
    MAX_SUMMARY_CHARS,
    extend_extraction,
    extend_span,
    without_decisions,
)
from archivist.extract.rules.topics import MAX_TOPICS

__all__ = [
    "EXTRACTOR_NAME",
    "EXTRACTOR_VERSION",
    "MAX_ACTIONS",
    "MAX_DECISIONS",
    "MAX_ENTITIES",
    "MAX_PREFERENCES",
    "MAX_SUMMARY_CHARS",
    "MAX_TOPICS",
    "earlier_contradictions",
    "entity_key",
    "extend_extraction",
    "extend_span",
    "rules_candidates",
    "without_decisions",
]
