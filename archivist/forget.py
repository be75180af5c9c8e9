"""Forgetting on request: a session, a user or a message erased from the archive and its reports.

The database part is one call of `archivist_forget` (sql/functions/forget.sql), one
transaction over every archivist table, which also leaves a tombstone of hashed ids so that no
later run archives the same source rows again. What lives outside the database, the JSON run
reports in the report folder (`archive --report-dir`), is rewritten here afterwards without
the forgotten ids (a report still naming one after that, in some text, is removed whole).

A message-level forget clears its session's archive in that transaction; the caller
(`Archivist.forget`) then archives the session again from the source, without the message.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from archivist.errors import ConfigError
from archivist.models import SessionOutcome
from archivist.reports import PREFIX, SUFFIX
from archivist.store import Store


@dataclass(frozen=True)
class ForgetRequest:
    """What to forget; at least one of the three. `dry_run` counts and changes nothing."""

    session_ids: Sequence[str] = ()
    user_id: str | None = None
    message_ids: Sequence[str] = ()
    dry_run: bool = False
    report_dir: Path | None = None

    def check(self) -> None:
        """Refuse an empty request, and empty ids, before anything is read."""
        if not (self.session_ids or self.user_id is not None or self.message_ids):
            raise ConfigError("say what to forget: --session-id, --user-id or --message-id")
        for name, ids in (
            ("--session-id", self.session_ids),
            ("--message-id", self.message_ids),
            ("--user-id", [self.user_id] if self.user_id is not None else []),
        ):
            if any(not i for i in ids):
                raise ConfigError(f"{name} must not be empty")


class ForgottenMessage(BaseModel):
    session_id: str
    message_id: str


class ForgetReport(BaseModel):
    """What a forget removed (or, in a dry run, would remove)."""

    dry_run: bool
    sessions: list[str] = Field(description="sessions forgotten whole")
    messages: list[ForgottenMessage] = Field(
        default_factory=list, description="messages forgotten one by one (their session stays)"
    )
    rebuilt: list[str] = Field(
        default_factory=list,
        description="sessions archived again from the source without the forgotten messages",
    )
    tables: dict[str, int] = Field(
        description="rows removed (or rewritten: runs) per table; citations: other sessions' "
        "state items that cited a forgotten message, rewritten without it"
    )
    tombstones: int = Field(description="hashed ids recorded so no run archives them again")
    report_files_rewritten: list[str] = Field(default_factory=list)
    report_files_removed: list[str] = Field(default_factory=list)
    rearchived: list[SessionOutcome] = Field(
        default_factory=list, description="the runs that archived the rebuilt sessions again"
    )

    @property
    def rows(self) -> int:
        return sum(self.tables.values())

    @property
    def failed(self) -> bool:
        """A rebuilt session could not be archived again (the next run will do it)."""
        return any(s.status == "failed" for s in self.rearchived)


def forget_in_database(store: Store, request: ForgetRequest) -> ForgetReport:
    """The database part: one transaction (or, dry, the counts of it)."""
    request.check()
    found = store.forget(
        list(request.session_ids), request.user_id, list(request.message_ids), request.dry_run
    )
    return ForgetReport(
        dry_run=request.dry_run,
        sessions=[str(s) for s in found["sessions"] or []],
        messages=[ForgottenMessage.model_validate(m) for m in found["messages"] or []],
        rebuilt=[str(s) for s in found["rebuild"] or []],
        tables={str(k): int(v) for k, v in found["tables"].items()},
        tombstones=int(found["tombstones"]),
    )


def scrub_report_files(report: ForgetReport, directory: Path) -> None:
    """Rewrite the run reports in `directory` without the forgotten ids (or, dry, list them).

    Every JSON value naming a forgotten session or message goes, as in the database
    (`archivist_forget_scrub`): a session's entry with its decisions and topics, an id in a
    list. A report still holding a forgotten session id in some text after that, or one that is
    not JSON and holds one, is removed whole.
    """
    if not directory.is_dir():
        return
    sessions = {*report.sessions, *report.rebuilt}
    ids = sessions | {m.message_id for m in report.messages}
    if not ids:
        return
    for path in sorted(directory.glob(f"{PREFIX}*{SUFFIX}")):
        text = path.read_text(encoding="utf-8")
        try:
            document = json.loads(text)
        except ValueError:
            if any(s in text for s in sessions):
                _remove(report, path)
            continue
        scrubbed = scrub(document, ids)
        if scrubbed == document:
            continue
        rewritten = json.dumps(scrubbed, indent=2, ensure_ascii=False) + "\n"
        if any(s in rewritten for s in sessions):
            _remove(report, path)
        else:
            report.report_files_rewritten.append(str(path))
            if not report.dry_run:
                _replace(path, rewritten)


def scrub(value: Any, ids: set[str]) -> Any:
    """`value` without what names one of `ids` (sql/functions/forget.sql's rule, in Python)."""
    if isinstance(value, dict):
        return {
            k: scrub(v, ids)
            for k, v in value.items()
            if k not in ids and not (isinstance(v, str) and v in ids)
        }
    if isinstance(value, list):
        return [scrub(v, ids) for v in value if not _names(v, ids)]
    return value


def _names(value: Any, ids: set[str]) -> bool:
    if isinstance(value, str):
        return value in ids
    if isinstance(value, dict):
        return any(isinstance(v, str) and v in ids for v in value.values())
    return False


def _remove(report: ForgetReport, path: Path) -> None:
    report.report_files_removed.append(str(path))
    if not report.dry_run:
        path.unlink(missing_ok=True)


def _replace(path: Path, text: str) -> None:
    """Write `text` over `path` whole (a temporary file, then a rename), as reports are saved."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".archive-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
