"""The short text each tool result carries beside its structured JSON, for hosts that show the
model text only: enough to answer from (ids, scores, the matched text cut short), never the
whole document."""

from __future__ import annotations

from datetime import UTC

from archivist.search import (
    ArchiveHit,
    ArchiveSearchResult,
    Clamp,
    MemoryHit,
    MemorySearchResult,
    SearchResult,
)
from archivist.state.history import History
from archivist.state.view import StateView

EXCERPT_CHARS = 300


def _excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _clamped(clamped: dict[str, Clamp]) -> str:
    if not clamped:
        return ""
    parts = [f"{name} {c.requested} -> {c.applied}" for name, c in clamped.items()]
    return f" (clamped: {', '.join(parts)})"


def _relevance(hit: MemoryHit) -> str:
    """What `min_score` is compared with, and whether it is a weak match."""
    return f"relevance {hit.relevance or 0:.2f}" + (", weak" if hit.weak else "")


def _hit(n: int, hit: MemoryHit) -> str:
    return (
        f"{n}. [{hit.session_id} · {hit.source} · {_relevance(hit)} · "
        f"{hit.said_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC] {_excerpt(hit.content)}"
    )


def _facts(hit: ArchiveHit) -> list[str]:
    """A version's topics, decisions, actions and active state items, one line each."""
    lines = [f"  topics: {', '.join(hit.topics)}"] if hit.topics else []
    lines += [f"  decision: {_excerpt(d.text, 160)}" for d in hit.decisions]
    lines += [f"  action: {_excerpt(a.description, 160)}" for a in hit.actions]
    lines += [
        f"  {i.type} ({i.status}): {_excerpt(i.text, 160)}"
        for i in hit.state_items
        if i.status != "superseded"
    ]
    return lines


def memory_text(result: MemorySearchResult) -> str:
    """The hits, or, when none reached `weak_below`, one line that says so (as the CLI does):
    a host that shows the model the text only must not pass noise off as memory."""
    when = f" as of {result.as_of.astimezone(UTC):%Y-%m-%d %H:%M} UTC" if result.as_of else ""
    query = _excerpt(result.query, 80)
    if result.no_good_match and result.hits and result.min_score is None:
        best = max(h.relevance or 0.0 for h in result.hits)
        return (
            f"No good match for {query!r}{when} (best relevance {best:.2f}, weak below "
            f"{result.weak_below:g}); min_score 0 lists the {_count(len(result.hits), 'weak hit')}"
            + _clamped(result.clamped)
        )
    head = f"{_count(len(result.hits), 'chunk')} for {query!r}{when} ({result.mode})"
    if result.dropped_below:
        head += f", {_count(result.dropped_below, 'hit')} under min_score left out"
    return "\n".join(
        [head + _clamped(result.clamped), *(_hit(n, h) for n, h in enumerate(result.hits, 1))]
    )


def archive_text(result: ArchiveSearchResult) -> str:
    head = _count(len(result.hits), "version") + _clamped(result.clamped)
    lines = [head]
    for hit in result.hits:
        lines.append(f"- {hit.session_id} v{hit.version} ({hit.version_at:%Y-%m-%d}): ")
        lines[-1] += _excerpt(hit.summary)
        lines += _facts(hit)
    return "\n".join(lines)


def search_text(result: SearchResult) -> str:
    lines = [f"{_count(len(result.sessions), 'session')} for {_excerpt(result.query, 80)!r}"]
    chunks = [h for m in result.sessions for h in m.chunks]
    if chunks and all(h.weak for h in chunks):
        lines[0] += " (no good match: every chunk is weak)"
    lines[0] += _clamped(result.clamped)
    for match in result.sessions:
        best = "-" if match.best_similarity is None else f"{match.best_similarity:.2f}"
        lines.append(f"## {match.session_id} (best similarity {best})")
        if match.latest is not None:
            lines.append(f"  summary (v{match.latest.version}): {_excerpt(match.latest.summary)}")
            lines += _facts(match.latest)
        lines += [
            f"  {n}. ({_relevance(h)}) {_excerpt(h.content, 200)}"
            for n, h in enumerate(match.chunks, 1)
        ]
    return "\n".join(lines)


def state_text(result: StateView) -> str:
    return result.text or f"State (version {result.version}): no active item"


def history_text(result: History) -> str:
    lines = [f"{result.session_id}: {_count(len(result.versions), 'version')}"]
    for v in result.versions:
        counts = {
            "added": len(v.added),
            "merged": len(v.merged),
            "superseded": len(v.superseded),
            "status changes": len(v.status_changes),
            "conflicts": len(v.conflicts),
        }
        changed = ", ".join(f"{n} {what}" for what, n in counts.items() if n) or "no item change"
        lines.append(f"v{v.version} {v.version_at:%Y-%m-%d %H:%M} ({v.extractor}): {changed}")
        lines += [f"  + {i.type}: {_excerpt(i.text, 160)}" for i in v.added]
        lines += [f"  x {_excerpt(i.text, 160)} -> {i.replaced_by}" for i in v.superseded]
        lines += [
            f"  ~ {_excerpt(i.text, 160)}: {i.status_from} -> {i.status_to}"
            for i in v.status_changes
        ]
    return "\n".join(lines)
