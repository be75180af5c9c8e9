"""Data shapes shared by every layer: source rows, the v1 extraction, chunks and run reports.

The extraction models are the public contract other bots read from `jarvis_archive.extraction`;
`Extraction.model_json_schema()` exports it as JSON Schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from archivist.failures import FailedSession, UnarchivableSessions

# Roles, compared lower-cased and stripped: only these count as the user; the others are not
# part of the conversation (they contribute entities only).
USER_ROLES = frozenset({"user", "human"})
NON_CONVERSATIONAL_ROLES = frozenset({"system", "tool", "function", "developer", "ipython"})


class Message(BaseModel):
    """One row of `session_messages`, with the id as text whatever its SQL type."""

    model_config = ConfigDict(frozen=True)

    id: str
    session_id: str
    role: str
    content: str
    created_at: datetime
    # Computed by the database over the whole source text (content may arrive cut): its md5
    # and length, and what the archive recorded of the message when it archived it (None if
    # it never did). prune-check compares the same two; a version records the first.
    source_md5: str | None = None
    source_chars: int | None = None
    archived_md5: str | None = None
    archived_chars: int | None = None

    @property
    def archived_as_is(self) -> bool:
        """Whether the archive holds this text of the message (as far as it was read whole)."""
        return self.archived_md5 is not None and self.archived_md5 == self.source_md5


class SessionSummary(BaseModel):
    """The bot's own running summary of a session (`session_summaries`)."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    summary_text: str
    updated_at: datetime | None = None


class Watermark(BaseModel):
    """The last message a version covers: `(created_at, id)`, ties broken by id."""

    model_config = ConfigDict(frozen=True)

    created_at: datetime
    message_id: str


class Span(BaseModel):
    """Time range and size of the conversation a version covers."""

    first_turn_at: datetime | None = None
    last_turn_at: datetime | None = None
    turn_count: int = 0


class Decision(BaseModel):
    text: str
    context: str | None = None
    refs: list[str] = Field(
        default_factory=list,
        description="id of the message that stated it first (the rules extractor; none from "
        "the LLM extractor or in versions written before)",
    )


EntityType = Literal["tool", "product", "repo", "person", "url", "org", "project"]


class Entity(BaseModel):
    type: EntityType
    name: str
    key: str = Field(description="Normalised `type:slug`, e.g. `tool:vercel`.")
    refs: list[str] = Field(
        default_factory=list,
        description="ids of messages that named it: the first, then the latest (at most 4)",
    )


class Action(BaseModel):
    description: str
    outcome: str | None = Field(default=None, description="planned | done | blocked, or free text")
    refs: list[str] = Field(
        default_factory=list,
        description="ids of the message that stated it and, once done, of the one that said so "
        "(the rules extractor; none from the LLM extractor or in versions written before)",
    )


@dataclass(frozen=True)
class ExtractorRecord:
    """Which extractor produced a version; stored in the extraction JSON as `extractor`.

    `fallback_reason` is set when the LLM extractor failed for the session and the rules
    extractor produced the version instead (`name` is then "rules").
    """

    name: str  # "rules" | "ollama"
    version: str
    model: str | None = None
    prompt_version: str | None = None
    fallback_reason: str | None = None


# State items: typed, reconciled across versions (rules in `archivist.state`).
ChangeKind = Literal["added", "merged", "superseded", "conflict", "status", "ignored"]
ItemType = Literal["decision", "constraint", "action", "question", "risk", "fact"]
Confidence = Literal["low", "medium", "high"]
ItemStatus = Literal["active", "open", "blocked", "done", "answered", "superseded"]


class StateItem(BaseModel):
    """A reconciled item as stored in a version's `state_items`."""

    uid: str
    type: ItemType
    text: str
    status: str
    confidence: Confidence = "medium"
    topic_tags: list[str] = Field(default_factory=list)
    refs: list[str] = Field(default_factory=list)
    replaced_by: str | None = None
    supersession_evidence: dict[str, str] | None = None
    conflict: bool = False
    # The items of its session it conflicts with (their uids), so that a person sees the pair
    # and settling one side settles the other (`archivist resolve`).
    conflict_with: list[str] = Field(default_factory=list)
    pinned: bool = False
    created_at: datetime | None = None
    last_seen_at: datetime | None = None
    # What the item decides (`archivist.state.frames`): a later change on the same subject
    # supersedes it, in its session and across the sessions of its scope (sql/060).
    subject: str | None = None
    value: str | None = None
    change: str | None = None
    replaces: str | None = None


class StateChange(BaseModel):
    """One thing reconciliation did, for the dry run, the run report and the history."""

    kind: ChangeKind
    uid: str
    type: str
    text: str
    other_uid: str | None = None
    score: float | None = None
    status_from: str | None = None
    status_to: str | None = None
    evidence: dict[str, str] | None = None


class Extraction(BaseModel):
    """Version 1 of the structured extraction stored in `jarvis_archive.extraction`."""

    version: Literal[1] = 1
    session_id: str
    span: Span = Field(default_factory=Span)
    summary: str = ""
    summary_refs: list[str] = Field(
        default_factory=list,
        description="ids of the messages the summary's text was taken from, in its order: the "
        "request it opens with, then the messages that stated each decision and action it "
        "names (the rules extractor's summary). None for the bot's own summary or an LLM's, "
        "written from the whole conversation so far, nor in versions written before.",
    )
    opening_ref: str | None = Field(
        default=None,
        description="id of the message the summary's opening request was taken from (the "
        "rules extractor carries it to later versions with the opening)",
    )
    topics: list[str] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)
    actions: list[Action] = Field(default_factory=list)
    preferences_inferred: list[str] = Field(default_factory=list)
    extractor: ExtractorRecord | None = Field(
        default=None, description="The extractor that produced this version (absent in old ones)."
    )
    state_items: list[StateItem] = Field(
        default_factory=list,
        description="Typed state items (decision, constraint, action, question, risk, fact), "
        "superseded ones included; absent in versions written before state items existed.",
    )


ChunkSource = Literal["session_summary", "archive_extraction", "session_turn", "state_item"]


class Chunk(BaseModel):
    """A piece of text to embed. `id` derives from its content, so equal chunks collide on purpose.

    `slot` names the place a chunk fills in its session (`summary`, `extraction`,
    `turns:000012`): a new version replaces whole slots, which is how chunks that a version no
    longer has are found and removed.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    session_id: str
    source: ChunkSource
    slot: str
    content: str
    content_hash: str
    metadata: dict[str, object] = Field(default_factory=dict)


class SessionState(BaseModel):
    """What the archive already holds for a session: its latest version and watermark."""

    session_id: str
    version: int
    watermark: Watermark | None
    message_count: int
    summary_at: datetime | None
    extraction: Extraction


class ArchivedVersion(BaseModel):
    """One stored version of a session, as the state and history views read it."""

    version: int
    version_at: datetime
    extractor: str
    extraction: Extraction


SessionStatus = Literal["archived", "planned", "unchanged", "skipped", "failed"]


class SessionOutcome(BaseModel):
    """What one session's run did (or, in a dry run, would do)."""

    session_id: str
    status: SessionStatus
    version_from: int = 0
    version_to: int = 0
    new_messages: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_kept: int = Field(0, description="stored chunks kept as they were (not embedded again)")
    embed_calls: int = 0
    texts_embedded: int = 0
    seconds: float = Field(0.0, description="wall-clock time spent on the session")
    decisions: list[str] = Field(default_factory=list)
    topics: list[str] = Field(default_factory=list)
    clipped: dict[str, int] = Field(
        default_factory=dict, description="limit name -> how many values it clipped"
    )
    state_changes: list[StateChange] = Field(
        default_factory=list, description="what reconciliation did (or would do) to state items"
    )
    state_dropped: int = Field(0, description="candidates dropped: refs outside the batch")
    reason: str | None = None
    failures: int = Field(0, description="failed runs in a row, this one included (if failed)")
    quarantined: bool = Field(
        False, description="left out of runs from now on, until a run names it (if failed)"
    )
    user_id: str | None = Field(
        default=None, description="the session's user (ARCHIVIST_MESSAGE_USER_ID), if one"
    )
    multi_user: bool = Field(
        default=False,
        description="its messages carry several user ids: archived without one (service role)",
    )
    extractor_fallback: str | None = Field(
        default=None, description="why the LLM extractor's answer was not used, if it was not"
    )


class PassedOver(BaseModel):
    """Pending sessions a run's claims passed over without reading them."""

    held: int = Field(0, description="another worker held them")
    gone: int = Field(
        0, description="another worker archived them since they were listed (or they back off)"
    )


class RunReport(BaseModel):
    """The result of one `archive` run, rendered by the CLI or printed as JSON."""

    dry_run: bool
    embedder: str
    embedding_model: str
    started_at: datetime
    finished_at: datetime | None = None
    sessions: list[SessionOutcome] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    held: list[FailedSession] = Field(
        default_factory=list,
        description="sessions left out after failed runs: backing off, or quarantined",
    )
    unarchivable: UnarchivableSessions = Field(
        default_factory=UnarchivableSessions,
        description="pending sessions whose id is too long to archive",
    )
    error: str | None = Field(
        None, description="why the run stopped before it could finish (set only then)"
    )
    workers: int = Field(1, description="worker processes that shared the run (--workers)")
    interrupted: bool = Field(
        False,
        description="Ctrl-C or SIGTERM stopped the run before it finished; what it committed "
        "is kept (the run log's counts say `interrupted: 1`)",
    )
    passed_over: PassedOver = Field(default_factory=PassedOver)
    text_left_out: bool = Field(
        False,
        description="decisions, topics and state-change texts were left out (report files, "
        "unless report_text is set): ids and counts only",
    )

    @property
    def failed(self) -> list[SessionOutcome]:
        return [s for s in self.sessions if s.status == "failed"]

    def count(self, status: SessionStatus) -> int:
        return sum(1 for s in self.sessions if s.status == status)
