"""Which session a run works on next: the claim queue, and the limits a run shares.

A run over the pending sessions lists them once, then takes them one at a time through the
claim queue (`archivist_claim_read`, sql/functions/claims.sql): each session it gets is held for
it, and still has the work it was listed for. Sessions another worker holds, or has archived
since, are passed over inside that one call and never read, so N workers (processes of one
`archive --workers N`, or separate cron entries on separate hosts) share the list instead of
each walking all of it. Sessions named with `--session-id` are taken by their read, as before.

`RunLimits` are what a run's workers share: `--max-sessions` and the stop rules count for the
run as a whole. One process keeps them in plain fields (`LocalLimits`); `archive --workers N`
gives its processes shared ones (archivist.pipeline.workers).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Protocol

from archivist.errors import ArchivistError
from archivist.failures import UnarchivableSessions
from archivist.pipeline.reading import SessionRead, parse_read
from archivist.store import SessionSelection, Store

# Candidates sent per claim call: bounded, so a call over REST stays a small request.
CLAIM_WINDOW = 100


class RunLimits(Protocol):
    """What a run's workers share: sessions of work left under `--max-sessions`, the embedding
    failures in a row, and whether a worker stopped the run."""

    def reserve(self) -> bool:
        """Reserve one session of work; False once the run has reserved `--max-sessions`."""
        ...

    def release(self) -> None:
        """Give back a reservation that turned out to be no work (nothing left to claim, or a
        session with nothing new)."""
        ...

    def embed_failed(self) -> int:
        """Count a session failed by a fault every session meets; the count in a row."""
        ...

    def embed_answered(self) -> None:
        """The embedder answered: the failures in a row start again from 0."""
        ...

    @property
    def embed_failures(self) -> int:
        """Sessions in a row failed by a fault every session meets."""
        ...

    def stop(self) -> None:
        """Tell every worker of the run to stop taking sessions."""
        ...

    @property
    def stopped(self) -> bool:
        """Whether a worker stopped the run."""
        ...


@dataclass
class LocalLimits:
    """The limits of a run of one process."""

    limit: int
    reserved: int = 0
    failures: int = 0
    halted: bool = False

    def reserve(self) -> bool:
        if self.reserved >= self.limit:
            return False
        self.reserved += 1
        return True

    def release(self) -> None:
        self.reserved -= 1

    def embed_failed(self) -> int:
        self.failures += 1
        return self.failures

    def embed_answered(self) -> None:
        self.failures = 0

    @property
    def embed_failures(self) -> int:
        return self.failures

    def stop(self) -> None:
        self.halted = True

    @property
    def stopped(self) -> bool:
        return self.halted


@dataclass(frozen=True)
class ReadArguments:
    """How a claimed session is read (archivist.pipeline.reading.read_session's arguments)."""

    rebuild: bool
    limit: int
    model: str
    window: int


@dataclass
class SessionQueue:
    """The sessions of one run, taken one at a time (see the module docstring)."""

    store: Store
    selection: SessionSelection
    reading: ReadArguments
    named: list[str] = field(default_factory=list)
    candidates: list[tuple[str, int]] = field(default_factory=list)
    position: int = 0  # candidates before it were taken or passed over
    held: int = 0  # passed over: another worker held them
    gone: int = 0  # passed over: archived by another worker since listed (or backing off)
    unarchivable: UnarchivableSessions = field(default_factory=UnarchivableSessions)
    _seen: set[str] = field(default_factory=set)
    _listed_full: bool = False  # the last listing was cut at its limit: more may wait

    @classmethod
    def open(
        cls, store: Store, selection: SessionSelection, reading: ReadArguments
    ) -> SessionQueue:
        """The named sessions, or the pending ones listed now."""
        queue = cls(store, selection, reading)
        if selection.session_ids:
            queue.named = list(dict.fromkeys(selection.session_ids))[: selection.limit]
        else:
            queue._list(selection.limit)
        return queue

    def __len__(self) -> int:
        """Sessions listed and not taken or passed over yet."""
        return len(self.named) if self.selection.session_ids else len(self.candidates)

    @property
    def listed(self) -> list[str]:
        """The session ids still listed, in order."""
        if self.selection.session_ids:
            return list(self.named)
        return [s for s, _ in self.candidates]

    def next(self, worked: int) -> tuple[str, SessionRead | None] | None:
        """The next session, held for this run, and its read when the claim made it (a named
        session is read, and taken, by the caller); None when none is left. `worked`: sessions
        of work the run did so far (a listing cut at the limit is extended while it is short)."""
        if self.selection.session_ids:
            return (self.named.pop(0), None) if self.named else None
        r = self.reading
        while True:
            while self.candidates:
                window = self.candidates[:CLAIM_WINDOW]
                try:
                    claim, row = self.store.claim_read(
                        window, r.rebuild, r.limit, r.model, r.window
                    )
                except ArchivistError as exc:
                    if interrupted(exc):
                        raise KeyboardInterrupt from None
                    if self.store.broken:
                        # The database is gone: the caller's read of the next session meets
                        # it too, and the run stops on it as on any session's.
                        return self.candidates.pop(0)[0], None
                    # The read failed (a lock it gave up waiting for, a bad row): that is the
                    # session's failure, which the caller's own read meets and reports.
                    claim, row = self.store.claim_next(window), None
                self.held += claim.held
                self.gone += claim.gone
                self._seen.update(s for s, _ in self.candidates[: claim.position])
                del self.candidates[: claim.position]
                if claim.session_id is not None:
                    if row is None:
                        return claim.session_id, None
                    return claim.session_id, parse_read(claim.session_id, r.rebuild, r.limit, row)
            if not self._listed_full or worked >= self.selection.limit:
                return None
            before = len(self._seen)
            self._list(self.selection.limit - worked + before)
            if not self.candidates:
                return None

    def _list(self, limit: int) -> None:
        """List the pending sessions not seen yet (up to `limit` in all, seen ones included);
        for a rebuild, the archived ones: it recomputes them whether or not they have news."""
        selection = replace(self.selection, limit=limit)
        if self.reading.rebuild:
            found = self.store.archived_claims(selection)
        else:
            found, self.unarchivable = self.store.pending_claims(selection)
        self._listed_full = len(found) >= limit
        self.candidates = [(s, v) for s, v in found if s not in self._seen]


def interrupted(exc: BaseException) -> bool:
    """Whether `exc` was raised while a KeyboardInterrupt was being handled (psycopg, cleaning
    up a query cut by Ctrl-C, raises its own error over it)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
