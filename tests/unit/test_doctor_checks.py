"""How a failed doctor check reads: its fix is shown once."""

from __future__ import annotations

from archivist.doctor import Check


def test_a_fix_the_error_already_gives_is_not_said_again() -> None:
    down = Check(
        name="ollama",
        ok=False,
        detail="Ollama is not reachable at http://127.0.0.1:1: connection failed (4 attempts); "
        "start it with `ollama serve` or set OLLAMA_HOST",
        fix="start it: ollama serve",
    )
    assert down.fix_to_show is None
    missing = Check(
        name="embedding model pulled",
        ok=False,
        detail="nomic-embed-text is not in Ollama",
        fix="run: ollama pull nomic-embed-text",
    )
    assert missing.fix_to_show == "run: ollama pull nomic-embed-text"
    passed = Check(name="ollama", ok=True, detail="ok", fix="start it: ollama serve")
    assert passed.fix_to_show is None
