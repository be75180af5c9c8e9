"""One time budget for a whole search, whatever number of steps it takes."""

from __future__ import annotations

import time

from archivist.errors import ArchivistError


class SearchTimeoutError(ArchivistError):
    """A search ran out of its time budget."""


class Deadline:
    """The end of a search's budget; each step gets what is left of it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.monotonic() + seconds

    def remaining_ms(self) -> int:
        """Milliseconds left; SearchTimeoutError when none are."""
        left = int((self._end - time.monotonic()) * 1000)
        if left <= 0:
            raise SearchTimeoutError(f"the search ran out of its {self.seconds:g} s")
        return left
