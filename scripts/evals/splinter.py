"""Supabase's database linter (splinter) over a database that `archivist init` made.

splinter is the query behind Supabase's Security and Performance Advisors
(github:supabase/splinter, `splinter.sql`). Its snapshot has no licence file, so it is not in
this repository: fetch it into a temporary folder and pass its path.

A throw-away embedded Postgres (or the server `ARCHIVIST_BENCH_PG` names) gets a database laid
out like a Supabase project's as far as splinter looks: the API roles, the `extensions` schema,
minimal `auth` and `storage` schemas, and Supabase's default privileges for the API roles on
`public`. The real CLI (`python -m archivist init`) initialises it; then splinter runs as
PostgREST would expose `public`. Printed: the count of each lint by level, and every WARN and
ERROR in full. Exit 1 if there is any WARN or ERROR, else 0.

    .venv/bin/python -m scripts.evals.splinter /tmp/splinter/splinter.sql
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import psycopg

from scripts.bench.kit import embedded_server

# What splinter reads of a Supabase project, stubbed: the roles, the schemas it names, the auth
# functions its RLS lints parse for, the storage tables its bucket lint reads, and the default
# privileges Supabase gives the API roles on public (so the archivist's revokes are tested).
SUPABASE_STUBS = """
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon') THEN
        CREATE ROLE anon NOLOGIN NOINHERIT;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN
        CREATE ROLE authenticated NOLOGIN NOINHERIT;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
        CREATE ROLE service_role NOLOGIN NOINHERIT BYPASSRLS;
    END IF;
END $$;
CREATE SCHEMA extensions;
CREATE SCHEMA auth;
CREATE SCHEMA storage;
GRANT USAGE ON SCHEMA public, extensions, auth, storage TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT ALL ON TABLES TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT ALL ON FUNCTIONS TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
    GRANT ALL ON SEQUENCES TO anon, authenticated, service_role;
CREATE TABLE auth.users (id uuid PRIMARY KEY, email text, raw_user_meta_data jsonb);
CREATE FUNCTION auth.uid() RETURNS uuid LANGUAGE sql STABLE SET search_path = ''
    AS $f$ SELECT nullif(current_setting('request.jwt.claim.sub', true), '')::uuid $f$;
CREATE FUNCTION auth.role() RETURNS text LANGUAGE sql STABLE SET search_path = ''
    AS $f$ SELECT nullif(current_setting('request.jwt.claim.role', true), '') $f$;
CREATE FUNCTION auth.email() RETURNS text LANGUAGE sql STABLE SET search_path = ''
    AS $f$ SELECT nullif(current_setting('request.jwt.claim.email', true), '') $f$;
CREATE FUNCTION auth.jwt() RETURNS jsonb LANGUAGE sql STABLE SET search_path = ''
    AS $f$ SELECT coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb
    $f$;
CREATE TABLE storage.buckets (id text PRIMARY KEY, name text, public boolean DEFAULT false);
CREATE TABLE storage.objects (id uuid PRIMARY KEY, bucket_id text, name text);
"""
EXPOSED = "public, graphql_public"  # pgrst.db_schemas: what PostgREST serves by default


def lint(url: str, splinter: str) -> list[tuple[str, str, str]]:
    """(level, name, detail) of every lint splinter reports."""
    with psycopg.connect(url) as conn, conn.transaction():
        conn.execute("SELECT set_config('pgrst.db_schemas', %s, true)", [EXPOSED])
        cursor = conn.execute(splinter.encode())
        while cursor.description is None and cursor.nextset():  # past its `set local`
            pass
        names = [c.name for c in cursor.description or []]
        rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    return [(str(r["level"]), str(r["name"]), str(r["detail"])) for r in rows]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("splinter", type=Path, help="path to splinter.sql")
    args = parser.parse_args()
    splinter = args.splinter.read_text(encoding="utf-8")
    with embedded_server("archivist-splinter-") as server:
        url = server.create("archivist_splinter")
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(SUPABASE_STUBS.encode())
            env = {
                **{k: os.environ[k] for k in ("PATH", "PYTHONPATH") if k in os.environ},
                "DATABASE_URL": url,
                "ARCHIVIST_EMBEDDER": "hash",
                "ARCHIVIST_CONFIG": "",
            }
            init = subprocess.run(
                [sys.executable, "-m", "archivist", "init"],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            if init.returncode != 0:
                print(f"archivist init failed: {init.stderr.strip()}", file=sys.stderr)
                return 2
            found = lint(url, splinter)
        finally:
            server.drop("archivist_splinter")
    counts = Counter((level, name) for level, name, _ in found)
    for (level, name), count in sorted(counts.items()):
        print(f"{level:5} {count:4} × {name}")
    serious = [f for f in found if f[0] in ("WARN", "ERROR")]
    for level, name, detail in serious:
        print(f"{level}: {name}: {detail}")
    print(
        f"{sum(1 for f in found if f[0] == 'ERROR')} ERROR, "
        f"{sum(1 for f in found if f[0] == 'WARN')} WARN, "
        f"{sum(1 for f in found if f[0] == 'INFO')} INFO"
    )
    return 1 if serious else 0


if __name__ == "__main__":
    raise SystemExit(main())
