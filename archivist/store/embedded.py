"""The embedded default database: Postgres 16 with pgvector from the `pgserver` wheel."""

from __future__ import annotations

import json
import logging
import warnings
from pathlib import Path
from typing import Any

from archivist.config import EMBEDDING_SETTINGS, Settings
from archivist.errors import ConfigError, StoreError
from archivist.extras import needs_extra

log = logging.getLogger(__name__)

DEMO_FOLDER = "demo"
# Where `make demo` keeps its data (ARCHIVIST_DATA_DIR=$(CURDIR)/.archivist), relative to the
# folder it ran in.
MAKE_DEMO_DATA_DIR = Path(".archivist")
# The embedding settings the demo archived with, in its folder: a command that reads the demo
# without embedding settings of its own uses them (the dry run and doctor check the model).
DEMO_EMBEDDING_FILE = "embedding.json"


def pgserver_module() -> Any:
    """The `pgserver` package, or a usage error naming the `embedded` extra."""
    with (
        needs_extra("embedded", "The embedded database (no DATABASE_URL set)", ("pgserver",)),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
        import pgserver
    return pgserver


def start_embedded(data_dir: Path, create: bool = False) -> Any:
    """Start (or join) the embedded server whose data lives under `data_dir`; returns its handle.

    Only `create` makes a new one (init, a run that writes, the demo): a database made as a
    side effect of reading would be empty, and would hide the demo's from then on. The server
    stops when the last process holding a handle exits.
    """
    pgdata = data_dir / "pgdata"
    pgserver = pgserver_module()
    if not create and not embedded_exists(data_dir):
        demo = next(
            (
                d
                for d in (Path.cwd() / MAKE_DEMO_DATA_DIR / DEMO_FOLDER, data_dir / DEMO_FOLDER)
                if embedded_exists(d)
            ),
            None,
        )
        raise ConfigError(
            f"no database in {data_dir} (nothing was created); "
            + (
                f"the demo's is in {demo}, set ARCHIVIST_DATA_DIR={demo} to change it"
                if demo is not None
                else "run `archivist init` and `archivist archive` (or `archivist demo`), "
                "or set DATABASE_URL"
            )
        )
    try:
        pgdata.parent.mkdir(parents=True, exist_ok=True)
        _forget_dead_handles(pgdata)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server = pgserver.get_server(pgdata, cleanup_mode="stop")
    except Exception as exc:  # pgserver raises bare exceptions from its subprocess calls
        raise StoreError(
            f"cannot start the embedded database in {pgdata}: {exc}; "
            "set DATABASE_URL to use your own Postgres"
        ) from exc
    log.info("embedded Postgres at %s", pgdata)
    _STARTED.append(server)
    return server


# The servers this process holds a handle on (`stop_embedded`).
_STARTED: list[Any] = []
# Where pgserver lists the processes holding a handle on a server: the last one to exit stops
# it. A process killed (SIGKILL, a crash) never takes itself off, and the server then ran for
# good; ids of processes that are gone are dropped before a new handle is taken.
_HANDLES = ".handle_pids.json"


def _forget_dead_handles(pgdata: Path) -> None:
    import psutil  # (pgserver's own dependency)
    from pgserver.postgres_server import PostgresServer

    listed = pgdata / _HANDLES
    # under pgserver's own lock: a process taking or giving up a handle meanwhile is not lost
    with PostgresServer._lock:
        try:
            pids = json.loads(listed.read_text())
        except (OSError, ValueError):
            return  # no server yet, or a list pgserver will rewrite
        if not isinstance(pids, list):
            return
        alive = [p for p in pids if isinstance(p, int) and psutil.pid_exists(p)]
        if alive != pids:
            listed.write_text(json.dumps(alive))


def stop_embedded() -> None:
    """Give up this process's handles now (the server stops when it held the last one): for
    an exit that skips the interpreter's own clean-up (`os._exit`)."""
    while _STARTED:
        _STARTED.pop().cleanup()


def demo_data_dir(settings: Settings, cwd: Path) -> Path | None:
    """The demo's data folder, for a use that only reads, when no database is configured.

    Only when the settings name no database (no `DATABASE_URL`, no Supabase) and the embedded
    database in `data_dir` was never created: then the demo's under `data_dir`, or, when
    `data_dir` is not set, first the one `make demo` leaves in `./.archivist`.
    """
    if not settings.uses_embedded_database or embedded_exists(settings.data_dir):
        return None
    return _demo_beside(settings, cwd)


def _demo_beside(settings: Settings, cwd: Path) -> Path | None:
    """The demo's database under `data_dir`, or, when `data_dir` is not set, first the one
    `make demo` leaves in `./.archivist`."""
    candidates = [settings.data_dir / DEMO_FOLDER]
    if "data_dir" not in settings.model_fields_set:
        candidates.insert(0, cwd / MAKE_DEMO_DATA_DIR / DEMO_FOLDER)
    return next((c for c in candidates if embedded_exists(c)), None)


def reading_settings(settings: Settings, cwd: Path) -> tuple[Settings, str | None]:
    """The settings a use that only reads runs with, and a note when they are the demo's.

    Every reading path (the commands, `archivist mcp`, `Archivist.from_env()`) goes through
    here, so each finds the demo the same way and none creates a database.
    """
    demo = demo_data_dir(settings, cwd)
    if demo is None:
        return settings, _hidden_demo_note(settings, cwd)
    note = (
        f"no database configured: reading the demo database in {demo} (archivist demo); "
        "set DATABASE_URL or ARCHIVIST_DATA_DIR for yours"
    )
    update: dict[str, Any] = {"data_dir": demo}
    if not settings.model_fields_set.intersection(EMBEDDING_SETTINGS):
        update |= _demo_embedding(demo)
    return settings.model_copy(update=update), note


def _hidden_demo_note(settings: Settings, cwd: Path) -> str | None:
    """A note when the user's own embedded database is read while a demo's sits beside it:
    after `make demo` and a bare `archivist init`, every command would read the new, empty
    database without a word about the demo."""
    demo = _demo_beside(settings, cwd) if settings.uses_embedded_database else None
    if demo is None:
        return None
    return (
        f"reading the embedded database in {settings.data_dir}; the demo's is in {demo} "
        f"(ARCHIVIST_DATA_DIR={demo} reads it)"
    )


def schema_fix(settings: Settings, default: str) -> str:
    """How to bring the settings' database up to this version: `archivist init`, but for a
    demo's database its own command (init with no DATABASE_URL would make a new database
    beside it, not update it)."""
    if settings.uses_embedded_database and settings.data_dir.name == DEMO_FOLDER:
        return f"run: archivist demo --data-dir {settings.data_dir.parent}"
    return default


def record_demo_embedding(settings: Settings) -> None:
    """Note in the demo's folder (`settings.data_dir`) the embedding settings it archives with
    (the offline embedder names no model of its own)."""
    names = ["embedder", "embedding_dim"] + (
        ["embedding_model"] if settings.embedder != "hash" else []
    )
    (settings.data_dir / DEMO_EMBEDDING_FILE).write_text(
        json.dumps({name: getattr(settings, name) for name in names}), encoding="utf-8"
    )


def _demo_embedding(demo: Path) -> dict[str, Any]:
    """The embedding settings the demo in `demo` recorded (none for a demo made before it
    recorded them, or an unreadable note: then the configured ones apply, as before)."""
    try:
        found = json.loads((demo / DEMO_EMBEDDING_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(found, dict) or found.get("embedder") not in ("hash", "ollama"):
        return {}
    kept = {"embedder": found["embedder"]}
    if isinstance(model := found.get("embedding_model"), str) and model:
        kept["embedding_model"] = model
    if isinstance(dim := found.get("embedding_dim"), int) and dim > 0:
        kept["embedding_dim"] = dim
    return kept


def embedded_exists(data_dir: Path) -> bool:
    """Whether an embedded database was ever created under `data_dir`."""
    return (data_dir / "pgdata" / "PG_VERSION").is_file()


def embedded_url(server: Any) -> str:
    """The connection URL of an embedded server handle."""
    return str(server.get_uri())
