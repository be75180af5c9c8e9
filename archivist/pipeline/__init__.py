"""The archive run, in five modules: `request` (what a caller asks of a run), `run` (the
sessions of a run, failures, the loop over one session), `reading` (the one read of a session),
`planning` (its next version: pure, no I/O) and `commit` (the one write). Only `request` is
loaded here: the client and the CLI name a run without loading the extractor
(`archivist.pipeline.run.Archiver` runs one)."""

from archivist.pipeline.request import NO_MESSAGES, ArchiveRequest, Progress, RunInterrupted

__all__ = ["NO_MESSAGES", "ArchiveRequest", "Progress", "RunInterrupted"]
