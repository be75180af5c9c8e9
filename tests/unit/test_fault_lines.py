"""A fault of the rules extractor on one session's text: one reason for the run report, and
its traceback on stderr only with `-v`."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest

from archivist.cli.output import Output
from archivist.errors import ExtractError
from archivist.extract import base
from archivist.models import Message


def _faulty(messages: object) -> object:
    raise ValueError("a rule's own fault")


@pytest.mark.parametrize(("verbosity", "traceback"), [("normal", False), ("verbose", True)])
def test_a_fault_of_the_rules_is_one_reason_and_a_traceback_only_when_verbose(
    verbosity: str,
    traceback: bool,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(base, "rules_candidates", _faulty)
    Output.create(verbosity, as_json=False)  # type: ignore[arg-type]
    said = [
        Message(id="1", session_id="s", role="user", content="hi", created_at=datetime.now(UTC))
    ]
    try:
        with pytest.raises(ExtractError, match=r"^the rules extractor failed: ValueError$"):
            base.RulesExtractor().extract(None, "s", said, None, [])
    finally:
        logging.getLogger().handlers.clear()
    err = capsys.readouterr().err
    assert ("Traceback (most recent call last)" in err) is traceback
    assert ("a rule's own fault" in err) is traceback
