"""archivist: chat-bot conversations into versioned extractions and searchable memory.

The query API for bots: `Archivist`, a client that keeps its connections across calls, and
the one-call functions `memory_search` (by meaning) and `archive_search` (by structured
fact), with the same limits as the CLI; the hybrid is `archivist.client.search`.
"""

from archivist.client import Archivist, archive_search, memory_search
from archivist.search import ArchiveFilters

__all__ = ["ArchiveFilters", "Archivist", "archive_search", "memory_search"]
__version__ = "0.1.0"
