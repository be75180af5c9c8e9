"""Strict inputs at the SQL edge: a bot calling the search functions directly (SQL, or REST
through the gateway double) gets an error that says what is expected for a filter of the wrong
shape or a number out of range, and cannot call the searches' internal helpers."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx
import psycopg
import pytest
from support.postgrest_double import SERVICE_KEY, PostgrestDouble
from support.sources import T0, SourceDB

from archivist.client import archive
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest

VECTOR = "[" + ",".join(["0.1"] * 768) + "]"
Call = Callable[[str, dict[str, Any]], tuple[str | None, Any]]


@pytest.fixture
def archived(source: SourceDB, settings: Settings) -> SourceDB:
    source.add("one-id", ["we deploy the olive frontend on Vercel", "ok"])
    source.add("other", ["we deploy the pear backend on Fly", "ok"], start=T0 + timedelta(days=1))
    archive(settings, ArchiveRequest(delay_ms=0))
    return source


@pytest.fixture(params=["sql", "rest"])
def call(request: pytest.FixtureRequest, archived: SourceDB) -> Call:
    """Call a function by name with named arguments: (SQLSTATE or None, rows)."""
    if request.param == "sql":

        def sql(function: str, args: dict[str, Any]) -> tuple[str | None, Any]:
            named = ", ".join(f"{k} => %({k})s" for k in args)
            with psycopg.connect(archived.url, autocommit=True) as conn:
                try:
                    rows = conn.execute(f"SELECT * FROM {function}({named})", args).fetchall()
                except psycopg.Error as exc:
                    return exc.sqlstate, str(exc)
            return None, rows

        return sql
    double: PostgrestDouble = request.getfixturevalue("postgrest")

    def rest(function: str, args: dict[str, Any]) -> tuple[str | None, Any]:
        answer = httpx.post(
            f"{double.url}/rest/v1/rpc/{function}",
            json={k: json.loads(v) if k == "filter" else v for k, v in args.items()},
            headers={"apikey": SERVICE_KEY, "Authorization": f"Bearer {SERVICE_KEY}"},
            timeout=60,
        )
        body = answer.json()
        return (body["code"], body["message"]) if answer.status_code != 200 else (None, body)

    return rest


def match(filter_: str) -> tuple[str, dict[str, Any]]:
    return "match_jarvis_memory_chunks", {"query_embedding": VECTOR, "filter": filter_}


@pytest.mark.parametrize(
    ("filter_", "message"),
    [
        ('{"session_ids": "one-id"}', "filter session_ids must be an array of strings"),
        ('{"session_ids": [1, 2]}', "filter session_ids must be an array of strings"),
        ('{"sesion_ids": ["one-id"]}', 'filter key "sesion_ids" is unknown'),
        ('{"source": "turns"}', "filter source must be one of session_summary"),
        ('{"since": "last tuesday"}', 'filter since must be a timestamp such as "2026-01-01"'),
        ('{"until": 20260101}', "filter until must be a timestamp"),
        ('{"user_id": 42}', "filter user_id must be a string, not 42"),
        ('["one-id"]', "filter must be a JSON object"),
    ],
)
def test_a_filter_of_the_wrong_shape_is_an_error_not_ignored(
    call: Call, filter_: str, message: str
) -> None:
    code, detail = call(*match(filter_))
    assert code == "22023" and message in detail


def test_a_filter_of_the_right_shape_still_filters(call: Call) -> None:
    code, rows = call(*match('{"session_ids": ["one-id"], "since": null}'))
    assert code is None and rows
    sessions = {r["session_id"] if isinstance(r, dict) else r[1] for r in rows}
    assert sessions == {"one-id"}


def test_the_current_values_a_memory_search_reads_check_their_filter_too(call: Call) -> None:
    code, detail = call(
        "archivist_current_values", {"query_text": "deadline", "filter": '{"sesion_ids": []}'}
    )
    assert code == "22023" and 'filter key "sesion_ids" is unknown' in detail


def test_the_turns_around_the_hits_check_their_filter_too(call: Call) -> None:
    code, detail = call(
        "archivist_turn_neighbours", {"chunk_ids": "{}", "filter": '{"as-of": "2024-01-01"}'}
    )
    assert code == "22023" and 'filter key "as-of" is unknown' in detail


def test_the_user_id_filter_is_a_known_key(call: Call) -> None:
    """Per-user memory's key (sql/001_schema.sql) passes the check and scopes: these sessions
    carry no user id, so no chunk is that user's."""
    code, rows = call(*match('{"user_id": "7f9c2d4e-user"}'))
    assert code is None and rows == []
    code, rows = call(*match('{"user_id": null}'))
    assert code is None and rows


@pytest.mark.parametrize(
    ("function", "args"),
    [
        ("archivist_nearest_chunks", {"query_embedding": VECTOR, "k": 200, "filter": "{}"}),
        (
            "archivist_vector_candidates",
            {"query_embedding": VECTOR, "filter": "{}", "turns": 200, "others": 200},
        ),
        ("archivist_text_matches", {"query_text": "deploy", "k": 200, "filter": "{}"}),
        ("archivist_word_stats", {"words": ["deploy"], "filter": "{}"}),
        ("archivist_standing_rule", {"query_text": "deploy", "filter": "{}"}),
    ],
)
def test_the_searches_helpers_are_not_callable(
    call: Call, function: str, args: dict[str, Any]
) -> None:
    code, detail = call(function, args)
    assert code == "42501" and "internal to the searches" in detail


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ({"vector_weight": 1e308}, "vector_weight must be at least 0 and at most 1000, not 1e+308"),
        ({"text_weight": -1}, "text_weight must be at least 0 and at most 1000, not -1"),
        ({"recency_weight": 5}, "recency_weight must be at least 0 and at most 1, not 5"),
        ({"half_life_days": 0}, "half_life_days must be above 0 and at most 36500, not 0"),
        ({"half_life_days": None}, "half_life_days must be above 0 and at most 36500, not NULL"),
    ],
)
def test_weights_out_of_range_are_refused_with_the_range(
    call: Call, weights: dict[str, Any], message: str
) -> None:
    args = {"query_embedding": VECTOR, "query_text": "deploy", "filter": "{}", **weights}
    code, detail = call("hybrid_jarvis_memory_chunks", args)
    assert code == "22023" and message in detail
