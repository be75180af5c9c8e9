"""The settings reference is generated from the settings model and never stale."""

from __future__ import annotations

import subprocess
import sys

import pytest

from archivist import settings_doc
from archivist.config import Settings, SourceTables, load_settings


def test_docs_settings_md_is_what_the_model_renders() -> None:
    assert settings_doc.DOC_PATH.read_text() == settings_doc.render(), (
        "docs/settings.md is stale: run python -m archivist.settings_doc --write"
    )


def test_every_setting_is_in_the_reference() -> None:
    text = settings_doc.render()
    for name in Settings.model_fields:
        if name != "sources":
            assert f"| `{name}` |" in text
    for name in SourceTables.model_fields:
        assert f"| `sources.{name}` |" in text


def test_a_setting_without_a_meaning_stops_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(settings_doc.MEANINGS, "max_sessions")
    with pytest.raises(KeyError, match="max_sessions"):
        settings_doc.render()


@pytest.mark.parametrize(
    ("variable", "name"),
    [("ARCHIVIST_MAX_SESSIONS", "max_sessions"), ("ARCHIVIST_MESSAGES_TABLE", "messages_table")],
)
def test_the_variables_it_names_are_the_ones_read(variable: str, name: str) -> None:
    assert f"`{variable}`" in settings_doc.render()
    settings = load_settings(environ={variable: "7" if "SESSIONS" in variable else "msgs"})
    value = getattr(settings, name, None) or getattr(settings.sources, name)
    assert str(value) in ("7", "msgs")


def test_check_exits_1_when_stale(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    assert settings_doc.main(["--check"]) == 0
    monkeypatch.setitem(settings_doc.MEANINGS, "max_sessions", "changed")
    assert settings_doc.main(["--check"]) == 1


def test_runs_as_a_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "archivist.settings_doc"], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.startswith("# Settings")
