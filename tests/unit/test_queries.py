"""A read's arguments become one model in one place: `build_query` for Python keyword calls,
which every way in shares, and a model given whole passes through as it is."""

from __future__ import annotations

import pytest

from archivist.errors import ConfigError
from archivist.queries import (
    ArchiveFilters,
    ArchiveQuery,
    HybridQuery,
    MemoryQuery,
    SessionQuery,
    build_query,
    parse_query,
)


def test_a_model_given_alone_is_taken_as_it_is() -> None:
    q = MemoryQuery(query="refresh tokens", limit=3)
    assert build_query(MemoryQuery, q) is q


def test_keyword_arguments_make_the_model() -> None:
    q = build_query(MemoryQuery, "refresh tokens", limit=3, session_ids=("a",))
    assert (q.query, q.limit, q.session_ids) == ("refresh tokens", 3, ["a"])


def test_filters_and_keyword_arguments_make_one_model() -> None:
    q = build_query(ArchiveQuery, ArchiveFilters(topics=["oauth"]), limit=5, all_versions=True)
    assert (q.topics, q.limit, q.all_versions) == (["oauth"], 5, True)
    hybrid = build_query(HybridQuery, "deploy", topics=["vercel"])
    assert (hybrid.query, hybrid.topics) == ("deploy", ["vercel"])


def test_a_bad_keyword_is_one_line_refusal() -> None:
    with pytest.raises(ConfigError, match="invalid argument topic: unknown argument"):
        build_query(ArchiveQuery, topic=["oauth"])
    with pytest.raises(ConfigError, match="since .* is after until"):
        build_query(MemoryQuery, "x", since="2026-02-01", until="2026-01-01")


def test_a_one_shot_search_takes_only_its_query_by_position() -> None:
    """`memory_search("q", 5)` read 5 as the limit once; now it would be the settings."""
    from archivist.client import archive_search, memory_search, search

    with pytest.raises(TypeError, match="positional"):
        memory_search("refresh token", 5)  # type: ignore[misc]
    with pytest.raises(TypeError, match="positional"):
        search("refresh token", None, 5)  # type: ignore[misc]
    with pytest.raises(TypeError, match="positional"):
        archive_search(None, 5)  # type: ignore[misc]


def test_a_blank_filter_is_refused_not_ignored() -> None:
    """A topic "" is in every topic list and a decision "" in every decision: accepted, such a
    filter widened the answer to every session instead of narrowing it."""
    for values in (
        {"topics": [""]},
        {"topics": ["   "]},
        {"decision": ""},
        {"entity": " "},
        {"action": ""},
        {"session_ids": [" "]},
    ):
        with pytest.raises(ConfigError, match="must not be blank"):
            parse_query(ArchiveQuery, values)


def test_a_session_id_with_nul_is_refused_not_stripped_into_another_id() -> None:
    with pytest.raises(ConfigError, match="session_id: must not contain NUL"):
        parse_query(SessionQuery, {"session_id": "a\x00b"})
    with pytest.raises(ConfigError, match="session_ids: must not contain NUL"):
        parse_query(ArchiveQuery, {"session_ids": ["a\x00b"]})


def test_a_query_that_is_no_text_is_a_one_line_error() -> None:
    with pytest.raises(ConfigError, match="invalid argument query: must be a valid string"):
        build_query(MemoryQuery, 5)  # type: ignore[arg-type]
