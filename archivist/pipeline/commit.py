"""The one write of a version: `archivist_commit_version` with the plan's version, chunks and
vectors, in one call (one transaction).

Chunks go as JSON without their vectors; the vectors of the texts embedded for this version go
beside them as one `vector[]` argument (binary on a direct connection), each chunk naming its
vector by position. A new chunk whose text a stored chunk of the session already has names no
vector: the database copies that chunk's vector (by content hash).

A run's `Committer` makes these calls in a background thread on a store of their own, so the
run plans and embeds the next session while the database writes this one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from archivist.embed.base import Vector
from archivist.pipeline.across import tie_to_earlier
from archivist.pipeline.planning import VersionPlan
from archivist.store import CommitResult, Store

log = logging.getLogger(__name__)


def commit(store: Store, plan: VersionPlan, fresh: Mapping[str, Vector]) -> CommitResult:
    """Write the plan's version, chunks and watermark (one call), its new changes tied to
    what they change in the user's earlier sessions first.

    `fresh`: the vectors embedded for this version, by text.
    """
    started = time.perf_counter()
    tie_to_earlier(store, plan)
    chunks, vectors = chunk_payload(plan, {**plan.state.vectors, **fresh})
    result = store.commit_version(
        plan.session_id,
        plan.from_version,
        version_payload(plan),
        chunks,
        plan.slots,
        plan.model,
        vectors,
    )
    took_ms = (time.perf_counter() - started) * 1000
    log.info("%s: commit (version %d) %.0f ms", plan.session_id, result.version, took_ms)
    return result


def version_payload(plan: VersionPlan) -> dict[str, Any]:
    """The version row's fields, as `archivist_commit_version` reads them."""
    return {
        "span": plan.extraction.span.model_dump(mode="json"),
        "extraction": plan.extraction.model_dump(mode="json"),
        "extractor": plan.record.name,
        "extractor_version": plan.record.version,
        "watermark_at": plan.watermark.created_at.isoformat() if plan.watermark else None,
        "watermark_id": plan.watermark.message_id if plan.watermark else None,
        "message_count": plan.message_count,
        "messages": plan.archived,
        "user_id": plan.user_id,
        "multi_user": plan.multi_user,
        "summary_at": (
            plan.summary.updated_at.isoformat()
            if plan.summary and plan.summary.updated_at
            else None
        ),
    }


def chunk_payload(
    plan: VersionPlan, by_text: Mapping[str, Vector]
) -> tuple[list[dict[str, Any]], list[Vector]]:
    """Every chunk of the rewritten slots as JSON, and the vectors the new ones name.

    A chunk the table holds goes as its id and slot; a new one whole, with `vector`, the
    1-based position of its vector in the list (the same text's vector is sent once), or none
    when a stored chunk of the session has its text (the database copies that vector).
    """
    payload: list[dict[str, Any]] = []
    vectors: list[Vector] = []
    position: dict[str, int] = {}
    for chunk in plan.chunks:
        if chunk.id in plan.existing:
            payload.append({"id": chunk.id, "slot": chunk.slot})
            continue
        entry = chunk.model_dump(mode="json")
        if chunk.content_hash not in plan.reusable:
            if chunk.content not in position:
                vectors.append(by_text[chunk.content])
                position[chunk.content] = len(vectors)
            entry["vector"] = position[chunk.content]
        payload.append(entry)
    return payload, vectors


class Committer:
    """Commits versions, one at a time, beside the run that plans them.

    With a store of its own (another connection, or a transport whose calls are independent
    requests) the commit runs in a background thread, so that the database's work on one
    session (mostly its vector index) overlaps the run's Python work on the next one; without
    one it runs at once on the run's store, before `submit` returns.
    """

    def __init__(self, run_store: Store, own_store: Store | None) -> None:
        self.store = own_store or run_store
        self._thread = (
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="archivist-commit")
            if own_store is not None
            else None
        )

    @property
    def broken(self) -> bool:
        return self.store.broken

    def submit(self, plan: VersionPlan, fresh: Mapping[str, Vector]) -> Future[CommitResult]:
        """Commit the plan's version; its result, or its error, comes through the future."""
        if self._thread is not None:
            return self._thread.submit(commit, self.store, plan, fresh)
        done: Future[CommitResult] = Future()
        try:
            done.set_result(commit(self.store, plan, fresh))
        except Exception as exc:  # the caller gets it from the future, as from the thread
            done.set_exception(exc)
        return done

    def close(self) -> None:
        """Wait for the commit under way, if any (its session is let go after it)."""
        if self._thread is not None:
            self._thread.shutdown(wait=True)
