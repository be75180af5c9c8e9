"""Search results people can read: snippets centred on the match, the ranked score shown (its
parts with -v), and only what the filters asked for."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from support.sources import SourceDB
from typer.testing import CliRunner

from archivist.cli import cli
from archivist.snippets import query_terms, snippet

FILLER = "nothing much happened in this part of the conversation. " * 10


def test_query_terms_drop_common_words() -> None:
    assert query_terms("What did we say about OAuth refresh?") == ["oauth", "refresh"]


def test_snippet_is_centred_on_the_match_with_the_words_marked() -> None:
    text = FILLER + "The OAuth refresh token flow fails after an hour. " + FILLER
    cut = snippet(text, ["oauth", "refresh"], width=80)
    assert cut.text.startswith("…") and cut.text.endswith("…")
    assert "OAuth refresh token" in cut.text and len(cut.text) <= 82
    assert [cut.text[a:b] for a, b in cut.marks] == ["OAuth", "refresh"]


def test_snippet_prefers_the_window_with_most_terms_and_marks_word_prefixes() -> None:
    text = "deploy " + FILLER + "we deployed the frontend to Vercel " + FILLER
    cut = snippet(text, ["deploy", "vercel"], width=60)
    assert "deployed the frontend to Vercel" in cut.text
    assert {cut.text[a:b] for a, b in cut.marks} == {"deployed", "Vercel"}


def test_a_text_without_a_match_gives_its_beginning() -> None:
    cut = snippet(FILLER, ["zebra"], width=40)
    assert cut.text.startswith("nothing much") and cut.marks == []


def invoke(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def archived(source: SourceDB, env: dict[str, str]) -> SourceDB:
    source.add(
        "olive",
        [
            "Let's use Vercel for the frontend instead of Netlify.",
            "Agreed. I deployed the staging build already.",
            "I'll set up the DNS records tomorrow.",
            "I'll write the rollback runbook next week.",
        ],
    )
    source.add("other", [FILLER + "The OAuth refresh token flow fails after an hour.", "ok"])
    invoke("archive")
    return source


def test_memory_search_shows_the_ranked_score_and_the_matching_part(archived: SourceDB) -> None:
    out = invoke("memory-search", "OAuth refresh token", "--session-id", "other").stdout
    assert "ranked by fused score" in out
    assert re.search(
        r"^ 1\. score 0\.\d{4}  relevance \d\.\d\d( \(weak\))?  other  \w+  "
        r"\d{4}-\d\d-\d\d \d\d:\d\d",
        out,
        re.M,
    ), out
    assert "OAuth refresh token flow fails" in out
    verbose = invoke("memory-search", "OAuth refresh token", "-v", "--session-id", "other").stdout
    assert re.search(r"similarity 0\.\d+, score 0\.\d+", verbose)
    vector = invoke("memory-search", "OAuth refresh", "--mode", "vector").stdout
    assert "ranked by cosine similarity" in vector and " 1. score " in vector


def test_archive_search_shows_only_the_items_the_filters_asked_for(archived: SourceDB) -> None:
    items = json.loads(invoke("archive-search", "--session-id", "olive", "--json").stdout)
    kinds = {(i["type"], i["status"]) for i in items["hits"][0]["state_items"]}
    assert ("decision", "active") in kinds and ("action", "open") in kinds  # the data has both

    out = invoke("archive-search", "--type", "action", "--status", "open").stdout
    shown = [line.strip() for line in out.splitlines() if line.strip().startswith("[")]
    assert shown and all(" action (open): " in line for line in shown)
    assert "Vercel" not in "\n".join(shown)

    decisions = invoke("archive-search", "--decision", "vercel").stdout
    assert "decision: Use Vercel" in decisions and "[a_" not in decisions
