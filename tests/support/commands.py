"""The client's commands, each on a client opened for the one call, as the tests call them."""

from __future__ import annotations

from datetime import timedelta

from archivist.client import Archivist
from archivist.config import Settings
from archivist.doctor import DoctorReport
from archivist.prune_check import PruneCheck
from archivist.status import Status
from archivist.store import EmbeddingConfig


def run_doctor(settings: Settings) -> DoctorReport:
    """`archivist doctor`: it reports a database it cannot reach, so it connects itself."""
    with Archivist(settings, connect=False) as client:
        return client.doctor()


def check_prune(settings: Settings, older_than: timedelta) -> PruneCheck:
    with Archivist(settings) as client:
        return client.prune_check(older_than)


def status(settings: Settings) -> Status:
    with Archivist(settings) as client:
        return client.status()


def init_database(
    settings: Settings, allow_authenticated: bool | None = None
) -> tuple[list[str], EmbeddingConfig]:
    """`archivist init`: it checks its arguments before it connects (and makes the embedded
    database)."""
    with Archivist(settings, connect=False) as client:
        return client.init(allow_authenticated)
