"""Topics of a batch: entities, repeated phrases, domains and frequent words, ranked.

Topics are ranked by counts within a batch, which a version does not store, so a new batch's
topics are appended to the previous ones rather than re-ranked with them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from archivist.extract.rules.findings import Analysis, EntityHit
from archivist.extract.rules.vocabulary import DOMAINS, TOPIC_STOPWORDS, topic_clauses
from archivist.words import stem

MAX_TOPICS = 12
_TOPIC_TYPES = frozenset({"tool", "product", "project", "org"})


@dataclass
class TopicCounts:
    """Candidate topic phrases of one batch, counted by stems in order of first appearance.

    A phrase is shown in its shortest surface form ("frontend deploy" over "frontend deployed").
    """

    entities: Counter[str] = field(default_factory=Counter)
    bigrams: Counter[str] = field(default_factory=Counter)
    words: Counter[str] = field(default_factory=Counter)
    domains: Counter[str] = field(default_factory=Counter)
    shown: dict[str, str] = field(default_factory=dict)

    def add(self, analysis: Analysis) -> None:
        for finding in analysis.findings:
            if isinstance(finding, EntityHit) and finding.type in _TOPIC_TYPES:
                self.entities[finding.name.lower()] += 1
        for sentence in analysis.sentences:
            for clause in topic_clauses(sentence):
                self._add_clause(clause)

    def _count(self, counter: Counter[str], key: str, surface: str) -> None:
        counter[key] += 1
        known = self.shown.get(key)
        if known is None or len(surface) < len(known):
            self.shown[key] = surface

    def _add_clause(self, found: list[str]) -> None:
        content = [t if t not in TOPIC_STOPWORDS else "" for t in found]
        for first, second in zip(content, content[1:], strict=False):
            if _bigram_word(first, head=True) and _bigram_word(second, head=False):
                key = f"{stem(first)} {stem(second)}"
                self._count(self.bigrams, key, f"{first} {second}")
        for token in content:
            if token.isalpha() and len(token) >= 4:
                self._count(self.words, stem(token), token)
            if token in DOMAINS:
                self.domains[DOMAINS[token]] += 1

    def ranked(self) -> list[str]:
        """Entities, repeated bigrams, domains and frequent words, best first; ties by order.

        A single word that is part of a chosen phrase adds nothing and is left out.
        """
        scored: dict[str, int] = {}
        for phrase, count in self.entities.items():
            scored[phrase] = scored.get(phrase, 0) + 3 * count
        for key, count in self.bigrams.items():
            if count >= 2:
                scored.setdefault(self.shown[key], 2 * count)
        for phrase, count in self.domains.items():
            scored.setdefault(phrase, count)
        for key, count in self.words.items():
            if count >= 3:
                scored.setdefault(self.shown[key], count)
        phrase_words = {w for phrase in scored if " " in phrase for w in phrase.split()}
        order = {phrase: i for i, phrase in enumerate(scored)}
        kept = [p for p in scored if " " in p or p not in phrase_words or p in self.entities]
        return sorted(kept, key=lambda p: (-scored[p], order[p]))


def _bigram_word(token: str, *, head: bool) -> bool:
    """Bigrams start with a word of 3+ letters; the second word may be a number ("phase 2")."""
    if head:
        return len(token) > 2 and not token.isdigit()
    return len(token) > 2 or any(c.isdigit() for c in token)


def merge_topics(previous: Sequence[str], new: Sequence[str]) -> list[str]:
    """The previous topics, then the new ones not among them, capped."""
    merged = list(dict.fromkeys([*previous, *(t for t in new if t.strip())]))
    return merged[:MAX_TOPICS]
