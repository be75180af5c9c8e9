"""The one write of a version: `archivist_commit_version` with the plan's version, chunks and
vectors, in one call (one transaction).

Chunks go as JSON without their vectors; the vectors of the texts embedded for this version go
beside them as one `vector[]` argument (binary on a direct connection), each chunk naming its
vector by position. A new chunk whose text a stored chunk of the session already has names no
vector: the database copies that chunk's vector (by content hash).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from archivist.embed.base import Vector
from archivist.pipeline.planning import VersionPlan
from archivist.store.postgres import CommitResult, Store


def commit(store: Store, plan: VersionPlan, fresh: Mapping[str, Vector]) -> CommitResult:
    """Write the plan's version, chunks and watermark (one call).

    `fresh`: the vectors embedded for this version, by text.
    """
    chunks, vectors = chunk_payload(plan, {**plan.state.vectors, **fresh})
    return store.commit_version(
        plan.session_id,
        plan.from_version,
        version_payload(plan),
        chunks,
        plan.slots,
        plan.model,
        vectors,
    )


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
