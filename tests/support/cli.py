"""The CLI in a test: CliRunner on the real command tree, on a wide terminal."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from archivist.cli import cli


@pytest.fixture
def env(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """conftest's, on a wide terminal: tables keep whole ids on one line."""
    monkeypatch.setenv("COLUMNS", "200")
    return {**env, "COLUMNS": "200"}


def invoke(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))
