"""A database's schema read from the catalog, to compare two databases (fresh vs upgraded)."""

from __future__ import annotations

from typing import Any

import psycopg

CATALOG_QUERIES = {
    "tables": """
        SELECT c.relname, c.relkind, c.relrowsecurity, c.relforcerowsecurity,
               coalesce(c.relacl::text[], '{}')
        FROM pg_class c
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'v', 'm', 'p')
    """,
    "columns": """
        SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
               a.attstorage, a.attgenerated, pg_get_expr(d.adbin, d.adrelid)
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
          AND a.attnum > 0 AND NOT a.attisdropped
    """,
    "indexes": "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'",
    "constraints": """
        SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint
        WHERE connamespace = 'public'::regnamespace
    """,
    "functions": """
        SELECT p.oid::regprocedure::text, pg_get_functiondef(p.oid), p.prosecdef,
               p.provolatile, coalesce(p.proconfig, '{}'), coalesce(p.proacl::text[], '{}')
        FROM pg_proc p
        WHERE p.pronamespace = 'public'::regnamespace AND p.prokind = 'f'
    """,
    "policies": """
        SELECT tablename, policyname, permissive, roles::text[], cmd, qual, with_check
        FROM pg_policies WHERE schemaname = 'public'
    """,
    "extensions": "SELECT extname FROM pg_extension",
    "meta": "SELECT key, value FROM archivist_meta",
    "migrations": "SELECT name, checksum FROM archivist_migrations",
}


def catalog(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Everything about a database's schema that the migrations, functions and policy decide."""
    with psycopg.connect(url) as conn:
        return {k: sorted(conn.execute(q).fetchall(), key=repr) for k, q in CATALOG_QUERIES.items()}
