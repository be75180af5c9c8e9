"""The searches on one store with one embedder, within the settings' limits.

Every bound is enforced here and again inside the SQL functions, so a bot calling those directly
gets the same limits. A request over a limit is clamped, and the result says so in `clamped`
(limit name -> requested and applied) and `truncated`. A whole call, query embedding and every
database step of the hybrid included, has one deadline; the database side runs under a statement
timeout of what is left of it, so a slow query is cancelled rather than abandoned.
"""

from __future__ import annotations

from typing import Any

from archivist.config import ARCHIVE_MAX_ROWS, Settings
from archivist.embed.base import Embedder, embed_query
from archivist.errors import ConfigError
from archivist.queries import ArchiveFilters, ArchiveQuery, HybridQuery, MemoryQuery, build_query
from archivist.sanitize import clean_text
from archivist.search.current import current_first
from archivist.search.deadline import Deadline, SearchTimeoutError
from archivist.search.neighbours import neighbours_wanted, with_neighbours
from archivist.search.newest import newest_first
from archivist.search.results import (
    ArchiveHit,
    ArchiveSearchResult,
    Clamp,
    FilterCut,
    MemoryHit,
    MemorySearchResult,
    SearchResult,
    SessionMatch,
    archive_hit,
    memory_hit,
)
from archivist.snippets import excerpt, query_terms
from archivist.state.current import status_as_of
from archivist.state.items import default_status
from archivist.store import Json, QueryTimeoutError, Store, vector_text


def _clamp(name: str, requested: int, ceiling: int, clamped: dict[str, Clamp]) -> int:
    if requested > ceiling:
        clamped[name] = Clamp(requested=requested, applied=ceiling)
        return ceiling
    return requested


class Searcher:
    """Runs searches on one store with one embedder, within the settings' limits."""

    def __init__(self, store: Store, embedder: Embedder, settings: Settings) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self._ready = False

    def _check_ready(self) -> None:
        """The schema and recorded model, checked once per searcher (two round trips each).

        A model switch later (reembed) cannot mix models: the search functions only ever return
        chunks of the model they are given.
        """
        if not self._ready:
            self.store.check_ready(self.embedder.model)
            self._ready = True

    def memory_search(
        self, query: str | MemoryQuery, deadline: Deadline | None = None, **options: Any
    ) -> MemorySearchResult:
        """The chunks that best answer the query, best first, ranked by `mode`; only
        `user_id`'s when given (per-user memory); none with a relevance under `min_score`.
        `query` is a `MemoryQuery`, or its words with the other fields as keyword arguments.

        With `as_of`, the archive as it stood then: only chunks whose messages are all at or
        before it (sql/functions/search_filters.sql), so which hit is newer (`superseded_by`) is
        judged among what had been said by then.

        Text mode does not embed the query (no embedding server is needed for it).
        """
        q = build_query(MemoryQuery, query, **options)
        deadline = deadline or Deadline(self.settings.search_timeout_s)
        clamped: dict[str, Clamp] = {}
        text = self._query_text(q.query, clamped)
        limit = _clamp("limit", q.limit, self.settings.memory_search_max_results, clamped)
        self._check_ready()
        mode = q.mode or self.settings.search_mode
        vector = None
        if mode != "text":
            vector = vector_text(embed_query(self.embedder, text))
            deadline.remaining_ms()  # the embedding may have used it all
        filter_ = q.chunk_filter(self.embedder.model)
        args: dict[str, Any] = {
            "query_embedding": vector,
            "match_count": limit,
            "filter": Json(filter_),
        }
        s = self.settings
        args.update(
            query_text=text,
            vector_weight=s.search_vector_weight if mode != "text" else 0.0,
            text_weight=s.search_text_weight if mode != "vector" else 0.0,
            recency_weight=s.search_recency_weight,
            half_life_days=s.search_recency_half_life_days,
        )
        rows = self._timed(deadline, "hybrid_jarvis_memory_chunks", args)
        terms = query_terms(text)
        hits = [_excerpted(memory_hit(r), terms, s.search_hit_max_chars) for r in rows]
        hits = newest_first(hits, terms)
        if mode != "vector" and q.until is None and q.as_of is None and hits:  # now only
            current = self._timed(
                deadline, "archivist_current_values", {"query_text": text, "filter": Json(filter_)}
            )
            hits = current_first(hits, current, terms)
        hits = self._with_neighbours(hits, filter_, deadline)
        # A cosine's scale depends on the model: only word relevance is judged weak.
        weak_below = s.search_weak_below if mode != "vector" else 0.0
        hits = [h.model_copy(update={"weak": (h.relevance or 0.0) < weak_below}) for h in hits]
        kept = [h for h in hits if q.min_score is None or (h.relevance or 0.0) >= q.min_score]
        return MemorySearchResult(
            query=text,
            mode=mode,
            limit=limit,
            as_of=q.as_of,
            hits=kept,
            clamped=clamped,
            truncated=bool(clamped),
            no_good_match=all(h.weak for h in hits),
            weak_below=weak_below,
            min_score=q.min_score,
            dropped_below=len(hits) - len(kept),
        )

    def _with_neighbours(
        self, hits: list[MemoryHit], filter_: dict[str, Any], deadline: Deadline
    ) -> list[MemoryHit]:
        """The hits with the turns around their windows that fit (archivist.search.neighbours)."""
        span, budget = self.settings.search_context_turns, self.settings.search_hit_max_chars
        wanted = neighbours_wanted(hits, budget)
        if not span or not wanted:
            return hits
        rows = self._timed(
            deadline,
            "archivist_turn_neighbours",
            {"chunk_ids": wanted, "filter": Json(filter_), "span": span},
        )
        return with_neighbours(hits, rows, span, budget)

    def archive_search(
        self,
        query: ArchiveFilters | None = None,
        deadline: Deadline | None = None,
        **options: Any,
    ) -> ArchiveSearchResult:
        """Versions matching every given filter, newest first (latest per session by default).
        `query` is an `ArchiveQuery`, or `ArchiveFilters` and the other fields as keyword
        arguments, or the keyword arguments alone."""
        q = build_query(ArchiveQuery, query, **options)
        deadline = deadline or Deadline(self.settings.search_timeout_s)
        clamped: dict[str, Clamp] = {}
        limit = _clamp("limit", q.limit, self.settings.archive_search_max_rows, clamped)
        asked = q
        if (
            not q.all_versions
            and "superseded" in q.item_statuses
            and "active" not in q.item_statuses
        ):
            # an item a later session replaced is still active in its own session's version
            asked = q.model_copy(update={"item_statuses": [*q.item_statuses, "active"]})
        rows = self._timed(
            deadline, "search_jarvis_archive", asked.as_arguments(limit, q.all_versions)
        )
        hits = [archive_hit(r) for r in rows]
        now_or_then = {"active", "superseded"} & set(q.item_statuses) or q.as_of is not None
        if not q.all_versions and now_or_then:
            hits = self._current_only(q, hits, deadline)
        return ArchiveSearchResult(limit=limit, hits=hits, clamped=clamped, truncated=bool(clamped))

    def _current_only(
        self, filters: ArchiveFilters, hits: list[ArchiveHit], deadline: Deadline
    ) -> list[ArchiveHit]:
        """`active` means current in the item's scope (a later session may have replaced it),
        `superseded` no longer current there (replaced in its session or a later one), and
        `as_of` the state as it stood then (sql/functions/current_state.sql): the items that
        are not, go; a hit its filter found by its items goes with its last one."""
        if not hits:
            return hits
        currency: dict[str, dict[str, bool]] = self._timed_value(
            deadline,
            "archivist_item_currency",
            {
                "p_session_ids": [h.session_id for h in hits],
                "p_user_id": filters.user_id,
                "p_as_of": filters.as_of,
            },
        )
        by_items = bool(filters.item_types or filters.item_statuses)
        kept = []
        for hit in hits:
            known = currency.get(hit.session_id, {})
            items = []
            for item in hit.state_items:
                current = known.get(item.uid)
                if filters.as_of is not None and current is None:
                    continue  # not said yet then
                if current and filters.as_of is not None and item.status == "superseded":
                    then = default_status(item.type)  # as it stood: nothing replaced it yet
                    item = item.model_copy(update={"status": then, "replaced_by": None})
                if filters.as_of is not None:  # done or answered only later: open then
                    then = status_as_of(item.type, item.status, item.last_seen_at, filters.as_of)
                    item = item.model_copy(update={"status": then})
                if current is False and item.status in ("active", "superseded"):
                    if filters.as_of is not None:
                        continue  # not true then
                    item = item.model_copy(update={"status": "superseded"})  # nor now
                if filters.item_statuses and item.status not in filters.item_statuses:
                    continue
                items.append(item)
            if by_items and not items:
                continue
            kept.append(hit.model_copy(update={"state_items": items}))
        return kept

    def search(self, query: str | HybridQuery, **options: Any) -> SearchResult:
        """Meaning first, then structured facts: chunk hits grouped by session, each session
        joined with its latest version, sessions kept only if they match the filters.
        `query` is a `HybridQuery`, or its words with the other fields as keyword arguments.

        The filters are resolved to at most ARCHIVE_MAX_ROWS sessions, the newest that match;
        when that many match, older ones are not searched and the result's `cut` says so.
        All three steps share one deadline.
        """
        q = build_query(HybridQuery, query, **options)
        deadline = Deadline(self.settings.search_timeout_s)
        sessions: list[str] = list(q.session_ids)
        cut = None
        if not q.empty:
            matching = self.archive_search(q.filters(), deadline, limit=ARCHIVE_MAX_ROWS)
            sessions = [h.session_id for h in matching.hits]
            if not sessions:
                return SearchResult(query=q.query, sessions=[])
            if len(sessions) >= ARCHIVE_MAX_ROWS:
                cut = FilterCut(
                    searched=len(sessions),
                    note=f"the filters matched {len(sessions)} sessions or more; only the "
                    f"newest {len(sessions)} were searched",
                )
        memory = self.memory_search(
            q.query,
            deadline,
            limit=q.limit,
            session_ids=sessions,
            mode=q.mode,
            user_id=q.user_id,
            as_of=q.as_of,
        )
        grouped: dict[str, list[MemoryHit]] = {}
        for hit in memory.hits:
            grouped.setdefault(hit.session_id, []).append(hit)
        latest = {}
        if grouped:
            found = self.archive_search(
                None,
                deadline,
                session_ids=list(grouped),
                user_id=q.user_id,
                as_of=q.as_of,
                limit=ARCHIVE_MAX_ROWS,
            )
            latest = {h.session_id: h for h in found.hits}
        matches = [
            SessionMatch(
                session_id=sid,
                best_similarity=max(
                    (h.similarity for h in hits if h.similarity is not None), default=None
                ),
                chunks=hits,
                latest=latest.get(sid),
            )
            for sid, hits in grouped.items()
        ]
        return SearchResult(
            query=memory.query,
            sessions=matches,
            clamped=memory.clamped,
            truncated=memory.truncated,
            cut=cut,
        )

    def _query_text(self, query: str, clamped: dict[str, Clamp]) -> str:
        text = clean_text(query).strip()
        if not text:
            raise ConfigError("the search query is empty")
        ceiling = self.settings.search_query_max_chars
        if len(text) > ceiling:
            clamped["query_chars"] = Clamp(requested=len(text), applied=ceiling)
            text = text[:ceiling]
        return text

    def _timed_value(self, deadline: Deadline, function: str, args: dict[str, Any]) -> Any:
        """`_timed` for a function that returns one JSON value."""
        return self._timed(deadline, function, args) or {}

    def _timed(self, deadline: Deadline, function: str, args: dict[str, Any]) -> list[Any]:
        """Call one search function under what is left of the deadline, as a statement timeout.

        Over REST the function's own `statement_timeout` (sql/policy.sql) bounds it in the database.
        """
        try:
            rows: list[Any] = self.store.call(function, timeout_ms=deadline.remaining_ms(), **args)
        except QueryTimeoutError:
            raise SearchTimeoutError(
                f"the search ran out of its {deadline.seconds:g} s in the database"
            ) from None
        return rows


def _excerpted(hit: MemoryHit, terms: list[str], budget: int) -> MemoryHit:
    """The hit with its content cut to an excerpt of about `budget` characters if longer."""
    if hit.content_chars <= budget:
        return hit
    starts = hit.metadata.get("turn_starts")
    turn_starts = [int(s) for s in starts] if isinstance(starts, list) else []
    return hit.model_copy(update={"content": excerpt(hit.content, turn_starts, terms, budget)})
