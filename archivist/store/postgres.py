"""The archive store on Postgres through psycopg 3: reads the bot's tables, commits versions.

Every value is a bound parameter; table and column names come from settings and go through
`psycopg.sql.Identifier`. Writes happen only in `archivist_commit_version` (sql/002), so a
session's version, chunks and watermark land together or not at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg import sql
from psycopg.abc import Buffer
from psycopg.adapt import Loader
from psycopg.conninfo import conninfo_to_dict
from psycopg.types.json import Jsonb

from archivist.config import SourceTables, redact, redact_url
from archivist.errors import ConcurrentUpdateError, ConfigError, StoreError
from archivist.models import Extraction, Message, SessionState, SessionSummary, Watermark
from archivist.store.migrate import apply_migrations, pending_migrations

Conn = psycopg.Connection[tuple[Any, ...]]

# SQL types a message id may have, and the cast that compares a stored watermark id with it.
_ID_CASTS = {
    "bigint": "bigint",
    "integer": "integer",
    "smallint": "smallint",
    "text": "text",
    "character varying": "text",
    "uuid": "uuid",
}
_LOCK_NAMESPACE = "archivist:session:"
# A message is dated when its created_at can order it: not NULL, not +/-infinity, not before
# year 1 (Python cannot hold it) and not over a year ahead (a broken clock). Undated messages
# are archived apart, in `undated:` slots, without moving the watermark.
_DATED = "m.{ts} BETWEEN '0001-01-02' AND now() + interval '1 year'"
_NO_LIMIT = 2**31 - 1


class _LenientTextLoader(Loader):
    """Text from a SQL_ASCII database, whose bytes may be in any encoding: read as UTF-8,
    invalid bytes kept as lone surrogates, which `sanitize.clean_text` replaces and reports."""

    def load(self, data: Buffer) -> str:
        return bytes(data).decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class EmbeddingConfig:
    model: str
    dim: int


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


def _identifier(name: str) -> sql.Identifier:
    return sql.Identifier(*name.split("."))


def connect(url: str, secrets: list[str]) -> Conn:
    """Open an autocommit connection, turning failures into one readable line.

    A URL that cannot be a connection string is a configuration error (exit 2); a database
    that cannot be reached is not.
    """
    _check_url(url, secrets)
    try:
        conn = psycopg.connect(
            url, autocommit=True, connect_timeout=10, application_name="archivist"
        )
        if conn.info.encoding == "ascii":  # SQL_ASCII: psycopg would hand out bytes
            for name in ("text", "varchar", "bpchar", "name"):
                conn.adapters.register_loader(name, _LenientTextLoader)
        return conn
    except psycopg.Error as exc:
        detail = redact(str(exc).strip().splitlines()[0] if str(exc).strip() else "", secrets)
        raise StoreError(
            f"cannot connect to the database at {redact(redact_url(url), secrets)}: {detail}"
        ) from None


def _check_url(url: str, secrets: list[str]) -> None:
    try:
        params = conninfo_to_dict(url)
    except psycopg.Error as exc:
        detail = redact(str(exc).strip(), [url, *secrets])
        raise ConfigError(f"DATABASE_URL is not a connection URL: {detail}") from None
    ports = str(params.get("port") or "").split(",")
    if not all(p.isdigit() or p == "" for p in ports):
        raise ConfigError(
            f"DATABASE_URL has a port that is not a number: {redact(redact_url(url), secrets)}"
        )


class PostgresStore:
    """The archivist's reads and writes on one Postgres connection."""

    def __init__(
        self, conn: Conn, sources: SourceTables, max_message_chars: int | None = None
    ) -> None:
        self.conn = conn
        self.sources = sources
        # Contents are cut in the query, so a huge message never reaches this process whole.
        self.max_message_chars = max_message_chars
        self._id_cast: sql.SQL | None = None
        self._summary_time: str | None = None
        self._has_summaries: bool | None = None

    def close(self) -> None:
        self.conn.close()

    # -- schema -----------------------------------------------------------------------------

    def init(self, wanted: EmbeddingConfig) -> tuple[list[str], EmbeddingConfig]:
        """Apply pending migrations; record the embedding model (while no chunk exists)."""
        applied = apply_migrations(self.conn)
        with self.conn.transaction():
            recorded = self.recorded_embedding()
            if recorded == wanted:
                return applied, wanted
            if recorded is not None and self._chunk_count() > 0:
                raise StoreError(
                    f"this database holds embeddings of {recorded.model} ({recorded.dim}-d); "
                    f"it cannot switch to {wanted.model} ({wanted.dim}-d) while chunks exist"
                )
            if self._embedding_column_type() != f"vector({wanted.dim})":
                # Changing the type resets the column's storage to the type's default.
                self.conn.execute(
                    sql.SQL(
                        "ALTER TABLE jarvis_memory_chunks ALTER COLUMN embedding TYPE vector({}), "
                        "ALTER COLUMN embedding SET STORAGE PLAIN"
                    ).format(sql.Literal(wanted.dim))
                )
            for key, value in (("embedding_model", wanted.model), ("embedding_dim", wanted.dim)):
                self.conn.execute(
                    "INSERT INTO archivist_meta (key, value) VALUES (%s, %s) ON CONFLICT (key) "
                    "DO UPDATE SET value = excluded.value, updated_at = now()",
                    [key, str(value)],
                )
        return applied, wanted

    def vector_extension(self) -> tuple[str | None, str | None]:
        """pgvector's installed version in this database and the version the server offers."""
        row = self.conn.execute(
            "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector'), "
            "(SELECT default_version FROM pg_available_extensions WHERE name = 'vector')"
        ).fetchone()
        return (row[0], row[1]) if row else (None, None)

    def index_names(self) -> set[str]:
        rows = self.conn.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename IN "
            "('jarvis_memory_chunks', 'jarvis_archive', 'jarvis_archive_sessions')"
        )
        return {str(r[0]) for r in rows}

    def pending_migrations(self) -> list[str]:
        return [m.name for m in pending_migrations(self.conn)]

    def recorded_embedding(self) -> EmbeddingConfig | None:
        """The embedding model and dimension recorded at init, if any."""
        if not self.conn.execute("SELECT to_regclass('archivist_meta')").fetchone()[0]:  # type: ignore[index]
            return None
        rows: dict[str, str] = dict(
            self.conn.execute(
                "SELECT key, value FROM archivist_meta WHERE key IN "
                "('embedding_model', 'embedding_dim')"
            ).fetchall()
        )
        if "embedding_model" not in rows or "embedding_dim" not in rows:
            return None
        return EmbeddingConfig(rows["embedding_model"], int(rows["embedding_dim"]))

    def check_ready(self, model: str) -> EmbeddingConfig:
        """Refuse to run on a database that is not initialised, or initialised for another model."""
        missing = self.pending_migrations()
        if missing:
            raise StoreError(
                f"the database lacks migrations {', '.join(missing)}; run: archivist init"
            )
        recorded = self.recorded_embedding()
        if recorded is None:
            raise StoreError("no embedding model is recorded in the database; run: archivist init")
        if recorded.model != model:
            raise StoreError(
                f"the database holds embeddings of {recorded.model} ({recorded.dim}-d) but "
                f"{model} is configured; set ARCHIVIST_EMBEDDING_MODEL={recorded.model} "
                "or use a database initialised for the new model"
            )
        return recorded

    def _embedding_column_type(self) -> str:
        row = self.conn.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = 'jarvis_memory_chunks'::regclass AND attname = 'embedding'"
        ).fetchone()
        return str(row[0]) if row else ""

    def _chunk_count(self) -> int:
        row = self.conn.execute("SELECT count(*) FROM jarvis_memory_chunks").fetchone()
        return int(row[0]) if row else 0

    # -- sources ----------------------------------------------------------------------------

    def pending_sessions(self, selection: SessionSelection) -> list[str]:
        """Sessions to look at, oldest unarchived activity first, at most `selection.limit`.

        Pending: messages past the watermark, more messages at or before the watermark than
        the archive covers (late arrivals), or a bot summary newer than the one archived.
        """
        if selection.session_ids:
            return list(dict.fromkeys(selection.session_ids))[: selection.limit]
        activity = sql.SQL("")
        params: dict[str, Any] = {"limit": selection.limit}
        if selection.active_within_days is not None:
            activity = sql.SQL(
                "AND m.{sid} IN (SELECT a.{sid} FROM {msgs} a "
                "WHERE a.{ts} >= now() - make_interval(days => %(days)s))"
            )
            params["days"] = selection.active_within_days
        names = self._message_names()
        query = sql.SQL(
            """
            SELECT session_id FROM (
                SELECT m.{sid}::text AS session_id, min(m.{ts}) AS oldest
                FROM {msgs} m
                LEFT JOIN jarvis_archive_sessions w ON w.session_id = m.{sid}::text
                WHERE {dated}
                  AND (w.watermark_at IS NULL
                       OR (m.{ts}, m.{mid}) > (w.watermark_at, w.watermark_id::{cast}))
                  {activity}
                GROUP BY 1
                UNION ALL
                SELECT m.{sid}::text, min(m.{ts})
                FROM {msgs} m
                JOIN jarvis_archive_sessions w ON w.session_id = m.{sid}::text
                WHERE w.watermark_at IS NOT NULL AND {dated}
                  AND (m.{ts}, m.{mid}) <= (w.watermark_at, w.watermark_id::{cast})
                  {activity}
                GROUP BY 1, w.message_count
                HAVING count(*) > w.message_count
                UNION ALL
                SELECT m.{sid}::text, NULL::timestamptz
                FROM {msgs} m
                WHERE NOT coalesce({dated}, false) AND NOT {covered}
                  {activity}
                GROUP BY 1
                {summaries}
            ) pending
            GROUP BY session_id
            ORDER BY min(oldest), session_id
            LIMIT %(limit)s
            """
        ).format(
            activity=activity.format(**names),
            summaries=self._changed_summaries_union(selection),
            **names,
        )
        return [str(r[0]) for r in self.conn.execute(query, params)]

    def _changed_summaries_union(self, selection: SessionSelection) -> sql.Composable:
        """Sessions whose bot summary changed since their last version (summary-only included)."""
        if not self._summaries_exist():
            return sql.SQL("")
        s = self.sources
        activity: sql.Composable = sql.SQL("")
        if selection.active_within_days is not None:
            activity = sql.SQL("AND ss.{ts} >= now() - make_interval(days => %(days)s)").format(
                ts=sql.Identifier(self._summary_timestamp_column())
            )
        return sql.SQL(
            """
            UNION ALL
            SELECT ss.{sid}::text, ss.{ts}
            FROM {sums} ss
            LEFT JOIN jarvis_archive_sessions w ON w.session_id = ss.{sid}::text
            WHERE ss.{ts} IS NOT NULL
              AND (w.session_id IS NULL OR w.summary_at IS NULL OR ss.{ts} > w.summary_at)
              {activity}
            """
        ).format(
            sid=sql.Identifier(s.summary_session_id),
            ts=sql.Identifier(self._summary_timestamp_column()),
            sums=_identifier(s.summaries_table),
            activity=activity,
        )

    def session_state(self, session_id: str) -> SessionState | None:
        """The latest committed version of a session, or None if it was never archived."""
        row = self.conn.execute(
            """
            SELECT w.latest_version, w.watermark_at, w.watermark_id, w.message_count,
                   w.summary_at, a.extraction
            FROM jarvis_archive_sessions w JOIN jarvis_archive a ON a.id = w.archive_id
            WHERE w.session_id = %s
            """,
            [session_id],
        ).fetchone()
        if row is None:
            return None
        version, wm_at, wm_id, count, summary_at, extraction = row
        return SessionState(
            session_id=session_id,
            version=version,
            watermark=Watermark(created_at=wm_at, message_id=wm_id) if wm_at else None,
            message_count=count,
            summary_at=summary_at,
            extraction=Extraction.model_validate(extraction),
        )

    def new_messages(self, session_id: str, after: Watermark | None, limit: int) -> list[Message]:
        """Up to `limit` messages after the watermark, in `(created_at, id)` order."""
        condition = sql.SQL("")
        params: dict[str, Any] = {"sid": session_id, "limit": limit}
        if after is not None:
            condition = sql.SQL("AND (m.{ts}, m.{mid}) > (%(at)s, %(id)s::{cast})")
            params.update(at=after.created_at, id=after.message_id)
        return self._messages(condition, "ASC", params)

    def count_up_to(self, session_id: str, upto: Watermark) -> int:
        """How many of the session's messages sit at or before the watermark."""
        query = sql.SQL(
            "SELECT count(*) FROM {msgs} m WHERE m.{sid} = %s AND {dated} "
            "AND (m.{ts}, m.{mid}) <= (%s, %s::{cast})"
        ).format(**self._message_names())
        row = self.conn.execute(query, [session_id, upto.created_at, upto.message_id]).fetchone()
        return int(row[0]) if row else 0

    def uncovered_up_to(self, session_id: str, upto: Watermark, limit: int) -> list[Message]:
        """Messages at or before the watermark that no turn chunk covers (late arrivals)."""
        condition = sql.SQL("AND (m.{ts}, m.{mid}) <= (%(at)s, %(id)s::{cast}) AND NOT {covered}")
        params = {"sid": session_id, "limit": limit, "at": upto.created_at, "id": upto.message_id}
        return self._messages(condition, "ASC", params)

    def undated_messages(self, session_id: str, uncovered_only: bool, limit: int) -> list[Message]:
        """Messages without a usable created_at (see `_DATED`), stamped with the time of reading.

        `uncovered_only`: only those no turn chunk covers yet (a rebuild wants them all).
        """
        condition = sql.SQL("AND NOT {covered}" if uncovered_only else "")
        return self._messages(condition, "ASC", {"sid": session_id, "limit": limit}, dated=False)

    def undated_uncovered(self) -> list[tuple[str, int]]:
        """Per session, the undated messages no turn chunk covers yet (for prune-check)."""
        query = sql.SQL(
            "SELECT m.{sid}::text, count(*) FROM {msgs} m "
            "WHERE NOT coalesce({dated}, false) AND NOT {covered} GROUP BY 1 ORDER BY 1"
        ).format(**self._message_names())
        return [(str(s), int(n)) for s, n in self.conn.execute(query)]

    def messages_by_ids(self, session_id: str, ids: Sequence[str]) -> list[Message]:
        """The session's messages with these ids, in `(created_at, id)` order."""
        condition = sql.SQL("AND m.{mid}::text = ANY(%(ids)s)")
        return self._messages(condition, "ASC", {"sid": session_id, "limit": len(ids), "ids": ids})

    def last_window(self, session_id: str) -> tuple[int, list[str]] | None:
        """The index of the session's last turn window and the message ids its chunks cover."""
        rows = self.conn.execute(
            """
            SELECT slot, metadata -> 'message_ids' FROM jarvis_memory_chunks
            WHERE session_id = %(sid)s AND slot = (
                SELECT max(slot) FROM jarvis_memory_chunks
                WHERE session_id = %(sid)s AND slot LIKE 'turns:%%')
            ORDER BY metadata ->> 'first_at', id
            """,
            {"sid": session_id},
        ).fetchall()
        if not rows:
            return None
        ids = list(dict.fromkeys(i for _, covered in rows for i in covered))
        return int(str(rows[0][0]).split(":", 1)[1]), ids

    def _messages(
        self, condition: sql.SQL, direction: str, params: dict[str, Any], dated: bool = True
    ) -> list[Message]:
        s = self.sources
        names = self._message_names()
        # One character past the limit, so that the cleaner sees and reports the cut.
        chars = _NO_LIMIT if self.max_message_chars is None else self.max_message_chars + 1
        query = sql.SQL(
            """
            SELECT m.{mid}::text, m.{role}::text, left(m.{content}::text, %(chars)s), {time}
            FROM {msgs} m
            WHERE m.{sid} = %(sid)s AND {which} {condition}
            ORDER BY m.{ts} {dir}, m.{mid} {dir}
            LIMIT %(limit)s
            """
        ).format(
            role=sql.Identifier(s.message_role),
            content=sql.Identifier(s.message_content),
            condition=condition.format(**names),
            dir=sql.SQL(direction),
            time=sql.SQL("m.{ts}" if dated else "now()").format(**names),
            which=sql.SQL("{dated}" if dated else "NOT coalesce({dated}, false)").format(**names),
            **names,
        )
        params = {**params, "chars": chars}
        session_id = str(params["sid"])
        return [
            Message(
                id=mid,
                session_id=session_id,
                role=role or "",
                content=content if content is not None else "",
                created_at=ts,
            )
            for mid, role, content, ts in self.conn.execute(query, params)
        ]

    def _message_names(self) -> dict[str, sql.Composable]:
        """Names for queries on the messages table aliased `m`, and two predicates on it."""
        s = self.sources
        names: dict[str, sql.Composable] = {
            "msgs": _identifier(s.messages_table),
            "sid": sql.Identifier(s.message_session_id),
            "ts": sql.Identifier(s.message_created_at),
            "mid": sql.Identifier(s.message_id),
            "cast": self._message_id_cast(),
        }
        names["dated"] = sql.SQL(_DATED).format(**names)
        names["covered"] = sql.SQL(
            "EXISTS (SELECT 1 FROM jarvis_memory_chunks c "
            "WHERE c.session_id = m.{sid}::text AND c.source = 'session_turn' "
            "AND c.metadata -> 'message_ids' ? m.{mid}::text)"
        ).format(**names)
        return names

    def uncovered_before(self, cutoff: datetime) -> list[tuple[str, int, datetime]]:
        """Per session, the messages older than `cutoff` that no committed chunk covers."""
        query = sql.SQL(
            """
            SELECT m.{sid}::text, count(*), min(m.{ts})
            FROM {msgs} m
            WHERE m.{ts} < %(cutoff)s AND {dated}
              AND NOT EXISTS (
                  SELECT 1 FROM jarvis_memory_chunks c
                  WHERE c.session_id = m.{sid}::text AND c.source = 'session_turn'
                    AND c.metadata -> 'message_ids' ? m.{mid}::text)
            GROUP BY 1
            ORDER BY 3, 1
            """
        ).format(**self._message_names())
        return [(str(s), int(n), t) for s, n, t in self.conn.execute(query, {"cutoff": cutoff})]

    def messages_before(self, cutoff: datetime) -> tuple[int, int]:
        """How many messages, in how many sessions, are older than `cutoff`."""
        query = sql.SQL(
            "SELECT count(*), count(DISTINCT m.{sid}) FROM {msgs} m WHERE m.{ts} < %s AND {dated}"
        ).format(**self._message_names())
        row = self.conn.execute(query, [cutoff]).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def watermarks(self, session_ids: Sequence[str]) -> dict[str, Watermark]:
        """The committed watermark of each of these sessions that has one."""
        rows = self.conn.execute(
            "SELECT session_id, watermark_at, watermark_id FROM jarvis_archive_sessions "
            "WHERE session_id = ANY(%s) AND watermark_at IS NOT NULL",
            [list(session_ids)],
        )
        return {s: Watermark(created_at=at, message_id=mid) for s, at, mid in rows}

    def start_run(self, arguments: dict[str, Any]) -> int:
        """Record a run as started; returns its id."""
        row = self.conn.execute(
            "INSERT INTO archivist_runs (arguments) VALUES (%s) RETURNING id", [Jsonb(arguments)]
        ).fetchone()
        assert row is not None
        return int(row[0])

    def finish_run(self, run_id: int, counts: dict[str, int], failures: dict[str, str]) -> None:
        """Record a run as finished, with its counts and each failed session's reason."""
        self.conn.execute(
            "UPDATE archivist_runs SET finished_at = now(), counts = %s, failures = %s "
            "WHERE id = %s",
            [Jsonb(counts), Jsonb(failures), run_id],
        )

    def recent_runs(self, limit: int) -> list[dict[str, Any]]:
        """The latest runs, newest first."""
        rows = self.conn.execute(
            "SELECT id, started_at, finished_at, arguments, counts, failures "
            "FROM archivist_runs ORDER BY started_at DESC, id DESC LIMIT %s",
            [limit],
        )
        names = ("id", "started_at", "finished_at", "arguments", "counts", "failures")
        return [dict(zip(names, row, strict=True)) for row in rows]

    def archived_session_count(self) -> int:
        row = self.conn.execute(
            "SELECT count(*) FROM jarvis_archive_sessions WHERE latest_version > 0"
        ).fetchone()
        return int(row[0]) if row else 0

    def session_summary(self, session_id: str) -> SessionSummary | None:
        """The bot's latest summary of the session, if the summaries table has one."""
        if not self._summaries_exist():
            return None
        s = self.sources
        query = sql.SQL(
            "SELECT ss.{text}::text, ss.{ts} FROM {sums} ss WHERE ss.{sid}::text = %s "
            "ORDER BY ss.{ts} DESC NULLS LAST LIMIT 1"
        ).format(
            text=sql.Identifier(s.summary_text),
            ts=sql.Identifier(self._summary_timestamp_column()),
            sums=_identifier(s.summaries_table),
            sid=sql.Identifier(s.summary_session_id),
        )
        row = self.conn.execute(query, [session_id]).fetchone()
        if row is None or row[0] is None:
            return None
        return SessionSummary(session_id=session_id, summary_text=row[0], updated_at=row[1])

    def _summaries_exist(self) -> bool:
        if self._has_summaries is None:
            row = self.conn.execute(
                "SELECT to_regclass(%s) IS NOT NULL", [self.sources.summaries_table]
            ).fetchone()
            self._has_summaries = bool(row and row[0])
        return self._has_summaries

    def _summary_timestamp_column(self) -> str:
        if self._summary_time is None:
            configured = self.sources.summary_updated_at
            columns = self._columns(self.sources.summaries_table)
            for candidate in [configured] if configured else ["updated_at", "created_at"]:
                if candidate in columns:
                    self._summary_time = candidate
                    break
            else:
                raise StoreError(
                    f"{self.sources.summaries_table} has no updated_at or created_at column; "
                    "set ARCHIVIST_SUMMARY_UPDATED_AT to its timestamp column"
                )
        return self._summary_time

    def _message_id_cast(self) -> sql.SQL:
        if self._id_cast is None:
            table, column = self.sources.messages_table, self.sources.message_id
            types = self._columns(table)
            if not types:
                raise StoreError(
                    f"source table {table} not found; create it or set "
                    "ARCHIVIST_MESSAGES_TABLE to the table holding the bot's messages"
                )
            if column not in types:
                raise StoreError(f"source table {table} has no column {column}")
            cast = _ID_CASTS.get(types[column])
            if cast is None:
                raise StoreError(f"{table}.{column} has unsupported type {types[column]}")
            self._id_cast = sql.SQL(cast)
        return self._id_cast

    def _columns(self, table: str) -> dict[str, str]:
        rows = self.conn.execute(
            "SELECT attname, format_type(atttypid, NULL) FROM pg_attribute "
            "WHERE attrelid = to_regclass(%s) AND attnum > 0 AND NOT attisdropped",
            [table],
        ).fetchall()
        return {str(name): str(typ) for name, typ in rows}

    # -- chunks and commits -----------------------------------------------------------------

    def chunk_ids(self, session_id: str, slots: Sequence[str] | None) -> dict[str, str]:
        """Ids of a session's chunks in the given slots (all slots if None), mapped to slot."""
        query = "SELECT id::text, slot FROM jarvis_memory_chunks WHERE session_id = %s"
        params: list[Any] = [session_id]
        if slots is not None:
            query += " AND slot = ANY(%s)"
            params.append(list(slots))
        return {str(i): str(slot) for i, slot in self.conn.execute(query, params)}

    @contextmanager
    def session_lock(self, session_id: str) -> Iterator[bool]:
        """Hold the session's advisory lock while the body runs; yields False if another has it."""
        key = _LOCK_NAMESPACE + session_id
        row = self.conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", [key])
        locked = bool(row.fetchone()[0])  # type: ignore[index]
        try:
            yield locked
        finally:
            if locked and not self.conn.closed:
                self.conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", [key])

    def commit_version(
        self,
        session_id: str,
        expected_version: int,
        version: dict[str, Any],
        chunks: list[dict[str, Any]],
        slots: list[str] | None,
        model: str,
    ) -> CommitResult:
        """Write a version, its chunks and the watermark in one transaction (sql/002)."""
        try:
            row = self.conn.execute(
                "SELECT * FROM archivist_commit_version(%s, %s, %s, %s, %s, %s)",
                [
                    session_id,
                    expected_version,
                    Jsonb(version, dumps=_dumps),
                    Jsonb(chunks, dumps=_dumps),
                    slots,
                    model,
                ],
            ).fetchone()
        except psycopg.errors.SerializationFailure as exc:
            raise ConcurrentUpdateError(
                f"session {session_id} was archived by another run meanwhile; nothing written"
            ) from exc
        assert row is not None
        return CommitResult(str(row[0]), int(row[1]), int(row[2]), int(row[3]))


def _dumps(value: Any) -> str:
    # Characters as UTF-8, not \u escapes: a SQL_ASCII database refuses escapes of non-ASCII.
    return json.dumps(value, separators=(",", ":"), default=str, ensure_ascii=False)
