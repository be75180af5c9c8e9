"""One message read by the rules: its findings in text order.

Everything here is stateless: `analyse` turns a message's text into decisions, actions,
completions, preferences and entity mentions in the order they occur, and `extraction` folds
them into an `Extraction`. The patterns are deliberately conservative: bots filter sessions by
these facts, so a missed decision costs less than an invented one. Questions, conditionals and
hedged sentences ("maybe we could use X") therefore yield no decisions or actions.

Cost is bounded: only the first `text.MAX_ANALYSED_CHARS` of a message are read, and every
pattern captures at most a few hundred characters after its trigger.
"""

from __future__ import annotations

import re
from functools import lru_cache

from archivist.extract.rules.actions import (
    ACTION_WORDS,
    find_actions,
    find_completions,
    find_preferences,
)
from archivist.extract.rules.decisions import find_decisions
from archivist.extract.rules.entities import entities_in
from archivist.extract.rules.findings import ActionHit, Analysis, Completion, DecisionHit, Finding
from archivist.extract.rules.guards import is_question
from archivist.extract.rules.phrases import ACTION_LEAD, clause, strip_fillers, tidy
from archivist.extract.rules.text import units


@lru_cache(maxsize=4096)
def _sentence_findings(sentence: str, *, user: bool) -> tuple[Finding, ...]:
    """Decisions, actions, completions and (from the user) preferences, in sentence order.

    Cached: a run reads each sentence twice (for the extraction and for the state item
    candidates), and findings are immutable.
    """
    if is_question(sentence):
        return ()
    body = strip_fillers(sentence)
    found, taken = find_decisions(body)
    found += find_actions(body, taken) + find_completions(body)
    if user:
        found += find_preferences(body)
    if any(isinstance(f, DecisionHit) for _, f in found):
        # "We switched to X": the decision says it, it is not also a done action.
        found = [(i, f) for i, f in found if not _restates_choice(f)]
    return tuple(finding for _, finding in sorted(found, key=lambda pair: pair[0]))


_CHOICE_DONE = re.compile(r"(?:switched|migrated|moved)\b", re.I)


def _restates_choice(finding: Finding) -> bool:
    return isinstance(finding, Completion) and bool(_CHOICE_DONE.match(finding.text))


@lru_cache(maxsize=4096)
def _entities(sentence: str) -> tuple[Finding, ...]:
    """`entities_in`, cached like `_sentence_findings`."""
    return tuple(entities_in(sentence))


def analyse(text: str, *, user: bool, conversational: bool) -> Analysis:
    """The findings of one message, in order; non-conversational roles give entities only."""
    findings: list[Finding] = []
    sentences: list[str] = []
    for sentence, list_outcome in units(text):
        findings += _entities(sentence)
        if not conversational:
            continue
        sentences.append(sentence)
        if list_outcome is None:
            findings += _sentence_findings(sentence, user=user)
            continue
        item = tidy(clause(ACTION_LEAD.sub("", sentence)), ACTION_WORDS)
        if any(c.isalnum() for c in item):
            findings.append(ActionHit(item, list_outcome))
    return Analysis(findings, sentences)
