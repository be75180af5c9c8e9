"""The archive store: every read and write is a call of a SQL function (sql/functions/).

`Store` is built on one primitive, `Rpc.call(function, args)`, so the direct Postgres path
(`PsycopgRpc`) and the Supabase REST path (`SupabaseRpc`) run the same SQL. Writes happen only
in `archivist_commit_version` (sql/functions/commit.sql), so a session's version, chunks and
watermark land together or not at all. What only a direct connection can do is
`PostgresStore`'s (archivist.store.postgres).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from archivist.config import DatabaseTimeouts, Settings, SourceTables
from archivist.embed.base import Vector
from archivist.embed.hashing import hash_model
from archivist.errors import ConcurrentUpdateError, ConfigError, StoreError
from archivist.failures import FailedSession, UnarchivableSessions, escaped, storable
from archivist.models import (
    ArchivedVersion,
    Extraction,
    Message,
    SessionState,
    Watermark,
)
from archivist.store.migrate import AUTHENTICATED, functions_checksum, pending_migrations
from archivist.store.protocol import (
    LOCK_NOT_AVAILABLE,
    Json,
    LockTimeoutError,
    MissingFunctionError,
    Rpc,
    RpcError,
    Vectors,
)

INVALID_PARAMETER = "22023"  # SQLSTATE the functions raise for a request they refuse

_LOCK_TIMEOUT_DEFAULT: float = Settings.model_fields["lock_timeout_s"].default


@dataclass(frozen=True)
class EmbeddingConfig:
    model: str
    dim: int

    @property
    def setting(self) -> str:
        """The settings that configure this model and its dimension: `ARCHIVIST_EMBEDDER=hash`
        for the offline embedder's, else `ARCHIVIST_EMBEDDING_MODEL`."""
        if self.model != hash_model(self.dim):
            return f"ARCHIVIST_EMBEDDING_MODEL={self.model} and ARCHIVIST_EMBEDDING_DIM={self.dim}"
        return f"ARCHIVIST_EMBEDDER=hash and ARCHIVIST_EMBEDDING_DIM={self.dim}"


@dataclass(frozen=True)
class SessionSelection:
    """Which sessions a run considers: explicit ids, or those with unarchived activity."""

    session_ids: Sequence[str] = ()
    active_within_days: int | None = None
    limit: int = 50


@dataclass(frozen=True)
class CommitResult:
    archive_id: str
    version: int
    chunks_inserted: int
    chunks_deleted: int


@dataclass(frozen=True)
class Claim:
    """What a claim did (`claim_read`): the session it took (None: no candidate left), the 1-based
    position in the candidates of the one taken (or how many were looked at), and how many it
    passed over because another worker holds them, or has archived them since they were listed
    (or a failed run holds them back)."""

    session_id: str | None
    position: int
    held: int
    gone: int


def _claim(found: Mapping[str, Any]) -> Claim:
    session_id = found["session_id"]
    return Claim(
        session_id=None if session_id is None else str(session_id),
        position=int(found["position"]),
        held=int(found["held"]),
        gone=int(found["gone"]),
    )


class MigrationsMissingError(ConfigError):
    """The database lacks migrations, its functions are another version's, or `init` never
    recorded an embedding model."""


class ModelMismatchError(ConfigError):
    """The configured embedding model is not the one the database records."""


def _at(value: Any) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


def _at_or_none(value: Any) -> datetime | None:
    return None if value is None else _at(value)


class Store:
    """The archivist's reads and writes, as calls of its SQL functions over one transport."""

    def __init__(
        self, rpc: Rpc, sources: SourceTables, max_message_chars: int | None = None
    ) -> None:
        self.rpc = rpc
        self.sources = sources
        # Contents are cut in the query, so a huge message never reaches this process whole.
        self.max_message_chars = max_message_chars
        self._sources = Json(sources.model_dump())

    def close(self) -> None:
        self.rpc.close()

    @property
    def broken(self) -> bool:
        """True once the transport lost the database for good."""
        return self.rpc.broken

    def call(self, function: str, timeout_ms: int | None = None, **args: Any) -> Any:
        try:
            return self.rpc.call(function, args, timeout_ms)
        except RpcError as exc:
            raise self._lock_timeout(exc, args) from None

    def call_row(self, function: str, **args: Any) -> dict[str, Any] | None:
        """The first row of a set-returning function (see `Rpc.call_row`)."""
        try:
            return self.rpc.call_row(function, args)
        except RpcError as exc:
            raise self._lock_timeout(exc, args) from None

    def _lock_timeout(self, exc: RpcError, args: Mapping[str, Any]) -> RpcError:
        """A lock wait that gave up, naming who holds the lock; any other error as it is."""
        if exc.code != LOCK_NOT_AVAILABLE or self.rpc.broken:
            return exc
        holders = self._lock_holders(args.get("p_session_id"))
        return LockTimeoutError(
            f"waiting for a lock held by {holders}: gave up after lock_timeout_s "
            f"(ARCHIVIST_LOCK_TIMEOUT_S, {_LOCK_TIMEOUT_DEFAULT:g} s unless set)",
            exc.code,
        )

    def _lock_holders(self, session_id: Any) -> str:
        """Who holds what a call waited for, as `pid N` (looked up after it gave up)."""
        try:
            pids = self.rpc.call(
                "archivist_lock_holders",
                {"p_sources": self._sources, "p_session_id": session_id},
                None,
            )
        except RpcError:
            pids = []
        if not pids:
            return "another session (it let go before it could be named)"
        return ", ".join(f"pid {p}" for p in pids)

    # -- schema -----------------------------------------------------------------------------

    # How to bring the schema up to date over this transport (REST cannot run DDL).
    schema_fix = (
        "this transport cannot apply them: run `archivist init --print-sql` and execute its "
        "output in the Supabase SQL editor (or add it to supabase/migrations/), then run init "
        "again"
    )

    def init(
        self, wanted: EmbeddingConfig, access: str | None = None
    ) -> tuple[list[str], EmbeddingConfig]:
        """Check that the schema is this version's, and `access` (if given) the one recorded;
        record the embedding model (no chunk yet)."""
        self.require_current_schema()
        recorded = self.rpc.schema_records().access
        if access is not None and access != recorded:
            flag = "--allow-authenticated" if access == AUTHENTICATED else "--private"
            raise MigrationsMissingError(
                f"the archive's access is {recorded}, not {access}; this transport cannot "
                f"change it: run `archivist init --print-sql {flag}` and execute its output in "
                "the Supabase SQL editor, then run init again"
            )
        self._record_embedding(wanted)
        self.adopt_archived_messages()
        return [], wanted

    def access(self) -> str:
        """Who may read the archive, as recorded: private, or authenticated (per user)."""
        return self.rpc.schema_records().access

    def require_current_schema(self) -> None:
        """Raise MigrationsMissingError, naming the fix, unless migrations and functions match."""
        problem = self.schema_problem()
        if problem:
            raise MigrationsMissingError(f"{problem}; {self.schema_fix}")

    def schema_problem(self) -> str | None:
        """What the database lacks of this version's SQL, or None if nothing."""
        records = self.rpc.schema_records()
        missing = [m.name for m in pending_migrations(records.migrations)]
        if missing:
            return f"the database lacks migrations {', '.join(missing)}"
        if records.functions != functions_checksum():
            return (
                "the database's SQL functions are not this version's (sql/functions/, "
                "sql/policy.sql)"
            )
        return None

    def _record_embedding(self, wanted: EmbeddingConfig) -> None:
        try:
            self.call("archivist_record_embedding", p_model=wanted.model, p_dim=wanted.dim)
        except RpcError as exc:
            raise self.refused_switch(exc, wanted) from None

    def refused_switch(self, exc: RpcError, wanted: EmbeddingConfig) -> Exception:
        """A refusal to record `wanted` while chunks of the recorded model exist, as the
        settings error it is (exit 2) with both ways out; any other error as it is."""
        recorded = self.recorded_embedding() if exc.code == INVALID_PARAMETER else None
        if recorded is None:
            return exc
        return ModelMismatchError(
            f"{exc}; set {recorded.setting}, or move the database to {wanted.model} with: "
            f"archivist reembed --model {wanted.model} --dim {wanted.dim}"
        )

    def _schema_info(self) -> dict[str, Any] | None:
        try:
            info: dict[str, Any] = self.call("archivist_schema_info")
        except MissingFunctionError:
            return None
        return info

    def vector_extension(self) -> tuple[str | None, str | None]:
        """pgvector's installed version in this database and the version the server offers."""
        info = self._schema_info() or {}
        return info.get("vector_installed"), info.get("vector_available")

    def exposure(self) -> list[dict[str, Any]]:
        """What Supabase's anon and authenticated roles can reach of the archivist (see doctor)."""
        found: list[dict[str, Any]] = self.call("archivist_exposure")
        return found

    def index_names(self) -> set[str]:
        return set((self._schema_info() or {}).get("indexes", []))

    def pending_migrations(self) -> list[str]:
        """Migrations not applied yet; raises EditedMigrationError if an applied one changed."""
        return [m.name for m in pending_migrations(self.rpc.schema_records().migrations)]

    def functions_current(self) -> bool:
        """Whether the database's functions and policy are this version's."""
        return self.rpc.schema_records().functions == functions_checksum()

    def function_timeouts(self) -> DatabaseTimeouts | None:
        """The lock and statement timeouts `init` gave the functions, if recorded."""
        found = (self._schema_info() or {}).get("function_timeouts")
        if not found:
            return None
        return DatabaseTimeouts(int(found["lock_ms"]), int(found["statement_ms"]))

    def recorded_embedding(self) -> EmbeddingConfig | None:
        """The embedding model and dimension recorded at init, if any."""
        info = self._schema_info()
        if not info or info.get("embedding_model") is None or info.get("embedding_dim") is None:
            return None
        return EmbeddingConfig(str(info["embedding_model"]), int(info["embedding_dim"]))

    def check_ready(self, model: str | None = None) -> EmbeddingConfig:
        """Refuse a database that is not initialised, or initialised for another model.

        `model` None: the caller embeds nothing (status, state, history, prune-check), so any
        recorded model will do. Every refusal is a configuration error (exit code 2).
        """
        self.require_current_schema()
        recorded = self.recorded_embedding()
        if recorded is None:
            raise MigrationsMissingError(
                "no embedding model is recorded in the database; run: archivist init"
            )
        if model is not None and recorded.model != model and not self.archived_session_count():
            raise ModelMismatchError(
                f"the database records {recorded.model} ({recorded.dim}-d) but {model} is "
                f"configured; nothing is archived yet, so record {model} with: "
                f"{_init_command(model)}"
            )
        if model is not None and recorded.model != model:
            raise ModelMismatchError(
                f"the database holds embeddings of {recorded.model} ({recorded.dim}-d) but "
                f"{model} is configured; set {recorded.setting}, "
                f"or move the database to {model} with: archivist reembed --model {model}"
            )
        return recorded

    # -- sources ----------------------------------------------------------------------------

    def pending_sessions(self, selection: SessionSelection) -> list[str]:
        """Sessions to look at, oldest unarchived activity first, at most `selection.limit`.

        Pending: messages past the watermark, messages at or before it that no version archived
        (late arrivals), archived messages whose text changed, undated messages not archived,
        or a bot summary newer than the one archived.
        """
        return self.pending_work(selection)[0]

    def pending_work(self, selection: SessionSelection) -> tuple[list[str], UnarchivableSessions]:
        """The sessions `pending_sessions` returns, and the pending ones left out because
        their id is too long to archive. Sessions backing off or quarantined after failed runs
        are left out too, unless named."""
        if selection.session_ids:
            return list(dict.fromkeys(selection.session_ids))[: selection.limit], (
                UnarchivableSessions()
            )
        found = self.call(
            "archivist_pending_sessions",
            p_sources=self._sources,
            p_active_days=selection.active_within_days,
            p_limit=selection.limit,
            p_max_chars=self.max_message_chars,
        )
        sessions, unstorable = _storable_ids([str(i) for i in found["sessions"]])
        return sessions, _unarchivable(found, unstorable)

    def pending_claims(
        self, selection: SessionSelection
    ) -> tuple[list[tuple[str, int]], UnarchivableSessions]:
        """The sessions `pending_work` returns, each with the version the archive had when it
        was listed: the candidates `claim_read` takes (sql/functions/claims.sql)."""
        found = self.call(
            "archivist_pending_claims",
            p_sources=self._sources,
            p_active_days=selection.active_within_days,
            p_limit=selection.limit,
            p_max_chars=self.max_message_chars,
        )
        versions = {str(s): int(v) for s, v in found["sessions"]}
        sessions, unstorable = _storable_ids(list(versions))
        return [(s, versions[s]) for s in sessions], _unarchivable(found, unstorable)

    def archived_claims(self, selection: SessionSelection) -> list[tuple[str, int]]:
        """The archived sessions (of `selection`'s activity window, up to its limit) with their
        latest versions: the candidates of a rebuild of every archived session."""
        found = self.call(
            "archivist_archived_claims",
            p_active_days=selection.active_within_days,
            p_limit=selection.limit,
        )
        return [(str(s), int(v)) for s, v in found["sessions"]]

    def claim_next(self, candidates: Sequence[tuple[str, int]]) -> Claim:
        """Take the first candidate nobody holds that still has its work, without reading it
        (`claim_read` without the read)."""
        return _claim(
            self.call(
                "archivist_claim_next",
                p_candidates=Json([[s, v] for s, v in candidates]),
                p_owner=self.rpc.lock_owner,
                p_ttl_s=self.rpc.claim_ttl_s,
            )
        )

    def claim_read(
        self,
        candidates: Sequence[tuple[str, int]],
        rebuild: bool,
        limit: int,
        model: str,
        window: int,
    ) -> tuple[Claim, dict[str, Any] | None]:
        """Take the first candidate nobody holds that still has its work, and read it as
        `read_session` does, in one call (sql/functions/claims.sql). The read row is None when
        no candidate was left; else the caller lets the session go (`let_go_session`) once its
        commit has committed."""
        row = self.call_row(
            "archivist_claim_read",
            p_candidates=Json([[s, v] for s, v in candidates]),
            **self._reading(rebuild, limit, model, window),
        )
        if row is None:
            raise StoreError("archivist_claim_read returned nothing")
        claim = _claim(row["claim"])
        return claim, (row if claim.session_id is not None else None)

    def failed_sessions(self) -> list[FailedSession]:
        """Every session with failed runs in a row, quarantined first."""
        rows = self.call("archivist_failed_sessions")
        return [FailedSession.model_validate(r) for r in rows]

    def record_failure(
        self, session_id: str, reason: str, backoff_s: float, quarantine_after: int
    ) -> FailedSession:
        """Count a failed run of the session and hold it back (see archivist.failures)."""
        row = self.call(
            "archivist_record_failure",
            p_session_id=session_id,
            p_reason=reason,
            p_backoff_s=backoff_s,
            p_quarantine_after=quarantine_after,
        )
        return FailedSession.model_validate(row)

    def clear_failure(self, session_id: str) -> None:
        """Forget the session's failed runs (it has nothing left to archive)."""
        self.call("archivist_clear_failure", p_session_id=session_id)

    def session_state(self, session_id: str) -> SessionState | None:
        """The latest committed version of a session, or None if it was never archived."""
        row = self.call("archivist_session_state", p_session_id=session_id)
        return session_state_from_row(session_id, row) if row is not None else None

    def versions(self, session_id: str, limit: int) -> list[ArchivedVersion]:
        """The session's last `limit` versions, oldest first, with their extractions."""
        rows = self.call("archivist_versions", p_session_id=session_id, p_limit=limit)
        return [
            ArchivedVersion(
                version=row["version"],
                version_at=_at(row["version_at"]),
                extractor=f"{row['extractor']}/{row['extractor_version']}",
                extraction=Extraction.model_validate(row["extraction"]),
            )
            for row in rows
        ]

    def earlier_turns(
        self,
        user_id: str,
        session_id: str,
        labels: Sequence[str],
        words: Sequence[str],
        detail: Sequence[str],
        limit: int,
    ) -> list[dict[str, Any]]:
        """The turn chunks of the user's other sessions with a turn starting with one of
        `labels` and every one of `words`, those with most of `detail` first:
        {session_id, content, message_ids, turn_starts, first_at}."""
        rows: list[dict[str, Any]] = self.call(
            "archivist_earlier_turns",
            p_user_id=user_id,
            p_session_id=session_id,
            p_labels=list(labels),
            p_words=list(words),
            p_detail=list(detail),
            p_limit=limit,
        )
        return rows

    def turns_of(self, user_id: str, message_ids: Sequence[str]) -> list[dict[str, Any]]:
        """The user's turn chunks holding any of `message_ids` (the first 64), as
        `earlier_turns` returns them."""
        rows: list[dict[str, Any]] = self.call(
            "archivist_turns_of", p_user_id=user_id, p_message_ids=list(message_ids)
        )
        return rows

    def undated_uncovered(self) -> list[tuple[str, int]]:
        """Per session, the undated messages no turn chunk covers yet (for prune-check)."""
        rows = self.call("archivist_undated_uncovered", p_sources=self._sources)
        return [(str(r["session_id"]), int(r["count"])) for r in rows]

    def messages_at_risk(self, cutoff: datetime, max_ids: int) -> list[dict[str, Any]]:
        """Per session, the dated messages older than `cutoff` whose current text the archive
        does not hold whole: counts by reason (unarchived, edited, truncated) and up to
        `max_ids` ids of each, oldest session first."""
        rows: list[dict[str, Any]] = self.call(
            "archivist_messages_at_risk",
            p_sources=self._sources,
            p_cutoff=cutoff,
            p_max_ids=max_ids,
        )
        for row in rows:
            row["oldest"] = _at(row["oldest"])
        return rows

    def pruned_count(self, session_id: str) -> int:
        """How many messages the archive holds of the session that its source no longer has."""
        count = self.call(
            "archivist_pruned_count", p_sources=self._sources, p_session_id=session_id
        )
        return int(count or 0)

    def adopt_archived_messages(self) -> int:
        """Record the text of messages archived before per-message hashes existed (once)."""
        count = self.call(
            "archivist_adopt_archived_messages",
            p_sources=self._sources,
            p_max_chars=self.max_message_chars,
        )
        return int(count or 0)

    def forget(
        self,
        session_ids: Sequence[str],
        user_id: str | None,
        message_ids: Sequence[str],
        dry_run: bool,
    ) -> dict[str, Any]:
        """Erase sessions, a user's data or messages from every archivist table, in one
        transaction, leaving tombstones (sql/functions/forget.sql); dry: only count."""
        try:
            found: dict[str, Any] = self.call(
                "archivist_forget",
                p_sources=self._sources,
                p_session_ids=list(session_ids),
                p_user_id=user_id,
                p_message_ids=list(message_ids),
                p_dry_run=dry_run,
            )
        except RpcError as exc:
            if exc.code == INVALID_PARAMETER:  # an unknown message, a session it would lose
                raise ConfigError(str(exc)) from None
            raise
        return found

    def forgotten_before(self, cutoff: datetime) -> tuple[int, int]:
        """How many source messages older than `cutoff`, in how many sessions, were forgotten."""
        row = self.call("archivist_forgotten_before", p_sources=self._sources, p_cutoff=cutoff)
        return int(row["messages"]), int(row["sessions"])

    def messages_before(self, cutoff: datetime) -> tuple[int, int]:
        """How many messages, in how many sessions, are older than `cutoff`."""
        row = self.call("archivist_messages_before", p_sources=self._sources, p_cutoff=cutoff)
        return int(row["messages"]), int(row["sessions"])

    def watermarks(self, session_ids: Sequence[str]) -> dict[str, Watermark]:
        """The committed watermark of each of these sessions that has one."""
        rows: Mapping[str, Any] = self.call("archivist_watermarks", p_session_ids=list(session_ids))
        return {s: Watermark.model_validate(w) for s, w in rows.items()}

    def start_run(self, arguments: dict[str, Any]) -> int:
        """Record a run as started; returns its id."""
        return int(self.call("archivist_start_run", p_arguments=Json(arguments)))

    def finish_run(self, run_id: int, counts: dict[str, int], failures: dict[str, str]) -> None:
        """Record a run as finished, with its counts and each failed session's reason."""
        self.call(
            "archivist_finish_run",
            p_run_id=run_id,
            p_counts=Json(counts),
            p_failures=Json(failures),
        )

    def recent_runs(self, limit: int) -> list[dict[str, Any]]:
        """The latest runs, newest first."""
        rows: list[dict[str, Any]] = self.call("archivist_recent_runs", p_limit=limit)
        for row in rows:
            row["started_at"] = _at(row["started_at"])
            row["finished_at"] = _at_or_none(row["finished_at"])
        return rows

    def archived_session_count(self) -> int:
        return int(self.call("archivist_archived_session_count"))

    def session_forgotten(self, session_id: str) -> bool:
        """Whether `forget` erased the session: no run archives it again."""
        return bool(self.call("archivist_session_forgotten", p_session_id=session_id))

    # -- chunks and commits -----------------------------------------------------------------

    def multi_user_sessions(self, limit: int) -> tuple[int, list[str]]:
        """How many sessions had several users (their rows have none), and the first `limit`."""
        row = self.call("archivist_multi_user_sessions", p_limit=limit)
        return int(row["count"]), [str(s) for s in row["sessions"]]

    def read_session(
        self, session_id: str, rebuild: bool, limit: int, model: str, window: int
    ) -> dict[str, Any]:
        """Take the session and read what its next version needs, in one call
        (`archivist_read_session`, sql/functions/session.sql): its row, as the transport
        decodes it. Unless it says `taken` false, the caller lets the session go afterwards
        (`let_go_session`), once its commit has committed."""
        row = self.call_row(
            "archivist_read_session",
            p_session_id=session_id,
            **self._reading(rebuild, limit, model, window),
        )
        if row is None:
            raise StoreError(f"archivist_read_session returned nothing for {session_id}")
        return row

    def _reading(self, rebuild: bool, limit: int, model: str, window: int) -> dict[str, Any]:
        """The arguments of a session read, taken by name (`read_session`) or as the first
        free candidate (`claim_read`)."""
        return {
            "p_sources": self._sources,
            "p_rebuild": rebuild,
            "p_limit": limit,
            "p_max_chars": self.max_message_chars,
            "p_model": model,
            "p_window": window,
            "p_owner": self.rpc.lock_owner,
            "p_ttl_s": self.rpc.claim_ttl_s,
        }

    def let_go_session(self, session_id: str) -> None:
        """Let go of a session `read_session` took."""
        self.call("archivist_let_go_session", p_session_id=session_id, p_owner=self.rpc.lock_owner)

    def commit_version(
        self,
        session_id: str,
        expected_version: int,
        version: dict[str, Any],
        chunks: list[dict[str, Any]],
        slots: list[str] | None,
        model: str,
        vectors: Sequence[Vector] = (),
    ) -> CommitResult:
        """Write a version, its chunks and the watermark in one transaction (one call).

        `vectors`: the vectors the chunks name by position (`vector`, 1-based), sent as one
        binary `vector[]` on a direct connection.
        """
        try:
            rows = self.call(
                "archivist_commit_version",
                p_session_id=session_id,
                p_expected_version=expected_version,
                p_version=Json(version),
                p_chunks=Json(chunks),
                p_slots=slots,
                p_embedding_model=model,
                p_vectors=Vectors(vectors),
            )
        except RpcError as exc:
            if exc.code == "40001":
                raise ConcurrentUpdateError(
                    f"session {session_id} was archived by another run meanwhile; nothing written"
                ) from exc
            raise
        row = rows[0]
        return CommitResult(
            str(row["archive_id"]),
            int(row["version"]),
            int(row["chunks_inserted"]),
            int(row["chunks_deleted"]),
        )


def message_from_row(session_id: str, r: Mapping[str, Any]) -> Message:
    """A message as `archivist_read_messages` returns it (a JSON object)."""
    return Message(
        id=r["id"],
        session_id=session_id,
        role=r["role"] or "",
        content=r["content"] if r["content"] is not None else "",
        created_at=r["created_at"],
        source_md5=r.get("md5"),
        source_chars=r.get("chars"),
        archived_md5=r.get("archived_md5"),
        archived_chars=r.get("archived_chars"),
    )


def session_state_from_row(session_id: str, row: Mapping[str, Any]) -> SessionState:
    """A session's latest version as `archivist_session_state` returns it (a JSON object)."""
    return SessionState(
        session_id=session_id,
        version=row["version"],
        watermark=(
            Watermark(created_at=row["watermark_at"], message_id=row["watermark_id"])
            if row["watermark_at"]
            else None
        ),
        message_count=row["message_count"],
        summary_at=row["summary_at"],
        extraction=Extraction.model_validate(row["extraction"]),
    )


def _init_command(model: str) -> str:
    """The `init` that records `model` (the offline embedder's name carries its dimension)."""
    if model.startswith("hash-") and model[5:].isdigit():
        dim = model[5:]
        return "archivist init --embedder hash" + (
            "" if dim == "768" else f" --embedding-dim {dim}"
        )
    return f"archivist init --embedding-model {model} --embedding-dim <its dimension>"


def _storable_ids(session_ids: list[str]) -> tuple[list[str], list[str]]:
    """The ids the archive can store (`failures.storable`), and those it cannot."""
    return [i for i in session_ids if storable(i)], [i for i in session_ids if not storable(i)]


def _unarchivable(found: dict[str, Any], unstorable: list[str]) -> UnarchivableSessions:
    """The sessions a pending listing found but cannot archive: ids too long to hold, and
    `unstorable` ones (shown with their invalid bytes as \\xNN)."""
    return UnarchivableSessions(
        count=int(found["unarchivable_count"]) + len(unstorable),
        examples=[
            f"{u['session_id']} ({u['bytes']} bytes)"
            if u["session_id"] is not None
            else "messages without a session id"
            for u in found["unarchivable"]
        ]
        + [f"{escaped(session_id)} (not UTF-8)" for session_id in unstorable[:5]],
    )
