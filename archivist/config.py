"""Settings: flags > environment > `archivist.toml` > defaults, validated, with secrets redacted.

Environment variables are `ARCHIVIST_<FIELD>` (e.g. `ARCHIVIST_MAX_SESSIONS=10`), plus the
conventional `DATABASE_URL`, `OLLAMA_HOST`, `SUPABASE_URL` and `SUPABASE_SERVICE_ROLE_KEY`
(the two Supabase settings, without `DATABASE_URL`, select the Supabase REST transport).
The TOML file is `./archivist.toml` or the path in `ARCHIVIST_CONFIG` (which must exist;
`ARCHIVIST_CONFIG=""` reads no file); its keys are the field names. An env file
(`archivist --env-file FILE`, or `ARCHIVIST_ENV_FILE`) of KEY=VALUE lines is loaded into the
environment first, under the variables already set (see `apply_env_file`).
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import httpx
import platformdirs
import psycopg
from psycopg.conninfo import conninfo_to_dict
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from archivist.errors import ConfigError

SearchMode = Literal["vector", "text", "hybrid"]

# The searches' ceilings, from the reference: the SQL functions in sql/functions/search_*.sql
# hold the same (tests/db/test_search_limits.py), and every way in declares its limits from
# these. The query's cut is the default of `search_query_max_chars`, which can be raised.
MEMORY_MAX_RESULTS = 10
ARCHIVE_MAX_ROWS = 20
SEARCH_QUERY_MAX_CHARS = 8000
ENV_ALIASES = {
    "DATABASE_URL": "database_url",
    "OLLAMA_HOST": "ollama_host",
    "SUPABASE_URL": "supabase_url",
    "SUPABASE_SERVICE_ROLE_KEY": "supabase_service_role_key",
}
_ENV_PREFIX = "ARCHIVIST_"
ENV_FILE_VARIABLE = "ARCHIVIST_ENV_FILE"
# ARCHIVIST_ names that say where settings come from, not settings themselves.
_LOCATORS = frozenset({"ARCHIVIST_CONFIG", ENV_FILE_VARIABLE})
# Variables set from an env file in this process, and the file (for `archivist config`).
_from_env_file: dict[str, Path] = {}
_IDENTIFIER = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$"
# The settings that choose how text is embedded: given any, they win over a recorded model.
EMBEDDING_SETTINGS = frozenset({"embedder", "embedding_model", "embedding_dim"})


def default_data_dir() -> Path:
    """Where the embedded database lives when no `DATABASE_URL` is set."""
    return Path(platformdirs.user_data_dir("archivist", appauthor=False))


@dataclass(frozen=True)
class DatabaseTimeouts:
    """How long an archivist statement may wait for a lock, and run, in milliseconds."""

    lock_ms: int
    statement_ms: int


class SourceTables(BaseModel):
    """Names of the bot's tables and columns the archivist reads (documented defaults)."""

    model_config = ConfigDict(extra="forbid")

    messages_table: str = Field("session_messages", pattern=_IDENTIFIER)
    message_id: str = Field("id", pattern=_IDENTIFIER)
    message_session_id: str = Field("session_id", pattern=_IDENTIFIER)
    message_role: str = Field("role", pattern=_IDENTIFIER)
    message_content: str = Field("content", pattern=_IDENTIFIER)
    message_created_at: str = Field("created_at", pattern=_IDENTIFIER)
    summaries_table: str = Field("session_summaries", pattern=_IDENTIFIER)
    summary_session_id: str = Field("session_id", pattern=_IDENTIFIER)
    summary_text: str = Field("summary_text", pattern=_IDENTIFIER)
    summary_updated_at: str | None = Field(
        None, description="default: updated_at if the table has it, else created_at"
    )
    # Per-user memory (opt-in): the messages' user-id column; unset, nothing is scoped.
    message_user_id: str | None = Field(None, pattern=_IDENTIFIER)


class Settings(BaseModel):
    """Every setting and limit of the archivist, with its default."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    database_url: SecretStr | None = None
    # Through a transaction pooler prepared statements break; None: guess from the URL.
    database_pooler: bool | None = None
    data_dir: Path = Field(default_factory=default_data_dir)
    # The Supabase REST transport (used when both are set and database_url is not).
    supabase_url: str | None = Field(None, pattern=r"^https?://")
    supabase_service_role_key: SecretStr | None = None
    # Over REST a session is claimed, not locked; a claim left by a dead worker expires.
    claim_ttl_s: int = Field(900, ge=10)

    embedder: Literal["ollama", "hash"] = "ollama"
    embedding_model: str = Field("nomic-embed-text", min_length=1)
    embedding_dim: int = Field(768, ge=1, le=16000)
    ollama_host: str = "http://127.0.0.1:11434"
    ollama_timeout_s: float = Field(30.0, gt=0)
    ollama_retries: int = Field(3, ge=0, le=10)
    ollama_backoff_s: float = Field(0.5, ge=0)
    embed_batch_size: int = Field(64, ge=1, le=1024)
    # Embedding requests a run keeps in flight (sessions embedded ahead of their commit). 4 is
    # the parallelism Ollama gives a model when it has memory to spare (OLLAMA_NUM_PARALLEL
    # unset); a server that runs fewer at once queues the rest (docs/scale-out.md).
    embed_concurrency: int = Field(4, ge=1, le=64)
    # Sessions failing on embedding one after another, for a fault every session meets (the
    # server down, unreachable or failing), mean the embedder is down: stop the run there
    # rather than failing every remaining session slowly. Faults of one session's texts (NaN,
    # wrong length, missing vectors) do not count.
    stop_after_embed_failures: int = Field(3, ge=1)
    # A session failing for a reason of its own is left out of runs for failure_backoff_s,
    # doubling with each failed run in a row (at most a day), and after
    # quarantine_after_failures failed runs until a run names it (archivist.failures).
    failure_backoff_s: float = Field(3600.0, ge=0, le=86_400)
    quarantine_after_failures: int = Field(5, ge=1, le=1000)

    # Extraction: the deterministic rules (default) or an Ollama chat model (opt-in), which
    # falls back to the rules for a session when it fails, times out or answers junk.
    extractor: Literal["rules", "ollama"] = "rules"
    llm_model: str = Field("llama3.2", min_length=1)
    llm_timeout_s: float = Field(15.0, gt=0)
    llm_max_prompt_chars: int = Field(24_000, ge=2_000)

    # Bounded waits for every archivist statement: a lock another session holds is waited for
    # at most lock_timeout_s (the session then fails, naming the pid that holds the lock, and
    # the run goes on); a statement runs at most statement_timeout_s (searches: their own
    # 15 s). `init` sets both on the SQL functions, which is how they hold over REST.
    lock_timeout_s: float = Field(10.0, ge=0.1, le=3600)
    statement_timeout_s: float = Field(600.0, ge=1, le=86_400)

    max_sessions: int = Field(50, ge=1)
    delay_ms: int = Field(500, ge=0)
    # Worker processes of one `archive` run (docs/scale-out.md); they share --max-sessions.
    workers: int = Field(1, ge=1, le=64)
    # `archive --report-dir`: where each run's JSON report is kept, and how many are kept.
    report_dir: Path | None = None
    report_keep: int = Field(30, ge=1, le=100_000)
    # Report files keep ids and counts; the conversation's text (decisions, topics, state
    # changes) only when this is set: they outlive `forget` otherwise (docs/forget-and-privacy.md).
    report_text: bool = False
    max_messages_per_version: int = Field(2000, ge=1)
    max_message_chars: int = Field(20_000, ge=100)
    chunk_max_chars: int = Field(1500, ge=200)
    # A turn window is indexed whole up to this many characters (its vector pools pieces of
    # chunk_max_chars); only a longer one is cut. Search hits show excerpts of it instead.
    window_max_chars: int = Field(16_000, ge=200)
    turns_per_window: int = Field(4, ge=1, le=100)
    # The embedding model's input length in tokens, when chunking's table does not know it
    # (chunks are cut to what the model reads; see archivist/chunking.py).
    embedding_input_tokens: int | None = Field(None, ge=16, le=1_000_000)
    # How each role is named in turn chunks ("User: ..."); a role not listed keeps its name.
    speaker_labels: dict[str, str] = Field(
        default_factory=lambda: {"user": "User", "assistant": "Assistant"}
    )

    # Search bounds. The SQL functions hold the reference's ceilings, so these settings can
    # lower a bound but not raise it.
    memory_search_max_results: int = Field(MEMORY_MAX_RESULTS, ge=1, le=MEMORY_MAX_RESULTS)
    archive_search_max_rows: int = Field(ARCHIVE_MAX_ROWS, ge=1, le=ARCHIVE_MAX_ROWS)
    search_timeout_s: float = Field(15.0, gt=0)
    search_query_max_chars: int = Field(SEARCH_QUERY_MAX_CHARS, ge=1)
    # A memory hit longer than this shows an excerpt: every turn of it, cut around what matched.
    search_hit_max_chars: int = Field(1100, ge=100, le=100_000)
    # A turn-window hit shows up to this many turns on each side of its window while it fits
    # search_hit_max_chars (archivist/search/neighbours.py); 0 shows the window alone.
    search_context_turns: int = Field(4, ge=0, le=4)
    # A hit whose relevance is under this is a weak match; a search with no better hit says
    # "no good match" (chosen by how well it separates answered from unanswerable questions).
    search_weak_below: float = Field(0.15, ge=0, le=1)
    # Ranking: "vector" (cosine only), "text" (full text only) or "hybrid" (reciprocal rank
    # fusion of both, with an optional recency factor of the given half-life).
    search_mode: SearchMode = "hybrid"
    # Words count twice: on outside conversations (BEAM) and the generated set the words
    # ranking finds more of the evidence than the vectors, with the offline and a sentence model.
    search_vector_weight: float = Field(1.0, ge=0)
    search_text_weight: float = Field(2.0, ge=0)
    search_recency_weight: float = Field(0.0, ge=0, le=1)
    search_recency_half_life_days: float = Field(14.0, gt=0)

    # State items: reconciliation thresholds on cosine similarity (+0.02 for a shared topic)
    # and the most candidates one version reconciles.
    state_merge_threshold: float = Field(0.92, gt=0, le=1)
    state_conflict_threshold: float = Field(0.85, gt=0, le=1)
    state_max_candidates: int = Field(25, ge=1, le=500)

    # The Python client (and `archivist mcp`) keeps at most this many connections open.
    pool_max_size: int = Field(4, ge=1, le=100)
    # The bearer token `archivist mcp --http` requires; a bind beyond loopback needs one.
    mcp_token: SecretStr | None = Field(None, min_length=16)

    sources: SourceTables = Field(default_factory=SourceTables)

    @field_validator("speaker_labels", mode="before")
    @classmethod
    def _labels_from_json(cls, value: object) -> object:
        """From the environment the labels come as JSON: '{"user": "Maya"}'."""
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError:
                raise ValueError('wants JSON, e.g. {"user": "Maya"}') from None
        return value

    @field_validator("speaker_labels", mode="after")
    @classmethod
    def _labels_bounded(cls, value: dict[str, str]) -> dict[str, str]:
        if len(value) > 20 or any(not 0 < len(v.strip()) <= 64 for v in value.values()):
            raise ValueError("at most 20 roles, each label 1 to 64 characters")
        return {role.strip().lower(): label.strip() for role, label in value.items()}

    @field_validator("ollama_host")
    @classmethod
    def _ollama_url(cls, value: str) -> str:
        """An address Ollama's client can use: a URL, or host[:port] (http:// is implied).
        Not echoed: it may carry credentials."""
        url = value if "://" in value else f"http://{value}"
        try:
            parsed = httpx.URL(url)
        except httpx.InvalidURL:
            parsed = None
        if (
            parsed is None
            or any(c.isspace() for c in value)
            or parsed.scheme not in ("http", "https")
            or not parsed.host
        ):
            raise ValueError("must be an http:// or https:// URL such as http://127.0.0.1:11434")
        return value

    @model_validator(mode="after")
    def _thresholds_ordered(self) -> Settings:
        if self.state_conflict_threshold > self.state_merge_threshold:
            raise ValueError("state_conflict_threshold must not exceed state_merge_threshold")
        return self

    @property
    def timeouts(self) -> DatabaseTimeouts:
        """lock_timeout_s and statement_timeout_s as Postgres takes them (milliseconds)."""
        return DatabaseTimeouts(
            lock_ms=round(self.lock_timeout_s * 1000),
            statement_ms=round(self.statement_timeout_s * 1000),
        )

    @property
    def uses_supabase(self) -> bool:
        """Supabase over REST: its URL is set and no `DATABASE_URL` takes precedence."""
        return self.database_url is None and self.supabase_url is not None

    @property
    def uses_embedded_database(self) -> bool:
        return self.database_url is None and not self.uses_supabase

    def secrets(self) -> list[str]:
        """Secret values that must never be printed."""
        found = []
        for key in (self.supabase_service_role_key, self.mcp_token):
            if key is not None:
                found.append(key.get_secret_value())
        if self.database_url is not None:
            url = self.database_url.get_secret_value()
            # A URL that does not parse may hide its password anywhere: all of it is secret.
            # One that parses keeps its host readable, its password (if any) is not.
            found += _passwords(url) if _parses(url) else [url, *_passwords(url)]
        return [s for s in found if s]


def database_label(settings: Settings) -> str:
    """Which database the settings name, as a person reads it: never its password."""
    if settings.database_url is not None:
        url = settings.database_url.get_secret_value()
        return redact(redact_url(url) if "://" in url else url, settings.secrets())
    if settings.uses_supabase:
        return f"Supabase over REST at {settings.supabase_url}"
    return f"the embedded database in {settings.data_dir}"


def _parses(dsn: str) -> bool:
    try:
        conninfo_to_dict(dsn)
    except psycopg.Error:
        return False
    return True


def _passwords(dsn: str) -> list[str]:
    """A DSN's password as written (percent-encoded in a URL) and decoded; none if malformed."""
    found: list[str] = []
    try:
        found.append(urlsplit(dsn).password or "")
    except ValueError:
        pass
    try:
        found.append(str(conninfo_to_dict(dsn).get("password") or ""))
    except psycopg.Error:
        pass
    return [p for p in dict.fromkeys(found) if p]


def load_settings(
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    config_path: Path | None = None,
) -> Settings:
    """Build settings from defaults, the TOML file, the environment and `overrides` (flags)."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    flags = {k: v for k, v in (overrides or {}).items() if v is not None}
    path, required = _config_file(env, config_path)
    for layer in (_from_toml(path, required), _from_env(env), flags):
        for key, value in layer.items():
            if key == "sources" and isinstance(value, dict) and isinstance(values.get(key), dict):
                value = {**values["sources"], **value}  # column by column, not all or nothing
            values[key] = value
    try:
        return Settings.model_validate(values)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = [str(p) for p in error["loc"]]
        where = _where(loc, flags, env, path)
        if error["type"] == "extra_forbidden":
            raise ConfigError(
                f"unknown setting {where}; `archivist config` lists the settings "
                "(docs/settings.md says what each does)"
            ) from None
        secret = bool(loc) and loc[0] in _SECRET_FIELDS
        raise ConfigError(f"invalid setting {where}: {plain_error(error, secret)}") from None


_SECRET_FIELDS = frozenset({"database_url", "supabase_service_role_key", "mcp_token"})


def _where(
    loc: list[str], flags: Mapping[str, Any], env: Mapping[str, str], toml: Path | None
) -> str:
    """Where the user wrote the setting a validation error names: the flag, the environment
    variable (its real name) or the TOML key."""
    if not loc:
        return "settings"
    name = loc[-1] if loc[0] == "sources" else loc[0]
    if loc[0] in flags:
        return f"--{loc[0].replace('_', '-')}"
    variables = [a for a, field in ENV_ALIASES.items() if field == name and loc[0] != "sources"]
    for variable in [*variables, f"{_ENV_PREFIX}{name.upper()}"]:
        if env.get(variable):
            return variable
    return f"{'.'.join(loc)} (in {toml})" if toml is not None else ".".join(loc)


def plain_error(error: Mapping[str, Any], secret: bool = False) -> str:
    """One validation error in the project's words: what is allowed and, unless the value is
    a secret, what was given; never the validation library's own phrasing."""
    kind, ctx = error["type"], error.get("ctx") or {}
    given = error.get("input")
    shown = "" if secret or not isinstance(given, str | int | float) else f", not {given!r}"
    if kind == "literal_error" or kind == "enum":
        allowed = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        return f"use {' or '.join(allowed)}{shown}"
    if kind in ("too_short", "string_too_short"):
        return f"at least {ctx.get('min_length')} characters"
    if kind in ("too_long", "string_too_long"):
        return f"at most {ctx.get('max_length')} characters"
    bounds = {
        "greater_than_equal": ("at least", "ge"),
        "greater_than": ("more than", "gt"),
        "less_than_equal": ("at most", "le"),
        "less_than": ("less than", "lt"),
    }
    if kind in bounds:
        words, key = bounds[kind]
        return f"must be {words} {ctx.get(key)}{shown}"
    parsing = {
        "int_parsing": "a whole number",
        "int_from_float": "a whole number",
        "float_parsing": "a number",
        "bool_parsing": "true or false",
    }
    if kind in parsing:
        return f"must be {parsing[kind]}{shown}"
    if kind == "string_pattern_mismatch":
        pattern = str(ctx.get("pattern", ""))
        if "http" in pattern:
            return f"must be an http:// or https:// URL{shown}"
        if pattern == _IDENTIFIER:
            return f"must be an SQL name (letters, digits, _; or schema.name){shown}"
        return f"must look like {pattern}{shown}"
    message = str(error["msg"]).removeprefix("Value error, ")
    if message.startswith("Input should be "):
        message = "must be " + message.removeprefix("Input should be ") + shown
    return message


class SettingOrigin(BaseModel):
    """One effective setting, redacted, and the layer it came from."""

    name: str
    value: Any
    origin: str  # "flag", "env NAME", "toml PATH" or "default"


def explain_settings(
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    config_path: Path | None = None,
) -> list[SettingOrigin]:
    """Every setting's effective value (secrets redacted) and where it came from."""
    env = os.environ if environ is None else environ
    settings = load_settings(overrides, env, config_path)
    path, required = _config_file(env, config_path)
    origins: dict[str, str] = {}
    for key, value in _from_toml(path, required).items():
        for name in _flat_keys(key, value):
            origins[name] = f"toml {path}"
    for name, field in ENV_ALIASES.items():
        if env.get(name):
            origins[field] = _env_origin(name)
    for name, value in env.items():
        if name.startswith(_ENV_PREFIX) and name not in _LOCATORS and value != "":
            key = name[len(_ENV_PREFIX) :].lower()
            origins[f"sources.{key}" if key in SourceTables.model_fields else key] = _env_origin(
                name
            )
    for key, value in (overrides or {}).items():
        if value is not None:
            origins[key] = "flag"
    secrets = settings.secrets()
    rows: list[SettingOrigin] = []
    for model, prefix in ((settings, ""), (settings.sources, "sources.")):
        for field in type(model).model_fields:
            if field == "sources":
                continue
            value = _shown(getattr(model, field), secrets)
            name = prefix + field
            rows.append(SettingOrigin(name=name, value=value, origin=origins.get(name, "default")))
    return rows


def _env_origin(name: str) -> str:
    path = _from_env_file.get(name)
    return f"env-file {path}" if path is not None else f"env {name}"


def _flat_keys(key: str, value: Any) -> list[str]:
    if key == "sources" and isinstance(value, dict):
        return [f"sources.{k}" for k in value]
    return [key]


def _shown(value: Any, secrets: list[str]) -> Any:
    """A setting's value as it may be printed: secrets redacted, paths as text."""
    if isinstance(value, SecretStr):
        secret = value.get_secret_value()
        return redact(redact_url(secret), secrets) if "://" in secret else "***"
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, str):
        return redact(redact_url(value) if "://" in value else value, secrets)
    return value


def _config_file(env: Mapping[str, str], config_path: Path | None) -> tuple[Path | None, bool]:
    """The configuration file to read, and whether it must exist (a typo is not defaults)."""
    if config_path is not None:
        return config_path, True
    named = env.get("ARCHIVIST_CONFIG")
    if named:
        return Path(named), True
    if named is None:
        return Path("archivist.toml"), False
    return None, False  # ARCHIVIST_CONFIG="" means: no configuration file at all


def _from_toml(path: Path | None, required: bool) -> dict[str, Any]:
    """The TOML file's settings ({} without a file)."""
    if path is None:
        return {}
    if not path.is_file():
        if required:
            raise ConfigError(f"configuration file {path} not found (named by ARCHIVIST_CONFIG)")
        return {}
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"cannot read {path}: not UTF-8 text") from None


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name, field in ENV_ALIASES.items():
        if env.get(name):
            values[field] = env[name]
    for name, value in env.items():
        if not name.startswith(_ENV_PREFIX) or name in _LOCATORS or value == "":
            continue
        key = name[len(_ENV_PREFIX) :].lower()
        if key in SourceTables.model_fields:
            sources[key] = value
        else:
            values[key] = value
    if sources:
        values["sources"] = sources
    return values


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def read_env_file(path: Path) -> dict[str, str]:
    """The KEY=VALUE lines of an env file, as a shell, systemd or docker would read them.

    Blank lines and `#` comments are skipped, an `export ` prefix is allowed, values may be
    in single quotes (literal) or double quotes (`\\"` and `\\\\` escaped); an unquoted value
    ends at ` #`. A line that is none of these is an error that names the line, never its
    text (it may hold a secret).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        detail = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise ConfigError(f"cannot read env file {path}: {detail}") from None
    values: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        name, equals, value = line.partition("=")
        name = name.strip()
        if not equals or not _ENV_NAME.fullmatch(name):
            raise ConfigError(f"env file {path}, line {number}: not a KEY=VALUE line")
        parsed = _env_value(value.strip())
        if parsed is None:
            raise ConfigError(f"env file {path}, line {number}: unterminated or stray quote")
        values[name] = parsed
    return values


def _env_value(text: str) -> str | None:
    """One env-file value without its quotes; None when the quoting is broken."""
    if not text or text[0] not in "\"'":
        return re.split(r"\s+#", text, maxsplit=1)[0]
    quote, out, i = text[0], [], 1
    while i < len(text):
        char = text[i]
        if quote == '"' and char == "\\" and i + 1 < len(text) and text[i + 1] in '"\\$`':
            out.append(text[i + 1])
            i += 2
            continue
        if char == quote:
            rest = text[i + 1 :].strip()
            return "".join(out) if not rest or rest.startswith("#") else None
        out.append(char)
        i += 1
    return None


def apply_env_file(path: Path, environ: MutableMapping[str, str] | None = None) -> dict[str, str]:
    """Load an env file into the environment; variables already set win. Returns the file."""
    env = os.environ if environ is None else environ
    values = read_env_file(path)
    for name, value in values.items():
        if name not in env:
            env[name] = value
            _from_env_file[name] = path
    return values


def env_file_exposure(path: Path, values: Mapping[str, str], settings: Settings) -> str | None:
    """A warning when the env file holds one of the settings' secrets and group or others may
    read it; None when it is private or holds no secret."""
    url = settings.database_url.get_secret_value() if settings.database_url else None
    secrets = [s for s in settings.secrets() if s != url]  # a URL without password is none
    if not any(secret in value for value in values.values() for secret in secrets):
        return None
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if not mode & 0o077:
        return None
    return (
        f"{path} holds a secret and is readable by group or others "
        f"(mode {mode & 0o777:o}); run: chmod 600 {path}"
    )


def redact_url(url: str) -> str:
    """The URL with its password replaced by `***`."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "***"
    if not parts.password:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


# (a "password=***" already masked stays as it is, with what follows it: "...=***: refused")
_PASSWORD_IN_TEXT = re.compile(
    r"(password\s*=\s*)(?!\*\*\*)\S+|(://[^:/@\s]+:)[^@\s]+(@)", re.IGNORECASE
)


def _secret_pattern(secret: str) -> re.Pattern[str]:
    """Where `secret` stands as itself: not as part of a longer word or number, so that a
    password `postgres` masks `:postgres@` but leaves `postgresql://` readable."""
    lead = r"(?<![A-Za-z0-9])" if secret[0].isalnum() else ""
    tail = r"(?![A-Za-z0-9])" if secret[-1].isalnum() else ""
    return re.compile(lead + re.escape(secret) + tail)


def redact(text: str, secrets: list[str] | None = None) -> str:
    """`text` with the given secrets and anything shaped like a password replaced by `***`."""
    for secret in sorted(secrets or [], key=len, reverse=True):
        if secret:
            text = _secret_pattern(secret).sub("***", text)
    return _PASSWORD_IN_TEXT.sub(
        lambda m: f"{m.group(1)}***" if m.group(1) else f"{m.group(2)}***{m.group(3)}", text
    )
