"""`archivist doctor`: checks every part the archivist needs, each with the fix when it fails.

Checks run in order and a failed prerequisite skips what depends on it (no database, no
schema checks), so the first failing line is the one to fix first.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pydantic import BaseModel

from archivist.config import DatabaseTimeouts, Settings, database_label
from archivist.embed.base import Embedder
from archivist.errors import ArchivistError
from archivist.failures import FailedSession
from archivist.store import AUTHENTICATED, EditedMigrationError, Store
from archivist.words import plural

if TYPE_CHECKING:  # the extractors load the rules: a doctor run loads them when it checks one
    from archivist.embed.ollama import OllamaEmbedder  # and the ollama client is slow to import
    from archivist.extract.base import Extractor
    from archivist.extract.llm import OllamaExtractor

T = TypeVar("T")

EXPECTED_INDEXES = (
    "jarvis_memory_chunks_embedding_idx",
    "jarvis_memory_chunks_session_idx",
    "jarvis_memory_chunks_fts_idx",
    "jarvis_memory_chunks_message_ids_idx",
    "jarvis_archive_extraction_idx",
    "jarvis_archive_sessions_archive_idx",
)


class Check(BaseModel):
    name: str
    ok: bool
    detail: str
    fix: str | None = None

    @property
    def fix_to_show(self) -> str | None:
        """The fix, unless the error already says it ("...; start it with `ollama serve`" needs
        no "-> start it: ollama serve" after it): what it says after its lead-in ("start it:",
        "run:") up to its first aside, found in the detail."""
        if self.ok or not self.fix:
            return None
        core = self.fix.rpartition(": ")[2].split(" (")[0].replace("`", "").strip()
        return None if core and core in self.detail.replace("`", "") else self.fix


class DoctorReport(BaseModel):
    checks: list[Check]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)


def run_doctor(
    settings: Settings,
    open_store: Callable[[], AbstractContextManager[Store]],
    embedder: Embedder,
    llm: Extractor | None = None,
) -> DoctorReport:
    """Run every check on the database `open_store` opens (the one `settings` describe), the
    embedder and the LLM extractor if one is configured; never raises for a failed check."""
    checks: list[Check] = []
    recorded_dim: int | None = None
    where = database_label(settings)  # first, so every line below is about that database
    try:
        with open_store() as store:
            checks.append(Check(name="database", ok=True, detail=f"{where}: reachable"))
            recorded_dim = _database_checks(store, settings, embedder.model, checks)
    except ArchivistError as exc:
        if settings.uses_supabase:
            fix = "check SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY (Project Settings > API)"
        elif settings.uses_embedded_database:
            fix = "run `archivist init` (or `archivist demo`), or set DATABASE_URL"
        else:
            fix = "set DATABASE_URL to a reachable Postgres with pgvector"
        said = str(exc)  # (its message may name the database already)
        detail = said if where in said else f"{where}: {said}"
        checks.append(Check(name="database", ok=False, detail=detail, fix=fix))
    _embedder_checks(embedder, recorded_dim, checks)
    if llm is not None:
        from archivist.extract.llm import OllamaExtractor

        if isinstance(llm, OllamaExtractor):
            _llm_check(llm, checks)
    return DoctorReport(checks=checks)


def _llm_check(extractor: OllamaExtractor, checks: list[Check]) -> None:
    """With `extractor = "ollama"`: is the chat model pulled? (Else every session uses rules.)"""
    present = _attempt(checks, "llm model pulled", extractor.has_model, "start it: ollama serve")
    if present is None:
        return
    checks[-1].ok = present
    checks[-1].detail = extractor.model + ("" if present else " is not in Ollama")
    if not present:
        checks[-1].fix = f"run: ollama pull {extractor.model} (until then the rules extract)"


PRINT_SQL_FIX = (
    "run `archivist init --print-sql` and execute its output in the Supabase SQL editor "
    "(DDL cannot go over REST)"
)


def _schema_checks(store: Store, settings: Settings, fix: str, checks: list[Check]) -> bool:
    """Migrations applied and unedited, functions and policy this version's; True if so."""
    try:
        pending = store.pending_migrations()
    except EditedMigrationError as exc:
        checks.append(Check(name="migrations", ok=False, detail=str(exc), fix=fix))
        return False
    if pending:
        detail = "missing: " + ", ".join(pending)
        checks.append(Check(name="migrations", ok=False, detail=detail, fix=fix))
        return False
    checks.append(Check(name="migrations", ok=True, detail="all applied"))
    current = store.functions_current()
    checks.append(
        Check(name="functions", ok=True, detail="this version's")
        if current
        else Check(name="functions", ok=False, detail="another version's", fix=fix)
    )
    if current:
        checks.append(_exposure_check(store.exposure(), fix))
        checks.append(_timeouts_check(store.function_timeouts(), settings, fix))
        checks.append(_users_check(store, settings, fix))
    return current


def _timeouts_check(applied: DatabaseTimeouts | None, settings: Settings, fix: str) -> Check:
    """Whether the functions carry the configured lock and statement timeouts."""
    wanted = settings.timeouts
    shown = f"lock {wanted.lock_ms / 1000:g} s, statement {wanted.statement_ms / 1000:g} s"
    if applied == wanted:
        return Check(name="timeouts", ok=True, detail=shown)
    had = (
        f"lock {applied.lock_ms / 1000:g} s, statement {applied.statement_ms / 1000:g} s"
        if applied
        else "none recorded"
    )
    return Check(
        name="timeouts",
        ok=False,
        detail=f"the functions have {had}; configured {shown}",
        fix=f"{fix} (the functions take lock_timeout_s and statement_timeout_s from it)",
    )


def _users_check(store: Store, settings: Settings, fix: str) -> Check:
    """Per-user memory: configured as the recorded access needs, and sessions with several users."""
    column = settings.sources.message_user_id
    access = store.access()
    if column is None:
        if access == AUTHENTICATED:
            return Check(
                name="users",
                ok=False,
                detail="signed-in users may read their own rows, but no user-id column is set",
                fix="set ARCHIVIST_MESSAGE_USER_ID, or close it: "
                + fix.replace("archivist init", "archivist init --private", 1),
            )
        return Check(name="users", ok=True, detail="not scoped (ARCHIVIST_MESSAGE_USER_ID unset)")
    count, sessions = store.multi_user_sessions(_SHOWN)
    detail = f"scoped by {column}; access: {access}"
    if count:
        more = f" and {count - len(sessions)} more" if count > len(sessions) else ""
        detail += (
            f"; {count} sessions carry several user ids, so what is archived of them has none "
            f"(only the service role reads it): {', '.join(sessions)}{more}"
        )
    return Check(name="users", ok=True, detail=detail)


_SHOWN = 6  # exposures named in the detail; the rest are counted


def _exposure_check(reach: list[dict[str, Any]], fix: str) -> Check:
    """Whether Supabase's anon or authenticated role can reach anything of the archivist
    (beyond what `init --allow-authenticated` opened, which is reported, not failed)."""
    exposure = [e for e in reach if not e.get("allowed")]
    if not exposure:
        detail = (
            "authenticated reads its own rows, under row level security, and calls the "
            "searches (init --allow-authenticated); nothing else"
            if reach
            else "anon and authenticated reach nothing"
        )
        return Check(name="exposure", ok=True, detail=detail)
    items = [
        f"{e['role']}: {e['privileges']} on {e['name']}"
        if e.get("role")
        else f"{e['name']}: no row level security"
        for e in exposure
    ]
    more = f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else ""
    return Check(
        name="exposure",
        ok=False,
        detail="; ".join(items[:_SHOWN]) + more,
        fix=f"{fix} (it revokes them and enables row level security)",
    )


def _database_checks(
    store: Store, settings: Settings, model: str, checks: list[Check]
) -> int | None:
    """pgvector, migrations, indexes and the recorded model; returns the recorded dimension."""
    if settings.uses_supabase:
        # Over REST the catalog is read through a migrated function: the schema comes first.
        if not _schema_checks(store, settings, PRINT_SQL_FIX, checks):
            return None
    installed, available = store.vector_extension()
    if installed is None:
        fix = (
            "run: archivist init (it creates the extension)"
            if available
            else "install pgvector on the server (Supabase: enable the vector extension)"
        )
        checks.append(Check(name="pgvector", ok=False, detail="not installed", fix=fix))
        return None
    iterative = tuple(int(p) for p in installed.split(".")[:2]) >= (0, 8)
    scans = "iterative index scans available" if iterative else "no iterative scans (< 0.8)"
    checks.append(Check(name="pgvector", ok=True, detail=f"version {installed}, {scans}"))
    if not settings.uses_supabase and not _schema_checks(
        store, settings, "run: archivist init", checks
    ):
        return None
    missing = sorted(set(EXPECTED_INDEXES) - store.index_names())
    checks.append(
        Check(name="indexes", ok=True, detail="all present")
        if not missing
        else Check(
            name="indexes",
            ok=False,
            detail="missing: " + ", ".join(missing),
            fix="recreate them from sql/001_schema.sql",
        )
    )
    checks.append(_quarantine_check(store.failed_sessions()))
    recorded = store.recorded_embedding()
    if recorded is None:
        checks.append(
            Check(
                name="embedding model",
                ok=False,
                detail="none recorded",
                fix="run: archivist init",
            )
        )
        return None
    same = recorded.model == model
    checks.append(
        Check(
            name="embedding model",
            ok=same,
            detail=f"recorded {recorded.model} ({recorded.dim}-d), configured {model}",
            fix=None if same else f"set {recorded.setting}",
        )
    )
    return recorded.dim


def _quarantine_check(failed: list[FailedSession]) -> Check:
    """Whether runs leave sessions out for good after failing again and again."""
    quarantined = [f for f in failed if f.quarantined]
    if not quarantined:
        backing_off = f"; {plural(len(failed), 'session')} failed their last run" if failed else ""
        return Check(name="quarantine", ok=True, detail=f"no session quarantined{backing_off}")
    shown = "; ".join(f"{f.session_id} ({f.failures} runs: {f.reason})" for f in quarantined[:3])
    more = f"; and {len(quarantined) - 3} more" if len(quarantined) > 3 else ""
    return Check(
        name="quarantine",
        ok=False,
        detail=f"{plural(len(quarantined), 'session')} left out of runs: {shown}{more}",
        fix="fix the cause, then archive each: archivist archive --session-id S",
    )


def _embedder_checks(embedder: Embedder, recorded_dim: int | None, checks: list[Check]) -> None:
    if embedder.name == "ollama":
        if not _ollama_has_model(cast("OllamaEmbedder", embedder), checks):
            return
    else:
        checks.append(
            Check(name="embedder", ok=True, detail=f"{embedder.model} (offline, lexical)")
        )
    dim = _attempt(checks, "probe embedding", lambda: len(embedder.embed_batch(["probe"])[0]), "")
    if dim is None:
        return
    fits = recorded_dim is None or dim == recorded_dim
    checks[-1].ok = fits
    checks[-1].detail = f"{dim}-d" + ("" if fits else f", the database stores {recorded_dim}-d")
    if not fits:
        checks[-1].fix = "use a model of the recorded dimension, or a database initialised for it"


def _ollama_has_model(embedder: OllamaEmbedder, checks: list[Check]) -> bool:
    """Whether Ollama answers and has the model; the checks say which failed."""
    present = _attempt(checks, "ollama", embedder.has_model, "start it: ollama serve")
    if present is None:
        return False
    checks[-1].detail = f"reachable at {embedder.host}"
    if not present:
        checks.append(
            Check(
                name="embedding model pulled",
                ok=False,
                detail=f"{embedder.model} is not in Ollama",
                fix=f"run: ollama pull {embedder.model}",
            )
        )
        return False
    checks.append(Check(name="embedding model pulled", ok=True, detail=embedder.model))
    return True


def _attempt(checks: list[Check], name: str, step: Callable[[], T], fix: str) -> T | None:
    """Run one check's step; record it as passed, or failed with its error and the fix."""
    try:
        result = step()
    except ArchivistError as exc:
        checks.append(Check(name=name, ok=False, detail=str(exc), fix=fix or None))
        return None
    checks.append(Check(name=name, ok=True, detail="ok"))
    return result
