"""Search results for people: each hit's score (the one the list is ranked by; its parts with
-v), where it comes from, and a snippet centred on what matched, matched words highlighted.

What is shown follows the filters: `archive-search --type action --status open` shows the open
actions of each session, not its decisions or its done actions. Rendering is driven by the
result models, so fields the search adds (score parts) appear with -v without changes here.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from rich.markup import escape
from rich.text import Text

from archivist.cli.output import Output, people_time, short_line
from archivist.search import (
    ArchiveFilters,
    ArchiveHit,
    ArchiveSearchResult,
    MemoryHit,
    MemorySearchResult,
    SearchResult,
)
from archivist.snippets import query_terms, snippet
from archivist.state.items import StateItem
from archivist.words import plural

MATCH_STYLE = "bold yellow"
SNIPPET_WIDTH = 200


def _marked(text: str, terms: list[str], width: int = SNIPPET_WIDTH) -> Text:
    """The snippet of `text` around the terms, the matched words highlighted."""
    cut = snippet(text, terms, width)
    shown = Text(cut.text)
    for start, end in cut.marks:
        shown.stylize(MATCH_STYLE, start, end)
    return shown


def ranked_score(hit: MemoryHit) -> tuple[str, float | None]:
    """The score a memory hit was ranked by, and its name."""
    if hit.score is not None:
        return "score", hit.score
    return "cosine", hit.similarity


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def score_parts(hit: BaseModel) -> list[tuple[str, Any]]:
    """Every number the hit carries: its top-level numeric fields and those of any
    `*score*` or `*rank*` mapping (score parts a search may add)."""
    parts: list[tuple[str, Any]] = []
    for name, value in hit.model_dump().items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            parts.append((name, value))
        elif isinstance(value, dict) and ("score" in name or "rank" in name):
            parts += [(f"{name}.{k}", v) for k, v in value.items() if isinstance(v, int | float)]
    return parts


def _number(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def _memory_hit(
    out: Output,
    n: int,
    hit: MemoryHit,
    terms: list[str],
    indent: str = "",
    places: dict[str | None, int] | None = None,
) -> None:
    places = places or {}
    name, value = ranked_score(hit)
    head = Text(f"{indent}{n:>2}. {name} {_score(value)}  ")
    if hit.relevance is not None:
        head.append(f"relevance {hit.relevance:.2f}{' (weak)' if hit.weak else ''}  ")
    head.append(hit.session_id, style="bold")
    head.append(f"  {hit.source}  {people_time(hit.said_at)}")
    if hit.superseded_by in places:
        head.append(f"  (older than #{places[hit.superseded_by]}, on the same words)")
    out.out.print(head)
    out.out.print(Text(f"{indent}    ") + _marked(hit.content, terms))
    if out.verbose:
        parts = ", ".join(f"{k} {_number(v)}" for k, v in score_parts(hit))
        out.out.print(Text(f"{indent}    {parts}", style="dim"))


def _clamp_notes(out: Output, clamped: dict[str, Any]) -> None:
    for name, clamp in clamped.items():
        out.note(f"clamped: {name} {clamp}")


def memory_result(out: Output, result: MemorySearchResult) -> None:
    if out.as_json:
        out.json(result.model_dump_json(indent=2))
        return
    if out.quiet:
        return
    terms = query_terms(result.query)
    ranked = {"vector": "cosine similarity", "text": "word score"}.get(result.mode, "fused score")
    if result.no_good_match and result.hits and result.min_score is None:
        best = max(h.relevance or 0.0 for h in result.hits)
        out.out.print(
            escape(
                f"no good match for {short_line(result.query)!r} (best relevance {best:.2f}, "
                f"weak below {result.weak_below:g}); --min-score 0 lists "
                f"{plural(len(result.hits), 'hit')}"
            )
        )
        return
    count = len(result.hits)
    when = f" as of {people_time(result.as_of)}" if result.as_of else ""
    out.out.print(
        escape(
            f"{plural(count, 'hit')} for {short_line(result.query)!r}{when} ({result.mode} "
            f"search, ranked by {ranked}; times UTC)"
        )
    )
    places: dict[str | None, int] = {h.id: n for n, h in enumerate(result.hits, start=1)}
    for n, hit in enumerate(result.hits, start=1):
        _memory_hit(out, n, hit, terms, places=places)
    if result.dropped_below:
        out.note(f"{plural(result.dropped_below, 'hit')} under --min-score left out")
    _clamp_notes(out, dict(result.clamped))


def shown_items(hit: ArchiveHit, filters: ArchiveFilters) -> list[str]:
    """The lines a hit shows under the filters: only what the filters asked for, and only the
    parts of it that match every one of them."""
    lines = []
    if filters.decision:
        lines += [f"decision: {d.text}" for d in hit.decisions]
    if filters.action:
        lines += [f"action ({a.outcome or 'noted'}): {a.description}" for a in hit.actions]
    if filters.entity:
        lines += [f"entity: {e.key} ({e.name})" for e in hit.entities]
    if filters.item_types or filters.item_statuses:
        lines += [_item_line(i) for i in hit.state_items if _item_matches(i, filters)]
    return lines


def _item_matches(item: StateItem, filters: ArchiveFilters) -> bool:
    return (not filters.item_types or item.type in filters.item_types) and (
        not filters.item_statuses or item.status in filters.item_statuses
    )


def _item_line(item: StateItem) -> str:
    return f"[{item.uid}] {item.type} ({item.status}): {item.text}"


def archive_result(out: Output, result: ArchiveSearchResult, filters: ArchiveFilters) -> None:
    if out.as_json:
        out.json(result.model_dump_json(indent=2))
        return
    if out.quiet:
        return
    count = len(result.hits)
    if count and count >= result.limit:  # more may match: the count is of those shown
        shown = plural(count, "session that matches", "sessions that match")
        out.out.print(f"the newest {shown} (--limit {result.limit}; times UTC)")
    else:
        matches = "session matches" if count == 1 else "sessions match"
        out.out.print(f"{count} {matches} (times UTC)")
    wanted = [t.lower() for t in filters.topics]
    for hit in result.hits:
        at = hit.span.last_turn_at
        last = people_time(at) if at else ""
        head = Text()
        head.append(hit.session_id, style="bold")
        head.append(f"  version {hit.version}  last turn {last or '-'}")
        out.out.print(head)
        if hit.topics:
            topics = Text("    topics: ")
            for i, topic in enumerate(hit.topics):
                topics.append(", " if i else "")
                topics.append(topic, style=MATCH_STYLE if topic.lower() in wanted else "")
            out.out.print(topics)
        if hit.summary:
            out.out.print(Text("    summary: ") + _marked(hit.summary, [], 160))
        for line in shown_items(hit, filters):
            out.out.print(Text(f"    {line}"))
    _clamp_notes(out, dict(result.clamped))


def search_result(out: Output, result: SearchResult, filters: ArchiveFilters) -> None:
    if out.as_json:
        out.json(result.model_dump_json(indent=2))
        return
    if out.quiet:
        return
    terms = query_terms(result.query)
    count = len(result.sessions)
    out.out.print(
        escape(f"{plural(count, 'session')} for {short_line(result.query)!r} (times UTC)")
    )
    for match in result.sessions:
        name, best = ranked_score(match.chunks[0]) if match.chunks else ("cosine", None)
        head = Text()
        head.append(match.session_id, style="bold")
        head.append(f"  best {name} {_score(best)}")
        out.out.print(head)
        if match.latest is not None:
            out.out.print(Text("    summary: ") + _marked(match.latest.summary, terms, 160))
            for line in shown_items(match.latest, filters):
                out.out.print(Text(f"    {line}"))
        for n, hit in enumerate(match.chunks, start=1):
            _memory_hit(out, n, hit, terms, indent="  ")
    if result.cut:
        out.note(f"cut: {result.cut.note}")
    _clamp_notes(out, dict(result.clamped))
