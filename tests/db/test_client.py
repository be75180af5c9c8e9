"""The `Archivist` client: one pool of connections across calls, counted on the Postgres side."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import psycopg
import pytest
from support.sources import T0, SourceDB

from archivist import memory_search
from archivist.client import Archivist
from archivist.config import Settings
from archivist.errors import ConfigError, SessionNotArchivedError, StoreError

CHAT = [
    "Users get logged out: the OAuth refresh token flow fails after an hour.",
    "The refresh request is sent without the client secret.",
    "Let's switch to rotating refresh tokens and fix the token endpoint call.",
    "I'll patch the auth service and add a test for token refresh.",
]


@pytest.fixture
def archived(source: SourceDB, settings: Settings) -> Settings:
    source.add("oauth", CHAT, start=T0)
    with Archivist(settings) as client:
        report = client.archive()
    assert report.count("archived") == 1 and not report.failed
    return settings


def backends(admin: psycopg.Connection[tuple[int]], dbname: str) -> set[int]:
    """The pids of the archivist's connections to the test database, seen by the server."""
    rows = admin.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = %s AND application_name = 'archivist'",
        [dbname],
    )
    return {r[0] for r in rows}


def eventually(check: Callable[[], bool], seconds: float = 10) -> bool:
    """A backend ends a moment after its client closes the socket."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def admin(pg_server: str) -> Iterator[psycopg.Connection[tuple[int]]]:
    with psycopg.connect(pg_server, autocommit=True, application_name="test-admin") as conn:
        yield conn


def test_one_client_reuses_its_connection_and_closes_it(
    archived: Settings, source: SourceDB, admin: psycopg.Connection[tuple[int]]
) -> None:
    dbname = source.conn.info.dbname
    assert eventually(lambda: not backends(admin, dbname))  # the archive run's are gone
    with Archivist(archived) as client:
        first = client.memory_search("refresh token")
        assert first.hits and first.hits[0].session_id == "oauth"
        in_use = backends(admin, dbname)
        assert len(in_use) == 1
        for _ in range(10):
            assert client.memory_search("rotating refresh tokens", limit=3).hits
            assert client.archive_search(session_ids=["oauth"]).hits
            assert client.search("token endpoint").sessions
            assert client.state("oauth").items
            assert client.history("oauth").versions
            assert client.prune_check("1d").safe
        assert backends(admin, dbname) == in_use  # the same backend served all 61 calls
    assert eventually(lambda: not backends(admin, dbname))


def test_threads_share_the_pool_within_its_size(
    archived: Settings, source: SourceDB, admin: psycopg.Connection[tuple[int]]
) -> None:
    dbname = source.conn.info.dbname
    assert eventually(lambda: not backends(admin, dbname))  # the archive run's are gone
    seen: set[int] = set()
    with Archivist(archived.model_copy(update={"pool_max_size": 2})) as client:

        def ask(n: int) -> str:
            seen.update(backends(admin, dbname))
            return client.memory_search(f"refresh token {n}").hits[0].session_id

        with ThreadPoolExecutor(max_workers=6) as pool:
            assert set(pool.map(ask, range(30))) == {"oauth"}
        seen.update(backends(admin, dbname))
    assert 1 <= len(seen) <= 2
    assert eventually(lambda: not backends(admin, dbname))


def test_a_dropped_connection_is_replaced(
    archived: Settings, source: SourceDB, admin: psycopg.Connection[tuple[int]]
) -> None:
    dbname = source.conn.info.dbname
    with Archivist(archived) as client:
        assert client.archive_search(session_ids=["oauth"]).hits
        (old,) = backends(admin, dbname)
        admin.execute("SELECT pg_terminate_backend(%s)", [old])
        try:  # the pool may not know yet: that one call fails with a one-line error
            client.archive_search(session_ids=["oauth"])
        except StoreError as exc:
            assert "\n" not in str(exc)
        assert client.archive_search(session_ids=["oauth"]).hits
        assert old not in backends(admin, dbname)


def test_a_connection_closed_while_idle_does_not_fail_the_next_call(
    archived: Settings,
    source: SourceDB,
    admin: psycopg.Connection[tuple[int]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server that sat idle (an MCP host between questions) while the database closed its
    connection (a restart, a failover, a pooler's idle timeout): the next call is served, not
    failed with "terminating connection due to administrator command"."""
    monkeypatch.setattr("archivist.store.pool.IDLE_CHECK_S", 0.0)  # idle long enough at once
    dbname = source.conn.info.dbname
    with Archivist(archived) as client:
        assert client.memory_search("refresh token").hits
        (old,) = backends(admin, dbname)
        admin.execute("SELECT pg_terminate_backend(%s)", [old])
        assert eventually(lambda: old not in backends(admin, dbname))
        for _ in range(3):
            assert client.memory_search("refresh token").hits[0].session_id == "oauth"


def test_a_closed_client_says_so(archived: Settings) -> None:
    client = Archivist(archived)
    assert client.archive_search(session_ids=["oauth"]).hits
    client.close()
    with pytest.raises(StoreError, match="this client is closed"):
        client.archive_search(session_ids=["oauth"])


def test_an_unknown_session_is_a_config_error(archived: Settings) -> None:
    with Archivist(archived) as client:
        for view in (client.state, client.history):
            with pytest.raises(SessionNotArchivedError, match="session nope has no archived"):
                view("nope")
    assert issubclass(SessionNotArchivedError, ConfigError)


def test_a_database_gone_is_said_at_once_not_as_a_timeout(
    archived: Settings, source: SourceDB, admin: psycopg.Connection[tuple[int]]
) -> None:
    """A long-lived client (a bot, the MCP server) whose database goes away: a call waited
    15-30 s for a pool connection and then blamed slowness. It says it cannot connect."""
    dbname = source.conn.info.dbname
    with Archivist(archived) as client:
        assert client.archive_search(session_ids=["oauth"]).hits
        admin.execute(f'ALTER DATABASE "{dbname}" WITH ALLOW_CONNECTIONS false')
        try:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                [dbname],
            )
            started = time.monotonic()
            for _ in range(2):  # (the first may meet the connection just terminated)
                try:
                    client.archive_search(session_ids=["oauth"])
                except StoreError as exc:
                    last = exc
            assert "cannot connect to the database" in str(last), last
            assert time.monotonic() - started < 12
        finally:
            admin.execute(f'ALTER DATABASE "{dbname}" WITH ALLOW_CONNECTIONS true')
        assert eventually(lambda: bool(client.archive_search(session_ids=["oauth"]).hits))


def test_module_functions_leave_no_connection_behind(
    archived: Settings, source: SourceDB, admin: psycopg.Connection[tuple[int]]
) -> None:
    dbname = source.conn.info.dbname
    assert memory_search("refresh token", settings=archived).hits
    assert eventually(lambda: not backends(admin, dbname))


def test_arguments_are_checked_by_the_shared_models(archived: Settings) -> None:
    with Archivist(archived) as client:
        with pytest.raises(ConfigError, match="invalid argument limit"):
            client.memory_search("token", limit=0)
        with pytest.raises(ConfigError, match="invalid argument topic"):
            client.archive_search(topic=["oauth"])  # misspelt: refused, not ignored
        with pytest.raises(ConfigError, match="invalid argument until"):
            client.search("token", until="soon")
        assert client.archive_search(since=T0 - timedelta(days=1)).hits  # still usable


@pytest.mark.both_transports
def test_the_client_on_each_transport(archived: Settings) -> None:
    with Archivist(archived) as client:
        assert [h.session_id for h in client.archive_search(session_ids=["oauth"]).hits] == [
            "oauth"
        ]
        assert client.memory_search("rotating refresh tokens").hits
        assert client.state("oauth").text.startswith("State (updated:")
    client.close()  # closing twice is harmless


def test_a_bad_database_url_fails_at_once(tmp_path: object) -> None:
    bad = Settings(database_url="postgresql://u@127.0.0.1:1/x", embedder="hash")
    with pytest.raises(StoreError, match="cannot connect to the database"):
        Archivist(bad)
