"""What people read: one time format, plurals, lines that fit 80 columns off a terminal, and a
prune line for cron that is silent on success and takes its cutoff from prune-check."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from support.sources import T0, SourceDB, run_archivist

UNREACHABLE = "http://127.0.0.1:9"
TIME = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d)?(?:Z|[+-]\d\d:\d\d)?")


def env_for(db: SourceDB, **extra: str) -> dict[str, str]:
    return {
        "DATABASE_URL": db.url,
        "OLLAMA_HOST": UNREACHABLE,
        "ARCHIVIST_DELAY_MS": "0",
        "ARCHIVIST_EMBEDDER": "hash",
        **extra,
    }


def test_prune_check_off_a_terminal_fits_80_columns_in_one_time_format(source: SourceDB) -> None:
    source.add("olive-frontend-deployment-planning", ["use Vercel", "ok"], T0)
    assert run_archivist(["archive"], env_for(source)).returncode == 0
    source.add(
        "olive-frontend-deployment-planning", ["and the DNS?", "tomorrow"], T0 + timedelta(1)
    )
    source.add("a-session-never-archived", ["hello"], T0)
    done = run_archivist(["prune-check", "--older-than", "1d"], env_for(source))
    assert done.returncode == 3, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, done.stdout
    assert "(2 sessions)" in lines[0] and " UTC " in lines[0], lines[0]
    times = TIME.findall(done.stdout)
    assert times and all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", t) for t in times), times


def test_singular_counts_read_as_singular(source: SourceDB) -> None:
    source.add("one", ["just one message"], T0)
    done = run_archivist(["archive"], env_for(source))
    assert done.returncode == 0, done.stderr
    summary = (done.stdout + done.stderr).strip().splitlines()[-1]
    assert summary.startswith("1 session: 1 archived"), summary
    assert "in 1 call" in summary and "1 calls" not in summary, summary
    prune = run_archivist(["prune-check", "--older-than", "1d"], env_for(source))
    assert prune.returncode == 0, prune.stderr
    assert "of 1 message older than" in prune.stdout and "(1 session)" in prune.stdout


def test_print_cutoff_prints_only_the_checked_cutoff_when_safe(source: SourceDB) -> None:
    source.add("one", ["just one message"], T0)
    assert run_archivist(["archive"], env_for(source)).returncode == 0
    before = datetime.now(UTC) - timedelta(days=30)
    done = run_archivist(["prune-check", "--older-than", "30d", "--print-cutoff"], env_for(source))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    printed = done.stdout.strip()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", printed), printed
    cutoff = datetime.fromisoformat(printed)
    assert before - timedelta(seconds=1) <= cutoff <= before + timedelta(seconds=30)
    source.add("late", ["not archived"], T0)
    unsafe = run_archivist(
        ["prune-check", "--older-than", "30d", "--print-cutoff"], env_for(source)
    )
    assert unsafe.returncode == 3 and unsafe.stdout == "", unsafe.stdout
    assert unsafe.stderr.startswith("not safe:"), unsafe.stderr


def test_a_search_header_shows_the_query_on_one_short_line(source: SourceDB) -> None:
    source.add("one", ["we moved the cache to Memcached"], T0)
    assert run_archivist(["archive"], env_for(source)).returncode == 0
    query = "Memcached\n" + "lattice gauge " * 600  # a pasted page, 8,000+ characters
    done = run_archivist(["memory-search", query, "--min-score", "0"], env_for(source))
    assert done.returncode == 0, done.stderr
    header = done.stdout.splitlines()[0]
    assert re.match(r"\d+ hits? for 'Memcached lattice gauge", header), header
    assert len(header) <= 140, header
    assert "times UTC" in header
    # Without --min-score the pasted page matches nothing well: one short line says so.
    weak = run_archivist(["memory-search", query], env_for(source))
    assert weak.returncode == 0, weak.stderr
    (line,) = weak.stdout.splitlines()
    assert line.startswith("no good match for 'Memcached lattice gauge") and len(line) <= 160


def test_a_summary_counts_chunks_only_where_sessions_were_worked_on(source: SourceDB) -> None:
    """A dry run says what it would do, in its own tense; an unchanged session's chunks are not
    read, so no chunk counts stand for them."""
    source.add("one", ["let's use Vercel for the frontend", "ok"], T0)
    plan = run_archivist(["archive", "--dry-run"], env_for(source))
    assert plan.returncode == 0, plan.stderr
    planned = plan.stdout.strip().splitlines()[-1]
    assert planned.startswith("dry run, nothing written: 1 session: 1 planned"), planned
    assert re.search(r"chunks would add [1-9]\d*, remove 0, keep 0, in 1 embedding call$", planned)
    assert run_archivist(["archive"], env_for(source)).returncode == 0
    again = run_archivist(["archive", "--dry-run", "--session-id", "one"], env_for(source))
    unchanged = again.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"dry run, nothing written: 1 session: 1 unchanged in \S+", unchanged)


def test_archived_text_cannot_send_a_terminal_its_control_sequences(source: SourceDB) -> None:
    """A message is the bot's users' text: ESC in it would colour, retitle or clear the
    reader's terminal. Shown, it is text; --json escapes it as JSON does."""
    said = "let's use Vercel for the frontend \x1b]0;pwned\x07\x1b[31mnow\r, Kim \x1b[2J"
    source.add("esc", [said, "ok"], T0)
    assert run_archivist(["archive"], env_for(source)).returncode == 0
    for command in (["memory-search", "Vercel"], ["state", "esc"], ["archive-search"]):
        done = run_archivist([*command], env_for(source))
        assert done.returncode == 0, (command, done.stderr)
        assert "Vercel" in done.stdout, (command, done.stdout)
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", done.stdout + done.stderr), command
    shown = run_archivist(["memory-search", "Vercel", "--json"], env_for(source))
    assert "\\u001b]0;pwned" in shown.stdout


def test_a_run_summary_says_what_it_did_to_the_bots_text(source: SourceDB) -> None:
    """A message cut at max_message_chars is archived in part: the run says so, not only
    its --json report."""
    source.add("long", ["x " * 400, "ok"], T0)
    done = run_archivist(["archive"], {**env_for(source), "ARCHIVIST_MAX_MESSAGE_CHARS": "200"})
    assert done.returncode == 0, done.stderr
    summary = done.stdout.strip().splitlines()[-1]
    assert summary.endswith("; 1 message cut at max_message_chars"), summary
    small = {**env_for(source), "ARCHIVIST_MAX_MESSAGE_CHARS": "200"}
    plan = run_archivist(["archive", "--dry-run", "--rebuild", "--session-id", "long"], small)
    assert "1 message cut at max_message_chars" in plan.stdout and "clipped" not in plan.stdout
    # status and archive agree: a message archived cut is no run's work, and is shown apart
    again = run_archivist(["archive"], small)
    assert again.stdout.startswith("nothing to archive"), again.stdout
    status = run_archivist(["status"], small).stdout
    assert "messages not archived: 0" in status, status
    assert "messages archived cut at max_message_chars: 1" in status, status


def test_a_long_plan_lists_the_state_changes_of_its_first_sessions_only(
    source: SourceDB,
) -> None:
    """At hundreds of sessions a dry run listed every state change of every session (1,777
    lines for 200): one line per session stays, the changes of the first ten."""
    for n in range(12):
        source.add(f"s{n:02d}", [f"let's use Tool{n} for the frontend", "ok"], T0)
    plan = run_archivist(["archive", "--dry-run"], env_for(source))
    assert plan.returncode == 0, plan.stderr
    lines = plan.stdout.splitlines()
    assert sum(line.startswith("planned") for line in lines) == 12
    assert sum("would add [d_" in line for line in lines) == 10
    assert "the state changes of 2 more planned sessions are not listed (-v or --json" in (
        " ".join(plan.stdout.split())
    )
    assert lines[-1].startswith("dry run, nothing written: 12 sessions")
    verbose = run_archivist(["archive", "--dry-run", "-v"], env_for(source))
    assert sum("would add [d_" in line for line in verbose.stdout.splitlines()) == 12
