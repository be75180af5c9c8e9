"""The searches: memory-search (by meaning), archive-search (by structured fact), search (both).

They embed the query with the model the database records unless an embedding setting is given,
so a database archived with the offline `hash` embedder is searched without `--embedder hash`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import typer

from archivist.cli import render_search
from archivist.cli.app import cli
from archivist.cli.common import (
    ActionText,
    AllTopics,
    AsOf,
    Command,
    Decision,
    Entity,
    ItemStatus,
    ItemStatuses,
    ItemType,
    ItemTypes,
    JsonFlag,
    MemoryAsOf,
    ModeFlag,
    QuietFlag,
    SearchEmbedderFlag,
    SessionIds,
    Since,
    SourceName,
    Topics,
    Until,
    UserId,
    VerboseFlag,
    begin,
    reported,
    settings_for,
    value,
)
from archivist.client import Archivist
from archivist.config import ARCHIVE_MAX_ROWS, MEMORY_MAX_RESULTS
from archivist.queries import ArchiveQuery, HybridQuery, MemoryQuery, parse_query

Query = Annotated[str, typer.Argument(metavar="QUERY", help="What to look for, in plain words.")]


def _filters(
    topic: list[str] | None,
    all_topics: bool,
    decision: str | None,
    entity: str | None,
    action: str | None,
    session_id: list[str] | None,
    since: datetime | None,
    until: datetime | None,
    item_types: list[ItemType] | None = None,
    item_statuses: list[ItemStatus] | None = None,
    user_id: str | None = None,
    as_of: datetime | None = None,
) -> dict[str, Any]:
    """The `ArchiveFilters` fields of the structured flags."""
    return {
        "user_id": user_id,
        "as_of": as_of,
        "item_types": [t.value for t in item_types or []],
        "item_statuses": [s.value for s in item_statuses or []],
        "topics": topic or [],
        "all_topics": all_topics,
        "decision": decision,
        "entity": entity,
        "action": action,
        "session_ids": session_id or [],
        "since": since,
        "until": until,
    }


@cli.command("memory-search", cls=Command)
def memory_search(
    query: Query,
    limit: Annotated[
        int,
        typer.Option(min=1, metavar="N", help=f"Results wanted (at most {MEMORY_MAX_RESULTS})."),
    ] = MEMORY_MAX_RESULTS,
    session_id: SessionIds = None,
    source: Annotated[
        SourceName | None,
        typer.Option(
            metavar="SOURCE", help="Only chunks of this source: " + ", ".join(SourceName) + "."
        ),
    ] = None,
    since: Since = None,
    until: Until = None,
    as_of: MemoryAsOf = None,
    user_id: UserId = None,
    mode: ModeFlag = None,
    embedder: SearchEmbedderFlag = None,
    min_score: Annotated[
        float | None,
        typer.Option(
            min=0,
            max=1,
            metavar="R",
            help="Leave out hits whose relevance is under R (0 to 1; weak below "
            "search_weak_below, 0.15 by default).",
        ),
    ] = None,
    json_output: JsonFlag = False,
    quiet: QuietFlag = False,
    verbose: VerboseFlag = False,
) -> None:
    """Find conversation by meaning: the chunks that best answer the query.

    Example: archivist memory-search "what did we say about OAuth refresh?" --limit 5 --since 30d

    Example: archivist memory-search "which database do we use?" --as-of 2026-03-01
    """
    out = begin(json_output, quiet, verbose)
    settings = settings_for(
        out, {"embedder": value(embedder), "search_mode": value(mode)}, reading=True
    )
    with reported(out, settings), Archivist(settings) as client:
        q = parse_query(
            MemoryQuery,
            {
                "query": query,
                "limit": limit,
                "session_ids": session_id or [],
                "source": value(source),
                "since": since,
                "until": until,
                "mode": value(mode),
                "user_id": user_id,
                "min_score": min_score,
                "as_of": as_of,
            },
        )
        result = client.memory_search(q)
    render_search.memory_result(out, result)


@cli.command("archive-search", cls=Command)
def archive_search(
    topic: Topics = None,
    all_topics: AllTopics = False,
    decision: Decision = None,
    entity: Entity = None,
    action: ActionText = None,
    item_type: ItemTypes = None,
    item_status: ItemStatuses = None,
    session_id: SessionIds = None,
    since: Since = None,
    until: Until = None,
    all_versions: Annotated[
        bool,
        typer.Option("--all-versions", help="Every version, not only the latest."),
    ] = False,
    limit: Annotated[
        int, typer.Option(min=1, metavar="N", help=f"Rows wanted (at most {ARCHIVE_MAX_ROWS}).")
    ] = ARCHIVE_MAX_ROWS,
    user_id: UserId = None,
    as_of: AsOf = None,
    json_output: JsonFlag = False,
    quiet: QuietFlag = False,
    verbose: VerboseFlag = False,
) -> None:
    """Find sessions by structured fact: topics, decisions, entities, actions, state items.

    Each session shows what matched: with --type/--status only its state items of those types
    and statuses, with --decision only the decisions that contain the text, and so on.

    Example: archivist archive-search --topic deployment --decision vercel --entity tool:vercel

    Example: archivist archive-search --type action --status open --since 7d

    --status active means current: an item a later session replaced is left out, and shown
    as superseded with --status superseded.
    """
    out = begin(json_output, quiet, verbose)
    settings = settings_for(out, {}, reading=True)
    filters = _filters(
        topic,
        all_topics,
        decision,
        entity,
        action,
        session_id,
        since,
        until,
        item_type,
        item_status,
        user_id,
        as_of,
    )
    with reported(out, settings), Archivist(settings) as client:
        q = parse_query(ArchiveQuery, {**filters, "limit": limit, "all_versions": all_versions})
        result = client.archive_search(q)
    render_search.archive_result(out, result, q)


@cli.command("search", cls=Command)
def hybrid_search(
    query: Query,
    topic: Topics = None,
    all_topics: AllTopics = False,
    decision: Decision = None,
    entity: Entity = None,
    action: ActionText = None,
    session_id: SessionIds = None,
    since: Since = None,
    until: Until = None,
    limit: Annotated[
        int, typer.Option(min=1, metavar="N", help=f"Chunks wanted (at most {MEMORY_MAX_RESULTS}).")
    ] = MEMORY_MAX_RESULTS,
    user_id: UserId = None,
    mode: ModeFlag = None,
    embedder: SearchEmbedderFlag = None,
    json_output: JsonFlag = False,
    quiet: QuietFlag = False,
    verbose: VerboseFlag = False,
) -> None:
    """Meaning first, then structured facts: matching sessions with their latest version.

    Example: archivist search "deploy the frontend" --topic vercel
    """
    out = begin(json_output, quiet, verbose)
    settings = settings_for(
        out, {"embedder": value(embedder), "search_mode": value(mode)}, reading=True
    )
    filters = _filters(
        topic, all_topics, decision, entity, action, session_id, since, until, user_id=user_id
    )
    with reported(out, settings), Archivist(settings) as client:
        q = parse_query(
            HybridQuery, {**filters, "query": query, "limit": limit, "mode": value(mode)}
        )
        result = client.search(q)
    render_search.search_result(out, result, q)
