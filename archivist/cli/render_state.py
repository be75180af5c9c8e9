"""Renderers of the current state across sessions: `state --current`, `conflicts`, `resolve`."""

from __future__ import annotations

from datetime import UTC, datetime

from archivist.cli.output import Output
from archivist.state.current import CurrentItem, CurrentState, Resolution
from archivist.words import plural


def _when(at: datetime | None) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if at else "?"


# How an item stopped being true (its `trigger`), as a person reads it before "by <uid>".
_STOPPED = {
    "replace": "replaced",
    "update": "updated",
    "cancel": "cancelled",
    "reverse": "reversed",
    "restated": "restated",
    "in session": "replaced in its session",
}


def _status(item: CurrentItem) -> str:
    """What the item is now in its scope: its session's status while it is current, else why
    it is not (a later session replaced it, or a person's resolution)."""
    if item.type == "fact" and item.value:
        return item.value  # a fact's status is always active: "never" or "yes" is what it says
    if item.current:
        return item.status
    if item.resolution == "drop":
        return "dropped"
    return "superseded" if item.stopped_at is not None else "taken out"


def _until(item: CurrentItem) -> str:
    """When (and how) an item stopped being true, for a subject's history."""
    if item.stopped_at is not None:
        how = _STOPPED.get(item.trigger or "", item.trigger or "replaced")
        return f" .. {_when(item.stopped_at)}, {how} by {item.superseded_by}"
    if item.current:
        return " .. now"
    if item.resolution == "drop":
        return ", dropped by a resolution"
    return ", taken out: a resolution kept what it conflicted with"


def _line(item: CurrentItem, history: bool, shown: frozenset[str] = frozenset()) -> str:
    """One item; a conflict names those it conflicts with that are not `shown` beside it."""
    refs = ",".join(item.refs[:3]) + ("..." if len(item.refs) > 3 else "")
    where = f"{item.session_id} msg {refs}"
    line = f"[{item.uid}] {item.type.upper()} ({_status(item)}) {item.text}"
    line += f"  ({where}, {_when(item.became_at)}"
    if history:
        line += _until(item)
    line += ")"
    if item.conflict and not shown:
        line += " CONFLICT with " + ", ".join(item.conflict_with or ["(its session)"])
    elif item.conflict and (others := [u for u in item.conflict_with if u not in shown]):
        line += " CONFLICT also with " + ", ".join(others)
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
        head = f"How {result.subject!r} changed ({scope}{when}): {plural(result.total, 'item')}"
    else:
        head = f"Current state of {scope}{when}: {plural(result.total, 'item')}"
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
    groups = _conflict_groups(result.items)
    head = f"Open conflicts: {plural(result.total, 'item')}, {plural(len(groups), 'disagreement')}"
    if result.clipped:
        head += f" (showing {plural(len(result.items), 'item')}; raise --limit)"
    out.out.print(head, markup=False)
    for n, group in enumerate(groups, 1):
        subject = next((i.subject for i in group if i.subject), None)
        sessions = ", ".join(dict.fromkeys(i.session_id for i in group))
        about = f" on {subject!r}" if subject else ""
        out.out.print(f"{n}.{about} ({sessions}):", markup=False)
        shown = frozenset(i.uid for i in group)
        for item in group:
            out.out.print("  " + _line(item, False, shown), markup=False)
    out.out.print(
        "Settle one with: archivist resolve UID --keep (those it conflicts with stop being "
        "current) or --drop (it stops being current)",
        markup=False,
    )


def _conflict_groups(items: list[CurrentItem]) -> list[list[CurrentItem]]:
    """The items that disagree with each other (`conflict_with`, either way; one statement said
    in two sessions has one uid), together, in the order their newest item comes."""
    parent: dict[str, str] = {}

    def root(uid: str) -> str:
        while parent.setdefault(uid, uid) != uid:
            uid = parent[uid]
        return uid

    for item in items:
        for other in item.conflict_with:
            parent[root(item.uid)] = root(other)
    groups: dict[str, list[CurrentItem]] = {}
    for item in items:
        groups.setdefault(root(item.uid), []).append(item)
    return list(groups.values())


def resolution_result(out: Output, result: Resolution) -> None:
    if out.as_json:
        out.json(result.model_dump_json(indent=2))
        return
    if out.quiet:
        return
    out.out.print(
        f"Recorded: {result.action} {result.uid} at {_when(result.resolved_at)}", markup=False
    )
