"""A client's archive runs: in this process, or in worker processes that share the pending
sessions (`archive --workers N`, archivist.pipeline.workers)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING

from pydantic import SecretStr

from archivist.client.connections import Connections
from archivist.config import Settings
from archivist.embed.base import Embedder
from archivist.errors import ArchivistError
from archivist.extract.configured import make_extractor
from archivist.models import RunReport
from archivist.pipeline import ArchiveRequest, Progress, RunInterrupted
from archivist.pipeline.claims import RunLimits
from archivist.pipeline.run import Archiver, log_run_end, log_run_start
from archivist.pipeline.workers import WorkerJob, run_workers
from archivist.store import EmbeddingConfig, Store

if TYPE_CHECKING:
    from archivist.client.archivist import Archivist

log = logging.getLogger(__name__)


def initialise_embedded(store: Store, model: str, dim: int) -> None:
    """Initialise the embedded database on first use, as `archivist init` would."""
    if store.schema_problem() or store.recorded_embedding() is None:
        store.init(EmbeddingConfig(model, dim))


def run_here(
    db: Connections,
    embedder: Embedder,
    request: ArchiveRequest,
    progress: Progress | None,
    limits: RunLimits | None,
) -> RunReport:
    """One run in this process.

    Over Postgres it reads on one connection for the whole run, which holds its session locks
    and notices when the database goes away, and commits on a second one (none if the pool
    allows one connection: the commits then wait their turn; see
    archivist.pipeline.commit.Committer). Over REST both are the shared store: its calls are
    independent requests.
    """
    settings = db.settings
    read: Store
    commit: Store | None
    with db.postgres_stores(2) as stores:
        if stores:
            read, commit = stores[0], stores[1] if len(stores) > 1 else None
        else:
            read = commit = db.open()
        if settings.uses_embedded_database:
            initialise_embedded(read, embedder.model, settings.embedding_dim)
        archiver = Archiver(read, embedder, settings, make_extractor(settings), commit)
        return archiver.run(request, progress, limits)


def run_in_workers(
    db: Connections,
    embedder: Embedder,
    request: ArchiveRequest,
    progress: Progress | None,
    workers: int,
    open_client: Callable[[Settings], Archivist],
) -> RunReport:
    """One run in `workers` processes, each with a client of its own (`open_client`), and one
    row of the run log for them all, written here. Workers reach the embedded database by its
    URL; it is initialised before they start."""
    settings = db.settings
    store = db.open()
    if settings.uses_embedded_database:
        initialise_embedded(store, embedder.model, settings.embedding_dim)
        settings = settings.model_copy(update={"database_url": SecretStr(db.direct_url())})
    job = WorkerJob(
        _WorkerRun(partial(open_client, settings), replace(request, log_run=False)),
        logging.getLogger("archivist").getEffectiveLevel(),
    )
    store.check_ready()
    run_id = log_run_start(store, request, workers)
    try:
        report = run_workers(job, workers, request.selection.limit, progress)
    except RunInterrupted as exc:  # what the workers committed, as one run that was stopped
        _log_end(store, run_id, exc.report)
        raise
    _log_end(store, run_id, report)
    return report


def _log_end(store: Store, run_id: int, report: RunReport) -> None:
    try:
        log_run_end(store, run_id, report)
    except ArchivistError as exc:  # the database went away: the report says so
        log.warning("could not record the run's end in the run log: %s", exc)


@dataclass(frozen=True)
class _WorkerRun:
    """One worker's part of a run (pickled into its process)."""

    open_client: Callable[[], Archivist]
    request: ArchiveRequest

    def __call__(self, progress: Progress, limits: RunLimits) -> RunReport:
        with self.open_client() as client:
            return client.archive(self.request, progress, limits)
