"""A role that was not granted the archive is told so, with the grant it lacks (exit 2), never
sent to re-initialise a healthy database ("lacks migrations")."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from support.postgrest_double import PostgrestDouble
from support.sources import run_archivist

GRANTS = {
    # Nothing granted at all.
    "nothing": "",
    # The tables granted, but row level security (no policy for it) hides every row.
    "tables under RLS": "GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}",
    # Every row readable, but not one function callable.
    "no functions": "GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}; "
    "ALTER ROLE {role} BYPASSRLS",
}


def as_role(url: str, role: str) -> str:
    """The embedded server's URL (trust authentication on its socket) for another role."""
    user = url.split("://", 1)[1].split(":", 1)[0]
    return url.replace(f"://{user}:", f"://{role}:", 1)


@pytest.mark.parametrize("grants", list(GRANTS))
def test_a_role_without_access_is_told_which_grant_it_lacks(
    grants: str, db_url: str, tmp_path: Path
) -> None:
    role = f"reader_{list(GRANTS).index(grants)}_{abs(hash(db_url)) % 10_000}"
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        if GRANTS[grants]:
            conn.execute(GRANTS[grants].format(role=role))
    try:
        env = {
            "DATABASE_URL": as_role(db_url, role),
            "ARCHIVIST_EMBEDDER": "hash",
            "ARCHIVIST_DATA_DIR": str(tmp_path),
        }
        for command in (["status"], ["archive"], ["memory-search", "vercel"]):
            result = run_archivist(command, env)
            assert result.returncode == 2, (command, result.stderr)
            assert result.stderr.count("\n") == 1, result.stderr
            assert (
                f"role {role} has no access to the archive (grant it: GRANT service_role TO "
                f"{role}; or use the service role)" in result.stderr
            ), result.stderr
            assert "migrations" not in result.stderr
    finally:
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute(f"DROP OWNED BY {role}; DROP ROLE {role}")


def test_a_key_without_access_over_rest_says_to_use_the_service_role_key(db_url: str) -> None:
    double = PostgrestDouble(db_url, role="anon").start()
    try:
        env = {
            "ARCHIVIST_EMBEDDER": "hash",
            "SUPABASE_URL": double.url,
            "SUPABASE_SERVICE_ROLE_KEY": double.key,
        }
        result = run_archivist(["status"], env)
    finally:
        double.stop()
    assert result.returncode == 2, result.stderr
    assert "this key's role has no access to the archive (use the service role's key" in (
        result.stderr
    )
    assert "migrations" not in result.stderr
