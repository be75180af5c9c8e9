"""The demo: sample conversations loaded into an embedded database and archived.

It always uses an embedded database (under `<data_dir>/demo`), never `DATABASE_URL`, so it
cannot touch a real archive. Re-running it adds nothing: the samples are loaded once and the
second archive run finds nothing new. Read-only commands find the demo's database when no
database is configured (`archivist.store.embedded.reading_settings`), so the commands the
demo suggests work as printed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import resources
from typing import Any

from archivist.client import archive
from archivist.config import Settings
from archivist.embed.base import Embedder
from archivist.embed.configured import make_embedder
from archivist.embed.hashing import HashEmbedder
from archivist.errors import EmbedError
from archivist.models import Extraction, RunReport
from archivist.pipeline import ArchiveRequest
from archivist.source_tables import source_tables_sql
from archivist.store import (
    DEMO_FOLDER,
    PostgresStore,
    open_postgres_store,
    open_store,
    record_demo_embedding,
)

# The commands the demo suggests next: (command, what it shows). Each must work as printed.
NEXT_COMMANDS = (
    ('memory-search "Memcached"', "by meaning, the turns that match"),
    ("archive-search --type action --status open", "by structured fact: open actions"),
    ('search "deploy the frontend" --topic vercel', "both: sessions, then their chunks"),
    ("state dev-cache-memcached", "a session's state block for prompts"),
    ("history dev-cache-memcached", "its versions and what changed"),
    ("status", "what is archived and what waits"),
)


@dataclass
class DemoResult:
    embedder_note: str
    loaded_sessions: int
    report: RunReport
    extractions: list[Extraction]

    @property
    def next_commands(self) -> tuple[tuple[str, str], ...]:
        """What to run next, (arguments, what it shows): each works as printed."""
        return NEXT_COMMANDS


def sample_conversations() -> list[dict[str, Any]]:
    """The conversations shipped with the package, in file-name order."""
    folder = resources.files("archivist") / "samples"
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".json")), key=lambda f: f.name)
    return [json.loads(f.read_text(encoding="utf-8")) for f in files]


def run_demo(settings: Settings, note: Callable[[str], None]) -> DemoResult:
    """Load the samples (once), archive them, and return what was archived."""
    settings = settings.model_copy(
        update={
            "database_url": None,
            "supabase_url": None,
            "supabase_service_role_key": None,
            "data_dir": settings.data_dir / DEMO_FOLDER,
        }
    )
    embedder, embedder_note = _choose_embedder(settings)
    settings = settings.model_copy(update={"embedder": embedder.name})
    note(f"embedded database in {settings.data_dir}; {embedder_note}")
    conversations = sample_conversations()
    with open_postgres_store(settings, create=True) as store:
        loaded = _load_samples(store, conversations)
    report = archive(settings, ArchiveRequest(delay_ms=0), embedder=embedder)
    record_demo_embedding(settings)
    with open_store(settings) as store:
        states = [store.session_state(c["session_id"]) for c in conversations]
    return DemoResult(
        embedder_note, loaded, report, [s.extraction for s in states if s is not None]
    )


def _choose_embedder(settings: Settings) -> tuple[Embedder, str]:
    """Ollama when it answers and has the model; otherwise the offline `hash` embedder."""
    from archivist.embed.ollama import OllamaEmbedder  # the ollama client is slow to import

    ollama = make_embedder(settings.model_copy(update={"embedder": "ollama"}))
    assert isinstance(ollama, OllamaEmbedder)
    try:
        if ollama.has_model():
            return ollama, f"embedding with Ollama ({ollama.model})"
        reason = f"Ollama has no {ollama.model} (ollama pull {ollama.model})"
    except EmbedError:
        reason = f"Ollama is not reachable at {settings.ollama_host}"
    hashed = HashEmbedder(dimension=settings.embedding_dim)
    return hashed, f"{reason}: using the offline hash embedder (lexical, not semantic)"


def _load_samples(store: PostgresStore, conversations: list[dict[str, Any]]) -> int:
    """Insert sample sessions not loaded yet, shifted so they end in the last few days."""
    conn = store.conn
    loaded = 0
    with conn.transaction():
        conn.execute(source_tables_sql())
        present = {r[0] for r in conn.execute("SELECT DISTINCT session_id FROM session_messages")}
        now = datetime.now(UTC).replace(microsecond=0)
        for n, conv in enumerate(conversations):
            if conv["session_id"] in present:
                continue
            times = [datetime.fromisoformat(m["created_at"]) for m in conv["messages"]]
            shift = now - timedelta(hours=6 * (n + 1)) - max(times)
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO session_messages (session_id, role, content, created_at) "
                    "VALUES (%s, %s, %s, %s)",
                    [
                        (conv["session_id"], m["role"], m["content"], t + shift)
                        for m, t in zip(conv["messages"], times, strict=True)
                    ],
                )
            if conv.get("summary"):
                conn.execute(
                    "INSERT INTO session_summaries VALUES (%s, %s, %s) "
                    "ON CONFLICT (session_id) DO NOTHING",
                    [conv["session_id"], conv["summary"], max(times) + shift],
                )
            loaded += 1
    return loaded
