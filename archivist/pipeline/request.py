"""What a caller asks of an archive run, and how it hears of its progress: the light part of
the pipeline, which the client and the CLI name without loading the extractor and the rest of a
run (archivist.pipeline.run)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from archivist.models import RunReport, SessionOutcome
from archivist.store import SessionSelection

# The reason of a named session that has no messages and was never archived.
NO_MESSAGES = "no messages for session"


class Progress(Protocol):
    def start(self, total: int) -> None: ...

    def advance(self, outcome: SessionOutcome) -> None: ...


@dataclass(frozen=True)
class ArchiveRequest:
    selection: SessionSelection = field(default_factory=SessionSelection)
    dry_run: bool = False
    rebuild: bool = False
    delay_ms: int = 500
    # False: the run writes no row in the run log (a worker of `archive --workers N`, whose
    # invocation writes one for the whole run: `log_run_start`, `log_run_end`)
    log_run: bool = True


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) stopped a run: `report` holds what it did before, its committed
    sessions included, for the run's report file and log."""

    def __init__(self, report: RunReport) -> None:
        super().__init__()
        self.report = report
