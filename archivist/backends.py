"""Where scripts/evals (current.py, beam.py) import `open_store` from; the library's is
`archivist.store.open_store`."""

from archivist.store import open_store

__all__ = ["open_store"]
