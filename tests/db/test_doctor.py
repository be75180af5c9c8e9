"""archivist doctor with each part working, then broken in turn."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
from support.commands import run_doctor
from support.ollama_server import OllamaTestServer
from support.sources import SourceDB, run_cli

from archivist.config import Settings
from archivist.store import EmbeddingConfig, PostgresStore


def failed(settings: Settings) -> dict[str, str | None]:
    return {c.name: c.fix for c in run_doctor(settings).checks if not c.ok}


def ollama_settings(db_url: str, server: OllamaTestServer, tmp_path: Path) -> Settings:
    with psycopg.connect(db_url, autocommit=True) as conn:
        PostgresStore(conn, Settings().sources).init(EmbeddingConfig("nomic-embed-text", 768))
    return Settings(
        database_url=db_url,
        embedder="ollama",
        ollama_host=server.url,
        ollama_retries=0,
        ollama_timeout_s=2,
        data_dir=tmp_path,
    )


def test_all_checks_pass_on_a_healthy_setup(
    db_url: str, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    report = run_doctor(ollama_settings(db_url, ollama_server, tmp_path))
    assert report.ok, report.checks
    names = [c.name for c in report.checks]
    assert names == [
        "database",
        "pgvector",
        "migrations",
        "functions",
        "exposure",
        "timeouts",
        "users",
        "indexes",
        "quarantine",
        "embedding model",
        "ollama",
        "embedding model pulled",
        "probe embedding",
    ]
    pgvector = report.checks[1].detail
    assert "0.6.2" in pgvector and "no iterative scans" in pgvector


def test_database_unreachable(tmp_path: Path) -> None:
    settings = Settings(
        database_url="postgresql://u:hunter2@127.0.0.1:9/x", embedder="hash", data_dir=tmp_path
    )
    report = run_doctor(settings)
    assert not report.ok
    assert report.checks[0].name == "database" and not report.checks[0].ok
    assert "hunter2" not in report.model_dump_json()
    assert report.checks[0].detail.count("127.0.0.1:9/x") == 1  # the database named once
    assert [c.name for c in report.checks[1:]] == ["embedder", "probe embedding"]


def test_no_pgvector_and_no_migrations(empty_db_url: str, tmp_path: Path) -> None:
    settings = Settings(database_url=empty_db_url, embedder="hash", data_dir=tmp_path)
    assert failed(settings) == {"pgvector": "run: archivist init (it creates the extension)"}


def test_migrations_missing(empty_db_url: str, tmp_path: Path) -> None:
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION vector")
    settings = Settings(database_url=empty_db_url, embedder="hash", data_dir=tmp_path)
    assert failed(settings) == {"migrations": "run: archivist init"}


def test_index_dropped(source: SourceDB, settings: Settings) -> None:
    source.conn.execute("DROP INDEX jarvis_memory_chunks_embedding_idx")
    problems = failed(settings)
    assert list(problems) == ["indexes"]
    detail = next(c.detail for c in run_doctor(settings).checks if c.name == "indexes")
    assert "jarvis_memory_chunks_embedding_idx" in detail


def test_ollama_down_model_missing_and_wrong_dimension(
    db_url: str, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    settings = ollama_settings(db_url, ollama_server, tmp_path)
    ollama_server.fault = "down"
    assert failed(settings) == {"ollama": "start it: ollama serve"}
    ollama_server.reset()
    ollama_server.models.clear()
    assert failed(settings) == {"embedding model pulled": "run: ollama pull nomic-embed-text"}
    ollama_server.models.add("nomic-embed-text:latest")
    ollama_server.fault = "wrong_dim"
    problems = failed(settings)
    assert list(problems) == ["probe embedding"]
    probe = next(c for c in run_doctor(settings).checks if c.name == "probe embedding")
    assert probe.detail == "384-d, the database stores 768-d"


def test_configured_model_differs_from_the_recorded_one(db_url: str, tmp_path: Path) -> None:
    settings = Settings(database_url=db_url, embedder="hash", embedding_dim=384, data_dir=tmp_path)
    problems = failed(settings)
    fix = "set ARCHIVIST_EMBEDDER=hash and ARCHIVIST_EMBEDDING_DIM=768"
    assert problems["embedding model"] == fix
    ollama = settings.model_copy(update={"embedder": "ollama", "embedding_dim": 768})
    assert failed(ollama)["embedding model"] == fix
    assert "probe embedding" in problems  # 384-d probe against the recorded 768


def test_cli_exit_code_follows_the_checks(source: SourceDB, settings: Settings) -> None:
    healthy = run_cli(settings, "doctor")
    assert healthy.returncode == 0, healthy.stdout
    assert len(healthy.stdout.strip().splitlines()) == 12
    source.conn.execute("DROP INDEX jarvis_archive_extraction_idx")
    broken = run_cli(settings, "doctor", "--json")
    assert broken.returncode == 1
    failures = [c for c in json.loads(broken.stdout)["checks"] if not c["ok"]]
    assert [c["name"] for c in failures] == ["indexes"]
