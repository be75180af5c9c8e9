"""The LLM extractor through the real `ollama` client against the test server: good answers,
every fallback reason, the drop counts, and `archive --extractor ollama` end to end."""

from __future__ import annotations

import json
import socket
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import ollama
import pytest
from support.commands import run_doctor
from support.ollama_server import OllamaTestServer
from support.sources import SourceDB, run_archivist

from archivist.config import Settings
from archivist.extract.base import ExtractionResult, RulesExtractor
from archivist.extract.llm import OllamaExtractor
from archivist.extract.llm_output import answer_schema
from archivist.extract.prompt import PROMPT_VERSION, SYSTEM, PromptTooLong, build_prompt
from archivist.extract.rules import extend_extraction, rules_candidates
from archivist.models import Message
from archivist.state.items import StateItem, compute_uid

MODEL = "test-llm"
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
CHAT = [
    ("m1", "user", "Let's use Redis for caching the session tokens."),
    ("m2", "assistant", "OK, Redis it is. I'll add the connection pool config."),
    ("m3", "user", "Must stay under 100 ms p99. Could eviction lose tokens?"),
]
REDIS = StateItem(
    uid=compute_uid("decision", "Use Postgres for caching"),
    type="decision",
    text="Use Postgres for caching",
    status="active",
)


def messages(chat: list[tuple[str, str, str]] = CHAT) -> list[Message]:
    return [
        Message(
            id=mid, session_id="s", role=role, content=text, created_at=T0 + timedelta(minutes=i)
        )
        for i, (mid, role, text) in enumerate(chat)
    ]


def item(**fields: Any) -> dict[str, Any]:
    base = {
        "type": "decision",
        "text": "Use Redis for caching session tokens",
        "status": "active",
        "confidence": "high",
        "topic_tags": ["caching"],
        "refs": ["m1"],
        "supersedes": None,
    }
    return {**base, **fields}


def answer(entries: Any, **fields: Any) -> str:
    base: dict[str, Any] = {
        "summary": "The user chose Redis to cache session tokens under a latency budget.",
        "topics": ["caching", "redis"],
        "decisions": ["Use Redis for caching session tokens"],
        "entities": [{"type": "tool", "name": "Redis"}],
        "actions": [{"description": "Add the connection pool config", "outcome": "planned"}],
        "preferences": ["Prefers low latency"],
        "items": entries,
    }
    return json.dumps({**base, **fields})


GOOD = answer(
    [
        item(),
        item(type="constraint", text="p99 latency under 100 ms", refs=["m3"], status=None),
        item(type="question", text="Could eviction lose tokens?", refs=["m3"], status="open"),
        item(type="action", text="Add the Redis connection pool config", refs=["m2"]),
    ]
)


@pytest.fixture
def server(ollama_server: OllamaTestServer) -> OllamaTestServer:
    ollama_server.models.add(f"{MODEL}:latest")
    return ollama_server


def extractor(server: OllamaTestServer, **kwargs: Any) -> OllamaExtractor:
    return OllamaExtractor(model=MODEL, host=server.url, **kwargs)


def run(
    server: OllamaTestServer, reply: str | None = None, existing: list[StateItem] | None = None
) -> ExtractionResult:
    if reply is not None:
        server.chat_replies = [reply]
    return extractor(server).extract(None, "s", messages(), None, existing or [])


def fallback_reason(result: ExtractionResult, batch: list[Message] | None = None) -> str:
    assert result.record.name == "rules"
    # the rules' candidates, not the LLM's
    assert result.candidates == rules_candidates(messages() if batch is None else batch)
    assert result.extraction.extractor == result.record
    reason = result.record.fallback_reason
    assert reason is not None
    return reason


# -- good answers ------------------------------------------------------------------------------


def test_a_good_answer_fills_the_extraction_and_records_the_model(
    server: OllamaTestServer,
) -> None:
    result = run(server, GOOD)

    assert result.record.name == "ollama"
    assert result.record.model == MODEL and result.record.prompt_version == PROMPT_VERSION
    assert result.record.fallback_reason is None
    assert result.extraction.extractor == result.record
    assert result.dropped_items == 0
    e = result.extraction
    assert e.summary.startswith("The user chose Redis")
    assert e.topics == ["caching", "redis"]
    assert [d.text for d in e.decisions] == ["Use Redis for caching session tokens"]
    assert [(x.key, x.name) for x in e.entities] == [("tool:redis", "Redis")]
    assert [(a.description, a.outcome) for a in e.actions] == [
        ("Add the connection pool config", "planned")
    ]
    assert e.preferences_inferred == ["Prefers low latency"]
    assert e.span.turn_count == 3 and e.span.first_turn_at == T0
    assert [(c.type, c.status, c.confidence, c.refs) for c in result.candidates] == [
        ("decision", "active", "high", ["m1"]),
        ("constraint", "active", "high", ["m3"]),  # no status: the type's default, valid
        ("question", "open", "high", ["m3"]),
        ("action", "open", "low", ["m2"]),  # "active" is no action status: coerced
    ]


def test_the_request_is_one_streamed_schema_constrained_call_at_temperature_zero(
    server: OllamaTestServer,
) -> None:
    run(server, GOOD, existing=[REDIS])

    assert len(server.chat_requests) == 1
    body = server.chat_requests[0]
    assert body["model"] == MODEL and body["stream"] is True
    assert body["format"] == answer_schema()
    assert body["options"]["temperature"] == 0
    system, user = body["messages"]
    assert system == {"role": "system", "content": SYSTEM}
    assert f"[{REDIS.uid}] decision (active): Use Postgres for caching" in user["content"]
    assert "[m1] user: Let's use Redis" in user["content"]
    for rule in ("DO NOT invent new item types", "Do NOT repeat unchanged items", "ONLY the JSON"):
        assert rule.lower() in (system["content"] + user["content"]).lower()


def test_the_test_server_answers_non_streamed_chat_too(server: OllamaTestServer) -> None:
    server.chat_replies = [GOOD]
    client = ollama.Client(host=server.url)
    response = client.chat(model=MODEL, messages=[{"role": "user", "content": "hi"}])
    assert json.loads(response.message.content or "") == json.loads(GOOD)
    assert server.chat_requests[0]["stream"] is False


def test_refs_outside_the_batch_are_removed_and_items_left_without_refs_dropped(
    server: OllamaTestServer,
) -> None:
    result = run(
        server,
        answer(
            [
                item(refs=["m1", "m999"]),
                item(text="Use Kafka", refs=["msg_invented"]),
                item(text="No refs at all", refs=[]),
            ]
        ),
    )

    assert result.record.name == "ollama"
    assert [c.refs for c in result.candidates] == [["m1"]]
    assert result.dropped_items == 2


def test_invented_types_and_malformed_entries_are_dropped_and_counted(
    server: OllamaTestServer,
) -> None:
    result = run(
        server,
        answer(
            [item(), item(type="opinion"), item(type="belief"), "not an item", item(text="")],
            entities=[{"type": "tool", "name": "Redis"}, {"type": "feeling", "name": "joy"}],
            actions=[{"description": "Ship it", "outcome": "someday"}],
        ),
    )

    assert [c.type for c in result.candidates] == ["decision"]
    assert [e.name for e in result.extraction.entities] == ["Redis"]
    assert result.extraction.actions == []
    assert result.dropped_items == 4 + 1 + 1


def test_bad_statuses_are_coerced_to_the_default_with_low_confidence(
    server: OllamaTestServer,
) -> None:
    result = run(
        server,
        answer(
            [
                item(type="action", text="Write the migration", status="finished"),
                item(type="question", text="Which region?", status="superseded"),
                item(type="action", text="Deploy", status="done"),
            ]
        ),
    )

    assert [(c.status, c.confidence) for c in result.candidates] == [
        ("open", "low"),
        ("open", "low"),  # only reconciliation supersedes
        ("done", "high"),
    ]
    assert result.dropped_items == 0


def test_supersedes_is_kept_only_for_an_existing_uid(server: OllamaTestServer) -> None:
    result = run(
        server,
        answer([item(supersedes=REDIS.uid), item(text="Use Valkey", supersedes="d_000000000000")]),
        existing=[REDIS],
    )

    assert [c.supersedes for c in result.candidates] == [REDIS.uid, None]


def test_extra_topic_tags_are_cut_to_three(server: OllamaTestServer) -> None:
    result = run(server, answer([item(topic_tags=["a", "b", "c", "d"])]))
    assert result.candidates[0].topic_tags == ["a", "b", "c"]


# -- fallbacks ---------------------------------------------------------------------------------


def test_a_fallback_version_is_exactly_the_rules_extraction(server: OllamaTestServer) -> None:
    result = run(server, "I think the answer is Redis.")

    expected = extend_extraction(None, "s", messages(), None)
    assert result.extraction == expected.model_copy(update={"extractor": result.record})
    assert result.record.version == RulesExtractor.record.version
    assert result.record.model is None


@pytest.mark.parametrize(
    ("reply", "detail"),
    [
        ("Sure! Here is the JSON you asked for.", "not JSON"),
        ("```json\n" + GOOD + "\n```", "not JSON"),
        ("[]", "not an object"),
        (answer([], summary=42), "'summary'"),
        (answer({"type": "decision"}), "'items' is not a list"),
        (json.dumps({"items": []}), "'entities' is not a list"),
    ],
)
def test_junk_falls_back_to_the_rules(server: OllamaTestServer, reply: str, detail: str) -> None:
    reason = fallback_reason(run(server, reply))
    assert reason.startswith("invalid_output: ") and detail in reason


def test_a_stream_that_is_not_json_falls_back(server: OllamaTestServer) -> None:
    server.chat_fault = "bad_stream"
    assert fallback_reason(run(server, GOOD)).startswith("invalid_output: ")


def test_no_answer_within_the_timeout_falls_back(server: OllamaTestServer) -> None:
    server.chat_fault = "slow"
    server.chat_replies = [GOOD]
    result = extractor(server, timeout_s=0.3).extract(None, "s", messages(), None, [])
    assert fallback_reason(result) == f"timeout: {MODEL} gave no complete answer within 0.3 s"


def test_an_answer_dripping_past_the_deadline_falls_back(server: OllamaTestServer) -> None:
    """Every part arrives within the read timeout, but the whole answer does not."""
    server.chat_fault = "drip"
    server.drip_s = 0.15
    server.chat_replies = [GOOD]
    result = extractor(server, timeout_s=0.4).extract(None, "s", messages(), None, [])
    assert fallback_reason(result).startswith("timeout: ")


def test_an_http_error_falls_back(server: OllamaTestServer) -> None:
    server.chat_fault = "500"
    reason = fallback_reason(run(server, GOOD))
    assert reason.startswith("http_error: HTTP 500: llama runner process has terminated")


def test_a_dropped_connection_falls_back(server: OllamaTestServer) -> None:
    server.chat_fault = "down"
    assert fallback_reason(run(server, GOOD)).startswith("connection_error: ")


def test_ollama_not_running_falls_back() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    llm = OllamaExtractor(model=MODEL, host=f"http://127.0.0.1:{port}")
    reason = fallback_reason(llm.extract(None, "s", messages(), None, []))
    assert reason.startswith(f"connection_error: Ollama at http://127.0.0.1:{port}")


def test_a_model_not_pulled_falls_back_with_the_fix(ollama_server: OllamaTestServer) -> None:
    reason = fallback_reason(run(ollama_server, GOOD))  # MODEL not in the server's models
    assert reason == f"model_not_found: run ollama pull {MODEL}"


def test_a_batch_too_long_for_the_prompt_falls_back_without_a_call(
    server: OllamaTestServer,
) -> None:
    chat = [(f"m{i}", "user", "word " * 200) for i in range(40)]
    llm = extractor(server, max_prompt_chars=5_000)
    result = llm.extract(None, "s", messages(chat), None, [])
    reason = fallback_reason(result, messages(chat))
    assert reason.startswith("prompt_too_long: 40 messages do not fit in 5000")
    assert server.chat_requests == []


def test_no_new_messages_make_no_call(server: OllamaTestServer) -> None:
    result = extractor(server).extract(None, "s", [], None, [])
    assert result.record == RulesExtractor.record
    assert server.chat_requests == []


# -- the prompt --------------------------------------------------------------------------------


def test_long_messages_are_clipped_alike_to_fit_the_budget() -> None:
    chat = [
        ("a", "user", "short question?"),
        ("b", "assistant", "x" * 5000),
        ("c", "user", "y" * 5000),
    ]
    prompt = build_prompt(None, messages(chat), None, [REDIS], max_chars=6_000)

    assert prompt.chars <= 6_000
    assert prompt.clipped == 2
    assert "[a] user: short question?" in prompt.user
    assert prompt.ref_ids == {"a", "b", "c"}
    lines = prompt.user.splitlines()
    assert len(lines[-1]) == len(lines[-2]) - len("assistant") + len("user")


def test_an_impossible_budget_is_refused() -> None:
    with pytest.raises(PromptTooLong):
        build_prompt(None, messages(), None, [], max_chars=len(SYSTEM))


# -- the real CLI and the stored version -------------------------------------------------------


def archive(
    db: SourceDB, server: OllamaTestServer, tmp_path: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    env = {
        "DATABASE_URL": db.url,
        "OLLAMA_HOST": server.url,
        "ARCHIVIST_EMBEDDER": "hash",
        "ARCHIVIST_DELAY_MS": "0",
    }
    return run_archivist(["archive", "--json", *args], env)


def stored(db: SourceDB) -> tuple[str, str, dict[str, Any]]:
    row = db.conn.execute(
        "SELECT extractor, extractor_version, extraction FROM jarvis_archive "
        "ORDER BY version DESC LIMIT 1"
    ).fetchone()
    assert row is not None
    return row[0], row[1], row[2]


def test_archive_with_the_llm_stores_its_record(
    source: SourceDB, server: OllamaTestServer, tmp_path: Path
) -> None:
    ids = source.add("s", [text for _, _, text in CHAT])
    server.chat_replies = [
        answer([item(refs=[str(ids[0])]), item(type="risk", text="Eviction", refs=["m1"])])
    ]

    done = archive(source, server, tmp_path, "--extractor", "ollama", "--llm-model", MODEL)

    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)["sessions"][0]
    assert outcome["status"] == "archived" and outcome["extractor_fallback"] is None
    assert outcome["clipped"] == {"llm_items_dropped": 1}  # the risk cites an invented id
    assert outcome["decisions"] == ["Use Redis for caching session tokens"]
    name, version, extraction = stored(source)
    assert (name, version) == ("ollama", "1")
    assert extraction["extractor"] == {
        "name": "ollama",
        "version": "1",
        "model": MODEL,
        "prompt_version": PROMPT_VERSION,
        "fallback_reason": None,
    }
    assert extraction["summary"].startswith("The user chose Redis")
    assert str(ids[2]) in server.chat_requests[0]["messages"][1]["content"]


def test_archive_with_junk_from_the_llm_stores_a_rules_version_saying_why(
    source: SourceDB, server: OllamaTestServer, tmp_path: Path
) -> None:
    source.add("s", [text for _, _, text in CHAT])
    server.chat_replies = ["The decision was Redis."]

    done = archive(source, server, tmp_path, "--extractor", "ollama", "--llm-model", MODEL, "-v")

    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)["sessions"][0]
    assert outcome["status"] == "archived"
    assert outcome["extractor_fallback"].startswith("invalid_output: not JSON")
    name, version, extraction = stored(source)
    assert (name, version) == ("rules", "1")
    assert extraction["extractor"]["name"] == "rules"
    assert extraction["extractor"]["fallback_reason"].startswith("invalid_output: not JSON")
    assert "LLM answer not used" in done.stderr  # -v says so as it happens


def test_archive_defaults_to_the_rules_and_calls_no_llm(
    source: SourceDB, server: OllamaTestServer, tmp_path: Path
) -> None:
    source.add("s", [text for _, _, text in CHAT])

    done = archive(source, server, tmp_path)

    assert done.returncode == 0, done.stderr
    assert server.chat_requests == []
    name, _, extraction = stored(source)
    assert name == "rules" and extraction["extractor"]["fallback_reason"] is None


def test_an_unknown_extractor_is_a_usage_error(
    source: SourceDB, server: OllamaTestServer, tmp_path: Path
) -> None:
    done = archive(source, server, tmp_path, "--extractor", "gpt")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: Invalid value for '--extractor': 'gpt'; use rules or ollama "
        "(see: python -m archivist archive --help)"
    ]


# -- doctor ------------------------------------------------------------------------------------


def test_doctor_checks_the_llm_model_only_when_it_is_the_extractor(
    settings: Settings, ollama_server: OllamaTestServer
) -> None:
    settings.ollama_host = ollama_server.url
    settings.llm_model = MODEL
    assert "llm model pulled" not in [c.name for c in run_doctor(settings).checks]

    settings.extractor = "ollama"
    missing = next(c for c in run_doctor(settings).checks if c.name == "llm model pulled")
    assert not missing.ok and missing.fix is not None and f"ollama pull {MODEL}" in missing.fix

    ollama_server.models.add(f"{MODEL}:latest")
    present = next(c for c in run_doctor(settings).checks if c.name == "llm model pulled")
    assert present.ok and present.detail == MODEL
