"""The package's folders import each other without cycles, so each can be read on its own.

A "unit" is a top-level module (`archivist/models.py`) or folder (`archivist/state/`); an
import from one unit of another is an edge. Imports inside one unit do not count.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "archivist"


def _unit(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "archivist" and len(parts) > 1 else None


def _edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        here = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        targets = edges.setdefault(here, set())
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
                if node.module == "archivist":
                    names = [f"archivist.{a.name}" for a in node.names]
            targets.update(u for n in names if (u := _unit(n)) and u != here)
    return edges


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path, or None."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycles_between_folders() -> None:
    assert _cycle(_edges()) is None, " -> ".join(_cycle(_edges()) or [])


def test_the_checker_sees_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_models_and_state_know_their_place() -> None:
    edges = _edges()
    assert "state" not in edges["models"] and "extract" not in edges["state"]


def _imports(path: Path) -> list[str]:
    """The modules a file imports (absolute imports only)."""
    modules: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.append(node.module)
    return modules


def test_only_the_store_talks_psycopg() -> None:
    """Database errors are mapped at the store's edge (archivist.store.psycopg_rpc); above it
    only the settings parse a connection string with psycopg's conninfo. Inside the store, the
    transport-neutral modules leave psycopg to the direct transport."""
    importers = set()
    for path in PACKAGE.rglob("*.py"):
        if any(m.split(".")[0] in ("psycopg", "psycopg_pool") for m in _imports(path)):
            importers.add(path.relative_to(PACKAGE).as_posix())
    assert {p for p in importers if not p.startswith("store/")} == {"config.py"}
    assert not importers & {"store/store.py", "store/protocol.py", "store/rest.py"}


def test_above_the_store_its_names_come_from_the_package() -> None:
    """Code above the store imports `archivist.store`, not its modules; the REST transport is
    the exception (imported only when used: supabase-py is an optional extra)."""
    reached = {
        f"{path.relative_to(PACKAGE).as_posix()}: {module}"
        for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0] != "store"
        for module in _imports(path)
        if module.startswith("archivist.store.") and module != "archivist.store.rest"
    }
    assert not reached


def test_the_command_line_and_the_client_start_without_the_rules_extractor() -> None:
    """A search, a status, `doctor` or `--help` from the command line loads neither the rules
    (their regular expressions take most of a second to compile) nor the archive run: those
    load when a run starts, or `doctor` checks an LLM extractor (archivist.client.archivist).
    Nor does a client configured for Ollama load the ollama client before it embeds (a third
    of a second)."""
    code = (
        "import sys, archivist.cli.app, archivist.mcp_server.server\n"
        "from archivist.client import Archivist\n"
        "from archivist.config import Settings\n"
        "url = 'postgresql://u@127.0.0.1:1/x'\n"
        "Archivist(Settings(database_url=url, embedder='ollama'), connect=False).close()\n"
        "with Archivist(Settings(database_url=url, embedder='hash'), connect=False) as client:\n"
        "    assert not client.doctor().ok\n"
        "heavy = ('archivist.state.frames', 'archivist.extract.rules', 'archivist.pipeline.run',"
        " 'ollama')\n"
        "print(','.join(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_a_refused_mcp_start_never_imports_the_sdk() -> None:
    """`archivist mcp` checks the address and the database before it imports the MCP SDK
    (about a second): a refused start fails that much sooner."""
    code = (
        "import sys\n"
        "from archivist.config import Settings\n"
        "from archivist.errors import ArchivistError\n"
        "from archivist.mcp_server import serve\n"
        "url = 'postgresql://u@127.0.0.1:1/x'\n"
        "for http, host in ((True, '0.0.0.0'), (False, '127.0.0.1')):\n"
        "    try:\n"
        "        serve(Settings(database_url=url, embedder='hash'), print, http, host)\n"
        "    except ArchivistError:\n"
        "        pass\n"
        "print(','.join(m for m in ('mcp', 'uvicorn') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
