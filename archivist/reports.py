"""Run reports kept on disk (`archive --report-dir`): one JSON file per run, newest N kept.

Each file is the document `archive --json` prints, named `archive-<UTC time>.json` so that
names sort by time, without the conversation's text (decisions, topics, state-change texts)
unless `report_text` is set: a file on disk keeps ids and counts. A run that could not
finish writes one too, with its `error`, so a monitor reading the newest file sees every run.
Files are written whole (a temporary file, then a rename), so a reader never sees half a
report.
"""

from __future__ import annotations

import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from archivist.errors import ConfigError
from archivist.models import RunReport

PREFIX = "archive-"
SUFFIX = ".json"


def prepare_report_dir(directory: Path) -> Path:
    """Create the folder if needed and check it is writable, before the run does any work."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot create the report folder {directory}: {exc.strerror}") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ConfigError(f"the report folder {directory} is not writable")
    return directory


def without_text(report: RunReport) -> RunReport:
    """The report with ids and counts only: no decision, topic or state-change text."""
    sessions = [
        s.model_copy(
            update={
                "decisions": [],
                "topics": [],
                "state_changes": [
                    c.model_copy(update={"text": "", "evidence": None}) for c in s.state_changes
                ],
            }
        )
        for s in report.sessions
    ]
    return report.model_copy(update={"sessions": sessions, "text_left_out": True})


def save_report(directory: Path, report: RunReport, keep: int, text: bool = False) -> Path:
    """Write the report as the newest file in `directory`, then delete all but the newest `keep`.

    Without `text`, the file holds ids and counts only (`without_text`).
    """
    if not text:
        report = without_text(report)
    stamp = (report.started_at or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = directory / f"{PREFIX}{stamp}{SUFFIX}"
    n = 1
    while path.exists():  # two runs in one second
        n += 1
        path = directory / f"{PREFIX}{stamp}-{n}{SUFFIX}"
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".archive-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            f.write(report.model_dump_json(indent=2) + "\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    prune_reports(directory, keep)
    return path


def prune_reports(directory: Path, keep: int) -> list[Path]:
    """Delete all but the newest `keep` reports; returns what was deleted."""
    reports = sorted(
        (p for p in directory.glob(f"{PREFIX}*{SUFFIX}") if p.is_file()),
        key=lambda p: (p.stat().st_mtime, p.name),
    )
    stale = reports[: max(0, len(reports) - keep)]
    for path in stale:
        path.unlink(missing_ok=True)
    return stale
