"""Where scripts/evals/current.py imports `archive` from; the library's is
`archivist.client.archive`."""

from archivist.client import archive

__all__ = ["archive"]
