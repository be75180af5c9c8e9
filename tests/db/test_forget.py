"""`archivist forget`: a session, a user or a message erased from every archivist table and run
report in one transaction, never archived again from the same source rows, nothing left for
prune-check to protect; other sessions untouched. Through the CLI and over REST."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql
from support.sources import T0, SourceDB, run_cli
from typer.testing import CliRunner

from archivist.cli import cli
from archivist.config import Settings

OLIVE = "sess-olive-7f3a"
PINE = "sess-pine-2b9c"
OLIVE_CHAT = [
    "We decided to deploy the zanzibarquokka service on Vercel.",
    "Agreed: zanzibarquokka goes to Vercel, and I will set up the pipeline.",
    "Also keep the zanzibarquokka logs for 30 days.",
]
PINE_CHAT = ["Let's move the invoices to Postgres.", "Fine, Postgres for invoices."]


def invoke(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def traces(url: str, *needles: str) -> dict[str, int]:
    """Rows of every archivist table whose text holds one of `needles` (case-insensitive)."""
    found: dict[str, int] = {}
    with psycopg.connect(url) as conn:
        tables = [r[0] for r in conn.execute("SELECT t::text FROM archivist_tables() t")]
        assert "jarvis_memory_chunks" in tables and "archivist_runs" in tables
        for table in tables:
            for needle in needles:
                row = conn.execute(
                    sql.SQL("SELECT count(*) FROM {} x WHERE x::text ILIKE %s").format(
                        sql.Identifier(table)
                    ),
                    [f"%{needle}%"],
                ).fetchone()
                if row and row[0]:
                    found[f"{table}: {needle}"] = int(row[0])
    return found


def in_reports(folder: Path, *needles: str) -> list[str]:
    return [
        f"{p.name}: {n}"
        for p in sorted(folder.glob("archive-*.json"))
        for n in needles
        if n.lower() in p.read_text(encoding="utf-8").lower()
    ]


def session_rows(url: str, session_id: str) -> dict[str, list[Any]]:
    with psycopg.connect(url) as conn:
        return {
            t: sorted(
                conn.execute(
                    sql.SQL("SELECT x::text FROM {} x WHERE session_id = %s").format(
                        sql.Identifier(t)
                    ),
                    [session_id],
                ).fetchall()
            )
            for t in (
                "jarvis_archive",
                "jarvis_archive_sessions",
                "jarvis_memory_chunks",
                "archivist_message_hashes",
            )
        }


def archived(report: dict[str, Any]) -> list[str]:
    return sorted(s["session_id"] for s in report["sessions"] if s["status"] == "archived")


def test_forget_a_session_everywhere_for_good(
    source: SourceDB, env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = env["DATABASE_URL"]
    reports = tmp_path / "reports"
    monkeypatch.setenv("ARCHIVIST_REPORT_TEXT", "1")  # reports with text, to be rewritten
    source.add(OLIVE, OLIVE_CHAT)
    source.add(PINE, PINE_CHAT)
    first = invoke("archive", "--json", "--report-dir", str(reports))
    assert first.exit_code == 0, first.output
    assert archived(json.loads(first.stdout)) == [OLIVE, PINE]
    # A run that names it: the run log's arguments hold its id too.
    source.add(OLIVE, ["One more thing about zanzibarquokka."], start=T0 + timedelta(hours=1))
    named = invoke("archive", "--session-id", OLIVE, "--json", "--report-dir", str(reports))
    assert named.exit_code == 0, named.output
    assert traces(url, OLIVE, "zanzibarquokka")
    assert in_reports(reports, OLIVE, "zanzibarquokka")
    pine_before = session_rows(url, PINE)

    dry = invoke(
        "forget", "--session-id", OLIVE, "--dry-run", "--json", "--report-dir", str(reports)
    )
    assert dry.exit_code == 0, dry.output
    planned = json.loads(dry.stdout)
    assert planned["dry_run"] is True and planned["sessions"] == [OLIVE]
    assert planned["tables"]["jarvis_archive"] == 2
    assert planned["tables"]["jarvis_archive_sessions"] == 1
    assert planned["tables"]["jarvis_memory_chunks"] > 0
    assert planned["tables"]["archivist_message_hashes"] == 4
    assert planned["tables"]["archivist_runs"] >= 1
    assert planned["report_files_rewritten"] or planned["report_files_removed"]
    assert traces(url, OLIVE, "zanzibarquokka")  # nothing removed
    assert in_reports(reports, OLIVE, "zanzibarquokka")
    read = invoke("forget", "--session-id", OLIVE, "--dry-run", "--report-dir", str(reports))
    rows = sum(planned["tables"].values())
    assert read.stdout.splitlines()[0] == (
        f"dry run: forget 1 session: would remove {rows} rows, 1 tombstone"
    )
    nobody = invoke("forget", "--user-id", "alice", "--dry-run", "--report-dir", str(reports))
    assert nobody.exit_code == 2 and "nothing to forget: no session or message of user alice" in (
        nobody.stderr
    )
    assert "ARCHIVIST_MESSAGE_USER_ID is unset" in nobody.stderr  # runs record no users

    done = invoke("forget", "--session-id", OLIVE, "--json", "--report-dir", str(reports))
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    assert result["tables"] == planned["tables"] and result["tombstones"] == 1
    assert traces(url, OLIVE, "zanzibarquokka") == {}
    assert in_reports(reports, OLIVE, "zanzibarquokka") == []
    assert in_reports(reports, PINE)  # the other session's entries stay
    assert session_rows(url, PINE) == pine_before

    found = invoke("memory-search", "zanzibarquokka Vercel", "--json")
    assert found.exit_code == 0, found.output
    assert {h["session_id"] for h in json.loads(found.stdout)["hits"]} <= {PINE}

    # The source rows are still there: the next runs do not archive them again.
    again = invoke("archive", "--json")
    assert again.exit_code == 0, again.output
    assert archived(json.loads(again.stdout)) == []
    # Named, it reads as a session without messages (archive's usage error), not archived.
    named_again = invoke("archive", "--session-id", OLIVE, "--json")
    assert named_again.exit_code == 2, named_again.output
    assert archived(json.loads(named_again.stdout)) == []
    assert f"no messages for session {OLIVE}: it was forgotten on request" in named_again.output
    for view in ("state", "history"):  # not "no archived version yet": it never will have one
        said = invoke(view, OLIVE)
        assert said.exit_code == 2 and "was forgotten on request" in said.stderr, said.output
    assert traces(url, "zanzibarquokka") == {}

    check = invoke("prune-check", "--older-than", "1h", "--json")
    assert check.exit_code == 0, check.output
    verdict = json.loads(check.stdout)
    assert verdict["safe"] is True and verdict["forgotten_messages"] == 4
    assert verdict["forgotten_sessions"] == 1
    people = invoke("prune-check", "--older-than", "1h")
    assert "4 more (1 session) were forgotten on request" in " ".join(people.output.split())
    prunable = source.conn.execute(
        "SELECT session_id, bool_and(archivist_prunable(session_id::text, id::text,"
        " content::text)) FROM session_messages GROUP BY session_id ORDER BY session_id"
    ).fetchall()
    assert prunable == sorted([(OLIVE, True), (PINE, True)])  # forgotten; archived whole
    source.add(PINE, ["A late word, not archived yet."], start=T0 + timedelta(hours=2))
    late = source.conn.execute(
        "SELECT archivist_prunable(session_id::text, id::text, content::text)"
        " FROM session_messages WHERE content = 'A late word, not archived yet.'"
    ).fetchone()
    assert late == (False,)

    # The run that named it after the forget logged its id again; forgetting again scrubs that.
    twice = invoke("forget", "--session-id", OLIVE, "--json")
    assert twice.exit_code == 0, twice.output
    # no folder named: the reports of a cron line's --report-dir were not looked at, and it says so
    assert "no run report folder was looked at" in " ".join(twice.stderr.split())
    assert "no run report folder" not in done.stderr
    assert {t: n for t, n in json.loads(twice.stdout)["tables"].items() if n} == {
        "archivist_runs": 1
    }
    assert traces(url, OLIVE) == {}


def test_a_forgotten_message_leaves_other_sessions_citations(
    source: SourceDB, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A later session's "never" cites the earlier session's turn that affirms it; forgetting
    the earlier session takes that turn's id out of the later one's items, versions and chunks,
    and leaves the "never" itself."""
    url = env["DATABASE_URL"]
    monkeypatch.setenv("ARCHIVIST_MESSAGE_USER_ID", "user_id")
    source.conn.execute("ALTER TABLE session_messages ADD COLUMN user_id text DEFAULT 'alice'")
    source.add(
        "march",
        ["I set up Zotero last week and imported 200 papers.", "Nice."],
        ids=[918273645, 918273646],
    )
    assert invoke("archive").exit_code == 0
    (never, _) = source.add(
        "may",
        ["I've never used Zotero, how do I start?", "Install it first."],
        start=T0 + timedelta(days=1),
    )
    assert invoke("archive").exit_code == 0
    cited = traces(url, "918273645")
    assert {"jarvis_state_items: 918273645", "jarvis_archive: 918273645"} <= set(cited), cited

    dry = invoke("forget", "--session-id", "march", "--dry-run", "--json")
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.stdout)["tables"]["citations"] == 1
    done = invoke("forget", "--session-id", "march", "--json")
    assert done.exit_code == 0, done.output
    assert traces(url, "918273645") == {}
    state = invoke("state", "may", "--json")
    assert state.exit_code == 0, state.output
    facts = [i for i in json.loads(state.stdout)["items"] if i["type"] == "fact"]
    assert [(f["text"], f["refs"]) for f in facts] == [("Never used Zotero", [str(never)])]


def test_forget_a_user_whole_sessions_and_their_messages_in_shared_ones(
    source: SourceDB, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url = env["DATABASE_URL"]
    monkeypatch.setenv("ARCHIVIST_MESSAGE_USER_ID", "user_id")
    source.conn.execute("ALTER TABLE session_messages ADD COLUMN user_id text")
    alone = source.add("s-alice", ["Alice: my wolframite passport is renewed.", "Noted."])
    shared = source.add(
        "s-shared",
        ["Alice: the wolframite budget is 40k.", "Bob: then we pick Netlify.", "Netlify, ok."],
    )
    bobs = source.add("s-bob", ["Bob: the plum app ships Friday.", "Friday it is."])
    for ids, users in ((alone, ["alice", None]), (shared, ["alice", "bob", None])):
        for mid, user in zip(ids, users, strict=False):
            source.conn.execute(
                "UPDATE session_messages SET user_id = %s WHERE id = %s", [user, mid]
            )
    source.conn.execute("UPDATE session_messages SET user_id = 'bob' WHERE id = %s", [bobs[0]])
    assert invoke("archive", "--json").exit_code == 0
    bob_before = session_rows(url, "s-bob")
    assert traces(url, "wolframite")

    dry = invoke("forget", "--user-id", "alice", "--dry-run", "--json")
    assert dry.exit_code == 0, dry.output
    planned = json.loads(dry.stdout)
    assert planned["sessions"] == ["s-alice"]
    assert planned["messages"] == [{"session_id": "s-shared", "message_id": str(shared[0])}]
    assert traces(url, "wolframite")

    done = invoke("forget", "--user-id", "alice", "--json")
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    assert result["rebuilt"] == ["s-shared"]
    assert [(s["session_id"], s["status"]) for s in result["rearchived"]] == [
        ("s-shared", "archived")
    ]
    assert traces(url, "wolframite", "s-alice") == {}
    assert traces(url, "Netlify")  # the rest of the shared session is archived again
    assert session_rows(url, "s-bob") == bob_before
    again = invoke("archive", "--json")
    assert again.exit_code == 0, again.output
    assert archived(json.loads(again.stdout)) == []
    check = invoke("prune-check", "--older-than", "1h", "--json")
    assert check.exit_code == 0, check.output
    assert json.loads(check.stdout)["forgotten_messages"] == 3


def test_forget_one_message_and_the_session_is_archived_again_without_it(
    source: SourceDB, env: dict[str, str]
) -> None:
    url = env["DATABASE_URL"]
    ids = source.add(
        "s-msg",
        [
            "We ship the billing page on Monday.",
            "My quetzalcoatl password is hunter2, please rotate it.",
            "Monday works, I will rotate it.",
        ],
    )
    source.add(PINE, PINE_CHAT)
    assert invoke("archive", "--json").exit_code == 0
    pine_before = session_rows(url, PINE)
    assert traces(url, "quetzalcoatl")

    dry = invoke("forget", "--message-id", str(ids[1]), "--dry-run", "--json")
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.stdout)["messages"] == [
        {"session_id": "s-msg", "message_id": str(ids[1])}
    ]
    assert traces(url, "quetzalcoatl")

    done = invoke("forget", "--message-id", str(ids[1]), "--json")
    assert done.exit_code == 0, done.output
    assert traces(url, "quetzalcoatl", "hunter2") == {}
    with psycopg.connect(url) as conn:
        kept = conn.execute(
            "SELECT message_id FROM archivist_message_hashes WHERE session_id = 's-msg' "
            "ORDER BY message_id::bigint"
        ).fetchall()
    assert kept == [(str(ids[0]),), (str(ids[2]),)]
    assert session_rows(url, PINE) == pine_before
    found = invoke("memory-search", "billing page Monday", "--json")
    assert "s-msg" in {h["session_id"] for h in json.loads(found.stdout)["hits"]}
    again = invoke("archive", "--json")
    assert archived(json.loads(again.stdout)) == []
    check = invoke("prune-check", "--older-than", "1h", "--json")
    assert check.exit_code == 0, check.output
    assert json.loads(check.stdout)["forgotten_messages"] == 1
    # the prune job's DELETE may take all three: two archived whole, one forgotten
    prunable = source.conn.execute(
        "SELECT id, archivist_prunable(session_id::text, id::text, content::text)"
        " FROM session_messages WHERE session_id = 's-msg' ORDER BY id"
    ).fetchall()
    assert prunable == [(i, True) for i in ids]

    # A session whose other messages the bot pruned cannot be archived again without them.
    source.conn.execute("DELETE FROM session_messages WHERE id = %s", [ids[0]])
    refused = invoke("forget", "--message-id", str(ids[2]))
    assert refused.exit_code == 2
    assert "forget the whole session instead" in refused.output
    assert traces(url, "rotate it")  # nothing was removed


def test_report_files_keep_ids_and_counts_and_text_only_when_asked(
    source: SourceDB, env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source.add(OLIVE, OLIVE_CHAT)
    plain, texts = tmp_path / "plain", tmp_path / "texts"
    first = invoke("archive", "--json", "--report-dir", str(plain))
    assert first.exit_code == 0, first.output
    printed = json.loads(first.stdout)  # what --json prints for a person keeps the text
    assert printed["text_left_out"] is False and printed["sessions"][0]["topics"]
    [saved] = [json.loads(p.read_text()) for p in plain.glob("archive-*.json")]
    assert saved["text_left_out"] is True
    assert [s["session_id"] for s in saved["sessions"]] == [OLIVE]
    assert saved["sessions"][0]["topics"] == [] and saved["sessions"][0]["decisions"] == []
    assert saved["sessions"][0]["chunks_added"] == printed["sessions"][0]["chunks_added"]
    assert in_reports(plain, "zanzibarquokka") == []

    monkeypatch.setenv("ARCHIVIST_REPORT_TEXT", "1")
    source.add(OLIVE, ["zanzibarquokka also needs a staging site."], start=T0 + timedelta(hours=1))
    again = invoke("archive", "--json", "--report-dir", str(texts))
    assert again.exit_code == 0, again.output
    assert in_reports(texts, "zanzibarquokka")


def test_a_session_a_rest_worker_holds_is_not_forgotten_under_it(
    source: SourceDB, env: dict[str, str]
) -> None:
    source.add(OLIVE, OLIVE_CHAT)
    assert invoke("archive").exit_code == 0
    source.conn.execute(
        "INSERT INTO archivist_session_claims VALUES (%s, 'worker-1', now() + interval '5 min')",
        [OLIVE],
    )
    refused = invoke("forget", "--session-id", OLIVE)
    assert refused.exit_code == 1, refused.output
    assert f"session {OLIVE} is being archived right now (claimed)" in refused.output
    assert traces(env["DATABASE_URL"], "zanzibarquokka")  # nothing was removed


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], "say what to forget"),
        (["--session-id", ""], "--session-id must not be empty"),
        (["--message-id", "999999"], "no message 999999 in the archive or the source table"),
        (
            ["--session-id", "does-not-exist"],  # a typo: its tombstone would block that id
            "nothing to forget: no session does-not-exist in the archive or the source table",
        ),
    ],
)
def test_a_bad_forget_is_one_line_and_exit_2(
    source: SourceDB, env: dict[str, str], args: list[str], expected: str
) -> None:
    result = invoke("forget", *args)
    assert result.exit_code == 2, result.output
    assert expected in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


@pytest.mark.both_transports
def test_forget_over_rest_as_the_service_role(
    source: SourceDB, settings: Settings, transport: str, db_url: str
) -> None:
    source.add(OLIVE, OLIVE_CHAT)
    source.add(PINE, PINE_CHAT)
    assert run_cli(settings, "archive").returncode == 0
    dry = run_cli(settings, "forget", "--session-id", OLIVE, "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout)["tables"]["jarvis_archive"] == 1
    done = run_cli(settings, "forget", "--session-id", OLIVE, "--json")
    assert done.returncode == 0, done.stderr
    assert traces(db_url, OLIVE, "zanzibarquokka") == {}
    again = run_cli(settings, "archive", "--json")
    assert again.returncode == 0, again.stderr
    assert archived(json.loads(again.stdout)) == []
