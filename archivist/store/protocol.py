"""The one primitive every transport implements: call a SQL function by name with named arguments.

    Rpc.call(function, args) -> the function's result, shaped as JSON (like PostgREST):
    a scalar function's value, or a list of row objects for a set-returning function.

`archivist.store.psycopg_rpc` calls the functions on a direct connection
(`archivist.store.pool` on a pool of them), `archivist.store.rest` through the Supabase REST
gateway. Every transport raises `RpcError` with the database's SQLSTATE, so the store maps
errors once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from archivist.embed.base import Vector
from archivist.errors import ConfigError, StoreError
from archivist.store.migrate import SchemaRecords


class Json:
    """A jsonb argument (so an empty list still goes as JSON, not as an array)."""

    def __init__(self, value: Any) -> None:
        self.value = value


class Vectors:
    """A `vector[]` argument: binary on a direct connection, pgvector's text over REST."""

    def __init__(self, values: Sequence[Vector]) -> None:
        self.values = list(values)

    def as_text(self) -> list[str]:
        return [vector_text(v) for v in self.values]


def vector_text(vector: Vector) -> str:
    """pgvector's text form of a vector: `[0.1,0.2,...]`."""
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


def parse_vector(value: Any) -> Vector:
    """A vector as either transport returns it: a numpy array (binary) or its text."""
    if isinstance(value, str):
        return np.asarray(json.loads(value), dtype=np.float32)
    if hasattr(value, "to_numpy"):  # pgvector's binary loader gives a pgvector.Vector
        return np.asarray(value.to_numpy(), dtype=np.float32)
    return np.asarray(value, dtype=np.float32)


class RpcError(StoreError):
    """A function call failed; `code` is the SQLSTATE (or the gateway's error code)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class MissingFunctionError(RpcError):
    """The function does not exist: the database is not initialised (or by another version)."""


class QueryTimeoutError(RpcError):
    """The database cancelled the call at its statement timeout."""


class LockTimeoutError(QueryTimeoutError):
    """The call waited for a lock another session holds longer than its lock timeout."""


LOCK_NOT_AVAILABLE = "55P03"  # SQLSTATE of a lock_timeout (and of NOWAIT)


class SourceSchemaError(RpcError, ConfigError):
    """A table or column the settings name does not exist, or has a type the archivist cannot
    read: a configuration error (exit code 2), wrong for every session alike."""


# undefined_table, undefined_column, datatype_mismatch: what the source-table functions raise
# (sql/007) when the configured tables or columns do not match the database.
_SCHEMA_STATES = frozenset({"42P01", "42703", "42804"})


def rpc_error(message: str, code: str | None) -> RpcError:
    """The error for a failed call: a configuration error when the schema does not fit."""
    return (SourceSchemaError if code in _SCHEMA_STATES else RpcError)(message, code)


class Rpc(Protocol):
    """A transport to the archivist's SQL functions."""

    def call(self, function: str, args: Mapping[str, Any], timeout_ms: int | None = None) -> Any:
        """Call `function` with named `args`; `timeout_ms` bounds it where the transport can."""
        ...

    def call_row(self, function: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
        """The first row of set-returning `function`, its columns as the transport decodes
        them (binary on a direct connection: vectors as numpy arrays; JSON over REST)."""
        ...

    @property
    def lock_owner(self) -> str | None:
        """Who takes sessions by claim (REST); None: by advisory lock on the connection."""
        ...

    @property
    def claim_ttl_s(self) -> int:
        """How long a claim holds if its owner never lets it go."""
        ...

    def schema_records(self) -> SchemaRecords:
        """The migrations and functions checksum recorded; works before any function exists."""
        ...

    @property
    def broken(self) -> bool:
        """True once the connection is lost for good."""
        ...

    def close(self) -> None: ...
