"""The six read-only tools: each one's arguments model, result model, call and text.

Input schemas are the JSON Schema of the argument models in `archivist.queries`: the server
validates a call's arguments into its model once and the client takes that model as it is.
Output schemas are those of the result models the CLI's `--json` prints. Nothing here writes
or deletes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from mcp.types import Tool, ToolAnnotations
from pydantic import BaseModel

from archivist.client import Archivist
from archivist.config import (
    ARCHIVE_MAX_ROWS,
    MEMORY_MAX_RESULTS,
    SEARCH_QUERY_MAX_CHARS,
    Settings,
)
from archivist.mcp_server.text import (
    archive_text,
    history_text,
    memory_text,
    search_text,
    state_text,
)
from archivist.queries import ArchiveQuery, HybridQuery, MemoryQuery, SessionQuery
from archivist.search import ArchiveSearchResult, MemorySearchResult, SearchResult
from archivist.state.current import CURRENT_MAX_ITEMS, CurrentState, CurrentStateQuery
from archivist.state.history import History
from archivist.state.view import StateView
from archivist.words import plural

Q = TypeVar("Q", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)

_DEFAULTS = Settings.model_fields
_CHUNKS = f"{MEMORY_MAX_RESULTS} chunks, the query cut at {SEARCH_QUERY_MAX_CHARS:,} characters"
_ROWS = f"{ARCHIVE_MAX_ROWS} archive rows"
_WEAK = (
    " Each hit's relevance (0 to about 1) says how well its words match the query; a hit under"
    f" {_DEFAULTS['search_weak_below'].default:g} is weak (`weak`)."
)
_NO_GOOD_MATCH = (
    " When no hit reaches it, the result says `no_good_match`: nothing archived answers well."
    " min_score leaves out the hits under it."
)


def _limits(*bounds: str) -> str:
    return (
        f" At most {' and '.join(bounds)}, and {_DEFAULTS['search_timeout_s'].default:g} s per"
        " call; a request over a limit is clamped and the result says so in `clamped`."
    )


@dataclass(frozen=True)
class ToolSpec(Generic[Q, R]):
    name: str
    title: str
    description: str
    arguments: type[Q]
    result: type[R]
    call: Callable[[Archivist, Q], R]
    text: Callable[[R], str]

    def tool(self) -> Tool:
        """The tool as `tools/list` announces it."""
        return Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=self.arguments.model_json_schema(),
            output_schema=self.result.model_json_schema(mode="serialization"),
            annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
        )


def _memory(client: Archivist, q: MemoryQuery) -> MemorySearchResult:
    return client.memory_search(q)


def _archive(client: Archivist, q: ArchiveQuery) -> ArchiveSearchResult:
    return client.archive_search(q)


def _hybrid(client: Archivist, q: HybridQuery) -> SearchResult:
    return client.search(q)


def _state(client: Archivist, q: SessionQuery) -> StateView:
    return client.state(q.session_id)


def _history(client: Archivist, q: SessionQuery) -> History:
    return client.history(q.session_id)


def _current(client: Archivist, q: CurrentStateQuery) -> CurrentState:
    return client.current_state(q.user_id, q.as_of, q.subject, q.limit)


def _current_text(result: CurrentState) -> str:
    head = f"How {result.subject!r} changed" if result.subject else "Current state"
    lines = [f"{head}: {plural(result.total, 'item')}"]
    if result.clipped:
        lines[0] += f" (showing {len(result.items)}; raise limit, at most {CURRENT_MAX_ITEMS})"
    for i in result.items:
        stopped = f", stopped {i.stopped_at:%Y-%m-%d} ({i.trigger})" if i.stopped_at else ""
        conflict = " CONFLICT" if i.conflict else ""
        lines.append(
            f"[{i.uid}] {i.type} {i.text} (session {i.session_id}, messages "
            f"{','.join(i.refs)}{stopped}){conflict}"
        )
    return "\n".join(lines)


TOOLS: list[ToolSpec[Any, Any]] = [
    ToolSpec(
        "memory_search",
        "Search memory by meaning",
        "Find conversation by meaning: the archived chunks (turns, summaries, extractions, "
        "state items) that best answer the query, best first."
        + _WEAK
        + _NO_GOOD_MATCH
        + _limits(_CHUNKS),
        MemoryQuery,
        MemorySearchResult,
        _memory,
        memory_text,
    ),
    ToolSpec(
        "archive_search",
        "Search the archive by fact",
        "Find sessions by structured fact: topics, decisions, entities, actions, state items "
        "and time; the latest version of each session, newest first." + _limits(_ROWS),
        ArchiveQuery,
        ArchiveSearchResult,
        _archive,
        archive_text,
    ),
    ToolSpec(
        "search",
        "Search by meaning and fact",
        "Meaning first, then structured facts: chunks grouped by session, each session with "
        "its latest version, kept only if it matches the filters (sessions resolved from "
        f"them: at most {ARCHIVE_MAX_ROWS}, the newest)." + _WEAK + _limits(_CHUNKS),
        HybridQuery,
        SearchResult,
        _hybrid,
        search_text,
    ),
    ToolSpec(
        "session_state",
        "A session's current state",
        "A session's active state items (decisions, constraints, actions, risks, facts, questions) "
        "from its latest version, as the compact block prompt builders use.",
        SessionQuery,
        StateView,
        _state,
        state_text,
    ),
    ToolSpec(
        "session_history",
        "A session's versions",
        "A session's archived versions (the last 100) and what each changed: items added, "
        "merged, superseded with their evidence, status changes, conflicts, topics, entities.",
        SessionQuery,
        History,
        _history,
        history_text,
    ),
    ToolSpec(
        "current_state",
        "What is true now",
        "The decisions, constraints and other items true now (or at as_of) across every "
        "session of a user or of the whole archive: a later session's change replaces an "
        "earlier item on the same subject. Each item names its session and messages; with "
        "subject, every item on it, oldest first, with when it became true and stopped.",
        CurrentStateQuery,
        CurrentState,
        _current,
        _current_text,
    ),
]
