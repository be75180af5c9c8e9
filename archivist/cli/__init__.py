"""The `archivist` command line: parses flags, calls one library function, renders the result.

- `app`: the typer app, the options given before a command (`--env-file`, `-v`, `-q`,
  `--version`) and the console-script entry point `main`;
- `common`: the shared options, settings loading and the one place errors end (exit codes);
- `output`: where output goes and how much of it (`--json`, `--quiet`, `-v`, terminals);
- commands, one module per group: `archive_cmds` (init, archive, demo, reembed),
  `search_cmds` (memory-search, archive-search, search), `inspect_cmds` (status, state,
  history, prune-check, doctor, config), `forget_cmds` (forget), `state_cmds` (conflicts,
  resolve), `serve_cmds` (mcp);
- renderers: `render_run` (archive runs), `render_search` (search hits), `render_state`
  (the current state and its conflicts), `render` (the rest).
"""

from archivist.cli import (
    archive_cmds,
    forget_cmds,
    inspect_cmds,
    search_cmds,
    serve_cmds,
    state_cmds,
)
from archivist.cli.app import cli, main

__all__ = [
    "archive_cmds",
    "cli",
    "forget_cmds",
    "inspect_cmds",
    "main",
    "search_cmds",
    "serve_cmds",
    "state_cmds",
]
