"""The documentation cannot rot: every shell command in the code blocks of README.md and
docs/*.md runs, as written.

The blocks run in a fresh folder set up as a checkout is after `make demo` (the Makefile's demo
recipe, run here against the Ollama test server, with `.venv` pointing at the virtualenv that
runs the tests), file by file (README.md first) and in order, each block in its own `bash`
with nothing configured but the Ollama host. Fences without a language (or sh/bash/shell)
are shell; `text`, `json`, `crontab`, `ini` and the rest are not run. A comment on the line
before a block changes how it runs (the markers are documented in docs/internals.md, under
Development):

    <!-- readme-test: skip (why) -->     not run
    <!-- readme-test: exit N -->         each command must exit N (default 0)
    <!-- readme-test: own-database -->   run against a fresh database holding the sample
                                         conversations in DATABASE_URL; the block's own
                                         `export DATABASE_URL=...` is a placeholder, not run
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.ollama_server import OllamaTestServer

from archivist.config import SourceTables
from archivist.demo import NEXT_COMMANDS, _load_samples, sample_conversations
from archivist.store import PostgresStore

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCUMENTS = [README, *sorted((ROOT / "docs").glob("*.md"))]
SHELL_FENCES = {"", "sh", "bash", "shell"}
MARKER = re.compile(r"<!--\s*readme-test:\s*(.*?)\s*-->")


@dataclass(frozen=True)
class Block:
    path: str  # relative to the repository root
    line: int  # of the opening fence, 1-based
    marker: str | None
    commands: list[tuple[int, str]]  # (line, command) with continuations joined

    @property
    def expected_exit(self) -> int:
        match = re.fullmatch(r"exit (\d+)", self.marker or "")
        return int(match.group(1)) if match else 0


@dataclass(frozen=True)
class PythonBlock:
    path: str
    line: int
    names: list[str]  # the variables that must hold something after it ran
    code: list[str]


def shell_blocks(
    text: str, path: str = "README.md", python: list[PythonBlock] | None = None
) -> list[Block]:
    """A document's shell blocks, with the marker on the line before each (if any); its
    `python` blocks marked `finds` go to `python`."""
    python = [] if python is None else python
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        fence = re.fullmatch(r"```(\w*)\s*", lines[i])
        if not fence:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        previous = MARKER.fullmatch(lines[i - 1].strip()) if i else None
        if fence.group(1) == "python" and previous and previous.group(1).startswith("finds "):
            python.append(
                PythonBlock(path, i + 1, previous.group(1).split()[1:], lines[i + 1 : end])
            )
        if fence.group(1) in SHELL_FENCES:
            blocks.append(
                Block(
                    path,
                    i + 1,
                    previous.group(1) if previous else None,
                    _commands(lines, i + 1, end),
                )
            )
        i = end + 1
    return blocks


def _commands(lines: list[str], start: int, end: int) -> list[tuple[int, str]]:
    commands: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for n in range(start, end):
        text = lines[n]
        if pending is not None:
            pending = (pending[0], pending[1] + " " + text.strip())
        elif text.strip() and not text.lstrip().startswith("#"):
            pending = (n + 1, text.strip())
        if pending is not None and not pending[1].endswith("\\"):
            commands.append(pending)
            pending = None
        elif pending is not None:
            pending = (pending[0], pending[1][:-1].rstrip())
    return commands


PYTHON_BLOCKS: list[PythonBlock] = []
BLOCKS = [
    block
    for document in DOCUMENTS
    for block in shell_blocks(document.read_text(), str(document.relative_to(ROOT)), PYTHON_BLOCKS)
]


def test_markers_are_known_and_every_skip_says_why() -> None:
    for block in BLOCKS:
        marker = block.marker
        assert marker is None or re.fullmatch(r"skip \(.+\)|exit \d+|own-database", marker), (
            f"{block.path}:{block.line}: unknown marker {marker!r}"
        )


def test_the_demo_suggests_the_commands_the_readme_shows() -> None:
    readme_commands = {c for b in BLOCKS if b.path == "README.md" for _, c in b.commands}
    for arguments, _ in NEXT_COMMANDS:
        assert any(c.startswith(f"archivist {arguments}") for c in readme_commands), arguments


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory, ollama: OllamaTestServer) -> Iterator[Path]:
    """A folder as after `make demo`: .venv, and the demo's database in .archivist/."""
    folder = tmp_path_factory.mktemp("checkout")
    (folder / ".venv").symlink_to(Path(sys.executable).parent.parent)
    (folder / "home").mkdir()
    done = subprocess.run(
        ["bash", "-c", _make_demo_recipe(folder)],
        cwd=folder,
        env=_env(folder, ollama),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    tail = done.stdout.splitlines()[-len(NEXT_COMMANDS) :]
    for printed, (arguments, _) in zip(tail, NEXT_COMMANDS, strict=True):
        assert printed.split("  #")[0].strip().endswith(f"archivist {arguments}"), printed
    server = _hold_server(folder / ".archivist" / "demo" / "pgdata")
    yield folder
    server.cleanup()


def _make_demo_recipe(folder: Path) -> str:
    """`make demo`'s recipe from the Makefile, its variables filled in for `folder`."""
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^demo:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert recipe, "the Makefile has no demo target"
    script = recipe.group(1).replace("\t", "")
    for name, value in {"CURDIR": str(folder), "BIN": ".venv/bin", "VENV": ".venv"}.items():
        script = script.replace(f"$({name})", value)
    return script


def _hold_server(pgdata: Path) -> Any:
    """A handle on the demo's embedded server, so each command joins it instead of starting it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

        return pgserver.get_server(pgdata, cleanup_mode="stop")


def _env(folder: Path, ollama: OllamaTestServer) -> dict[str, str]:
    """Nothing configured but the Ollama host: a user's shell in that folder."""
    return {
        "PATH": f"{folder / '.venv' / 'bin'}:/usr/bin:/bin",
        "HOME": str(folder / "home"),
        "LANG": "C.UTF-8",
        "OLLAMA_HOST": ollama.url,
    }


@pytest.fixture
def own_database(pg_server: str) -> Iterator[str]:
    """A fresh database holding the sample conversations (not archived), one per block:
    `DATABASE_URL`."""
    name = "readme_own"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name} TEMPLATE template1")
    url = pg_server.replace("/postgres?", f"/{name}?", 1)
    with psycopg.connect(url, autocommit=True) as conn:
        _load_samples(PostgresStore(conn, SourceTables()), sample_conversations())
    yield url
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


FINDS = re.compile(r"archivist (memory-search|archive-search|search|state|history) ")
NOT_EMPTY = (
    "import json, sys; d = json.load(sys.stdin); "
    "sys.exit(0 if any(d.get(k) for k in ('hits', 'sessions', 'items', 'versions')) else 1)"
)


def _script(block: Block) -> str:
    """The block as a bash script that checks each command's exit code as it goes."""
    lines = []
    for line, command in block.commands:
        if block.marker == "own-database" and re.match(r"export DATABASE_URL=", command):
            continue
        where = shlex.quote(f"{block.path}:{line}: {command}")
        lines += [
            command,
            f'rc=$?; if [ "$rc" -ne {block.expected_exit} ]; then '
            f'echo "exit $rc, expected {block.expected_exit}: "{where} >&2; exit 97; fi',
        ]
        if block.marker is None and FINDS.match(command):
            # An example run on the demo must find something, not only exit 0.
            bare = command.split("  #")[0].split(" #")[0].rstrip()
            lines.append(
                f"{bare} --json 2>/dev/null | python -c {shlex.quote(NOT_EMPTY)} || "
                f'{{ echo "found nothing: "{where} >&2; exit 98; }}'
            )
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.path}:{b.line}" for b in BLOCKS])
def test_readme_block_runs_as_written(
    block: Block, checkout: Path, ollama: OllamaTestServer, request: pytest.FixtureRequest
) -> None:
    if block.marker and block.marker.startswith("skip"):
        pytest.skip(block.marker)
    env = _env(checkout, ollama)
    if block.marker == "own-database":
        env["DATABASE_URL"] = request.getfixturevalue("own_database")
    done = subprocess.run(
        ["bash", "-c", _script(block)],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{done.stderr}\n--- stdout:\n{done.stdout[-2000:]}"
    assert "Traceback" not in done.stderr


def test_the_readme_fits_on_a_few_screens() -> None:
    assert len(README.read_text().splitlines()) <= 200


LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(text: str) -> set[str]:
    """GitHub's anchors for a document's headings."""
    headings = re.findall(r"^#+ (.+)$", _outside_fences(text), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def _outside_fences(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_every_link_between_documents_resolves(document: Path) -> None:
    for target in LINK.findall(_outside_fences(document.read_text())):
        if re.match(r"[a-z]+:", target):
            continue
        page, _, anchor = target.partition("#")
        path = (document.parent / page).resolve() if page else document
        assert path.is_file(), f"{document.name}: link to a missing file {target}"
        if anchor and path.suffix == ".md":
            assert anchor in _anchors(path.read_text()), f"{document.name}: no heading {target}"


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=[f"{b.path}:{b.line}" for b in PYTHON_BLOCKS])
def test_python_example_finds_something_in_the_demo(
    block: PythonBlock, checkout: Path, ollama: OllamaTestServer
) -> None:
    check = [f"assert {name}, {name + ' found nothing'!r}" for name in block.names]
    done = subprocess.run(
        [str(checkout / ".venv" / "bin" / "python"), "-c", "\n".join([*block.code, *check])],
        cwd=checkout,
        env=_env(checkout, ollama),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{block.path}:{block.line}: {done.stderr}"
    assert "reading the demo database" in done.stderr


def test_every_python_example_that_reads_is_checked() -> None:
    assert any(b.path == "docs/mcp-and-python.md" for b in PYTHON_BLOCKS)
