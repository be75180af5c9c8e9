"""The archivist's exceptions, each with a message written for the person running the tool.

    ArchivistError
    ├── ConfigError      bad settings or flags (exit code 2); stops a whole run
    │   ├── DimensionMismatchError  the model's vectors do not fit the database's column
    │   ├── ModelNotFoundError      the embedding model is not pulled (also an EmbedError)
    │   └── SessionNotArchivedError a session asked for by id has no archived version
    ├── StoreError       database unreachable, not initialised, dimension or model mismatch
    │   └── ConcurrentUpdateError  another worker committed the session first
    ├── EmbedError       Ollama unreachable, model not pulled, bad answer
    │   └── EmbedUnavailableError  unreachable, or failing whatever it is sent
    └── ExtractError     an extractor could not produce a valid extraction

The CLI catches `ArchivistError` in one place and prints its message on one line. Anything
else is a bug.
"""


class ArchivistError(Exception):
    """Base of every error the archivist reports to its user."""

    exit_code = 1


class ConfigError(ArchivistError):
    """A setting or flag is missing or invalid."""

    exit_code = 2


class DimensionMismatchError(ConfigError):
    """The embedder's vectors do not have the dimension the database stores."""


class SessionNotArchivedError(ConfigError):
    """A session asked for by id (`state`, `history`) has no archived version: a typo, or one
    not archived yet."""


class StoreError(ArchivistError):
    """The database cannot be used as asked."""


class ConcurrentUpdateError(StoreError):
    """A session's archive moved on while this run was working on it."""


class EmbedError(ArchivistError):
    """The embedding backend failed or answered something unusable."""


class EmbedUnavailableError(EmbedError):
    """The embedding backend cannot be reached, or keeps failing (every text alike)."""


class ExtractError(ArchivistError):
    """An extractor failed to produce a valid extraction."""


class ModelNotFoundError(ConfigError, EmbedError):
    """The configured model is not available in the embedding backend (not pulled)."""
