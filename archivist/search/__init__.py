"""memory_search (by meaning), archive_search (by structured fact) and their hybrid, `search`.

The package: `results` (what a search returns), `deadline` (one time budget per search) and
`searcher` (the searches on a store, with their limits); their arguments are the models of
`archivist.queries`. `archivist.client` opens stores and embedders from settings and calls the
searcher.
"""

from archivist.config import ARCHIVE_MAX_ROWS, MEMORY_MAX_RESULTS
from archivist.queries import ArchiveFilters
from archivist.search.deadline import Deadline, SearchTimeoutError
from archivist.search.results import (
    ArchiveHit,
    ArchiveSearchResult,
    Clamp,
    FilterCut,
    MemoryHit,
    MemorySearchResult,
    SearchResult,
    SessionMatch,
)
from archivist.search.searcher import Searcher

__all__ = [
    "ARCHIVE_MAX_ROWS",
    "MEMORY_MAX_RESULTS",
    "ArchiveFilters",
    "ArchiveHit",
    "ArchiveSearchResult",
    "Clamp",
    "Deadline",
    "FilterCut",
    "MemoryHit",
    "MemorySearchResult",
    "SearchResult",
    "SearchTimeoutError",
    "Searcher",
    "SessionMatch",
]
