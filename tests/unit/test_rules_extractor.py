"""The deterministic rules extractor: fixtures, incremental equivalence, determinism, bad input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unicodedata
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from archivist.extract.rules import (
    EXTRACTOR_NAME,
    EXTRACTOR_VERSION,
    MAX_ACTIONS,
    MAX_DECISIONS,
    MAX_ENTITIES,
    MAX_PREFERENCES,
    MAX_SUMMARY_CHARS,
    MAX_TOPICS,
    entity_key,
    extend_extraction,
    rules_candidates,
)
from archivist.extract.rules.topics import merge_topics
from archivist.models import Extraction, Message, SessionSummary

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "archivist" / "samples"  # the demo's sample sessions, with expectations
FIXTURE_FILES = sorted(FIXTURES.glob("*.json"))
KEY_RE = re.compile(r"^(?:[a-z]+:[a-z0-9_/]*|(?:url|repo):[a-z0-9._~/-]*)$")
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def messages_of(conv: dict[str, Any]) -> list[Message]:
    return [Message(session_id=conv["session_id"], **m) for m in conv["messages"]]


def summary_of(conv: dict[str, Any]) -> SessionSummary | None:
    text = conv.get("summary")
    return SessionSummary(session_id=conv["session_id"], summary_text=text) if text else None


def chat(*turns: tuple[str, str], session: str = "s") -> list[Message]:
    return [
        Message(
            id=f"{i:04d}",
            session_id=session,
            role=role,
            content=content,
            created_at=T0 + timedelta(minutes=i),
        )
        for i, (role, content) in enumerate(turns)
    ]


def extract(*turns: tuple[str, str]) -> Extraction:
    return extend_extraction(None, "s", chat(*turns), None)


def facts(e: Extraction) -> dict[str, Any]:
    """The parts of an extraction that must not depend on how messages were batched."""
    return {
        "decisions": [d.model_dump() for d in e.decisions],
        "actions": [a.model_dump() for a in e.actions],
        "entities": [x.model_dump() for x in e.entities],
        "preferences": e.preferences_inferred,
    }


def contains(items: list[str], wanted: str) -> bool:
    return any(wanted.lower() in item.lower() for item in items)


def non_blank(text: str) -> bool:
    """Independent of the module: a character that is neither whitespace nor control."""
    return any(
        not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cs") for ch in text[:20_000]
    )


# --- fixtures ---


def test_the_fixture_set_covers_the_required_conversations() -> None:
    assert len(FIXTURE_FILES) >= 8
    for path in FIXTURE_FILES:
        conv = load(path)
        assert 10 <= len(conv["messages"]) <= 30, path.name
        assert set(conv["expected"]) >= {
            "decisions_contain",
            "actions_contain",
            "entity_keys",
            "topics_contain",
            "no_decisions",
        }
        times = [datetime.fromisoformat(m["created_at"]) for m in conv["messages"]]
        assert times == sorted(times), path.name
    assert sum(load(p)["expected"]["no_decisions"] for p in FIXTURE_FILES) >= 2


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.stem)
def test_fixture_expectations(path: Path) -> None:
    conv = load(path)
    expected = conv["expected"]
    e = extend_extraction(None, conv["session_id"], messages_of(conv), summary_of(conv))

    decisions = [d.text for d in e.decisions]
    actions = [a.description for a in e.actions]
    done = [a.description for a in e.actions if a.outcome == "done"]
    keys = [x.key for x in e.entities]
    for wanted in expected["decisions_contain"]:
        assert contains(decisions, wanted), (wanted, decisions)
    for wanted in expected["actions_contain"]:
        assert contains(actions, wanted), (wanted, actions)
    for wanted in expected.get("done_actions_contain", []):
        assert contains(done, wanted), (wanted, e.actions)
    for wanted in expected.get("preferences_contain", []):
        assert contains(e.preferences_inferred, wanted), (wanted, e.preferences_inferred)
    assert set(expected["entity_keys"]) <= set(keys), set(expected["entity_keys"]) - set(keys)
    assert set(expected["topics_contain"]) <= set(e.topics), (expected["topics_contain"], e.topics)
    if expected["no_decisions"]:
        assert e.decisions == []


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.stem)
def test_fixture_output_is_well_formed(path: Path) -> None:
    conv = load(path)
    messages = messages_of(conv)
    e = extend_extraction(None, conv["session_id"], messages, summary_of(conv))

    assert e.session_id == conv["session_id"] and e.version == 1
    assert e.span.turn_count == len(messages)
    assert e.span.first_turn_at == messages[0].created_at
    assert e.span.last_turn_at == messages[-1].created_at
    assert e.summary.strip() and len(e.summary) <= MAX_SUMMARY_CHARS
    if conv["summary"]:
        assert e.summary == conv["summary"].strip()
    assert len(e.topics) <= MAX_TOPICS
    assert all(t == t.lower() and t.strip() for t in e.topics)
    assert len(set(e.topics)) == len(e.topics)
    assert all(x.key == entity_key(x.type, x.name) for x in e.entities)
    assert len({x.key for x in e.entities}) == len(e.entities)
    assert all(a.outcome in ("planned", "done") for a in e.actions)
    assert all(len(d.text) <= 200 and d.text[0].isupper() for d in e.decisions)
    Extraction.model_validate_json(e.model_dump_json())


def test_system_prompts_yield_no_preferences() -> None:
    conv = load(FIXTURES / "04_trip_lisbon.json")
    assert conv["messages"][0]["role"] == "system"
    e = extend_extraction(None, conv["session_id"], messages_of(conv), None)
    assert not contains(e.preferences_inferred, "concisely")
    assert not contains(e.preferences_inferred, "invent bookings")


def test_extractive_summary_names_the_request_decisions_and_next_steps() -> None:
    conv = load(FIXTURES / "01_deploy_vercel.json")
    assert conv["summary"] is None
    e = extend_extraction(None, conv["session_id"], messages_of(conv), None)
    assert e.summary.startswith('User asked: "We need to get the olive frontend deployed')
    assert "Decided: Use Vercel for the olive frontend deploy." in e.summary
    assert "Next: " in e.summary and "Draft the phase 2 task list" in e.summary


def test_the_summary_names_the_messages_its_text_was_taken_from() -> None:
    """Provenance, not guessing: the request it opens with, the message that stated each
    decision and action it names, and the one that said an action was done."""
    turns = (
        ("assistant", "Hello! How can I help?"),
        ("user", "Plan the data migration to the new cluster."),
        (
            "assistant",
            "Let's go with Postgres 16 for the new cluster. I'll write the backfill job and add "
            "alerts for lag.",
        ),
        ("user", "Sounds good."),
        ("assistant", "Done, I've written the backfill job."),
    )
    e = extract(*turns)
    assert e.summary == (
        'User asked: "Plan the data migration to the new cluster." Decided: Go with Postgres 16 '
        "for the new cluster. Next: Add alerts for lag. Done: Write the backfill job."
    )
    assert e.summary_refs == ["0001", "0002", "0004"] and e.opening_ref == "0001"
    assert [d.refs for d in e.decisions] == [["0002"]]
    assert [(a.description, a.refs) for a in e.actions] == [
        ("Write the backfill job", ["0002", "0004"]),
        ("Add alerts for lag", ["0002"]),
    ]
    # the greeting, "Sounds good." and the opening's own reply are not what it was built from
    assert "0000" not in e.summary_refs and "0003" not in e.summary_refs
    # the opening is carried to later versions with its message, whatever the batches
    messages = chat(*turns)
    batched: Extraction | None = None
    for start, end in ((0, 1), (1, 3), (3, 5)):
        batched = extend_extraction(batched, "s", messages[start:end], None)
    assert batched is not None and batched.summary_refs == e.summary_refs


def test_the_bots_summary_and_a_clipped_summary_name_only_what_they_hold() -> None:
    messages = chat(("user", "Plan the migration."), ("assistant", "We'll use Postgres 16."))
    bots = SessionSummary(session_id="s", summary_text="The user planned a migration.")
    written = extend_extraction(None, "s", messages, bots)
    assert written.summary_refs == [] and written.opening_ref is None
    # a summary clipped to MAX_SUMMARY_CHARS names no message whose text the clip dropped
    e = extract(
        ("user", "Plan the migration."),
        *[("assistant", f"We decided to use tool{n} " + "x" * 300 + ".") for n in range(3)],
        *[("assistant", f"I'll set up the runner{n} " + "y" * 300 + ".") for n in range(3)],
        *[("assistant", f"I've migrated the db{n} " + "z" * 300 + ".") for n in range(3)],
    )
    assert e.summary.endswith("; Set up the runner1\u2026") and "db0" not in e.summary
    # runner1 (0005) is begun in the text; runner2 (0006) and the done ones (0007-0009) are cut
    assert e.summary_refs == ["0000", "0001", "0002", "0003", "0004", "0005"]


# --- incremental equivalence ---


def in_batches(conv: dict[str, Any], cuts: list[int], summary: SessionSummary | None) -> Extraction:
    messages = messages_of(conv)
    bounds = [0, *cuts, len(messages)]
    result: Extraction | None = None
    for start, end in zip(bounds, bounds[1:], strict=False):
        result = extend_extraction(result, conv["session_id"], messages[start:end], summary)
    assert result is not None
    return result


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.stem)
@pytest.mark.parametrize("split", ["halves", "thirds", "one_then_rest", "uneven"])
def test_batches_give_the_same_facts_as_one_pass(path: Path, split: str) -> None:
    conv = load(path)
    n = len(conv["messages"])
    cuts = {
        "halves": [n // 2],
        "thirds": [n // 3, 2 * n // 3],
        "one_then_rest": [1],
        "uneven": [3, n - 2],
    }[split]
    summary = summary_of(conv)
    whole = extend_extraction(None, conv["session_id"], messages_of(conv), summary)
    batched = in_batches(conv, cuts, summary)

    assert facts(batched) == facts(whole)
    assert batched.span == whole.span
    assert batched.span.turn_count == n
    assert batched.summary == whole.summary
    assert batched.summary_refs == whole.summary_refs
    assert len(batched.topics) <= MAX_TOPICS
    assert len(set(batched.topics)) == len(batched.topics)


def test_topics_of_earlier_versions_are_kept() -> None:
    conv = load(FIXTURES / "05_data_pipeline.json")
    messages = messages_of(conv)
    first = extend_extraction(None, "s", messages[:6], None)
    second = extend_extraction(first, "s", messages[6:], None)
    assert first.topics and set(first.topics) <= set(second.topics)


def test_later_topics_are_not_shut_out_by_the_first_version() -> None:
    """Topics that recur come first; then the earlier and the new ones take turns."""
    full = [f"topic{i}" for i in range(MAX_TOPICS)]
    assert merge_topics(full, ["caching", "topic5"]) == [
        "topic5",
        "topic0",
        "caching",
        *[f"topic{i}" for i in range(1, MAX_TOPICS) if i != 5][: MAX_TOPICS - 3],
    ]


def test_an_empty_batch_changes_nothing_but_a_new_summary() -> None:
    conv = load(FIXTURES / "02_redis_to_memcached.json")
    base = extend_extraction(None, conv["session_id"], messages_of(conv), None)
    again = extend_extraction(base, conv["session_id"], [], None)
    assert again == base
    summary = SessionSummary(session_id="s", summary_text="  Moved sessions to Memcached.  ")
    updated = extend_extraction(base, conv["session_id"], [], summary)
    assert updated.summary == "Moved sessions to Memcached."
    assert facts(updated) == facts(base) and updated.span == base.span


def test_previous_version_is_not_mutated() -> None:
    conv = load(FIXTURES / "01_deploy_vercel.json")
    messages = messages_of(conv)
    previous = extend_extraction(None, "s", messages[:8], None)
    snapshot = previous.model_dump()
    later = extend_extraction(previous, "s", messages[8:], None)
    assert previous.model_dump() == snapshot
    assert any(a.outcome == "done" for a in later.actions)
    assert all(a.outcome == "planned" for a in previous.actions)
    later.decisions[0].text = "changed"
    assert previous.decisions[0].text != "changed"


def test_span_keeps_the_first_turn_and_the_latest_last_turn() -> None:
    first = extend_extraction(None, "s", chat(("user", "hi"), ("assistant", "hello")), None)
    late = Message(id="9", session_id="s", role="user", content="x", created_at=T0 + timedelta(1))
    second = extend_extraction(first, "s", [late], None)
    assert second.span.first_turn_at == T0
    assert second.span.last_turn_at == T0 + timedelta(1)
    assert second.span.turn_count == 3


# --- determinism ---

_DUMP_ALL = """
import json, sys
from pathlib import Path
from archivist.models import Message, SessionSummary
from archivist.extract.rules import extend_extraction
out = []
for path in sorted(Path(sys.argv[1]).glob("*.json")):
    c = json.loads(path.read_text(encoding="utf-8"))
    msgs = [Message(session_id=c["session_id"], **m) for m in c["messages"]]
    out.append(extend_extraction(None, c["session_id"], msgs, None).model_dump(mode="json"))
print(json.dumps(out, sort_keys=True))
"""


def test_output_is_deterministic_across_calls_and_hash_seeds() -> None:
    conv = load(FIXTURES / "03_oauth_refresh_bug.json")
    runs = [extend_extraction(None, "s", messages_of(conv), None) for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]

    outputs = []
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        done = subprocess.run(
            [sys.executable, "-c", _DUMP_ALL, str(FIXTURES)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    assert len(json.loads(outputs[0])) == len(FIXTURE_FILES)


def test_extractor_identity() -> None:
    assert EXTRACTOR_NAME == "rules"
    assert EXTRACTOR_VERSION.isdigit()


# --- rules ---


@pytest.mark.parametrize(
    ("text", "decision"),
    [
        ("Let's use Vercel for the frontend deploy.", "Use Vercel for the frontend deploy"),
        ("OK, let's go with Postgres.", "Go with Postgres"),
        ("We decided to move auth to Supabase next sprint.", "Move auth to Supabase next sprint"),
        ("We decided on Stripe for payments.", "Go with Stripe for payments"),
        ("Switch to Memcached instead.", "Switch to Memcached instead"),
        ("We'll use Redis for the job queue.", "Use Redis for the job queue"),
        ("We agreed to ship the beta on Friday.", "Ship the beta on Friday"),
        ("Agreed on weekly releases.", "Go with weekly releases"),
        ("The decision is to keep the monolith for now.", "Keep the monolith for now"),
        ("Final decision: freeze the API until March.", "Freeze the API until March"),
        ("We decided not to migrate this quarter.", "Do not migrate this quarter"),
        ("Great, Fly.io it is.", "Go with Fly.io"),
        ("We're switching to Kafka for the event bus.", "Switch to Kafka for the event bus"),
        ("Let's use Netlify for the docs, ok?", "Use Netlify for the docs"),
    ],
)
def test_decision_language(text: str, decision: str) -> None:
    assert [d.text for d in extract(("user", text)).decisions] == [decision]


@pytest.mark.parametrize(
    "text",
    [
        "Should we use Vercel?",
        "should we go with Postgres or MySQL",
        "What if we switch to Memcached?",
        "Would it make sense to use Redis here?",
        "If we use Supabase, do we still need Auth0?",
        "Maybe we could go with Netlify.",
        "We haven't decided on the database yet.",
        "I'd go with Vercel, but it's your call.",
        "You could switch to Kafka later.",
        "Let's use it.",
        "Do you think we decided to use Redis?",
        "Let's use Vercel?",
        "We'll use Redis for the queue?",
        "So we decided to drop Kafka?",
    ],
)
def test_questions_hedges_and_empty_objects_are_not_decisions(text: str) -> None:
    assert extract(("user", text)).decisions == []


def test_decisions_are_deduplicated_across_choosing_verbs_and_versions() -> None:
    first = extract(("user", "Let's use Vercel."), ("assistant", "We'll go with Vercel then."))
    assert [d.text for d in first.decisions] == ["Use Vercel"]
    later = extend_extraction(first, "s", chat(("user", "Yes, let's use vercel!")), None)
    assert [d.text for d in later.decisions] == ["Use Vercel"]


def test_decision_context_is_the_project_or_the_domain() -> None:
    e = extract(
        ("user", "The olive app needs hosting."),
        ("user", "Let's use Vercel for it and switch to Postgres for the database."),
    )
    assert [(d.text, d.context) for d in e.decisions] == [
        ("Use Vercel for it", "olive"),
        ("Switch to Postgres for the database", "olive"),
    ]
    plain = extract(("user", "Let's use Redis for the session cache."))
    assert plain.decisions[0].context == "caching"
    assert extract(("user", "Let's use Vercel.")).decisions[0].context is None


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("I'll set up the Vercel project tomorrow.", "Set up the Vercel project tomorrow"),
        ("I will write the migration script.", "Write the migration script"),
        ("Next: phase 2 tasks for olive.", "Phase 2 tasks for olive"),
        ("Next steps are to rotate the API keys.", "Rotate the API keys"),
        (
            "TODO: add rate limiting to the login endpoint",
            "Add rate limiting to the login endpoint",
        ),
        ("We need to rotate the signing secret.", "Rotate the signing secret"),
        ("We should update the runbook tomorrow.", "Update the runbook tomorrow"),
        ("Let me check the nginx logs.", "Check the nginx logs"),
        ("Remind me to renew the domain.", "Renew the domain"),
    ],
)
def test_action_language(text: str, action: str) -> None:
    e = extract(("assistant", text))
    assert [(a.description, a.outcome) for a in e.actions] == [(action, "planned")]


@pytest.mark.parametrize(
    "text",
    [
        "Let me know if that works.",
        "I'll explain how the cache works.",
        "We should update the runbook.",
        "I'll be honest, it's messy.",
        "If you want, I'll draft the email.",
        "Let me think.",
        "I'll check it.",
        "Can you tell me if we need to restart it?",
    ],
)
def test_chatter_and_offers_are_not_actions(text: str) -> None:
    assert extract(("assistant", text)).actions == []


@pytest.mark.parametrize(
    ("role", "text", "rule"),
    [
        (
            "user",
            "Always include version numbers when I ask about software dependencies or libraries.",
            "Always include version numbers when I ask about software dependencies or libraries",
        ),
        ("user", "OK. Please never share my phone number.", "Please never share my phone number"),
        ("user", "Never mind, I found it.", None),
        ("user", "I always forget the staging password.", None),
        ("user", "Always? Even on weekends?", None),
        ("assistant", "Always test the backup before the migration.", None),
    ],
)
def test_a_standing_rule_of_the_user_is_a_constraint_with_its_message(
    role: str, text: str, rule: str | None
) -> None:
    """A user's "always/never ..." binds every later answer on its matter: a constraint,
    whole (its "when I ask about" part says where it applies), citing its message."""
    candidates = rules_candidates(chat((role, text)))
    found = [(c.text, c.refs) for c in candidates if c.type == "constraint"]
    assert found == ([(rule, ["0000"])] if rule else [])


def test_task_lists_under_a_header_are_planned_and_checked_items_done() -> None:
    e = extract(
        (
            "assistant",
            "Next steps:\n- write the backfill job\n- add alerts for lag\n\n"
            "Some notes:\n- the cluster is small\n- [x] create the bucket\n- [ ] grant access",
        )
    )
    assert [(a.description, a.outcome) for a in e.actions] == [
        ("Write the backfill job", "planned"),
        ("Add alerts for lag", "planned"),
        ("Create the bucket", "done"),
        ("Grant access", "planned"),
    ]


@pytest.mark.parametrize(
    "header", ["Next steps", "## Action items", "The plan", "Plan for Monday:"]
)
def test_a_list_header_is_a_heading_not_a_line_that_names_a_plan(header: str) -> None:
    listed = extract(("assistant", f"{header}\n- write the backfill job"))
    assert [(a.description, a.outcome) for a in listed.actions] == [
        ("Write the backfill job", "planned")
    ]
    said = rules_candidates(chat(("user", "we moved everyone to the Team plan, 5 seats min")))
    # a sentence that mentions a plan is read, not skipped as a heading
    assert [c.value for c in said if c.type == "decision"] == ["Team plan"]


def test_completion_marks_the_earlier_action_done_instead_of_adding_one() -> None:
    first = extract(("assistant", "I'll deploy the preview to staging and rotate the API key."))
    assert [a.outcome for a in first.actions] == ["planned", "planned"]
    later = extend_extraction(first, "s", chat(("user", "Done, I've deployed the preview.")), None)
    assert [(a.description, a.outcome) for a in later.actions] == [
        ("Deploy the preview to staging", "done"),
        ("Rotate the API key", "planned"),
    ]
    vague = extend_extraction(later, "s", chat(("user", "I've rotated it.")), None)
    assert [a.outcome for a in vague.actions] == ["done", "done"]


def test_unmatched_completion_is_recorded_as_done_and_negations_are_ignored() -> None:
    e = extract(
        ("assistant", "I've migrated the staging database to Postgres 16."),
        ("assistant", "I haven't deployed the worker yet."),
        ("assistant", "Once it's merged, I'll tag the release."),
    )
    assert [(a.description, a.outcome) for a in e.actions] == [
        ("Migrated the staging database to Postgres 16", "done"),
        ("Tag the release", "planned"),
    ]


def test_actions_are_deduplicated_by_normalised_text() -> None:
    e = extract(
        ("assistant", "I'll set up the Vercel project."),
        ("assistant", "I will set up the vercel project!"),
        ("assistant", "I'll set up Vercel project."),
    )
    assert [a.description for a in e.actions] == ["Set up the Vercel project"]


def test_preferences_come_from_user_messages_only() -> None:
    e = extract(
        ("user", "I prefer window seats."),
        ("user", "Please always use metric units."),
        ("user", "I like dark roast better than light roast."),
        ("user", "Don't schedule meetings before 10."),
        ("user", "Don't worry about it."),
        ("assistant", "I prefer concise answers."),
        ("USER", "Never send me marketing emails."),
        ("system", "Always reply in English."),
    )
    assert e.preferences_inferred == [
        "Prefers window seats",
        "Always use metric units",
        "Prefers dark roast over light roast",
        "Don't schedule meetings before 10",
        "Never send me marketing emails",
    ]


def test_entities_by_kind() -> None:
    e = extract(
        (
            "user",
            "Ask Maria to review acme/olive and ping @devon. Docs: https://www.example.com/a/b?x=1 "
            "- we deploy project Atlas on Kubernetes with GitHub Actions and the Orbit app.",
        ),
        ("assistant", "Slack and Notion are fine; a slack rope and a notion are not tools."),
    )
    assert [(x.type, x.name, x.key) for x in e.entities] == [
        ("person", "Maria", "person:maria"),
        ("person", "@devon", "person:devon"),
        ("url", "example.com/a/b", "url:example.com/a/b"),
        ("project", "Atlas", "project:atlas"),
        ("tool", "Kubernetes", "tool:kubernetes"),
        ("tool", "GitHub Actions", "tool:github_actions"),
        ("product", "Orbit", "product:orbit"),
        ("tool", "Slack", "tool:slack"),
        ("tool", "Notion", "tool:notion"),
    ]


def test_repositories_need_context_and_github_urls_give_repo_and_url() -> None:
    e = extract(
        ("user", "Input/output and TCP/IP and 12/05 are not repos."),
        ("user", "See https://github.com/acme/olive/pull/42 and the repo acme/infra."),
    )
    assert [x.key for x in e.entities] == [
        "url:github.com/acme/olive/pull/42",
        "repo:acme/olive",
        "repo:acme/infra",
    ]


def test_conservative_people_and_projects() -> None:
    e = extract(
        ("user", "Ask Monday about it, tell everyone, email support and ping Vercel."),
        ("user", "The new app and the project plan and a side-project idea."),
    )
    assert [x.key for x in e.entities] == ["tool:vercel"]


def test_caps_keep_the_most_recent_items() -> None:
    turns = [("user", f"Let's use tool{i} for job{i}.") for i in range(MAX_DECISIONS + 10)]
    turns += [("assistant", f"I'll write report{i} today.") for i in range(MAX_ACTIONS + 5)]
    turns += [("user", f"I prefer option{i} seats.") for i in range(MAX_PREFERENCES + 5)]
    turns += [("user", f"See https://x{i}.example.com") for i in range(MAX_ENTITIES + 5)]
    e = extract(*turns)
    assert len(e.decisions) == MAX_DECISIONS
    assert e.decisions[0].text == "Use tool10 for job10"
    assert e.decisions[-1].text == f"Use tool{MAX_DECISIONS + 9} for job{MAX_DECISIONS + 9}"
    assert len(e.actions) == MAX_ACTIONS and e.actions[0].description == "Write report5 today"
    assert len(e.preferences_inferred) == MAX_PREFERENCES
    assert e.preferences_inferred[0] == "Prefers option5 seats"
    assert len(e.entities) == MAX_ENTITIES
    assert e.entities[-1].key == f"url:x{MAX_ENTITIES + 4}.example.com"
    assert len(e.topics) <= MAX_TOPICS


def test_topics_are_phrases_not_stop_words() -> None:
    e = extract(
        ("user", "The refresh token expires and the refresh token rotation fails."),
        ("assistant", "Refresh token rotation needs a lock. The refresh tokens are single use."),
        ("user", "So the the the and and of of it it."),
    )
    assert "refresh token" in e.topics
    assert not {"the", "and", "of", "it", "so", "refresh", "token"} & set(e.topics)


def test_session_summary_wins_and_is_trimmed_and_capped() -> None:
    messages = chat(("user", "Let's use Vercel."))
    summary = SessionSummary(session_id="s", summary_text="  " + "word " * 400 + "  ")
    e = extend_extraction(None, "s", messages, summary)
    assert len(e.summary) <= MAX_SUMMARY_CHARS and e.summary.startswith("word word")
    assert e.summary.endswith("\u2026")
    blank = SessionSummary(session_id="s", summary_text=" \n\t ")
    assert extend_extraction(None, "s", messages, blank).summary.startswith("User asked:")


def test_extractive_summary_waits_for_the_first_user_request() -> None:
    first = extend_extraction(None, "s", chat(("assistant", "Hello! How can I help?")), None)
    assert first.summary == 'Started with: "How can I help?"'
    second = extend_extraction(first, "s", chat(("user", "Plan the data migration.")), None)
    assert second.summary.startswith('User asked: "Plan the data migration."')
    third = extend_extraction(second, "s", chat(("user", "Something else entirely.")), None)
    assert third.summary.startswith('User asked: "Plan the data migration."')


# --- entity keys ---


@pytest.mark.parametrize(
    ("kind", "name", "key"),
    [
        ("tool", "Vercel", "tool:vercel"),
        ("person", "John Doe", "person:john_doe"),
        ("org", "Acme Corp.", "org:acme_corp"),
        ("place", "Austin, Texas", "place:austin_texas"),
        ("project", "dashboard-redesign", "project:dashboard_redesign"),
        ("tool", "Next.js", "tool:nextjs"),
        ("repo", "acme/olive", "repo:acme/olive"),
        ("repo", "Acme/Billing-Service.git", "repo:acme/billing-service"),
        ("product", "CI/CD", "product:ci/cd"),
        ("person", "José  Álvarez", "person:jose_alvarez"),
        ("person", "@maria", "person:maria"),
        ("Tool", "  --Fly.io--  ", "tool:flyio"),
        ("", "", "entity:"),
        ("url", "東京", "url:"),
        (
            "url",
            "github.com/acme/billing-service/pull/482",
            "url:github.com/acme/billing-service/pull/482",
        ),
        ("url", "https://www.Docs.Stripe.com/webhooks/?a=1#b", "url:docs.stripe.com/webhooks"),
        ("url", "olive-git-main-acme.vercel.app", "url:olive-git-main-acme.vercel.app"),
    ],
)
def test_entity_key_examples(kind: str, name: str, key: str) -> None:
    assert entity_key(kind, name) == key


# --- bad input ---


def test_bad_inputs_do_not_raise_and_give_sane_output() -> None:
    huge = "let's use Vercel. " + "x" * 30_000 + " let's use Kubernetes. " + "y " * 100_000
    messages = chat(
        ("user", ""),
        ("user", "   \n\t  "),
        ("user", "\x00\x00"),
        ("user", "let's use\x00 Supabase\x00 for auth\x00"),
        ("USER", "I prefer tabs."),
        (" Human ", "I prefer spaces."),
        ("", "we'll use Redis for caching."),
        ("tool", "let's use Docker. See https://docker.com/x"),
        ("system", "I prefer nothing. Let's use Notion."),
        ("robot", "\ud800 lone surrogate and \x1b escape"),
        ("assistant", huge),
    )
    e = extend_extraction(None, "s", messages, None)

    assert e.span.turn_count == len(messages)
    assert [d.text for d in e.decisions] == [
        "Use Supabase for auth",
        "Use Redis for caching",
        "Use Vercel",
    ]
    assert e.preferences_inferred == ["Prefers tabs", "Prefers spaces"]
    assert "url:docker.com/x" in [x.key for x in e.entities]
    assert e.summary.startswith("User asked: \"let's use Supabase for auth")
    dumped = e.model_dump_json()
    assert "\\u0000" not in dumped and "\\ud800" not in dumped and "\\u001b" not in dumped
    dumped.encode("utf-8")


def test_only_blank_messages_give_an_empty_but_valid_extraction() -> None:
    e = extend_extraction(None, "s", chat(("user", ""), ("assistant", " \x00 ")), None)
    assert (e.summary, e.decisions, e.actions, e.entities, e.topics) == ("", [], [], [], [])
    assert e.span.turn_count == 2
    assert extend_extraction(None, "s", [], None) == Extraction(session_id="s")


def test_naive_and_aware_times_can_be_mixed() -> None:
    naive = Message(
        id="1", session_id="s", role="user", content="a", created_at=datetime(2030, 1, 1)
    )
    e = extend_extraction(None, "s", [*chat(("user", "b")), naive], None)
    assert e.span.last_turn_at == datetime(2030, 1, 1)


# --- properties ---

ROLES = st.sampled_from(["user", "assistant", "USER", "Human", "system", "tool", "", "bot"])
TEXT = st.text(max_size=300) | st.sampled_from(
    [
        "Let's use Vercel for the frontend.",
        "Should we use Redis?",
        "I'll deploy the preview to staging.",
        "Done, I've deployed the preview.",
        "Next: write the docs; ping @ana",
        "We decided to switch to Memcached instead of Redis.",
        "I prefer aisle seats. Don't book red-eye flights.",
        "TODO: rotate keys\n- [x] backfill",
        "See https://github.com/acme/olive and the repo acme/api",
        "",
        "\x00",
    ]
)
PHRASES = st.lists(st.tuples(ROLES, TEXT), max_size=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns=PHRASES, summary=st.none() | st.text(max_size=50))
def test_extend_extraction_never_raises_and_keeps_its_invariants(
    turns: list[tuple[str, str]], summary: str | None
) -> None:
    messages = chat(*turns)
    session_summary = (
        None if summary is None else SessionSummary(session_id="s", summary_text=summary)
    )
    e = extend_extraction(None, "s", messages, session_summary)

    assert e.span.turn_count == len(messages)
    assert len(e.decisions) <= MAX_DECISIONS and len(e.actions) <= MAX_ACTIONS
    assert len(e.entities) <= MAX_ENTITIES and len(e.topics) <= MAX_TOPICS
    assert len(e.preferences_inferred) <= MAX_PREFERENCES
    assert len(e.summary) <= MAX_SUMMARY_CHARS
    assert all(KEY_RE.match(x.key) and not x.key.endswith(":") for x in e.entities)
    if any(non_blank(content) for _, content in turns):
        assert e.summary.strip()
    assert "\\u0000" not in e.model_dump_json()


@settings(max_examples=100, deadline=None)
@given(turns=PHRASES.filter(lambda t: len(t) >= 2), cut=st.integers(min_value=1, max_value=11))
def test_any_split_gives_the_same_facts(turns: list[tuple[str, str]], cut: int) -> None:
    messages = chat(*turns)
    cut = min(cut, len(messages) - 1)
    whole = extend_extraction(None, "s", messages, None)
    first = extend_extraction(None, "s", messages[:cut], None)
    batched = extend_extraction(first, "s", messages[cut:], None)
    assert facts(batched) == facts(whole)
    assert batched.span == whole.span


@given(kind=st.text(max_size=30), name=st.text(max_size=80))
def test_entity_key_always_has_the_key_shape(kind: str, name: str) -> None:
    assert KEY_RE.match(entity_key(kind, name))


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.stem)
def test_the_extraction_and_the_state_candidates_agree_on_actions(path: Path) -> None:
    """Both read the same findings with the same completion rule: an action is done in the
    extraction exactly when its state candidate is."""
    conv = load(path)
    messages = messages_of(conv)
    e = extend_extraction(None, conv["session_id"], messages, summary_of(conv))
    extraction = {a.description: a.outcome == "done" for a in e.actions}
    state = {c.text: c.status == "done" for c in rules_candidates(messages) if c.type == "action"}
    assert extraction == state


def test_a_version_with_old_url_keys_carries_the_readable_key_forward() -> None:
    old = extract(("user", "Docs are at https://docs.stripe.com/webhooks today."))
    legacy = old.model_copy(
        update={
            "entities": [
                x.model_copy(update={"key": "url:docsstripecom_webhooks"}) for x in old.entities
            ]
        }
    )
    again = extend_extraction(legacy, "s", chat(("user", "See docs.stripe.com/webhooks")), None)
    assert [x.key for x in again.entities] == ["url:docs.stripe.com/webhooks"]


def test_one_todo_is_one_action() -> None:
    """A TODO that says "I'll", or the same plan said twice, is one action in both outputs."""
    turns = (
        ("user", "TODO: I'll set up monitoring for the API"),
        ("user", "We need to set up the CI runners."),
        ("user", "Next steps: set up CI runners; write the docs"),
    )
    e = extract(*turns)
    assert [a.description for a in e.actions] == [
        "Set up monitoring for the API",
        "Set up the CI runners",
        "Write the docs",
    ]
    assert [c.text for c in rules_candidates(chat(*turns))] == [a.description for a in e.actions]


def test_topics_are_areas_and_things_not_chat_words() -> None:
    """ "Noted" and "remind" recur in chat but are not what a session is about; caching is."""
    e = extract(
        ("user", "The product pages are slow, nothing is cached."),
        ("assistant", "Noted. A cache in front of the catalog query would help."),
        ("user", "OK, let's put Redis in front of it. Remind me to check the hit rate."),
        ("assistant", "Noted, I'll remind you. The TTL can be 10 minutes."),
        ("user", "Noted, thanks. Remind me about the eviction policy too."),
    )
    assert e.topics[:2] == ["caching", "redis"]
    assert not {"noted", "remind", "cache", "cached"} & set(e.topics)


def test_an_entity_keeps_the_first_message_that_named_it_and_the_latest_three() -> None:
    turns = [("user", f"Talk {n}: Kubernetes again.") for n in range(7)]
    e = extract(("user", "We run Vercel and Kubernetes."), *turns)
    refs = {x.key: x.refs for x in e.entities}
    assert refs["tool:vercel"] == ["0000"]
    assert refs["tool:kubernetes"] == ["0000", "0005", "0006", "0007"]
    # batched or not, the refs are the same
    first = extend_extraction(None, "s", chat(("user", "We run Vercel and Kubernetes."))[:1], None)
    later = chat(("user", "We run Vercel and Kubernetes."), *turns)[1:]
    assert extend_extraction(first, "s", later, None).entities == e.entities


def test_a_question_asked_after_a_clause_is_a_question_not_a_choice() -> None:
    """ "..., so how do I get started with X" asks; it chooses nothing (BEAM's help requests
    were read as "Use managing my citations for how do I")."""
    text = (
        "I've never used any citation management software, like Zotero, so how do I get"
        " started with managing my citations for these articles"
    )
    types = [c.type for c in rules_candidates(chat(("user", text)))]
    assert "question" in types and "decision" not in types
    # the question word a few words before its verb: "like how many ways can I choose ..."
    text = (
        "I'm stuck, can you explain it, like how many ways can I choose 2 items from a set"
        " of 4, and what's the probability of two events happening together"
    )
    assert "decision" not in [c.type for c in rules_candidates(chat(("user", text)))]


@pytest.mark.parametrize(
    "text",
    [
        "I'll also include some charts and testimonials to make it more compelling.",
        "I want to make sure I'm using the API correctly and handling errors properly.",
        "I want to make sure I'm using the best practices for version control.",
        "I'm trying to achieve 100% test coverage on my core modules, including API fetch,"
        " autocomplete, and error handling.",
        "This query is currently taking around 500ms to execute.",
        "I want to make sure that my virtual environment is set up correctly.",
        "I want the UI/UX to be improved based on user feedback.",
        "Given my current workload, I can't take on additional responsibilities.",
        "Sarah's on leave till March.",
        "Tom is on vacation until May.",
    ],
)
def test_a_manner_or_a_comparison_is_not_a_chosen_value(text: str) -> None:
    """How or how much ("more compelling", "correctly") chooses nothing (BEAM, tuning half);
    nor does being away ("on leave till March": a change scenario's tuning half)."""
    assert [c.text for c in rules_candidates(chat(("user", text))) if c.type == "decision"] == []


def test_a_schedule_pasted_into_a_message_is_a_table_not_decisions() -> None:
    schedule = (
        "Here's my schedule for April 22:\n"
        "1. **Time**: 9:00 AM - 10:00 AM **Activity**: Meeting with Laura\n"
        "2. **Time**: 10:30 AM **Activity**: Team meeting\n"
        "3. **Time**: 1:00 PM **Activity**: One-on-one with Greg"
    )
    assert [c for c in rules_candidates(chat(("user", schedule))) if c.type == "decision"] == []
    chosen = rules_candidates(chat(("user", "Let's use Redis for the session cache.")))
    assert [c.value for c in chosen if c.type == "decision"] == ["Redis"]


def test_an_offered_option_written_as_a_heading_is_named_by_its_heading() -> None:
    offer = (
        "A few ways to go:\n"
        "- **Time zones**: since the call is in CET, convert it first.\n"
        "- **Calendar check**: look at everyone's calendars."
    )
    items = rules_candidates(chat(("assistant", offer), ("user", "Ok, the first one.")))
    assert [c.value for c in items if c.type == "decision"] == ["Time zones"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "ok so job queue runs on redis, session cache on memcached. deploys go thru github"
            " actions",
            [("decision", "redis"), ("decision", "memcached"), ("decision", "github actions")],
        ),
        ("payments through Stripe, and pickup only for now", [("decision", "Stripe")]),
        (
            "For the study we're imaging on the Zeiss LSM 880 in room 214.",
            [("decision", "Zeiss LSM 880")],
        ),
        ("Guest list can't go over 120, that's the barn's max capacity.", [("constraint", "120")]),
        ("And no synthetic pesticides, I'm keeping it organic.", [("constraint", None)]),
        ("the budget for the whole thing is 3000 euros max", [("constraint", "3000 euros max")]),
        ("eh changed my mind, turkey chili, it freezes better", [("decision", "turkey chili")]),
        (
            "so imaging has moved to the Leica SP8 in the core facility.",
            [("decision", "Leica SP8")],
        ),
    ],
)
def test_choices_and_limits_said_in_everyday_words(
    text: str, expected: list[tuple[str, str | None]]
) -> None:
    """Conversations written outside the project (a tuning half): several choices in one
    sentence, a subject with what serves it, a plan with any verb, a limit said plainly."""
    found = [(c.type, c.value) for c in rules_candidates(chat(("user", text)))]
    assert found == expected


@pytest.mark.parametrize(
    "text",
    [
        "I'm handling the 429 errors with exponential backoff, can you check it?",
        "I'm planning to test on Chrome 112 and Firefox 110, focusing on layout consistency.",
        "new_transaction = Transaction(amount, date)",
        "No regrets here, it was worth it.",
        "I'll draft the phase 2 task list tomorrow morning.",
        # what went wrong, said as what the speaker is going through (BEAM 500K, tuning)
        "I'm experiencing issues with my Flask application.",
        "I'm encountering an issue where the deployment to Elastic Beanstalk is failing.",
        # code: an assignment, a comment after a value, a block left open to the end
        "formatter = logging.Formatter('%(asctime)s - %(message)s')",
        "Here's my config:\n```javascript\nconst opts = {\n  expiresIn: '7d', // 7 days\n",
    ],
)
def test_work_in_progress_code_and_idioms_choose_nothing(text: str) -> None:
    found = [c for c in rules_candidates(chat(("user", text))) if c.type == "decision"]
    assert found == []


@pytest.mark.parametrize(
    ("text", "value", "replaces", "change"),
    [
        (
            "Okay so bad news, the Oak Barn double-booked our date, so we had to move to Willow"
            " Creek Farm.",
            "Willow Creek Farm",
            "Oak Barn",
            "replace",
        ),
        (
            "ugh twoguys cancelled on us. swapping them for Bellhop, same date",
            "Bellhop",
            "twoguys",
            "replace",
        ),
        (
            "so the group voted to give Pathfinder 2e a shot over 5e",
            "Pathfinder 2e",
            "5e",
            "replace",
        ),
        (
            "lol ok pathfinder was way too crunchy for half the table, we're going back to 5e",
            "5e",
            "pathfinder",
            "reverse",
        ),
        ("release slipping to june 10, CI on windows is red", "june 10", None, "update"),
        ("and my calorie target is dropping to 1800", "1800", None, "update"),
    ],
)
def test_a_change_names_what_it_replaces_in_the_words_around_it(
    text: str, value: str, replaces: str | None, change: str
) -> None:
    """What failed, said first, is what a change replaces; a cancel the same message turns into
    a replacement is not a second decision (a new value of a limit is a constraint)."""
    chosen = ("decision", "constraint")
    found = [c for c in rules_candidates(chat(("user", text))) if c.type in chosen]
    assert [(c.value, c.replaces, c.change) for c in found] == [(value, replaces, change)]


def test_a_reason_given_after_a_change_is_not_what_it_replaces() -> None:
    items = rules_candidates(
        chat(
            ("user", "Each config gets 3 seeds."),
            ("user", "Make it 5 seeds, the variance is too high."),
        )
    )
    assert [c.replaces for c in items if c.type == "decision" and c.value == "5 seeds"] == [None]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Decisions: keep State Farm for auto, move home insurance to Lemonade, raise the auto"
            " deductible to $1,000.",
            {("auto deductible", "$1,000"), ("auto", "State Farm"), ("home insurance", "Lemonade")},
        ),
        (
            "Docs are moving to Mintlify, and the blog is moving to Substack.",
            {("Docs", "Mintlify"), ("blog", "Substack")},
        ),
        (
            "Never mind the Fully desk, we're getting the Uplift one instead.",
            {(None, "Uplift one")},
        ),
    ],
)
def test_the_other_clauses_of_a_change_give_choices_of_their_own(
    text: str, expected: set[tuple[str | None, str]]
) -> None:
    """Beside a change, another change or a choice on its own subject is one more decision;
    what the change drops ("never mind the Fully desk") is not."""
    found = {
        (c.subject, c.value) for c in rules_candidates(chat(("user", text))) if c.type == "decision"
    }
    assert found == expected


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Podcast plan: hosting on Buzzsprout - weekly - episodes max 45 min", "45 min"),
        ("docs go on Read the Docs. min supported python is 3.9", "3.9"),
        ("one-time $2.99 unlock after level 10, NO ads. my cofounder was adamant", None),
        ("ok here's what I've locked in: under 5 minutes, open with the camping story", None),
        ("The department has informed me that the page limit is now 100 pages.", None),
        ("Home deductible stays at $500, my partner won't go any higher on that one.", None),
        ("The essay is limited to 2,000 words, references excluded.", "2,000 words"),
    ],
)
def test_a_limit_said_inside_a_list_or_plainly_is_a_constraint(
    text: str, value: str | None
) -> None:
    constraints = [c for c in rules_candidates(chat(("user", text))) if c.type == "constraint"]
    assert len(constraints) == 1
    assert value is None or value in constraints[0].text


def test_a_bound_of_several_digits_is_a_limit_and_keeps_its_words() -> None:
    said = "my physio says keep weekly mileage under 30 miles until the knee settles down"
    found = rules_candidates(chat(("user", said)))
    assert [c.type for c in found] == ["constraint"] and "under 30 miles" in found[0].text
    found = rules_candidates(chat(("user", "trying to stay under 2000 cal a day")))
    assert [c.type for c in found] == ["constraint"]


def test_a_role_named_then_filled_is_one_decision() -> None:
    found = rules_candidates(chat(("user", "and we picked our DJ, Sam Rivera!")))
    assert [(c.subject, c.value) for c in found] == [("DJ", "Sam Rivera")]


def test_a_second_choice_joined_by_and_is_a_decision_of_its_own() -> None:
    said = "We use Redis for the job queue and Memcached for sessions."
    found = rules_candidates(chat(("user", said)))
    assert [(c.type, c.subject, c.value) for c in found] == [
        ("decision", "job queue", "Redis"),
        ("decision", "sessions", "Memcached"),
    ]
    said = "We use Redis for caching and I love it for that"  # no second name: no second choice
    assert [c.value for c in rules_candidates(chat(("user", said)))] == ["Redis"]


def test_a_limit_in_a_clause_of_a_long_sentence_is_a_constraint() -> None:
    said = (
        "so the running club is finally starting, we meet every other thursday evening at the "
        "old track on Pine street near the school, max 12 people because the coach can only "
        "handle that many"
    )
    assert len(said.split()) > 30
    found = [c for c in rules_candidates(chat(("user", said))) if c.type == "constraint"]
    assert [c.text for c in found] == ["Max 12 people because the coach can only handle that many"]


def test_a_new_value_of_a_limit_is_a_constraint_that_updates_it() -> None:
    """So that it replaces the limit it changes, and a reader finds a limit where it was."""
    found = rules_candidates(chat(("user", "Ad budget is now capped at $800 after the round.")))
    assert [(c.type, c.change) for c in found] == [("constraint", "update")]
    assert "$800" in found[0].text
    found = rules_candidates(chat(("user", "found some savings so we raised the cap to 48k")))
    assert [(c.type, c.change) for c in found] == [("constraint", "update")]  # by its name
    said = "The new barn holds more people so the guest cap is bumped up to 150"
    found = rules_candidates(chat(("user", said)))  # the clause is that update, not another
    assert [(c.type, c.change) for c in found] == [("constraint", "update")]


@pytest.mark.parametrize(
    "text",
    [
        "The pairs (1,6), (2,5) and (6,1) all add up to 7, so there are six of them.",
        "Reduced manual formatting: no longer needing to format citations saves time.",
        "budget talk later, no idea yet",
    ],
)
def test_sums_and_idioms_are_no_limits(text: str) -> None:
    assert [c for c in rules_candidates(chat(("user", text))) if c.type == "constraint"] == []


@pytest.mark.parametrize(
    ("text", "subject", "value", "change"),
    [
        ("ok so we're doing the move on march 14.", "move", "march 14", None),
        ("Actually we're doing the offsite in Porto instead.", "offsite", "Porto", "replace"),
        ("let's hold the retreat at Lake Tahoe", "retreat", "Lake Tahoe", None),
        (
            "Lemonade wouldn't cover the older roof, so home insurance is going back to State"
            " Farm.",
            "home insurance",
            "State Farm",
            "reverse",
        ),
        ("Since that saved a bunch, cap comes down to $3,000.", "cap", "$3,000", "update"),
    ],
)
def test_what_an_event_is_set_to_and_where_a_subject_goes_back(
    text: str, subject: str, value: str, change: str | None
) -> None:
    chosen = ("decision", "constraint")  # a new value of a cap is a constraint
    found = [c for c in rules_candidates(chat(("user", text))) if c.type in chosen]
    assert [(c.subject, c.value, c.change, c.replaces) for c in found] == [
        (subject, value, change, None)
    ]


def test_an_event_held_somewhere_replaces_a_named_value_as_a_whole() -> None:
    found = rules_candidates(
        chat(("user", "We stopped using Instacart, we do pickup at Safeway now."))
    )
    assert [(c.subject, c.value, c.change, c.replaces) for c in found] == [
        (None, "pickup", "replace", "Instacart")
    ]


def test_a_list_of_named_prices_gives_each_its_own_item() -> None:
    found = rules_candidates(chat(("user", "pricing locked - Starter $19/mo - Pro $49/mo")))
    assert {(c.subject, c.value) for c in found} >= {("Pro", "$49/mo")}


def test_a_bulleted_plan_gives_an_item_per_bullet() -> None:
    plan = (
        'Home network redo plan: • router: Ubiquiti Dream Router • main SSID "Hearth" on 5GHz'
        " • guest network capped at 20 Mbps • Pi-hole on the old Raspberry Pi for DNS"
    )
    found = {(c.type, c.value) for c in rules_candidates(chat(("user", plan)))}
    assert ("decision", "Ubiquiti Dream Router") in found
    assert any(kind == "constraint" for kind, _ in found)


@pytest.mark.parametrize(
    ("turns", "absent"),
    [
        (
            [
                ("user", "The report must be 12 pages or fewer."),
                ("assistant", "Noted, the report must be 12 pages or fewer."),
            ],
            "Noted",
        ),
        ([("user", "Also I signed Maya up for the summer swim camp, starts June 24.")], "24"),
        ([("user", "Team norms: - standups Mon/Wed/Fri 9:30 - 2-week sprints")], "30"),
        (
            [("user", "also we're playing at Priya's from now on, Mike's moving apartments")],
            "Priya is",
        ),
    ],
)
def test_echoes_dates_and_clock_times_make_no_items_of_their_own(
    turns: list[tuple[str, str]], absent: str
) -> None:
    """An assistant noting a limit is no second constraint; "June 24" is a date, "9:30" a time
    and "Priya's" a place, not a subject and its value."""
    texts = [c.text for c in rules_candidates(chat(*turns))]
    assert not any(
        t.startswith(absent) or t.endswith(f" {absent}") or f"Use {absent} " in t for t in texts
    ), texts


def test_a_clause_that_starts_with_a_pronoun_is_no_option_to_take() -> None:
    """A partner's "What about you?" offered "You", which "That's fantastic ..." took as a
    choice (REALTALK's tuning chats)."""
    said = chat(
        ("assistant", "I started going to the gym today. It was tiring, but fun. What about you?"),
        ("user", "That's fantastic that you took the first step by hitting the gym today."),
    )
    assert [c.text for c in rules_candidates(said) if c.type == "decision"] == []
