"""`archivist mcp` in a subprocess, driven by the official MCP client (`mcp.ClientSession`) over
stdio and over streamable HTTP, on the embedded database and the Ollama test server."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

import anyio
import httpx
import psycopg
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult
from support.ollama_server import OllamaTestServer
from support.sources import T0, SourceDB, run_archivist

from archivist.client import Archivist, archive
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest
from archivist.queries import ArchiveQuery, HybridQuery, MemoryQuery, SessionQuery
from archivist.search import ArchiveSearchResult, MemorySearchResult, SearchResult
from archivist.state.current import CurrentState, CurrentStateQuery
from archivist.state.history import History
from archivist.state.view import StateView
from archivist.store import EmbeddingConfig, PostgresStore

CONVERSATIONS = {
    "deploy": [
        "We need to ship the olive frontend. Should we use Netlify or Vercel?",
        "Vercel has preview deploys and first-class Next.js support.",
        "OK, we decided to use Vercel for the olive frontend deploy.",
        "I'll connect the GitHub repo and set up the Vercel project.",
    ],
    "oauth": [
        "Users get logged out: the OAuth refresh token flow fails after an hour.",
        "The refresh request is sent without the client secret.",
        "Let's switch to rotating refresh tokens and fix the token endpoint call.",
        "I'll patch the auth service and add a test for token refresh.",
    ],
}
TOOLS = {
    "memory_search": (MemoryQuery, MemorySearchResult),
    "archive_search": (ArchiveQuery, ArchiveSearchResult),
    "search": (HybridQuery, SearchResult),
    "session_state": (SessionQuery, StateView),
    "session_history": (SessionQuery, History),
    "current_state": (CurrentStateQuery, CurrentState),
}
_databases = itertools.count()


@pytest.fixture(scope="module")
def archived(
    pg_server: str, ollama: OllamaTestServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Settings]:
    """Two sessions archived with nomic-embed-text through the Ollama test server, in a
    database of their own shared by this module's tests (which only read)."""
    name = f"mcp_{next(_databases)}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE archivist_template")
    url = pg_server.replace("/postgres?", f"/{name}?", 1)
    with SourceDB.create(url) as source:
        PostgresStore(source.conn, Settings().sources).init(
            EmbeddingConfig("nomic-embed-text", 768)
        )
        for day, (session_id, messages) in enumerate(CONVERSATIONS.items()):
            source.add(session_id, messages, start=T0 + timedelta(days=day))
    settings = Settings(
        database_url=url,
        ollama_host=ollama.url,
        ollama_backoff_s=0.01,
        delay_ms=0,
        data_dir=tmp_path_factory.mktemp("data"),
    )
    archive(settings, ArchiveRequest(delay_ms=0))
    yield settings
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


def server_env(settings: Settings, **extra: str) -> dict[str, str]:
    assert settings.database_url is not None
    return {
        "PATH": os.environ["PATH"],
        "ARCHIVIST_CONFIG": "",
        "DATABASE_URL": settings.database_url.get_secret_value(),
        "OLLAMA_HOST": settings.ollama_host,
        "ARCHIVIST_DATA_DIR": str(settings.data_dir),
        "ARCHIVIST_SEARCH_TIMEOUT_S": "2",
        **extra,
    }


Session = Callable[[ClientSession], Awaitable[None]]


def over_stdio(settings: Settings, scenario: Session, errlog: TextIO, **env: str) -> None:
    """Run `scenario` against `python -m archivist mcp` over stdio."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "archivist", "mcp"], env=server_env(settings, **env)
    )

    async def main() -> None:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await scenario(session)

    anyio.run(main)


def text(result: CallToolResult) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.content[0].text


async def call(session: ClientSession, tool: str, **arguments: Any) -> CallToolResult:
    return await session.call_tool(tool, arguments)


async def check_answers(session: ClientSession, ollama: OllamaTestServer) -> dict[str, Any]:
    """Every tool once, with valid arguments; returns the structured results by tool."""
    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert set(tools) == set(TOOLS)
    for name, (arguments, result) in TOOLS.items():
        assert tools[name].input_schema == arguments.model_json_schema()
        assert tools[name].output_schema == result.model_json_schema(mode="serialization")
        assert tools[name].annotations and tools[name].annotations.read_only_hint
        assert tools[name].description
    embeds = len(ollama.embed_requests)
    answers = {
        "memory_search": await call(session, "memory_search", query="Vercel preview deploys"),
        "archive_search": await call(session, "archive_search", session_ids=["oauth"]),
        "search": await call(session, "search", query="refresh token", session_ids=["oauth"]),
        "session_state": await call(session, "session_state", session_id="deploy"),
        "session_history": await call(session, "session_history", session_id="oauth"),
        "current_state": await call(session, "current_state"),
    }
    assert len(ollama.embed_requests) == embeds + 2  # the two searches by meaning, over HTTP
    structured: dict[str, Any] = {}
    for name, answer in answers.items():
        assert not answer.is_error, text(answer)
        assert answer.structured_content is not None and text(answer)
        TOOLS[name][1].model_validate(answer.structured_content)
        structured[name] = answer.structured_content
    first = structured["memory_search"]["hits"][0]
    assert first["session_id"] == "deploy"
    said = datetime.fromisoformat(first["metadata"]["last_at"]).astimezone(UTC)
    # when it was said (not when it was archived) and the relevance min_score is compared with
    assert f"relevance {first['relevance']:.2f} · {said:%Y-%m-%d %H:%M} UTC]" in text(
        answers["memory_search"]
    )
    assert [h["session_id"] for h in structured["archive_search"]["hits"]] == ["oauth"]
    assert [s["session_id"] for s in structured["search"]["sessions"]] == ["oauth"]
    assert structured["session_state"]["text"] == text(answers["session_state"])
    assert [v["version"] for v in structured["session_history"]["versions"]] == [1]
    current = {i["session_id"] for i in structured["current_state"]["items"]}
    assert current == {"deploy", "oauth"} and "Current state" in text(answers["current_state"])
    return structured


def test_stdio_lists_the_tools_and_answers_each(
    archived: Settings, ollama: OllamaTestServer, tmp_path: Path
) -> None:
    with (tmp_path / "stderr").open("w+") as errlog:

        async def scenario(session: ClientSession) -> None:
            answers = await check_answers(session, ollama)
            with Archivist(archived) as client:  # the same answer as the Python client's
                direct = client.memory_search("Vercel preview deploys")
            assert answers["memory_search"] == direct.model_dump(mode="json")

        over_stdio(archived, scenario, errlog)
        errlog.seek(0)
        assert "6 read-only tools; nomic-embed-text (768-d), on stdio" in errlog.read()


def test_limits_are_clamped_and_bad_calls_are_tool_errors(
    archived: Settings, ollama: OllamaTestServer, tmp_path: Path
) -> None:
    async def scenario(session: ClientSession) -> None:
        many = await call(session, "memory_search", query="refresh token", limit=50)
        assert not many.is_error
        assert many.structured_content is not None
        assert many.structured_content["clamped"] == {"limit": {"requested": 50, "applied": 10}}
        assert many.structured_content["truncated"] is True
        assert "limit 50 -> 10" in text(many)
        rows = await call(session, "archive_search", limit=99)
        assert rows.structured_content is not None
        assert rows.structured_content["clamped"]["limit"] == {"requested": 99, "applied": 20}
        noise = await call(session, "memory_search", query="quantum zebra accordion")
        assert noise.structured_content is not None and noise.structured_content["no_good_match"]
        assert text(noise).startswith("No good match for 'quantum zebra accordion'"), text(noise)
        assert "\n" not in text(noise)  # no weak hit passed off as memory
        one = await call(session, "current_state", limit=1)
        assert one.structured_content is not None and one.structured_content["total"] > 1
        assert "(showing 1; raise limit" in text(one).splitlines()[0], text(one)
        long = await call(session, "memory_search", query="token " * 2000)
        assert long.structured_content is not None
        assert long.structured_content["clamped"]["query_chars"]["applied"] == 8000

        refusals = {
            ("memory_search", "the search query is empty"): {"query": "  "},
            ("archive_search", "invalid argument since"): {"since": "last tuesday"},
            ("archive_search", "invalid argument item_types.0"): {"item_types": ["bogus"]},
            ("archive_search", "invalid argument topic"): {"topic": "oauth"},  # misspelt
            ("memory_search", "invalid argument query"): {"limit": 3},
            ("memory_search", "invalid argument limit"): {"query": "x", "limit": 0},
            # not what the published schema says: coerced before ("5" -> 5, true -> 1)
            ("memory_search", "invalid argument limit: must be a valid integer"): {
                "query": "x",
                "limit": "5",
            },
            ("archive_search", "invalid argument limit: must be a valid integer"): {"limit": True},
            ("archive_search", "invalid argument all_versions"): {"all_versions": "yes"},
            ("memory_search", "invalid argument min_score"): {"query": "x", "min_score": "0.5"},
            ("session_state", "session nowhere has no archived version"): {"session_id": "nowhere"},
            ("delete_everything", "unknown tool 'delete_everything'"): {},
        }
        for (tool, message), arguments in refusals.items():
            refused = await session.call_tool(tool, arguments)
            assert refused.is_error and refused.structured_content is None
            assert message in text(refused) and "\n" not in text(refused), text(refused)
            after = await call(session, "archive_search", session_ids=["deploy"])
            assert not after.is_error  # the server goes on serving

        for since, found in (("1d", False), ("3650d", True)):  # durations, as on the CLI
            dated = await call(session, "archive_search", since=since)
            assert dated.structured_content is not None, text(dated)
            assert bool(dated.structured_content["hits"]) is found, since

        ollama.delay_s, ollama.fault = 5.0, "slow"
        try:
            slow = await call(session, "memory_search", query="refresh token")
        finally:
            ollama.fault = None
        assert slow.is_error and "\n" not in text(slow), text(slow)
        assert "did not answer within 2 s" in text(slow), text(slow)
        again = await call(session, "memory_search", query="refresh token")
        assert not again.is_error and again.structured_content is not None
        assert again.structured_content["hits"]

    with (tmp_path / "stderr").open("w") as errlog:
        over_stdio(archived, scenario, errlog)


@contextmanager
def http_server(settings: Settings, log: Path, **env: str) -> Iterator[str]:
    """`archivist mcp --http --port 0` in a subprocess; yields its URL once it listens."""
    with log.open("w") as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "archivist", "mcp", "--http", "--port", "0"],
            env=server_env(settings, **env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
        try:
            yield _listening(process, log)
        finally:
            process.terminate()
            process.wait(timeout=30)


def _listening(process: subprocess.Popen[bytes], log: Path) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready = [line for line in log.read_text().splitlines() if " on http://" in line]
        if ready:
            return ready[0].split(" on ", 1)[1].split(",")[0]
        assert process.poll() is None, log.read_text()
        time.sleep(0.1)
    raise AssertionError(f"archivist mcp --http did not start:\n{log.read_text()}")


def over_http(url: str, scenario: Session, headers: dict[str, str] | None = None) -> None:
    import httpx2

    async def main() -> None:
        async with httpx2.AsyncClient(headers=headers) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await scenario(session)

    anyio.run(main)


def test_http_on_loopback_answers_the_same(
    archived: Settings, ollama: OllamaTestServer, tmp_path: Path
) -> None:
    results: list[dict[str, Any]] = []

    async def scenario(session: ClientSession) -> None:
        results.append(await check_answers(session, ollama))
        refused = await call(session, "memory_search", query="")
        assert refused.is_error and text(refused) == "the search query is empty"

    with (tmp_path / "stdio").open("w") as errlog:
        over_stdio(archived, scenario, errlog)
    with http_server(archived, tmp_path / "http") as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        over_http(url, scenario)
        # A page on another origin (DNS rebinding) is refused before any tool runs.
        foreign = httpx.post(url, json={}, headers={"Host": "evil.example:80"}, timeout=10)
        assert foreign.status_code == 421
    assert results[0] == results[1]


def test_http_with_a_token_requires_it(
    archived: Settings, ollama: OllamaTestServer, tmp_path: Path
) -> None:
    token = "t0ken-" + "x" * 20
    with http_server(archived, tmp_path / "http", ARCHIVIST_MCP_TOKEN=token) as url:
        assert "bearer token required" in (tmp_path / "http").read_text()
        for sent in (
            {},
            {"Authorization": "Bearer wrong"},
            {"Authorization": token},
            {"Authorization": f"Basic {token}"},
            {"Authorization": f"Bearer {token.upper()}"},
        ):
            answer = httpx.post(url, json={}, headers=sent, timeout=10)
            assert answer.status_code == 401
        # the scheme's name is case-insensitive (RFC 9110): a client sending "bearer" gets in
        lower = httpx.post(url, json={}, headers={"Authorization": f"bearer {token}"}, timeout=10)
        assert lower.status_code != 401

        async def scenario(session: ClientSession) -> None:
            found = await call(session, "archive_search", session_ids=["oauth"])
            assert not found.is_error

        over_http(url, scenario, {"Authorization": f"Bearer {token}"})
    assert token not in (tmp_path / "http").read_text()


def mcp_exit(settings: Settings, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`archivist mcp ARGS` that must stop before serving (stdin is closed regardless)."""
    return run_archivist(["mcp", *args], server_env(settings, **env), timeout=60)


def test_startup_checks_fail_with_the_usual_exit_codes(
    archived: Settings, empty_db_url: str, ollama: OllamaTestServer
) -> None:
    cases: list[tuple[dict[str, str], list[str], int | None, str]] = [
        ({"DATABASE_URL": empty_db_url}, [], None, "lacks migrations"),
        ({"DATABASE_URL": "postgresql://u@127.0.0.1:1/x"}, [], 1, "cannot connect"),
        ({"DATABASE_URL": "postgresql://u@h:port/x"}, [], 2, "port that is not a number"),
        ({"OLLAMA_HOST": "http://127.0.0.1:1"}, [], 1, "Ollama"),
        ({"ARCHIVIST_EMBEDDING_MODEL": "all-minilm"}, [], None, "all-minilm"),
        ({"ARCHIVIST_EMBEDDER": "hash"}, [], None, "holds embeddings of nomic-embed-text"),
        ({}, ["--http", "--host", "0.0.0.0"], 2, "without a bearer token"),
        ({"ARCHIVIST_MCP_TOKEN": "short"}, [], 2, "ARCHIVIST_MCP_TOKEN: at least 16 characters"),
    ]
    for env, args, code, message in cases:
        result = mcp_exit(archived, *args, **env)
        if code is None:  # whatever a search command exits with on the same problem
            code = run_archivist(["memory-search", "x"], server_env(archived, **env)).returncode
        assert result.returncode == code != 0, (env, result.stderr)
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, (
            env,
            result.stderr,
        )
        assert result.stdout == ""  # nothing on the wire
    ollama.fault = "404"  # the model is not pulled
    try:
        result = mcp_exit(archived)
    finally:
        ollama.fault = None
    assert result.returncode == 2 and "ollama pull" in result.stderr, result.stderr


def test_without_the_extra_it_says_what_to_install(tmp_path: Path) -> None:
    blocked = "import sys; sys.modules['mcp'] = None; from archivist.cli import main; main()"
    result = subprocess.run(
        [sys.executable, "-c", blocked, "mcp"],
        env={**os.environ, "ARCHIVIST_CONFIG": "", "ARCHIVIST_DATA_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "pip install 'archivist[mcp]'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_documented_tools_table_lists_each_tools_arguments() -> None:
    """docs/mcp-and-python.md's table is what a host developer reads; the published schema is
    what the server takes."""
    from archivist.mcp_server.tools import TOOLS
    from archivist.queries import ArchiveFilters

    doc = (Path(__file__).resolve().parents[2] / "docs" / "mcp-and-python.md").read_text()
    rows = {
        m.group(1): set(re.findall(r"`(\w+)`", m.group(2)))
        for m in re.finditer(r"^\| `(\w+)` \| ([^|]*) \|", doc, re.M)
    }
    published = {spec.name: set(spec.arguments.model_json_schema()["properties"]) for spec in TOOLS}
    assert set(rows) == set(published)
    filters = set(ArchiveFilters.model_fields)  # "and the `archive_search` filters"
    for name, arguments in published.items():
        listed = rows[name] - {"archive_search"} | (filters if name == "search" else set())
        assert arguments == listed, name
