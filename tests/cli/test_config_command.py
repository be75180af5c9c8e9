"""`archivist config`: each effective setting, redacted, with the layer it came from."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from archivist.cli import cli

PASSWORD = "pa55-w0rd-XYZ"


@pytest.fixture
def layered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Settings from every layer: a TOML file, the environment (and flags in the tests)."""
    toml = tmp_path / "archivist.toml"
    toml.write_text(
        'max_sessions = 9\ndelay_ms = 100\nembedder = "ollama"\n'
        '[sources]\nmessages_table = "chat_messages"\n'
    )
    for name in list(os.environ):
        if name.startswith("ARCHIVIST_") or name in {"DATABASE_URL", "OLLAMA_HOST"}:
            monkeypatch.delenv(name)
    monkeypatch.setenv("ARCHIVIST_CONFIG", str(toml))
    monkeypatch.setenv("DATABASE_URL", f"postgresql://bot:{PASSWORD}@db.example.com:5432/app")
    monkeypatch.setenv("ARCHIVIST_DELAY_MS", "0")
    monkeypatch.setenv("ARCHIVIST_MESSAGE_ID", "msg_id")
    monkeypatch.setenv("OLLAMA_HOST", f"http://admin:{PASSWORD}@ollama.example.com:11434")
    monkeypatch.setenv("COLUMNS", "200")
    return toml


def test_config_json_names_the_origin_of_each_setting(layered: Path) -> None:
    result = CliRunner().invoke(cli, ["config", "--json", "--embedder", "hash"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["embedder"] == {"value": "hash", "origin": "flag"}  # flag beats TOML
    assert shown["delay_ms"] == {"value": 0, "origin": "env ARCHIVIST_DELAY_MS"}  # env beats TOML
    assert shown["max_sessions"] == {"value": 9, "origin": f"toml {layered}"}
    assert shown["sources.messages_table"] == {
        "value": "chat_messages",
        "origin": f"toml {layered}",
    }
    assert shown["sources.message_id"] == {"value": "msg_id", "origin": "env ARCHIVIST_MESSAGE_ID"}
    assert shown["embedding_dim"] == {"value": 768, "origin": "default"}
    assert shown["database_url"] == {
        "value": "postgresql://bot:***@db.example.com:5432/app",
        "origin": "env DATABASE_URL",
    }
    assert shown["ollama_host"]["value"] == "http://admin:***@ollama.example.com:11434"
    assert PASSWORD not in result.output


def test_config_table_is_redacted_too(layered: Path) -> None:
    result = CliRunner().invoke(cli, ["config"])
    assert result.exit_code == 0, result.output
    assert "database_url" in result.stdout and "env DATABASE_URL" in result.stdout
    assert PASSWORD not in result.output
    # a mapping is shown as the environment takes it (JSON), not as a Python dict
    assert '{"user":' in result.stdout and "{'user'" not in result.stdout


def test_config_with_an_invalid_setting_is_one_line(layered: Path) -> None:
    layered.write_text("max_sessions = 0\n")
    result = CliRunner().invoke(cli, ["config"])
    assert result.exit_code == 2
    assert "max_sessions" in result.output and len(result.output.strip().splitlines()) == 1


def test_config_at_80_columns_keeps_every_setting_name_whole(
    layered: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("ARCHIVIST_STOP_AFTER_EMBED_FAILURES", "3")
    shown = CliRunner().invoke(cli, ["config"]).stdout
    names = json.loads(CliRunner().invoke(cli, ["config", "--json"]).stdout)
    assert all(f"│ {name} " in shown for name in names), shown
