"""A production install carries only what it uses: `pip install archivist` runs a cron job
against Postgres, and a command that needs a missing extra names the `pip install` to run.

"Missing" is a real import failure: the archivist runs in a subprocess whose interpreter
refuses to import the extra's packages at start-up (a sitecustomize on PYTHONPATH installs an
import blocker), as if they were not installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from support.postgrest_double import PostgrestDouble
from support.sources import SourceDB

REPO = Path(__file__).resolve().parents[2]
BLOCKER = '''
import os
import sys

_BLOCKED = set(filter(None, os.environ.get("BLOCKED_PACKAGES", "").split(",")))


class _NotInstalled:
    """Finds nothing for the blocked packages, as if they were not installed."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in _BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled())
'''
EXTRAS = {
    "embedded": ("pgserver",),
    "supabase": ("supabase", "postgrest", "supabase_auth", "storage3", "realtime"),
    "mcp": ("mcp",),
}
ALL_EXTRAS = ",".join(p for packages in EXTRAS.values() for p in packages)


def without(
    packages: str, args: list[str], tmp_path: Path, **env: str
) -> subprocess.CompletedProcess[str]:
    """`python -m archivist ARGS` in an interpreter where `packages` cannot be imported."""
    (tmp_path / "blocker").mkdir(exist_ok=True)
    (tmp_path / "blocker" / "sitecustomize.py").write_text(BLOCKER)
    inherited = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_", "SUPABASE_", "ARCHIVIST_"))
    }
    environ = {
        **inherited,
        "PYTHONPATH": str(tmp_path / "blocker"),
        "BLOCKED_PACKAGES": packages,
        "ARCHIVIST_CONFIG": "",
        "ARCHIVIST_EMBEDDER": "hash",
        "ARCHIVIST_DATA_DIR": str(tmp_path / "data"),
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "archivist", *args],
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_names_the_extra(result: subprocess.CompletedProcess[str], extra: str) -> None:
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr  # (`demo` says what it starts first)
    assert f"pip install 'archivist[{extra}]'" in errors[0]
    assert "Traceback" not in result.stderr


def test_the_blocker_really_makes_the_packages_unimportable(tmp_path: Path) -> None:
    result = without("pgserver", ["config"], tmp_path)
    assert result.returncode == 0, result.stderr
    probe = subprocess.run(
        [sys.executable, "-c", "import pgserver"],
        env={**os.environ, "PYTHONPATH": str(tmp_path / "blocker"), "BLOCKED_PACKAGES": "pgserver"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert probe.returncode == 1 and "No module named 'pgserver'" in probe.stderr


@pytest.mark.parametrize("args", [["status"], ["init"], ["demo"]])
def test_the_embedded_database_without_its_extra(args: list[str], tmp_path: Path) -> None:
    assert_names_the_extra(without("pgserver", args, tmp_path), "embedded")
    assert not (tmp_path / "data" / "pgdata").exists()


def test_the_rest_transport_without_its_extra(postgrest: PostgrestDouble, tmp_path: Path) -> None:
    env = {"SUPABASE_URL": postgrest.url, "SUPABASE_SERVICE_ROLE_KEY": postgrest.key}
    for packages in ("supabase", "postgrest"):
        for args in (["init"], ["status"], ["memory-search", "vercel"]):
            result = without(packages, args, tmp_path, **env)
            assert_names_the_extra(result, "supabase")
            assert postgrest.key not in result.stderr


def test_mcp_without_its_extra(tmp_path: Path) -> None:
    assert_names_the_extra(without("mcp", ["mcp"], tmp_path), "mcp")


def test_a_cron_job_against_postgres_needs_no_extra(source: SourceDB, tmp_path: Path) -> None:
    source.add("olive", ["let's deploy the frontend on Vercel", "ok, Vercel it is"])
    env = {"DATABASE_URL": source.url}
    for args in (
        ["init"],
        ["archive", "--delay-ms", "0"],
        ["status"],
        ["memory-search", "vercel"],
        ["archive-search", "--topic", "deployment"],
        ["prune-check", "--older-than", "1d"],
        ["doctor"],
    ):
        result = without(ALL_EXTRAS, args, tmp_path, **env)
        assert result.returncode in (0, 3), (args, result.stderr)  # 3: prune-check "not safe"
    imported = subprocess.run(
        [sys.executable, "-c", "import archivist.client, archivist.search; print('ok')"],
        env={
            **os.environ,
            "PYTHONPATH": str(tmp_path / "blocker"),
            "BLOCKED_PACKAGES": ALL_EXTRAS,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert imported.stdout.strip() == "ok", imported.stderr


def test_the_base_install_lists_no_extra_package() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    base = " ".join(project["dependencies"])
    extras = project["optional-dependencies"]
    for extra, requirement in (("embedded", "pgserver"), ("supabase", "supabase"), ("mcp", "mcp")):
        assert requirement not in base, requirement
        assert any(r.startswith(requirement) for r in extras[extra]), extra
    assert extras["all"] == ["archivist[embedded,supabase,mcp]"]
