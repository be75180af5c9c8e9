"""The archive run, in four modules: `run` (the sessions of a run, failures, the loop over one
session), `reading` (the one read of a session), `planning` (its next version: pure, no I/O)
and `commit` (the one write)."""

from archivist.pipeline.run import NO_MESSAGES, Archiver, ArchiveRequest, Progress

__all__ = ["NO_MESSAGES", "ArchiveRequest", "Archiver", "Progress"]
