"""The settings reference (`docs/settings.md`), generated from the settings model.

Names, environment variables, types, allowed values, bounds and defaults come from
`archivist.config.Settings` itself; only the one-line meanings are written here, and a setting
without one is an error, so a new setting cannot reach the reference undescribed.
`tests/unit/test_settings_doc.py` fails while `docs/settings.md` differs from what this renders;
`python -m archivist.settings_doc --write` (or `make docs`) rewrites it.
"""

from __future__ import annotations

import sys
import typing
from pathlib import Path
from typing import Any

from annotated_types import Ge, Gt, Le, Lt, MinLen
from pydantic.fields import FieldInfo

from archivist.config import ENV_ALIASES, Settings, SourceTables

DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "settings.md"

MEANINGS: dict[str, str] = {
    "database_url": "Postgres URL; unset: the embedded database in `data_dir`",
    "database_pooler": "`true`: no prepared statements (a transaction pooler); unset: guessed "
    "from the URL (port 6543, `*.pooler.supabase.com`)",
    "data_dir": "where the embedded database lives",
    "supabase_url": "the REST transport, with the key, when `database_url` is unset",
    "supabase_service_role_key": "the REST transport's key (a secret: never printed)",
    "claim_ttl_s": "over REST, when a dead worker's session claim expires",
    "embedder": "`hash` is offline and lexical (demos, tests, no Ollama yet)",
    "embedding_model": "the model recorded at `init`; a run refuses another",
    "embedding_dim": "its vectors' length, recorded at `init`",
    "ollama_host": "where Ollama answers",
    "ollama_timeout_s": "seconds per embedding request",
    "ollama_retries": "retries on connection errors and 5xx",
    "ollama_backoff_s": "first pause between retries (doubling)",
    "embed_batch_size": "texts per embedding request",
    "embed_concurrency": "embedding requests a run keeps in flight; set to the server's "
    "`OLLAMA_NUM_PARALLEL` ([scaling out](scale-out.md))",
    "stop_after_embed_failures": "stop the run after this many sessions in a row fail to "
    "embed, for a fault every session meets",
    "failure_backoff_s": "a failed session is left out this long, doubling per failed run",
    "quarantine_after_failures": "failed runs in a row before a session is left out until named",
    "extractor": "`ollama` is the opt-in LLM extractor (falls back to `rules`)",
    "llm_model": "the LLM extractor's chat model",
    "llm_timeout_s": "wall-clock seconds per LLM call",
    "llm_max_prompt_chars": "prompt size bound (long messages clipped)",
    "lock_timeout_s": "longest wait for a lock, per statement (applied by `init`)",
    "statement_timeout_s": "longest archivist statement but searches (applied by `init`)",
    "max_sessions": "sessions per run",
    "delay_ms": "pause between sessions",
    "workers": "`archive --workers`: processes sharing one run ([scaling out](scale-out.md))",
    "report_dir": "`archive --report-dir`: where run reports go",
    "report_keep": "how many run reports are kept",
    "report_text": "run report files also keep decisions, topics and state changes as text",
    "max_messages_per_version": "new messages one version covers",
    "max_message_chars": "longer messages are cut (reported; never safe to prune)",
    "chunk_max_chars": "longest summary or extraction chunk; longer texts are embedded in pieces",
    "window_max_chars": "a turn window is indexed whole up to this length, else cut at turns",
    "turns_per_window": "turns per turn-window chunk",
    "embedding_input_tokens": "the model's input length, when chunking does not know it",
    "speaker_labels": "how roles read in turn chunks (JSON in the environment)",
    "memory_search_max_results": "can be lowered, not raised",
    "archive_search_max_rows": "can be lowered, not raised",
    "search_timeout_s": "seconds per search call",
    "search_query_max_chars": "longer queries are cut",
    "search_weak_below": "relevance under which a hit is a weak match",
    "search_hit_max_chars": "a longer hit shows an excerpt of every turn (content_chars: whole)",
    "search_context_turns": "turns shown on each side of a turn-window hit while it fits "
    "search_hit_max_chars",
    "search_mode": "how memory searches rank",
    "search_vector_weight": "weight of the meaning ranking in the fusion",
    "search_text_weight": "weight of the word ranking in the fusion",
    "search_recency_weight": "preference for recent conversation",
    "search_recency_half_life_days": "its half-life",
    "state_merge_threshold": "cosine at which a state item candidate merges",
    "state_conflict_threshold": "cosine from which it is flagged as a conflict",
    "state_max_candidates": "state item candidates one version reconciles",
    "pool_max_size": "connections one Python client (or `archivist mcp`) keeps open",
    "mcp_token": "bearer token `archivist mcp --http` requires (a secret)",
    "sources.messages_table": "the bot's messages table",
    "sources.message_id": "its id column (bigint, integer, text, varchar or uuid)",
    "sources.message_session_id": "its session id column",
    "sources.message_role": "its role column",
    "sources.message_content": "its text column",
    "sources.message_created_at": "its time column",
    "sources.summaries_table": "the bot's summaries table (optional)",
    "sources.summary_session_id": "its session id column",
    "sources.summary_text": "its text column",
    "sources.summary_updated_at": "its time column (unset: `updated_at`, else `created_at`)",
    "sources.message_user_id": "the messages' user-id column: turns on per-user memory",
}

_INTRO = """\
# Settings

<!-- generated by `python -m archivist.settings_doc --write` from archivist/config.py; edit
there, not here (tests/unit/test_settings_doc.py fails while this file is stale) -->

Flags > environment > `archivist.toml` (or the file in `ARCHIVIST_CONFIG`, which must exist;
`ARCHIVIST_CONFIG=""` reads no file) > defaults. Each setting's environment variable is in
the table; an unknown `ARCHIVIST_` name is an error. `archivist --env-file FILE` (or
`ARCHIVIST_ENV_FILE`) loads a file of such variables first, under those already set (see
[Running from cron](operations.md#running-from-cron)). In `archivist.toml` the keys are the
names below; the source tables' go under `[sources]`. `archivist config` (or `--json`) shows
each effective setting and where it came from (`flag`, `env NAME`, `env-file PATH`,
`toml PATH` or `default`), with passwords in URLs and secret values shown as `***`.

| name | environment | allowed | default | meaning |
|---|---|---|---|---|
"""

_OUTRO = """
The source tables are described in
[Getting started](getting-started.md#source-tables); per-user memory in
[Supabase and privileges](supabase-and-privileges.md#per-user-memory-opt-in).
"""


def render() -> str:
    """The whole of `docs/settings.md`."""
    rows = [
        _row(name, field, prefix="")
        for name, field in Settings.model_fields.items()
        if name != "sources"
    ]
    rows += [_row(name, field, "sources.") for name, field in SourceTables.model_fields.items()]
    return _INTRO + "".join(rows) + _OUTRO


def _row(name: str, field: FieldInfo, prefix: str) -> str:
    key = prefix + name
    meaning = MEANINGS.get(key)
    if meaning is None:
        raise KeyError(f"setting {key} has no meaning in archivist/settings_doc.py")
    env = [alias for alias, target in ENV_ALIASES.items() if target == name and not prefix]
    env.append(f"ARCHIVIST_{name.upper()}")
    variables = ", ".join(f"`{v}`" for v in env)
    return f"| `{key}` | {variables} | {_allowed(field)} | {_default(name, field)} | {meaning} |\n"


def _allowed(field: FieldInfo) -> str:
    annotation = field.annotation
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    literal = _literal_values(annotation)
    if literal:
        return " or ".join(f"`{v}`" for v in literal)
    base = args[0] if args and typing.get_origin(annotation) is not None else annotation
    kind = {int: "integer", float: "number", bool: "`true`/`false`", str: "text"}.get(
        base,  # type: ignore[arg-type]
        "path" if base is Path else "secret" if "Secret" in str(base) else "JSON object",
    )
    bounds = []
    for item in field.metadata:
        if isinstance(item, Ge):
            bounds.append(f"≥ {_number(item.ge)}")
        elif isinstance(item, Gt):
            bounds.append(f"> {_number(item.gt)}")
        elif isinstance(item, Le):
            bounds.append(f"≤ {_number(item.le)}")
        elif isinstance(item, Lt):
            bounds.append(f"< {_number(item.lt)}")
        elif isinstance(item, MinLen):
            bounds.append(f"{item.min_length}+ characters")
        elif getattr(item, "pattern", None) and kind == "text":
            kind = "an identifier" if "A-Za-z_" in str(item.pattern) else "a URL"
    return ", ".join([kind, *bounds])


def _literal_values(annotation: Any) -> list[str]:
    if typing.get_origin(annotation) is typing.Literal:
        return [str(v) for v in typing.get_args(annotation)]
    for arg in typing.get_args(annotation):
        found = _literal_values(arg)
        if found:
            return found
    return []


def _default(name: str, field: FieldInfo) -> str:
    if name == "data_dir":
        return "the user data folder"
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "unset"
    if isinstance(value, dict):
        return "`" + ", ".join(f"{k}={v}" for k, v in value.items()) + "`"
    return f"`{_number(value)}`" if isinstance(value, float) else f"`{value}`"


def _number(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def main(argv: list[str]) -> int:
    """`--write` rewrites docs/settings.md; `--check` exits 1 when it is stale; else prints."""
    text = render()
    if "--write" in argv:
        DOC_PATH.write_text(text)
    elif "--check" in argv:
        if not DOC_PATH.is_file() or DOC_PATH.read_text() != text:
            print(f"{DOC_PATH} is stale: run python -m archivist.settings_doc --write")
            return 1
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
