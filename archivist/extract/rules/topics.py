"""Topics of a batch: entities, broad areas, repeated phrases and frequent nouns, ranked.

A topic is what a session is about, not what was said most: a broad area named twice or more
("caching" for cache, cached, TTL, eviction) ranks with the tools and products, and a single
word must recur in several messages and not be a verb or a chat word ("noted", "remind"), nor
repeat an area already chosen ("cache" next to "caching").

Topics are ranked by counts within a batch, which a version does not store. A later batch's
topics are merged with the previous ones: those that recur first, then the rest of both in
turn, so that a long session's later subjects are not shut out by its first batch.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import zip_longest

from archivist.extract.rules.findings import Analysis, EntityHit
from archivist.extract.rules.vocabulary import (
    CHATTER_VERBS,
    COMMON_VERBS,
    DOMAINS,
    TOPIC_STOPWORDS,
    topic_clauses,
)
from archivist.words import stem, word_set

MAX_TOPICS = 12
_TOPIC_TYPES = frozenset({"tool", "product", "project", "org"})
# An area mentioned once is a passing word ("deploy pipeline" is not about data).
_MIN_DOMAIN_MENTIONS = 2
# Verbs and chat words make poor topics on their own ("noted", "remind", "update", "build").
_NOT_TOPIC_WORDS = (
    COMMON_VERBS
    | CHATTER_VERBS
    | word_set("noted remind reminded reminder reminders thanks welcome")
)


@dataclass
class TopicCounts:
    """Candidate topic phrases of one batch, counted by stems in order of first appearance.

    A phrase is shown in its shortest surface form ("frontend deploy" over "frontend deployed").
    """

    entities: Counter[str] = field(default_factory=Counter)
    bigrams: Counter[str] = field(default_factory=Counter)
    words: Counter[str] = field(default_factory=Counter)
    domains: Counter[str] = field(default_factory=Counter)
    word_messages: Counter[str] = field(default_factory=Counter)
    shown: dict[str, str] = field(default_factory=dict)

    def add(self, analysis: Analysis) -> None:
        """Count one message's entities and phrases."""
        for finding in analysis.findings:
            if isinstance(finding, EntityHit) and finding.type in _TOPIC_TYPES:
                self.entities[finding.name.lower()] += 1
        said: dict[str, None] = {}  # the words this message counted, in counting order
        for sentence in analysis.sentences:
            for clause in topic_clauses(sentence):
                self._add_clause(clause, said)
        self.word_messages.update(said.keys())

    def _count(self, counter: Counter[str], key: str, surface: str) -> None:
        counter[key] += 1
        known = self.shown.get(key)
        if known is None or len(surface) < len(known):
            self.shown[key] = surface

    def _add_clause(self, found: list[str], said: dict[str, None]) -> None:
        content = [t if t not in TOPIC_STOPWORDS else "" for t in found]
        for first, second in zip(content, content[1:], strict=False):
            # A bigram starts with a word of 3+ characters, not a number; the second word may
            # be a number ("phase 2").
            if (
                len(first) > 2
                and not first.isdigit()
                and (len(second) > 2 or any(c.isdigit() for c in second))
            ):
                key = f"{stem(first)} {stem(second)}"
                self._count(self.bigrams, key, f"{first} {second}")
        for token in content:
            if token.isalpha() and len(token) >= 4 and token not in _NOT_TOPIC_WORDS:
                key = stem(token)
                self._count(self.words, key, token)
                said[key] = None
            if token in DOMAINS:
                self.domains[DOMAINS[token]] += 1

    def ranked(self) -> list[str]:
        """Entities and areas, repeated bigrams, frequent words, best first; ties by order.

        A single word that is part of a chosen phrase, or whose area is chosen, adds nothing
        and is left out.
        """
        scored: dict[str, int] = {}
        for phrase, count in self.entities.items():
            scored[phrase] = scored.get(phrase, 0) + 3 * count
        for phrase, count in self.domains.items():
            if count >= _MIN_DOMAIN_MENTIONS:
                scored[phrase] = scored.get(phrase, 0) + 3 * count
        for key, count in self.bigrams.items():
            if count >= 2:
                scored.setdefault(self.shown[key], 2 * count)
        for key, count in self.words.items():
            if count >= 3 and self.word_messages[key] >= 2:
                scored.setdefault(self.shown[key], count)
        phrase_words = {w for phrase in scored if " " in phrase for w in phrase.split()}
        order = {phrase: i for i, phrase in enumerate(scored)}
        kept = [
            p
            for p in scored
            if " " in p
            or p in self.entities
            or p in self.domains
            or (p not in phrase_words and DOMAINS.get(p) not in scored)
        ]
        return sorted(kept, key=lambda p: (-scored[p], order[p]))


def merge_topics(previous: Sequence[str], new: Sequence[str]) -> list[str]:
    """Topics that recur (in the new order), then the previous and the new ones in turn, capped."""
    fresh = [t for t in dict.fromkeys(new) if t.strip()]
    recurring = [t for t in fresh if t in previous]
    old = [t for t in previous if t not in recurring]
    added = [t for t in fresh if t not in previous]
    turns = [t for pair in zip_longest(old, added) for t in pair if t is not None]
    return list(dict.fromkeys([*recurring, *turns]))[:MAX_TOPICS]
