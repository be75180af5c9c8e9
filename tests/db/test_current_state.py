"""The current state across sessions through the real CLI: what is true now, as of a date, how
a subject changed, conflicts and their resolution."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row
from support.sources import T0, SourceDB, run_archivist
from typer.testing import CliRunner

from archivist.cli import cli

DAY = timedelta(days=1)


def invoke(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def as_json(*args: str) -> dict[str, Any]:
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def invoke_lines(*args: str) -> list[str]:
    """The item lines `state --current` prints (with `args`)."""
    result = invoke("state", "--current", *args)
    assert result.exit_code == 0, result.output
    return [line for line in result.stdout.splitlines() if line.startswith("[")]


def by_text(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {i["text"]: i for i in items}


@pytest.fixture
def changed(source: SourceDB, env: dict[str, str]) -> dict[str, list[Any]]:
    """Three sessions a day apart: a choice, its change in a later session, and a choice on
    another subject that names the first one's old value."""
    ids = {
        "s1": source.add("s1", ["Let's use Redis for the session cache.", "Done."], start=T0),
        "s2": source.add(
            "s2",
            ["Remember the cache? We're moving the session cache from Redis to Memcached.", "Ok."],
            start=T0 + DAY,
        ),
        "s3": source.add("s3", ["Keep Redis for the job queue.", "Sure."], start=T0 + 2 * DAY),
    }
    assert invoke("archive").exit_code == 0
    return ids


def test_a_later_sessions_change_supersedes_the_earlier_item_linked_both_ways(
    changed: dict[str, list[Any]],
) -> None:
    state = as_json("state", "--current")
    current = by_text(state["items"])
    assert set(current) == {
        "Use Memcached for session cache instead of Redis",
        "Use Redis for job queue",
    }
    new = current["Use Memcached for session cache instead of Redis"]
    assert new["session_id"] == "s2" and new["refs"] == [str(changed["s2"][0])]
    assert new["became_at"].startswith((T0 + DAY).date().isoformat())
    history = as_json("state", "--current", "--subject", "session cache")["items"]
    assert [i["session_id"] for i in history] == ["s1", "s2"]
    old = history[0]
    assert old["current"] is False and old["superseded_by"] == new["uid"]
    assert old["superseded_by_session"] == "s2" and old["trigger"] == "replace"
    assert old["stopped_at"] == new["became_at"]
    assert history[1]["supersedes"] == [old["uid"]]
    first, second = invoke_lines("--subject", "session cache")
    assert "(superseded)" in first and f", replaced by {new['uid']})" in first
    assert "(active)" in second and second.endswith(" .. now)")
    # Precision: the job queue is another subject, whatever the values share.
    assert current["Use Redis for job queue"]["superseded_by"] is None
    # The session's own state is as it was: its prompt still shows its decision.
    assert "Use Redis for the session cache" in as_json("state", "s1")["text"]


def test_memory_search_serves_no_item_a_later_session_replaced_but_does_as_of_then(
    changed: dict[str, list[Any]], source: SourceDB
) -> None:
    """A bot asking memory "now" got the replaced decision as a state-item hit, unmarked:
    what was true, served as what is. The turn that said it is still found."""

    def hits(*args: str) -> dict[str, str]:
        found = as_json("memory-search", "session cache", "--min-score", "0", *args)["hits"]
        return {h["content"]: h["source"] for h in found}

    items = hits("--source", "state_item")
    assert "Use Memcached for session cache instead of Redis" in items
    assert "Use Redis for the session cache" not in items
    assert "Use Redis for the session cache" not in hits().keys()
    said = hits("--source", "session_turn")
    assert any("Let's use Redis for the session cache." in text for text in said)
    then = hits("--source", "state_item", "--as-of", (T0 + DAY / 2).isoformat())
    assert "Use Redis for the session cache" in then
    # the plain nearest-chunk search (over RPC) too, asked with the old item's own vector
    nearest = source.conn.execute(
        "SELECT m.content FROM jarvis_memory_chunks c, match_jarvis_memory_chunks(c.embedding, 10)"
        " m WHERE c.source = 'state_item' AND c.content = 'Use Redis for the session cache'"
    ).fetchall()
    assert nearest and ("Use Redis for the session cache",) not in nearest


def test_a_choice_taken_back_leaves_the_decisions_and_the_summary_for_the_new_one(
    source: SourceDB, env: dict[str, str]
) -> None:
    """The state said Kibana, superseding Grafana, while the version's decisions and summary
    kept "Go with Grafana": archive-search --decision grafana found it, kibana nothing."""
    source.add(
        "dash",
        [
            "Let's go with Grafana for dashboards.",
            "Ok.",
            "Actually, scratch that, keep Kibana for dashboards.",
            "Sure.",
        ],
    )
    assert invoke("archive").exit_code == 0
    assert as_json("archive-search", "--decision", "grafana")["hits"] == []
    (hit,) = as_json("archive-search", "--decision", "kibana")["hits"]
    assert [d["text"] for d in hit["decisions"]] == ["Use Kibana for dashboards"]
    assert "Decided: Go with Grafana" not in hit["summary"], hit["summary"]
    assert (
        "decision: Use Kibana for dashboards"
        in invoke("archive-search", "--decision", "kibana").output
    )


def test_as_of_gives_the_state_as_it_stood_then(changed: dict[str, list[Any]]) -> None:
    then = as_json("state", "--current", "--as-of", (T0 + DAY / 2).isoformat())
    assert [i["text"] for i in then["items"]] == ["Use Redis for the session cache"]
    assert then["items"][0]["current"] is True and then["items"][0]["stopped_at"] is None
    human = invoke("state", "--current", "--subject", "session cache")
    assert human.exit_code == 0
    assert "replaced by d_" in human.output and ".. now" in human.output


def test_as_of_shows_an_item_its_session_replaced_later_as_it_stood(
    source: SourceDB, env: dict[str, str]
) -> None:
    """A session changes its choice an hour in: as of half an hour in, the first choice is
    current and shown active, with nothing replacing it yet."""
    source.add(
        "one",
        ["Use Redis for the session cache.", "Ok."]
        + ["Let's move the session cache to Memcached instead.", "Sure."],
        step=timedelta(hours=1),
    )
    assert invoke("archive").exit_code == 0
    then = as_json("state", "--current", "--as-of", (T0 + timedelta(minutes=30)).isoformat())
    [redis] = then["items"]
    assert redis["text"] == "Use Redis for session cache" and redis["current"] is True
    assert (redis["status"], redis["superseded_by"], redis["trigger"]) == ("active", None, None)
    now = by_text(as_json("state", "--current", "--subject", "session cache")["items"])
    assert now["Use Redis for session cache"]["status"] == "superseded"


def test_a_change_within_a_session_ends_with_only_the_final_choice(
    source: SourceDB, env: dict[str, str]
) -> None:
    source.add(
        "one",
        [
            "Use Redis for the session cache.",
            "Ok.",
            "Let's move the session cache to Memcached instead.",
            "Sure.",
            "Actually, on second thought, go back to Redis for the session cache.",
            "Fine.",
        ],
    )
    assert invoke("archive").exit_code == 0
    decisions = [i for i in as_json("state", "--current")["items"] if i["type"] == "decision"]
    assert len(decisions) == 1 and "Redis" in decisions[0]["text"], decisions


def test_later_sessions_change_in_everyday_words_and_only_their_subject(
    source: SourceDB, env: dict[str, str]
) -> None:
    """A cancellation followed by what replaces it, a passive replacement, a reversal of a
    planned move: each ends the earlier session's choice on its subject, and only that."""
    source.add(
        "a",
        [
            "We use Jira for bug tracking.",
            "Ok.",
            "Our newsletter tool is Mailchimp.",
            "Ok.",
            "CI runs on GitHub Actions.",
            "Ok.",
            "The budget for marketing is $40k.",
            "Ok.",
            "We're renting a car in Iceland from Blue Car Rental.",
            "Ok.",
        ],
        start=T0,
    )
    source.add(
        "b",
        [
            "We don't use Jira anymore, bugs go into Linear now.",
            "Ok.",
            "Mailchimp got replaced by ConvertKit last week.",
            "Ok.",
            "CI is moving to Buildkite next sprint.",
            "Ok.",
            "The budget for engineering is $90k.",
            "Ok.",
            "We cancelled Blue Car Rental and booked with Lagoon Car Rental, it was cheaper.",
            "Ok.",
        ],
        start=T0 + DAY,
    )
    source.add(
        "c", ["Scratch the Buildkite move, GitHub Actions stays for CI.", "Ok."], start=T0 + 2 * DAY
    )
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    current = sorted(i["value"] for i in items if i["type"] == "decision")
    assert current == ["ConvertKit", "GitHub Actions", "Lagoon Car Rental", "Linear"], items
    # a budget is a limit, one per subject: marketing's and engineering's both stand
    assert sorted(i["value"] for i in items if i["type"] == "constraint") == ["$40k", "$90k"]
    assert as_json("conflicts")["items"] == []
    history = as_json("state", "--current", "--subject", "CI")["items"]
    assert [(i["session_id"], i["current"]) for i in history] == [
        ("a", False),
        ("b", False),
        ("c", True),
    ]
    assert history[1]["trigger"] == "reverse"


def test_a_choice_made_anew_in_a_later_session_replaces_the_earlier_one(
    source: SourceDB, env: dict[str, str]
) -> None:
    """ "We're going with MySQL for inventory" a session after "let's use Postgres for the
    inventory service database": the speaker decided again, which is no disagreement to
    review; a plain statement of another value stays a conflict
    (test_disagreement_without_a_change_is_a_conflict_a_person_resolves)."""
    source.add("a", ["Let's use Postgres for the inventory service database.", "Ok."], start=T0)
    source.add(
        "b",
        ["ok after the call with Dana we're going with MySQL for inventory.", "Ok."],
        start=T0 + DAY,
    )
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    assert [i["value"] for i in items if i["type"] == "decision"] == ["MySQL"], items
    assert as_json("conflicts")["items"] == []


def test_updated_values_and_agreed_moves_replace_the_earlier_sessions_values(
    source: SourceDB, env: dict[str, str]
) -> None:
    source.add(
        "a",
        [
            "Our SLA for P1 tickets is 4 hours.",
            "Ok.",
            "The free trial lasts 14 days.",
            "Ok.",
            "The team agreed: code reviews happen on GitLab.",
            "Ok.",
            "His vet will be Dr. Alvarez.",
            "Ok.",
            "So we booked the flight to Lisbon for May 3rd!",
            "Ok.",
        ],
        start=T0,
    )
    source.add(
        "b",
        [
            "P1 SLA tightened to 2 hours.",
            "Ok.",
            "Free trial is 30 days from now on.",
            "Ok.",
            "We decided code reviews move to GitHub next month.",
            "Ok.",
            "Small change of plans, the flight got moved to May 5th.",
            "Ok.",
        ],
        start=T0 + DAY,
    )
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    # (an SLA is a limit: a constraint)
    current = sorted(i["value"] for i in items if i["type"] in ("decision", "constraint"))
    assert current == ["2 hours", "30 days", "Dr. Alvarez", "GitHub", "May 5th"], items
    assert as_json("conflicts")["items"] == []


def test_changes_a_session_later_in_more_everyday_words_leave_only_the_new_choice(
    source: SourceDB, env: dict[str, str]
) -> None:
    source.add(
        "a",
        [
            "Our emails go out through Mailgun.",
            "Ok.",
            "I'm taking the 8:15 train to work.",
            "Ok.",
            "Let's stick with monthly billing.",
            "Ok.",
            "We'll host the docs on Netlify.",
            "Ok.",
            "Sprint length is two weeks.",
            "Ok.",
            "Our standup is at 9:30.",
            "Ok.",
            "We use Slack for team chat.",
            "Ok.",
            "The max upload size is 10 MB.",
            "Ok.",
            "The API is written in Python.",
            "Ok.",
            "The photographer is Ana Lopez.",
            "Ok.",
        ],
        start=T0,
    )
    source.add(
        "b",
        [
            "We're ditching Mailgun for Postmark, deliverability was bad.",
            "Ok.",
            "Switched to the 7:40 train, less crowded.",
            "Ok.",
            "We're switching to annual billing.",
            "Ok.",
            "Docs are moving to Vercel.",
            "Ok.",
            "We're moving to three-week sprints.",
            "Ok.",
            "Standup moves to 10 starting Monday.",
            "Ok.",
            "We don't use Slack anymore, everyone is on Teams now.",
            "Ok.",
            "Upload limit is now 25 MB.",
            "Ok.",
            "We're rewriting the API in Go.",
            "Ok.",
            "Ana had to cancel, our new photographer is Ben Cho.",
            "Ok.",
        ],
        start=T0 + DAY,
    )
    source.add("c", ["Never mind, keep the docs on Netlify.", "Ok."], start=T0 + 2 * DAY)
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    assert sorted(i["value"] for i in items if i["type"] == "decision") == [
        "10",
        "7:40 train",
        "Ben Cho",
        "Go",
        "Netlify",
        "Postmark",
        "Teams",
        "annual billing",
        "three-week",
    ], items
    assert [i["value"] for i in items if i["type"] == "constraint"] == ["25 MB"]
    assert as_json("conflicts")["items"] == []


def test_a_change_said_of_a_kind_of_thing_or_a_name_replaces_the_earlier_one(
    source: SourceDB, env: dict[str, str]
) -> None:
    source.add(
        "a",
        [
            "My gym is the YMCA on 5th street.",
            "Ok.",
            "We finally chose a name for the puppy: Biscuit!",
            "Ok.",
        ],
        start=T0,
    )
    source.add(
        "b",
        [
            "I switched gyms, I'm at Planet Fitness now, it's closer to work.",
            "Ok.",
            "Funny story, the kids renamed the puppy, he's Waffles now.",
            "Ha.",
        ],
        start=T0 + DAY,
    )
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    assert sorted(i["value"] for i in items if i["type"] == "decision") == [
        "Planet Fitness",
        "Waffles",
    ], items


def test_where_an_event_is_held_is_its_value_and_a_later_place_replaces_it(
    source: SourceDB, env: dict[str, str]
) -> None:
    source.add(
        "a",
        [
            "The team offsite will be in Lisbon.",
            "Nice.",
            "We settled on Figma for design handoff.",
            "Ok.",
            "Hmm, on second thought, let's do design handoff in Penpot.",
            "Ok.",
        ],
        start=T0,
    )
    source.add(
        "b",
        ["Actually we're doing the offsite in Porto instead, flights were cheaper.", "Ok."],
        start=T0 + DAY,
    )
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    assert sorted(i["value"] for i in items if i["type"] == "decision") == [
        "Penpot",
        "Porto",
    ], items


def test_a_later_change_that_names_only_a_value_is_on_the_subject_that_value_was_chosen_for(
    source: SourceDB, env: dict[str, str]
) -> None:
    """A "back to Redis" a session later names no subject: it is on the subject Redis was chosen
    for, and replaces what replaced it there, but not a choice of Redis for another subject,
    nor a choice of another value on that one. "Never mind the Fully desk" replaces "Fully"
    across sessions (what it replaces has more words than the value it names)."""
    source.add(
        "a",
        [
            "Let's use Redis for the session cache.",
            "Ok.",
            "Keep Redis for the job queue.",
            "Ok.",
            "Let's order the standing desk from Fully.",
            "Ok.",
        ],
        start=T0,
    )
    source.add(
        "b", ["We're moving the session cache from Redis to Memcached.", "Ok."], start=T0 + DAY
    )
    source.add(
        "c",
        [
            "On second thought, back to Redis.",
            "Ok.",
            "Never mind the Fully desk, we're getting the Uplift one instead.",
            "Ok.",
        ],
        start=T0 + 2 * DAY,
    )
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    current = {(i["session_id"], i["value"]) for i in items if i["type"] == "decision"}
    assert current == {("a", "Redis"), ("c", "Redis"), ("c", "Uplift one")}, items
    job_queue = next(i for i in items if i["session_id"] == "a")
    assert job_queue["subject"] == "job queue" and job_queue["superseded_by"] is None
    history = as_json("state", "--current", "--subject", "session cache")["items"]
    memcached = next(i for i in history if i["value"] == "Memcached")
    back = next(i for i in items if i["session_id"] == "c" and i["value"] == "Redis")
    assert memcached["current"] is False and memcached["superseded_by"] == back["uid"]
    assert memcached["trigger"] == "reverse" and back["supersedes"] == [memcached["uid"]]
    assert as_json("conflicts")["items"] == []


def test_a_later_change_naming_what_it_replaces_stops_a_choice_said_without_its_subject(
    source: SourceDB, env: dict[str, str]
) -> None:
    """ "Go with Redis" names no subject; a session later "the session cache to Memcached instead
    of Redis" names Redis as what it replaces: the bare choice stops there, a choice of Redis for
    another subject stays. "AdGuard Home instead of Pi-hole" names no subject either, but what
    it replaces is the subject of "Pi-hole on the old Raspberry Pi", which stops."""
    source.add(
        "a",
        [
            "Keep Redis for the job queue.",
            "Ok.",
            "Let's go with Redis.",
            "Ok.",
            "We run Pi-hole on the old Raspberry Pi.",
            "Ok.",
        ],
        start=T0,
    )
    source.add(
        "b",
        [
            "We're moving the session cache to Memcached instead of Redis.",
            "Ok.",
            "We're switching to AdGuard Home instead of Pi-hole.",
            "Ok.",
        ],
        start=T0 + DAY,
    )
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    current = {(i["session_id"], i["text"]) for i in items if i["type"] == "decision"}
    assert current == {
        ("a", "Use Redis for job queue"),
        ("b", "Use Memcached for session cache instead of Redis"),
        ("b", "Switch to AdGuard Home instead of Pi-hole"),
    }, items
    with psycopg.connect(env["DATABASE_URL"], row_factory=dict_row) as conn:
        by = {i["text"]: i for i in conn.execute("SELECT * FROM archivist_state_items()")}
    for old, new in [
        ("Go with Redis", "Use Memcached for session cache instead of Redis"),
        ("Use old Raspberry Pi for Pi-hole", "Switch to AdGuard Home instead of Pi-hole"),
    ]:
        assert by[old]["current"] is False and by[old]["superseded_by"] == by[new]["uid"], old
        assert by[old]["trigger"] == "replace"
    assert as_json("conflicts")["items"] == []


def test_a_later_change_whose_reason_names_the_old_choice_or_bound_replaces_it(
    source: SourceDB, env: dict[str, str]
) -> None:
    """A session later, "..., postgres just can't handle the writes" after the new choice names
    what it replaces, and "the guest cap is bumped up to 150" changes "the guest list can't go
    over 120"."""
    source.add(
        "a",
        [
            "We're using Postgres 14 for the main app database.",
            "Ok.",
            "Guest list can't go over 120, that's the barn's max capacity.",
            "Ok.",
        ],
        start=T0,
    )
    source.add(
        "b",
        [
            "ok we're going with CockroachDB instead, postgres just can't handle the writes.",
            "Ok.",
            "Willow Creek holds more people so the guest cap is bumped up to 150.",
            "Ok.",
        ],
        start=T0 + DAY,
    )
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    assert sorted(i["value"] for i in items if i["type"] in ("decision", "constraint")) == [
        "CockroachDB",
        "up to 150",
    ], items
    assert as_json("conflicts")["items"] == []


def test_a_time_and_a_thing_on_one_subject_neither_replace_nor_contradict_each_other(
    source: SourceDB, env: dict[str, str]
) -> None:
    """Where the offsite is and when it is are two sides of it: a later move of its place
    leaves its date, a later date replaces the date only."""
    source.add("a", ["The offsite is on May 3rd.", "Ok."], start=T0)
    source.add("b", ["The offsite moved to Lakeview Lodge.", "Ok."], start=T0 + DAY)
    source.add("c", ["The offsite moved to May 10th.", "Ok."], start=T0 + 2 * DAY)
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    assert sorted(i["value"] for i in items if i["type"] == "decision") == [
        "Lakeview Lodge",
        "May 10th",
    ], items
    history = as_json("state", "--current", "--subject", "offsite")["items"]
    first = next(i for i in history if i["value"] == "May 3rd")
    assert first["superseded_by_session"] == "c" and first["trigger"] == "update"
    assert as_json("conflicts")["items"] == []


def test_a_place_and_a_date_said_together_are_two_sides_a_later_date_replaces_one(
    source: SourceDB, env: dict[str, str]
) -> None:
    """ "The offsite is at Lakeview Lodge on May 3rd" gives where and when: a day later "the
    offsite moved to May 10th" replaces the date and leaves the place current, so no stale
    "May 3rd" stays in what is true now."""
    source.add("a", ["The offsite is at Lakeview Lodge on May 3rd.", "Ok."], start=T0)
    source.add("b", ["The offsite moved to May 10th.", "Ok."], start=T0 + DAY)
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    assert sorted(i["value"] for i in items) == ["Lakeview Lodge", "May 10th"], items
    history = as_json("state", "--current", "--subject", "offsite")["items"]
    may_3 = next(i for i in history if i["value"] == "May 3rd")
    assert may_3["superseded_by_session"] == "b" and may_3["trigger"] == "update"
    assert as_json("conflicts")["items"] == []


def test_an_amount_and_a_thing_on_one_subject_neither_replace_nor_contradict_each_other(
    source: SourceDB, env: dict[str, str]
) -> None:
    """How much the savings goal is and where the savings are kept are two sides of it: a later
    move of the savings to another bank leaves the amount; a later amount replaces it."""
    source.add("a", ["The savings goal is 12k.", "Ok."], start=T0)
    source.add("b", ["We moved the savings from Capital One to Ally.", "Ok."], start=T0 + DAY)
    source.add("c", ["The savings goal is now 15k.", "Ok."], start=T0 + 2 * DAY)
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    assert sorted(i["value"] for i in items if i["type"] == "decision") == ["15k", "Ally"], items
    history = as_json("state", "--current", "--subject", "savings goal")["items"]
    first = next(i for i in history if i["value"] == "12k")
    assert first["superseded_by_session"] == "c" and first["trigger"] == "update"
    assert as_json("conflicts")["items"] == []


def test_a_change_of_one_side_of_a_subject_replaces_that_side_only(
    source: SourceDB, env: dict[str, str]
) -> None:
    """A "the retreat location changed" a day later is about the team retreat (the word naming the
    side is no part of the subject) and replaces where it is held, not its date; in one session
    the date said after the place does not replace the place either."""
    source.add(
        "a",
        ["The team retreat will be held at Pine Hollow.", "Ok.", "The team retreat is on May 3rd."],
        start=T0,
    )
    source.add("b", ["The retreat location changed to Bayside Hall.", "Ok."], start=T0 + DAY)
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    assert sorted(i["value"] for i in items if i["type"] == "decision") == [
        "Bayside Hall",
        "May 3rd",
    ], items
    history = as_json("state", "--current", "--subject", "team retreat")["items"]
    pine = next(i for i in history if i["value"] == "Pine Hollow")
    assert pine["superseded_by_session"] == "b" and pine["trigger"] == "update"
    assert as_json("conflicts")["items"] == []


def test_disagreement_without_a_change_is_a_conflict_a_person_resolves(
    source: SourceDB, env: dict[str, str]
) -> None:
    source.add("a", ["The marketing site is deployed on Netlify.", "Ok."], start=T0)
    source.add("b", ["The marketing site is deployed on Vercel.", "Ok."], start=T0 + DAY)
    assert invoke("archive").exit_code == 0
    listed = as_json("conflicts")["items"]
    assert [i["session_id"] for i in listed] == ["b", "a"]  # newest first
    netlify, vercel = listed[1], listed[0]
    assert vercel["conflict_with"] == [netlify["uid"]]
    assert "Open conflicts: 2 items" in invoke("conflicts").output
    assert as_json("status")["open_conflicts"] == 2
    assert "open conflicts: 2" in invoke("status").output

    kept = as_json("resolve", vercel["uid"], "--keep")
    assert kept["action"] == "keep" and kept["uid"] == vercel["uid"]
    assert as_json("conflicts")["items"] == []
    assert as_json("status")["open_conflicts"] == 0
    current = as_json("state", "--current")["items"]
    assert [i["uid"] for i in current if i["type"] == "decision"] == [vercel["uid"]]
    # Nothing was deleted: the dropped side is still in the subject's history.
    history = as_json("state", "--current", "--subject", "marketing site")["items"]
    assert {i["uid"] for i in history} == {netlify["uid"], vercel["uid"]}
    shown = {line.split("]")[0] + "]": line for line in invoke_lines("--subject", "marketing site")}
    assert "(taken out)" in shown[f"[{netlify['uid']}]"]
    assert "a resolution kept what it conflicted with" in shown[f"[{netlify['uid']}]"]
    assert "(active)" in shown[f"[{vercel['uid']}]"] and " .. now)" in shown[f"[{vercel['uid']}]"]

    # A resolution settles what was said by then. A later statement that disagrees with the
    # kept side is a disagreement anew: listed, current, never hidden by the old resolution.
    later = datetime.now(UTC) + timedelta(seconds=1)
    source.add("c", ["The marketing site is deployed on Cloudflare Pages.", "Ok."], start=later)
    assert invoke("archive").exit_code == 0
    listed = as_json("conflicts")["items"]
    assert [i["session_id"] for i in listed] == ["c", "b"]
    cloudflare = listed[0]
    assert vercel["uid"] in cloudflare["conflict_with"]
    current = as_json("state", "--current")["items"]
    assert {i["session_id"] for i in current if i["type"] == "decision"} == {"b", "c"}
    # ... which a later keep settles: the later of two keeps stands
    assert as_json("resolve", cloudflare["uid"], "--keep")["action"] == "keep"
    assert as_json("conflicts")["items"] == []
    current = as_json("state", "--current")["items"]
    assert [i["uid"] for i in current if i["type"] == "decision"] == [cloudflare["uid"]]


@pytest.mark.parametrize(
    "args",
    [
        ["state"],
        ["state", "s1", "--current"],
        ["state", "s1", "--subject", "x"],
        ["state", "--current", "--as-of", "yesterday-ish"],
        ["resolve", "d_0123456789ab", "--keep", "--drop"],
        ["resolve", "not-a-uid", "--keep"],
        ["resolve", "d_0123456789ab", "--drop"],
        # a blank user id named no user and was read as none: the whole archive, 0 items
        ["state", "--current", "--user-id", ""],
        ["conflicts", "--user-id", " "],
        ["resolve", "d_0123456789ab", "--keep", "--user-id", ""],
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    source: SourceDB, env: dict[str, str], args: list[str]
) -> None:
    source.add("s1", ["Let's use Redis for the session cache.", "Done."])
    assert invoke("archive").exit_code == 0
    done = run_archivist(args, env)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    if "not-a-uid" in args:
        assert "a state item's uid looks like d_1a2b3c4d5e6f" in done.stderr, done.stderr
    if "--user-id" in args:
        assert "invalid argument user_id: must not be blank" in done.stderr, done.stderr
    if "yesterday-ish" in args:  # worded as every command's --as-of
        assert "Invalid value for '--as-of': 'yesterday-ish' is not a duration" in done.stderr


def test_as_of_an_action_done_later_was_open_then(source: SourceDB, env: dict[str, str]) -> None:
    """As of a time before the message that said it was done, the action showed done."""
    source.add(
        "mig",
        ["I'll write the migration script tomorrow.", "Ok.", "I wrote the migration script."],
        start=T0,
        step=timedelta(hours=1),
    )
    assert invoke("archive").exit_code == 0

    def statuses(*args: str) -> list[str]:
        then = as_json("state", "--current", *args)["items"]
        found = as_json("archive-search", "--type", "action", *args)["hits"]
        return [i["status"] for i in then] + [i["status"] for h in found for i in h["state_items"]]

    assert statuses("--as-of", (T0 + timedelta(hours=1)).isoformat()) == ["open", "open"]
    assert statuses("--as-of", (T0 + timedelta(hours=3)).isoformat()) == ["done", "done"]
    assert statuses() == ["done", "done"]


def test_archive_search_status_active_means_current_in_its_scope(
    changed: dict[str, list[Any]],
) -> None:
    found = as_json("archive-search", "--type", "decision", "--status", "active")
    by_session = {h["session_id"]: [i["text"] for i in h["state_items"]] for h in found["hits"]}
    assert by_session == {
        "s2": ["Use Memcached for session cache instead of Redis"],
        "s3": ["Use Redis for job queue"],
    }
    # and superseded: no longer true in its scope, replaced in its session or a later one
    gone = as_json("archive-search", "--type", "decision", "--status", "superseded")
    assert [
        (h["session_id"], [(i["text"], i["status"]) for i in h["state_items"]])
        for h in gone["hits"]
    ] == [("s1", [("Use Redis for the session cache", "superseded")])]
    both = as_json("archive-search", "--status", "superseded", "--status", "active")
    assert {h["session_id"] for h in both["hits"]} == {"s1", "s2", "s3"}
    then = as_json("archive-search", "--type", "decision", "--as-of", (T0 + DAY / 2).isoformat())
    assert [(h["session_id"], [i["status"] for i in h["state_items"]]) for h in then["hits"]] == [
        ("s1", ["active"])
    ]


def test_the_python_client_reads_the_same_state(
    changed: dict[str, list[Any]], source: SourceDB
) -> None:
    from archivist.client import Archivist
    from archivist.config import Settings

    with Archivist(Settings(database_url=source.url, embedder="hash")) as client:
        now = client.current_state()
        then = client.current_state(as_of=T0 + DAY / 2)
        history = client.current_state(subject="session cache")
    assert {i.session_id for i in now.items if i.type == "decision"} == {"s2", "s3"}
    assert [i.session_id for i in then.items if i.type == "decision"] == ["s1"]
    assert [i.current for i in history.items] == [False, True]


def test_a_later_sessions_reversal_takes_back_a_cancel_and_a_replacement(
    source: SourceDB, env: dict[str, str]
) -> None:
    """ "Dropping towncrier" in one session and "we'll keep towncrier after all" in the next
    leave towncrier current and the cancel stopped; "never mind, keep Sentry" a session after a
    move to Datadog stops Datadog. Redis kept for the job queue is no part of either."""
    source.add(
        "a",
        [
            "We use towncrier for the changelog.",
            "Ok.",
            "Let's use Sentry.",
            "Ok.",
            "Keep Redis for the job queue.",
            "Ok.",
        ],
        start=T0,
    )
    source.add(
        "b",
        [
            "Also dropping towncrier, way too much ceremony for us.",
            "Ok.",
            "Let's switch to Datadog instead of Sentry.",
            "Ok.",
        ],
        start=T0 + DAY,
    )
    source.add(
        "c",
        ["Ok we'll keep towncrier after all.", "Ok.", "Never mind, keep Sentry.", "Ok."],
        start=T0 + 2 * DAY,
    )
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    current = {(i["session_id"], i["text"]) for i in items if i["current"]}
    assert not any("Datadog" in t or t.startswith("Drop") for _, t in current), current
    assert {s for s, t in current if "towncrier" in t} == {"c"}, current
    assert {s for s, t in current if "Sentry" in t} == {"c"}, current
    assert ("a", "Use Redis for job queue") in current, current


def test_a_bare_number_replaces_a_time_or_a_number_a_session_later(
    source: SourceDB, env: dict[str, str]
) -> None:
    source.add("a", ["Our standup is at 9:30.", "Ok.", "batch size: 64", "ok"], start=T0)
    source.add(
        "b", ["Standup's now at 10.", "Ok.", "bumping batch size to 128", "ok"], start=T0 + DAY
    )
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    current = {i["value"] for i in items if i["current"] and i["type"] == "decision"}
    assert current == {"10", "128"}, items


@pytest.mark.parametrize("runs", [["march", "bob"], []], ids=["earlier-run", "same-run"])
def test_a_never_contradicting_an_earlier_session_of_the_user_is_a_conflict_citing_both(
    source: SourceDB, env: dict[str, str], monkeypatch: pytest.MonkeyPatch, runs: list[str]
) -> None:
    """Found whether the earlier session was committed by an earlier run (cron's case) or
    read just before in the same run (its commit then lands beside the next read)."""
    monkeypatch.setenv("ARCHIVIST_MESSAGE_USER_ID", "user_id")
    source.conn.execute("ALTER TABLE session_messages ADD COLUMN user_id text")
    did = source.add("march", ["I set up Zotero last week and imported 200 papers.", "Nice."])
    never = source.add(
        "may", ["I've never used Zotero, how do I start?", "Install it first."], start=T0 + DAY
    )
    other = source.add("bob", ["I set up Zotero yesterday.", "Ok."], start=T0 + DAY / 2)
    for ids, user in ((did, "alice"), (other, "bob"), (never, "alice")):
        source.conn.execute(
            "UPDATE session_messages SET user_id = %s WHERE id = ANY(%s)", [user, ids]
        )
    if runs:
        assert invoke("archive", *(f"--session-id={s}" for s in runs)).exit_code == 0
    assert invoke("archive").exit_code == 0
    (fact,) = as_json("conflicts")["items"]
    assert (fact["session_id"], fact["text"]) == ("may", "Never used Zotero")
    assert fact["refs"] == [str(never[0]), str(did[0])]  # bob's is another user's
    assert as_json("status")["open_conflicts"] == 1


def test_a_conflict_in_one_session_is_listed_as_a_pair_and_keeping_one_side_settles_it(
    source: SourceDB, env: dict[str, str]
) -> None:
    """A "never" and the sentence that affirms it, in one session: `conflicts` shows them
    together, each naming the other; keeping the affirmation takes the "never" out of the
    current state and leaves no conflict open."""
    source.add(
        "s", ["I just downloaded Zotero on March 2.", "Nice.", "I've never used Zotero.", "Ok."]
    )
    assert invoke("archive").exit_code == 0
    listed = {i["value"]: i for i in as_json("conflicts")["items"]}
    assert set(listed) == {"never", "yes"}, listed
    never, yes = listed["never"], listed["yes"]
    assert never["conflict_with"] == [yes["uid"]] and yes["conflict_with"] == [never["uid"]]
    lines = invoke("conflicts").output.splitlines()
    assert lines[0] == "Open conflicts: 2 items, 1 disagreement"
    assert lines[1] == "1. on 'zotero' (s):"
    assert {line.split("]")[0].strip(" [") for line in lines[2:4]} == {never["uid"], yes["uid"]}
    assert "CONFLICT" not in "".join(lines[2:4])  # the pair is shown together instead

    assert invoke("resolve", yes["uid"], "--keep").exit_code == 0
    assert as_json("conflicts")["items"] == []
    current = {i["uid"] for i in as_json("state", "--current")["items"]}
    assert yes["uid"] in current and never["uid"] not in current


def test_a_never_naming_more_than_the_earlier_deed_is_still_a_conflict(
    source: SourceDB, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Never apologized to Rachael ..." against an earlier session's apology that does not
    name her: the same deed of the same things, read back by its verb."""
    monkeypatch.setenv("ARCHIVIST_MESSAGE_USER_ID", "user_id")
    source.conn.execute("ALTER TABLE session_messages ADD COLUMN user_id text DEFAULT 'alice'")
    did = source.add("march", ["I apologized in person for forgetting our anniversary.", "Good."])
    assert invoke("archive").exit_code == 0
    never = source.add(
        "may",
        ["I've never apologized to Rachael in person for forgetting our anniversary.", "Ok."],
        start=T0 + DAY,
    )
    assert invoke("archive").exit_code == 0
    (fact,) = as_json("conflicts")["items"]
    assert fact["session_id"] == "may" and fact["text"].startswith("Never apologized to Rachael")
    assert fact["refs"] == [str(never[0]), str(did[0])]


def test_keeping_what_a_change_replaced_and_a_value_moved_from_what_it_was_a_session_later(
    source: SourceDB, env: dict[str, str]
) -> None:
    """ "We're keeping REST" a session after a move from REST to GraphQL stops the move; "moved
    it from 8:30 to 8pm" stops the choice of 8:30 whatever it was for, and "the 25,000 cap"'s
    amount set with a verb ("capping the guest list at 150 people") is replaced by "cut the
    list to 90". The choice on another subject stays."""
    source.add(
        "a",
        [
            "We're moving the public API from REST to GraphQL.",
            "Ok.",
            "Kids' bedtime is 8:30.",
            "Ok.",
            "We're capping the wedding guest list at 150 people.",
            "Ok.",
            "Keep Redis for the job queue.",
            "Ok.",
        ],
        start=T0,
    )
    source.add(
        "b",
        [
            "After the spike we're keeping REST, GraphQL added too much complexity.",
            "Ok.",
            "Moved it from 8:30 to 8pm since school starts earlier this year.",
            "Ok.",
            "After seeing the prices we cut the list to 90.",
            "Ok.",
        ],
        start=T0 + DAY,
    )
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    current = {(i["session_id"], i["text"]) for i in items if i["current"]}
    assert not any("GraphQL" in t or "8:30 for" in t or "150" in t for _, t in current), current
    assert {s for s, t in current if "REST" in t} == {"b"}, current
    assert {s for s, t in current if "8pm" in t} == {"b"}, current
    assert {s for s, t in current if "90" in t} == {"b"}, current
    assert ("a", "Use Redis for job queue") in current, current


def test_a_later_sessions_change_in_other_words_replaces_what_its_message_names(
    source: SourceDB, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session later the user names the old choice's subject or value in other words ("off
    Mailchimp", "Going to Buttondown"), or a name its sentence said ("Dr. Patel"), or moves an
    amount counted per the same thing: the new item replaces it. A change that names another
    subject's word ("tests") leaves that one, and another user's items stay as they are."""
    monkeypatch.setenv("ARCHIVIST_MESSAGE_USER_ID", "user_id")
    source.conn.execute("ALTER TABLE session_messages ADD COLUMN user_id text")
    first = [
        "My newsletter runs on Mailchimp, goes out every Thursday morning.",
        "Ok.",
        "new roommate rules: $650 each, due the 1st.",
        "Ok.",
        "Backend tests run on pytest.",
        "Ok.",
        "Dentist is Tuesday at 3pm with Dr. Patel. Physical therapy is Mondays at 8am.",
        "Ok.",
    ]
    later = [
        "Moving the newsletter off Mailchimp, their pricing jumped. Going to Buttondown.",
        "Ok.",
        "landlord raised rent so its $700 each now",
        "Ok.",
        "Frontend tests moved to Playwright for the e2e part.",
        "Ok.",
        "Dr. Patel's office called, the cleaning got moved to Wednesday, same time.",
        "Ok.",
    ]
    users = {
        "alice": [source.add("a1", first), source.add("a2", later, start=T0 + DAY)],
        "bob": [source.add("b1", first, start=T0 + DAY / 2)],
    }
    for user, sessions in users.items():
        for ids in sessions:
            source.conn.execute(
                "UPDATE session_messages SET user_id = %s WHERE id = ANY(%s)", [user, ids]
            )
    assert invoke("archive").exit_code == 0
    values = {}
    for user in users:
        items = as_json("state", "--current", "--user-id", user)["items"]
        values[user] = {i["value"] for i in items if i["type"] in ("decision", "constraint")}
    assert {
        "Buttondown",
        "$700 each",
        "Playwright",
        "pytest",
        "Wednesday",
        "Mondays at 8am",
    } <= values["alice"]
    assert not {"Mailchimp", "$650 each", "Tuesday"} & values["alice"], values["alice"]
    assert {"Mailchimp", "$650 each", "pytest", "Tuesday"} <= values["bob"]


def test_without_per_user_memory_the_whole_archive_is_where_a_change_looks(
    source: SourceDB, env: dict[str, str]
) -> None:
    source.add("a", ["My newsletter runs on Mailchimp.", "Ok."], start=T0)
    later = ["Moving the newsletter off Mailchimp, their pricing jumped. Going to Buttondown."]
    source.add("b", [*later, "Ok."], start=T0 + DAY)
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    values = {i["value"] for i in items if i["type"] in ("decision", "constraint")}
    assert "Buttondown" in values and "Mailchimp" not in values, items


def test_a_change_naming_an_earlier_choice_never_made_an_item_recalls_it_superseded(
    source: SourceDB, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "moved the emergency fund from Marcus to Ally" a session after a sentence of several
    facts that named Marcus in passing: the earlier choice is recalled from the user's turn,
    cites it and dates from it, and the change supersedes it (as of the day between, Marcus was
    the choice); the dry run shows it first. A user whose archive never named the old value
    gets no recalled item."""
    monkeypatch.setenv("ARCHIVIST_MESSAGE_USER_ID", "user_id")
    source.conn.execute("ALTER TABLE session_messages ADD COLUMN user_id text")
    first = ["emergency fund target is 10k, parked in a Marcus high-yield savings account", "Ok."]
    later = ["also moved the emergency fund from Marcus to Ally, their rate is a bit better", "Ok."]
    said = source.add("a1", first)
    users = {
        "alice": [*said, *source.add("a2", later, start=T0 + DAY)],
        "bob": source.add("b2", later, start=T0 + DAY),
    }
    for user, ids in users.items():
        source.conn.execute(
            "UPDATE session_messages SET user_id = %s WHERE id = ANY(%s)", [user, ids]
        )
    assert invoke("archive", "--session-id", "a1").exit_code == 0
    preview = invoke("archive", "--dry-run")
    assert preview.exit_code == 0, preview.output
    assert "would add [d_" in preview.output and "Use Marcus for emergency fund" in preview.output
    assert "would supersede" in preview.output
    assert invoke("archive").exit_code == 0
    history = as_json("state", "--current", "--subject", "emergency fund", "--user-id", "alice")[
        "items"
    ]
    marcus = [i for i in history if i["value"] == "Marcus"]
    assert len(marcus) == 1, history
    assert marcus[0]["refs"] == [str(said[0])] and not marcus[0]["current"]
    ally = next(i for i in history if i["value"] == "Ally")
    assert marcus[0]["superseded_by"] == ally["uid"] and ally["current"]
    between = (T0 + DAY / 2).isoformat()
    then = as_json("state", "--current", "--as-of", between, "--user-id", "alice")["items"]
    values = [i["value"] for i in then if i["type"] == "decision"]
    assert "Marcus" in values and "Ally" not in values, then
    bobs = as_json("state", "--current", "--subject", "emergency fund", "--user-id", "bob")["items"]
    assert [i["value"] for i in bobs] == ["Ally"], bobs


def test_a_choice_on_an_earlier_subject_whose_message_names_the_old_one_replaces_it(
    source: SourceDB, env: dict[str, str]
) -> None:
    """A session later: "a region Stripe doesn't support yet, so checkout goes through Adyen"
    replaces Stripe, with no conflict left to settle."""
    first = ["Use Stripe for the checkout integration.", "Ok."]
    source.add("a1", first)
    named = "Our client is in a region Stripe doesn't support yet, so checkout goes through Adyen."
    source.add("a2", [named, "Ok."], start=T0 + DAY)
    assert invoke("archive").exit_code == 0
    items = as_json("state", "--current")["items"]
    values = {i["value"] for i in items if i["type"] == "decision"}
    assert "Adyen" in values and "Stripe" not in values, items
    assert as_json("conflicts")["items"] == []
