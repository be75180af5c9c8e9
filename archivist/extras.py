"""The optional parts of the archivist and the pip extras that install them.

    pip install archivist               a cron job against Postgres (DATABASE_URL) and Ollama
    pip install 'archivist[embedded]'   the embedded Postgres (pgserver): no DATABASE_URL, `demo`
    pip install 'archivist[supabase]'   the Supabase REST transport (SUPABASE_URL)
    pip install 'archivist[mcp]'        `archivist mcp`
    pip install 'archivist[all]'        all of them

A command that needs a part that is not installed stops with a usage error naming the extra.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from archivist.errors import ConfigError


class MissingExtraError(ConfigError):
    """An optional dependency of the command is not installed."""


@contextmanager
def needs_extra(extra: str, what: str, packages: tuple[str, ...]) -> Iterator[None]:
    """Turn the import failure of one of `packages` into a message naming the extra."""
    try:
        yield
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in packages:
            raise  # something else is missing: a broken install, not an extra left out
        raise MissingExtraError(
            f"{what} needs the `{extra}` extra: pip install 'archivist[{extra}]' "
            f"(in a checkout: pip install -e '.[{extra}]')"
        ) from None
