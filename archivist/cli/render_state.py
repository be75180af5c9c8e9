"""Renderers of the current state across sessions: `state --current`, `conflicts`, `resolve`."""

from __future__ import annotations

from datetime import UTC, datetime

from archivist.cli.output import Output
from archivist.state.current import CurrentItem, CurrentState, Resolution


def _when(at: datetime | None) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if at else "?"


def _line(item: CurrentItem, history: bool) -> str:
    refs = ",".join(item.refs[:3]) + ("..." if len(item.refs) > 3 else "")
    where = f"{item.session_id} msg {refs}"
    line = f"[{item.uid}] {item.type.upper()} ({item.status}) {item.text}"
    line += f"  ({where}, {_when(item.became_at)}"
    if history and item.stopped_at is not None:
        line += f" .. {_when(item.stopped_at)}, {item.trigger} by {item.superseded_by}"
    elif history:
        line += " .. now"
    line += ")"
    if item.conflict:
        line += " CONFLICT with " + ", ".join(item.conflict_with or ["(its session)"])
    return line


def current_result(out: Output, result: CurrentState) -> None:
    """The current items (or one subject's history), one line each."""
    if out.as_json:
        out.json(result.model_dump_json(indent=2))
        return
    if out.quiet:
        return
    scope = f"user {result.user_id}" if result.user_id else "the whole archive"
    when = f" as of {_when(result.as_of)}" if result.as_of else ""
    if result.subject is not None:
        head = f"How {result.subject!r} changed ({scope}{when}): {result.total} items"
    else:
        head = f"Current state of {scope}{when}: {result.total} items"
    if result.clipped:
        head += f" (showing {len(result.items)}; raise --limit)"
    out.out.print(head, markup=False)
    for item in result.items:
        out.out.print(_line(item, result.subject is not None), markup=False)


def conflicts_result(out: Output, result: CurrentState) -> None:
    """The conflicts, newest first, with the command that settles each."""
    if out.as_json:
        out.json(result.model_dump_json(indent=2))
        return
    if out.quiet:
        return
    if not result.items:
        out.out.print("No open conflicts.", markup=False)
        return
    out.out.print(f"Open conflicts: {result.total} items", markup=False)
    for item in result.items:
        out.out.print(_line(item, False), markup=False)
    out.out.print("Settle one with: archivist resolve UID --keep (or --drop)", markup=False)


def resolution_result(out: Output, result: Resolution) -> None:
    if out.as_json:
        out.json(result.model_dump_json(indent=2))
        return
    if out.quiet:
        return
    out.out.print(
        f"Recorded: {result.action} {result.uid} at {_when(result.resolved_at)}", markup=False
    )
