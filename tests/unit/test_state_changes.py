"""Choices and their changes in the many ways people say them, read by the rules and
reconciled within a session: what is chosen (subject, value), what replaces what, and what
must stay (issue 23, "extraction that generalises")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from archivist.extract.rules.candidates import earlier_contradictions, rules_candidates
from archivist.extract.rules.experience import MAX_AFFIRMED, contradictions, negations
from archivist.extract.rules.settled import fragment_choice
from archivist.models import Message
from archivist.state.frames import (
    Frame,
    choice_text,
    concrete,
    frame,
    statement,
    tentative,
    value_kind,
)
from archivist.state.items import StateItem
from archivist.state.reconcile import admit, reconcile

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("sentence", "subject", "value", "old", "change"),
    [
        # commitments, in any tense, with or without a subject
        ("For the backend role we're hiring Priya.", "backend role", "Priya", None, None),
        (
            "We signed with Acme Logistics for warehousing.",
            "warehousing",
            "Acme Logistics",
            None,
            None,
        ),
        ("We'll take a taxi from the airport.", None, "taxi", None, None),
        (
            "for the team offsite we take the hotel Krone in Salzburg.",
            "hotel",
            "hotel Krone",
            None,
            None,
        ),
        (
            "We finally picked the venue: the Glasshouse in Hudson!",
            "venue",
            "Glasshouse",
            None,
            None,
        ),
        ("Final answer on the hotel: Hotel Artemide.", "hotel", "Hotel Artemide", None, None),
        ("Agreed, the Canon it is.", None, "Canon", None, None),
        # a subject said first, then its value
        ("The reservation is at 7pm.", "reservation", "7pm", None, None),
        ("The vet is Dr. Patel at Westside Animal Clinic.", "vet", "Dr. Patel", None, None),
        ("Raw events still land in S3.", "Raw events", "S3", None, None),
        ("The A/B test runs for 14 days.", "A/B test", "14 days", None, None),
        ("Zoom stays for video calls.", "video calls", "Zoom", None, None),
        ("Square handles card payments itself.", "card payments", "Square", None, None),
        ("db: mysql", "db", "mysql", None, None),
        (
            "We train the baseline with a learning rate of 3e-4.",
            "learning rate",
            "3e-4",
            None,
            None,
        ),
        # value updates
        (
            "Bump the upload limit to 10 MB, people keep hitting it.",
            "upload limit",
            "10 MB",
            None,
            "update",
        ),
        (
            "The funder extended the grant report deadline to May 16.",
            "grant report deadline",
            "May 16",
            None,
            "update",
        ),
        ("Make it 5 seeds, the variance is too high.", None, "5 seeds", None, "update"),
        ("Let's make the cap 20 users.", "cap", "20 users", None, "update"),
        ("Deadline's now March 3.", "Deadline", "March 3", None, "update"),
        ("The movers pushed us to the 30th.", "movers", "30th", None, "update"),
        (
            "Rate limit goes down to 60 requests per minute.",
            "Rate limit",
            "60 requests per minute",
            None,
            "update",
        ),
        # replacements, said with or without their subject
        (
            "Experiment tracking moves to MLflow, W&B got too expensive.",
            "Experiment tracking",
            "MLflow",
            None,
            "replace",
        ),
        (
            "we change the hotel, now is Hotel Sacher, Krone has no rooms free.",
            "hotel",
            "Hotel Sacher",
            None,
            "replace",
        ),
        (
            "Actually, let's do the Italian place on Divisadero instead.",
            None,
            "Italian place",
            None,
            "replace",
        ),
        ("We'll rent a car instead of the train.", None, "car", "train", "replace"),
        ("Change of plan, Rome instead of Florence.", None, "Rome", "Florence", "replace"),
        (
            "Change: tomatoes go in the greenhouse, the south bed floods.",
            "tomatoes",
            "greenhouse",
            None,
            "replace",
        ),
        (
            "We're not going with Free anymore, we're taking Orange.",
            None,
            "Orange",
            "Free",
            "replace",
        ),
        ("No more Slack, we're on Teams now.", None, "Teams", "Slack", "replace"),
        ("Stripe handles payments.", "payments", "Stripe", None, None),
        ("Vercel hosts the marketing site.", "marketing site", "Vercel", None, None),
        ("GitHub Actions does our deploys.", "deploys", "GitHub Actions", None, None),
        ("Adyen replaces Stripe for payments.", "payments", "Adyen", "Stripe", "replace"),
        (
            "Payments move from Stripe to Adyen next month.",
            "Payments",
            "Adyen",
            "Stripe",
            "replace",
        ),
        ("We chose Stripe over Adyen.", None, "Stripe", "Adyen", "replace"),
        (
            "Mailchimp got replaced by ConvertKit last week.",
            None,
            "ConvertKit",
            "Mailchimp",
            "replace",
        ),
        (
            "We don't use Jira anymore, bugs go into Linear now.",
            "bugs",
            "Linear",
            "Jira",
            "replace",
        ),
        (
            "Hmm, can we do Sakura Sushi instead for Friday dinner?",
            "Friday dinner",
            "Sakura Sushi",
            None,
            "replace",
        ),
        (
            "Lumen Studio is the new agency for the campaign.",
            "agency for the campaign",
            "Lumen Studio",
            None,
            "update",
        ),
        ("Launch slips to July 15, legal needs another week.", "Launch", "July 15", None, "update"),
        ("Free trial is 30 days from now on.", "Free trial", "30 days", None, "update"),
        ("P1 SLA tightened to 2 hours.", "P1 SLA", "2 hours", None, "update"),
        ("Cleaner switched to Fridays.", "Cleaner", "Fridays", None, "update"),
        (
            "We decided code reviews move to GitHub next month.",
            "code reviews",
            "GitHub",
            None,
            "replace",
        ),
        (
            "Never mind the Fully desk, we're getting the Uplift one instead.",
            None,
            "Uplift one",
            "Fully desk",
            "replace",
        ),
        (
            "We cancelled Blue Car Rental and booked with Lagoon Car Rental, it was cheaper.",
            None,
            "Lagoon Car Rental",
            "Blue Car Rental",
            "replace",
        ),
        ("hosting stays Vercel", "hosting", "Vercel", None, None),
        ("The free trial lasts 14 days.", "free trial", "14 days", None, None),
        ("Beta goes out on June 3.", "Beta", "June 3", None, None),
        ("His vet will be Dr. Alvarez.", "vet", "Dr. Alvarez", None, None),
        # a known thing booked for a date: the date is what is chosen for it
        ("So we booked the flight to Lisbon for May 3rd!", "flight", "May 3rd", None, None),
        ("We'll take the train on Friday.", None, "train", None, None),
        # the vendor of a thing acquired is what is chosen for it
        ("Let's order the standing desk from Fully.", "standing desk", "Fully", None, None),
        ("We'll take the train from Boston.", None, "train", None, None),
        ("region now us-east-1", "region", "us-east-1", None, "update"),
        # the clause that says what a subject is, wherever it is in the sentence
        (
            "Sweet Lily is closing, so cake now comes from Marta's Pastry.",
            "cake",
            "Marta's Pastry",
            None,
            "update",
        ),
        (
            "Internet will be Comcast Business, IT set it up already.",
            "Internet",
            "Comcast Business",
            None,
            None,
        ),
        ("Notion is our wiki.", "wiki", "Notion", None, None),
        ("We'll stick to Python for the scripts.", "scripts", "Python", None, None),
        (
            "It's Postgres for the main database from now on.",
            "main database",
            "Postgres",
            None,
            "update",
        ),
        ("We've moved away from Trello to Asana for tasks.", "tasks", "Asana", "Trello", "replace"),
        ("The default font should now be Inter.", "default font", "Inter", None, "update"),
        ("Going forward, invoices are sent via Stripe.", "invoices", "Stripe", None, "update"),
        (
            "Hi, confirming that the team offsite will be held at Lakeview Lodge.",
            "team offsite",
            "Lakeview Lodge",
            None,
            None,
        ),
        (
            "Hotel Kanra cancelled on us, now we're staying at Ace Hotel Kyoto.",
            None,
            "Ace Hotel Kyoto",
            "Hotel Kanra",
            "replace",
        ),
        ("Pickup time changed to 3:30 this semester.", "Pickup time", "3:30", None, "update"),
        ("I'm putting $500 a month into the index fund.", "index fund", "$500 a month", None, None),
        ("We spend $2k per month on ads.", "ads", "$2k per month", None, None),
        # a change said of a kind of thing, or of a name
        (
            "I switched gyms, I'm at Planet Fitness now, it's closer to work.",
            "gym",
            "Planet Fitness",
            None,
            "replace",
        ),
        (
            "We switched piano teachers, the kids are with Mrs. Okafor now.",
            "piano teacher",
            "Mrs. Okafor",
            None,
            "replace",
        ),
        # a change of mind about a subject, the new value after it
        (
            "Changed my mind about date night, Saturday works better.",
            "date night",
            "Saturday",
            None,
            "replace",
        ),
        (
            "Funny story, the kids renamed the puppy, he's Waffles now.",
            "name of puppy",
            "Waffles",
            None,
            "update",
        ),
        ("We renamed the app to Tally.", "name of app", "Tally", None, "update"),
        (
            "We're cancelling Zoom Pro, Google Meet is enough for client calls.",
            "client calls",
            "Google Meet",
            "Zoom Pro",
            "replace",
        ),
        (
            "We're dropping Buttondown for the newsletter, we need better analytics, so Beehiiv.",
            "newsletter",
            "Beehiiv",
            "Buttondown",
            "replace",
        ),
        ("New launch date: March 10.", "launch date", "March 10", None, "update"),
        ("Offsite location changed: Austin.", "Offsite location", "Austin", None, "update"),
        ("Hosting update: Fly.io.", "Hosting", "Fly.io", None, "update"),
        ("We have a budget of $30k.", "budget", "$30k", None, None),
        # reversals and cancellations
        ("Stripe is back.", None, "Stripe", None, "reverse"),
        ("We won't use Adyen anymore.", None, None, "Adyen", "cancel"),
        ("Docs moved off GitBook.", "Docs", None, "GitBook", "cancel"),
        ("The venue fell through.", None, None, "venue", "cancel"),
        ("Our photographer backed out.", None, None, "photographer", "cancel"),
        (
            "Docs moved off GitBook, they live on Mintlify now.",
            "Docs",
            "Mintlify",
            "GitBook",
            "replace",
        ),
        ("We dropped Heroku, it runs on Render now.", None, "Render", "Heroku", "replace"),
        ("I started using Obsidian instead.", None, "Obsidian", None, "replace"),
        ("We're migrating away from Heroku.", None, None, "Heroku", "cancel"),
        ("On second thought, back to 15 GB.", None, "15 GB", None, "reverse"),
        (
            "Scratch the Buildkite move, GitHub Actions stays for CI.",
            "CI",
            "GitHub Actions",
            None,
            "reverse",
        ),
        ("Never mind, keep the sage green.", None, "sage green", None, "reverse"),
        ("Cancel Hulu, we never watch it.", None, None, "Hulu", "cancel"),
        (
            "We're dropping Buttondown for the newsletter.",
            "newsletter",
            None,
            "Buttondown",
            "cancel",
        ),
        # a count with what it counts, who moved us, what a change names before its value
        ("We are going to 20-minute slots.", "slots", "20-minute", None, "update"),
        ("The panel moved us to a 40 minute slot.", "slot", "40 minute", None, "update"),
        ("The movers pushed us to the 30th.", "movers", "30th", None, "update"),
        ("pickup day Monday → Wednesday", "pickup day", "Wednesday", "Monday", "replace"),
        # a value moved by any verb, with what it was; a setting's name before an arrow
        ("Heads up, kickoff slid from 10am to 1pm, same day.", "kickoff", "1pm", "10am", "update"),
        ("moved it from 8:30 to 8pm sharp since school starts", None, "8pm", "8:30", "update"),
        ("Dropping that from 15% to 8% for a while.", None, "8%", "15%", "update"),
        ("pushed to the 17th", None, "17th", None, "update"),
        ("our rent jumped from $1,800 to $2,100", "rent", "$2,100", "$1,800", "update"),
        # a change said as a noun, and a reading that "showed an improvement to" a value
        (
            "I wonder how the internet speed upgrade to 250 Mbps on April 29 will affect calls",
            "internet speed",
            "250 Mbps",
            None,
            "update",
        ),
        ("The rent increase from $1,800 to $2,100 hurts", "rent", "$2,100", "$1,800", "update"),
        (
            "I checked my blood pressure today, and it showed a slight improvement to 135/82 mmHg",
            "blood pressure",
            "135/82 mmHg",
            None,
            "update",
        ),
        # the amount before the thing, and that it changed said after it
        (
            "I might use my $200 emergency fund for repairs, since I just increased it",
            "emergency fund",
            "$200",
            None,
            "update",
        ),
        ("My $50 budget is tight, I used it all", None, None, None, None),
        # "it's now" an amount: the thing named before, to its verb; not the time of day
        (
            "My commute got longer, it's now 45 minutes each way",
            "commute",
            "45 minutes",
            None,
            "update",
        ),
        ("I'm late for my meeting, it's now 5pm", None, None, None, None),
        # an update from one amount to another said in passing, in a longer question
        (
            "I'm trying to understand how my practice test score has improved from 82% to 93%, "
            "can you explain the rate?",
            "practice test score",
            "93%",
            "82%",
            "update",
        ),
        (
            "My resting heart rate dropped from 72 to 64 this year",
            "resting heart rate",
            "64",
            "72",
            "update",
        ),
        ("the assembly slid from 2pm to 3pm", "assembly", "3pm", "2pm", "update"),
        ("the 25,000 cap can stretch to 32k", None, "32k", None, "update"),
        ("ttl -> 15m, too many misses", "ttl", "15m", None, "update"),
        ("Postgres -> CockroachDB", None, "CockroachDB", "Postgres", "replace"),
        # what is done instead, with no subject; staying with what a change replaced
        ("no lasagna, doing a big paella instead", None, "big paella", None, "replace"),
        ("we're going with CockroachDB instead", None, "CockroachDB", None, "replace"),
        ("after the spike we're keeping REST", None, "REST", None, "reverse"),
        ("I think I'll stick with Windows.", None, "Windows", None, None),
        (
            "I've managed to reduce it from 180MB to 120MB during concurrent requests",
            None,
            "120MB",
            "180MB",
            "update",
        ),
        (
            "Our ratings have increased from 8.8 to 9.2 this month",
            "ratings",
            "9.2",
            "8.8",
            "update",
        ),
        (
            "I just found out the weekly spending at Whole Foods has adjusted to $115, nice",
            "weekly spending",
            "$115",
            None,
            "update",
        ),
        ("so October 19 it is.", None, "October 19", None, None),
        ("it's Piranesi instead, maybe next time", None, "Piranesi", None, "replace"),
        ("so I joined Thursday pilates instead", None, "Thursday pilates", None, "replace"),
        (
            "the walnut looked way better than the white oak, so that's what we ordered.",
            None,
            "walnut",
            "white oak",
            "replace",
        ),
        # a thing set to a date, a time or an amount
        (
            "I'm setting my monthly savings transfer at $500 into the Ally account.",
            "monthly savings transfer",
            "$500",
            None,
            None,
        ),
        (
            "I set the budget for the kitchen reno at $25,000 max.",
            "budget for the kitchen reno",
            "$25,000 max",
            None,
            None,
        ),
        (
            "We're capping the wedding guest list at 150 people.",
            "wedding guest list",
            "150 people",
            None,
            None,
        ),
        # a record's wording: a lead-in for the minutes, "shall be", a rhythm said after
        (
            "Please note for the record: the governing law shall be the State of Delaware.",
            "governing law",
            "State of Delaware",
            None,
            None,
        ),
        ("password rotation every 90 days.", "password rotation", "90 days", None, None),
        # a name in quotes, and what the speakers are doing instead
        ('The class novel is "Holes".', "class novel", "Holes", None, None),
        (
            'Half the class read Holes last year, so we\'re reading "Wonder" instead.',
            None,
            "Wonder",
            None,
            "replace",
        ),
        # a name that starts with "The", and a thing said to be happening somewhere
        (
            "Rehearsal dinner is at The Oak Room now.",
            "Rehearsal dinner",
            "The Oak Room",
            None,
            "update",
        ),
        (
            "so the party is happening in grandma's backyard, same date.",
            "party",
            "grandma's backyard",
            None,
            None,
        ),
        # what took the place of a thing taken out
        ("so we ripped it out, Zustand now.", None, "Zustand", None, "replace"),
        # who does it, said first after "going forward" or "our neighbor"
        ("Going forward Dev is handling final rounds.", "final rounds", "Dev", None, "update"),
        (
            "from now on our neighbor Mrs. Alvarez is doing thursday pickup",
            "thursday pickup",
            "Mrs. Alvarez",
            None,
            "update",
        ),
    ],
)
def test_the_ways_people_choose_and_change(
    sentence: str, subject: str | None, value: str | None, old: str | None, change: str | None
) -> None:
    found = frame(sentence)
    assert (found.subject, found.value, found.old, found.change) == (subject, value, old, change)


@pytest.mark.parametrize(
    "sentence",
    [
        "The food is great.",
        '"Get Out" is a mix of psychological horror and social issues.',
        "Kenji pointed out Monday is a public holiday there.",
        "Stared at both on the wall all weekend.",
        '"Friends" and "The Office" are classic choices for relaxation.',
        "The deploy is blocked on the DNS change from the infra team.",
        "Next step is to ask Priya which revenue definition finance uses.",
        "Next: phase 2 tasks for the olive deep work.",
        "Hmm, scratch that, the e-reader feels impersonal.",
        "I think the meeting went well",
        "Let's keep it simple.",
        "We had pizza for lunch.",
        "I got a new laptop last week.",
        "My sister lives in Boston.",
        "The weather is nice today.",
        "The server has 16 GB of RAM.",
        "I'll keep these tips in mind and try them.",
        "I'll also keep an eye out for jargon.",
        "Looking forward to keeping this pace going!",
        "I'll keep tracking my progress.",
        "I paid $40 for the tickets.",
        "Users get logged out at random.",
        "scratch that, my aunt doesn't land until Sunday",
        "It does the trick.",
        "That covers the basics.",
        "We went to the beach.",
        "we just went to a concert on July 22",
        "My sister Jessica hosted a book club meeting on June 5th.",
        "Reviewing the schedule every Sunday at 7:00 PM works for me.",
        "I am putting everything in boxes for the move",
        "too tired to go out, reading a book instead",
        "we are doing something else instead",
    ],
)
def test_opinions_states_and_headings_choose_nothing(sentence: str) -> None:
    found = frame(sentence)
    assert found.value is None and found.subject is None


def test_values_have_kinds_that_subjectless_changes_match() -> None:
    assert value_kind("7pm") == value_kind("8:30") == "time"
    assert value_kind("Thursday at 3pm") == value_kind("May 16") == "date"
    assert value_kind("$15") == value_kind("145k base") == "money"
    assert value_kind("5 seeds") == value_kind("3 seeds") == "quantity:seed"
    assert value_kind("10 MB") != value_kind("5 seeds")
    assert value_kind("Italian place") == value_kind("Nopa") == "thing"
    assert value_kind("Postgres 14") == value_kind("Python 3.12") == "thing"
    # a model code or a model number is part of a name; a quarter is still no thing
    assert value_kind("Sony WH-1000XM5 headphones") == value_kind("Yamaha FG800") == "thing"
    assert value_kind("Dell Latitude 5450") == value_kind("Fujifilm X-T5") == "thing"
    assert value_kind("Q2") == value_kind("the top 3") == "number"
    assert concrete("lamb tagine") and concrete("Nopa") and concrete("two weeks")
    assert not concrete("great") and not concrete("pretty good")


def session(*turns: tuple[str, str]) -> list[Message]:
    return [
        Message(
            id=f"m{i}",
            session_id="s",
            role=role,
            content=text,
            created_at=T0 + timedelta(minutes=i),
        )
        for i, (role, text) in enumerate(turns)
    ]


def state(*turns: tuple[str, str]) -> list[StateItem]:
    """The session's items after the rules and reconciliation (vectors that say nothing)."""
    batch = session(*turns)
    candidates = admit(rules_candidates(batch), batch, 25).candidates
    rng = np.random.default_rng(7)
    vectors = [rng.normal(size=32).astype(np.float32) for _ in candidates]
    return reconcile([], candidates, batch, {}, vectors).items


def live(items: list[StateItem], kind: str = "decision") -> list[str]:
    return [i.text for i in items if i.type == kind and i.status != "superseded"]


def test_a_change_without_a_subject_replaces_the_latest_choice_of_its_kind() -> None:
    items = state(
        ("user", "For Saturday's dinner let's book Nopa."),
        ("user", "The reservation is at 7pm."),
        ("user", "Actually, let's do the Italian place on Divisadero instead."),
        ("user", "And make it 8pm, my sister lands late."),
    )
    by_value = {i.value: i for i in items if i.type == "decision"}
    assert by_value["Nopa"].status == by_value["7pm"].status == "superseded"
    assert by_value["Nopa"].replaced_by == by_value["Italian place"].uid
    assert by_value["7pm"].replaced_by == by_value["8pm"].uid
    assert by_value["8pm"].subject == "reservation"
    assert by_value["Italian place"].subject == "Saturday's dinner"


def test_a_thing_with_a_model_code_is_replaced_by_another_thing() -> None:
    items = state(
        ("user", "I'm buying the Sony WH-1000XM5 headphones, ordering them tonight."),
        ("user", "cancelled that headphone order. grabbed the Bose QC Ultra instead"),
    )
    assert live(items) == ["Drop headphone order", "Use Bose QC Ultra"]


def test_an_amount_counted_per_the_same_thing_is_updated_under_another_name() -> None:
    """ "$120/month" for "the savings thing" after "$200 a month" for the emergency fund; an
    amount counted per another thing is another amount."""
    first = "I'm putting $200 a month into the emergency fund starting this month."
    items = state(
        ("user", first),
        ("user", "Rent went up so the savings thing has to drop to $120/month for now."),
    )
    assert live(items) == ["Savings thing: $120/month"]
    items = state(("user", first), ("user", "The gym fee has to drop to $30 per visit."))
    assert "Use $200 a month for emergency fund" in live(items)


def test_a_change_of_one_unit_leaves_other_quantities_alone() -> None:
    items = state(
        ("user", "We train the baseline with a learning rate of 3e-4."),
        ("user", "Each config gets 3 seeds."),
        ("user", "Make it 5 seeds, the variance is too high."),
    )
    assert live(items) == ["Use 3e-4 for learning rate", "Use 5 seeds"]


def test_a_reversal_without_a_subject_undoes_the_change_it_names() -> None:
    items = state(
        ("user", "Let's paint the bedroom sage green."),
        ("user", "Hmm, let's do terracotta instead."),
        ("user", "Never mind, keep the sage green."),
    )
    assert [i.value for i in items if i.status != "superseded"] == ["sage green"]
    terracotta = next(i for i in items if i.value == "terracotta")
    live_green = next(i for i in items if i.value == "sage green" and i.status != "superseded")
    assert terracotta.replaced_by == live_green.uid


def test_staying_with_what_a_change_replaced_undoes_the_change() -> None:
    items = state(
        ("user", "We're moving the public API from REST to GraphQL."),
        ("user", "After the spike we're keeping REST, GraphQL added too much complexity."),
    )
    graphql = next(i for i in items if i.value == "GraphQL")
    rest = next(i for i in items if i.value == "REST")
    assert graphql.status == "superseded" and graphql.replaced_by == rest.uid
    assert rest.status != "superseded" and rest.subject == "public API"


def test_a_value_moved_from_what_it_was_replaces_the_choice_of_that_value() -> None:
    items = state(
        ("user", "Kids' bedtime is 8:30."),
        ("user", "moved it from 8:30 to 8pm since school starts earlier this year"),
        ("user", "We're using Postgres 14 for the main app database."),
        ("user", "After the benchmarks we're going with CockroachDB instead."),
    )
    assert live(items) == ["Use 8pm instead of 8:30", "Go with CockroachDB instead"]


def test_no_thing_beside_a_replacement_is_what_it_replaces() -> None:
    items = state(
        ("user", "For the dinner party on Saturday I'm making lasagna."),
        ("user", "changed my mind, no lasagna, doing a big paella instead"),
    )
    paella = next(i for i in items if i.value == "big paella")
    assert paella.replaces == "lasagna"
    assert [i.text for i in items if i.status != "superseded"] == [paella.text]


def test_a_no_beside_a_change_of_another_thing_stays_and_a_cancel_names_no_bare_choice() -> None:
    items = state(
        ("user", "We are going with Redis, mostly for the job queue."),
        ("user", "Stop using Redis for the session cache."),
        ("user", "Dinner is at 7pm."),
        ("user", "no dairy for me. we moved dinner to 8pm"),
    )
    assert live(items) == ["Go with Redis", "Drop Redis for session cache", "Use 8pm for dinner"]
    assert live(items, "constraint") == ["No dairy for me"]


def test_a_hyphenated_subject_holds_its_parts() -> None:
    items = state(
        ("user", "Sarah will run the final-round interviews for the backend role."),
        ("user", "Going forward Dev is handling final rounds."),
    )
    assert live(items) == ["Final rounds: Dev"]


def test_a_change_with_a_subject_of_its_own_replaces_the_subjectless_value_it_names() -> None:
    items = state(
        ("user", "We picked Blue Oak Catering."),
        ("user", "Blue Oak fell through. Going with Harvest Table for catering."),
    )
    assert live(items) == ["Go with Harvest Table for catering"]


def test_a_change_replaces_only_its_subject() -> None:
    """Precision: similar words, different subjects; a restated choice replaces nothing."""
    items = state(
        ("user", "Use Redis for rate limiting."),
        ("user", "Use Postgres for the audit log."),
        ("user", "Keep Postgres for billing."),
        ("user", "The kickoff meeting is on the 3rd."),
        ("user", "The retro meeting is on the 20th."),
        ("user", "The kickoff meeting is now on the 5th."),
        ("user", "Rate limiting moves to Envoy, it has it built in."),
    )
    assert live(items) == [
        "Use Postgres for audit log",
        "Use Postgres for billing",
        "Use 20th for retro meeting",
        "Kickoff meeting: 5th",
        "Use Envoy for Rate limiting",
    ]


def test_an_update_of_an_amount_replaces_the_amount_on_a_subject_said_in_other_words() -> None:
    """The garage cap is the budget for the garage build: neither subject holds the other,
    but they share a word and both give money; a date or a thing on the garage stays."""
    items = state(
        ("user", "The budget for the garage build is $8,000."),
        ("user", "The garage contractor is Bob's Builders."),
        ("user", "The garage door install is on the 14th."),
        ("user", "We bumped the garage cap to 9k after the quotes."),
        ("user", "The garage roofer is now Acme Roofing."),
    )
    by_value = {i.value: i for i in items}
    assert by_value["$8,000"].replaced_by == by_value["9k"].uid
    assert [v for v, i in by_value.items() if i.status == "superseded"] == ["$8,000"]


def test_an_update_of_a_date_replaces_a_choice_without_a_subject_that_says_one() -> None:
    """A choice without a subject ("take my driving exam on 21 of May") is replaced by a later
    date on a subject that names a word of it ("my driving test is now on 28 of May"); the
    yoga class, whose date shares no word with the test, stays."""
    items = state(
        ("user", "I will take my driving exam on 21 of May at 10 in the morning."),
        ("user", "I'll go to the yoga class on 23 of May."),
        ("user", "The exam center called me, my driving test is now on 28 of May."),
    )
    assert [i.text for i in items if i.status == "superseded"] == [
        "Take my driving exam on 21 of May at 10 in"
    ]
    assert "Driving test: 28 of May" in live(items)


def test_an_amount_that_has_to_drop_or_can_go_up_is_an_update_of_it() -> None:
    """ "Has to drop to" and "can go up to" move an amount as "moved to" does; the second
    states an upper bound, so it is a limit."""
    items = state(
        ("user", "I put $200 a month into the emergency fund."),
        ("user", "Max team size is 6 people."),
        ("user", "Rent went up, so the emergency fund has to drop to $120/month."),
        ("user", "We can go up to 8 people now."),
    )
    assert [i.value for i in items if i.status == "superseded"] == ["$200 a month", "6 people"]
    assert {(i.type, i.value) for i in items if i.status != "superseded"} == {
        ("decision", "$120/month"),
        ("constraint", "8 people"),
    }


@pytest.mark.parametrize(
    "turns",
    [
        ("The hotel budget is $200 a night.", "We raised the flight budget to $600."),
        ("The team meeting is on the 3rd.", "The board meeting moved to the 9th."),
    ],
)
def test_an_update_of_another_thing_of_the_same_name_replaces_nothing(
    turns: tuple[str, str],
) -> None:
    """The word they share is what both name (a budget, a meeting), not whose it is."""
    items = state(*(("user", t) for t in turns))
    assert len(items) == 2 and all(i.status != "superseded" for i in items)


def test_a_change_that_names_the_old_choices_subject_as_replaced_replaces_it() -> None:
    """Swapping the tent for the 4-person one: the tent is what the first choice was about
    (its value was "2-person"), and "one" is no subject."""
    items = state(
        ("user", "I'm bringing the 2-person tent."),
        ("user", "I'm bringing the blue cooler too."),
        ("user", "Swapped the tent for the 4-person one since Jake is coming."),
    )
    by_value = {i.value: i for i in items if i.type == "decision"}
    assert by_value["2-person"].replaced_by == by_value["4-person one"].uid
    assert by_value["4-person one"].subject == "tent"
    assert [v for v, i in by_value.items() if i.status == "superseded"] == ["2-person"]


def test_a_thing_replaces_the_thing_chosen_with_the_same_verb() -> None:
    items = state(
        ("user", "For mom's birthday we're getting her the Kindle Paperwhite."),
        ("user", "The card will be from Sam and me."),
        ("user", "Let's get her the pottery class instead."),
    )
    assert live(items) == ["Use Sam for card", "Get the pottery class"]


def test_each_entry_of_a_settled_list_is_a_choice_a_later_change_replaces() -> None:
    items = state(
        ("user", "Garage build decisions: cedar siding, a Genie opener, 2-car bays"),
        ("user", "Studio norms: - lessons Tue/Thu 6:30 - hosting on Zoom - review needs 2 OKs"),
        ("user", "Changes after the walk: - opener: returned the Genie, got a Chamberlain instead"),
    )
    assert live(items) == [
        "Cedar siding",
        "2-car bays",
        "Lessons Tue/Thu 6:30",
        "Hosting on Zoom",
        "Use Chamberlain instead of Genie",
    ]
    assert live(items, "constraint") == ["Review needs 2 OKs"]
    genie = next(i for i in items if "Genie" in i.text and i.status == "superseded")
    assert genie.replaced_by == next(i.uid for i in items if "Chamberlain" in i.text)


def test_a_quantity_or_a_time_in_a_list_is_no_choice_of_its_unit() -> None:
    """A unit is what a number is counted in, not what it is about: "25 cm" is no decision on
    "cm", "2:00 PM" none on "PM"."""
    found = rules_candidates(
        session(
            ("user", "Triangle sides: 7 cm, 24 cm, 25 cm"),
            ("user", "Schedule:\n1. Time: 9:00 AM - 10:00 AM\n2. Time: 1:00 PM - 2:00 PM"),
        )
    )
    assert not [i.subject for i in found if (i.subject or "").lower() in ("cm", "am", "pm")]
    assert [i.text for i in found if i.type == "decision" and "cm" in i.text] == [
        "Use 7 cm for Triangle sides"
    ]


def test_a_list_entry_led_by_a_verb_is_about_what_it_names() -> None:
    made = rules_candidates(
        session(("user", "Trip so far: flights booked, add a $300 buffer fund"))
    )
    assert [(c.subject, c.value) for c in made if c.type == "decision"] == [
        (None, "flights booked"),
        ("buffer fund", "$300"),  # not "add a"
    ]


def test_each_part_of_a_line_joined_by_plus_is_read() -> None:
    made = rules_candidates(session(("user", "Anki for vocab + Tandem for speaking")))
    assert [(c.subject, c.value) for c in made] == [("vocab", "Anki"), ("speaking", "Tandem")]


def test_a_verbless_clause_after_a_choice_says_when_where_or_a_value_of_its_own() -> None:
    made = rules_candidates(
        session(
            ("user", "The bake sale is at the Elm Street gym, every other Sunday, entry fee $3"),
            ("user", "Pottery class is on Mondays, Tuesdays are for choir"),
        )
    )
    assert [(c.subject, c.value) for c in made if c.type == "decision"] == [
        ("bake sale", "Elm Street gym"),
        ("bake sale", "every other Sunday"),
        ("entry fee", "$3"),
        ("Pottery class", "Mondays"),
        ("choir", "Tuesdays"),  # a clause of its own, not the pottery class's
    ]
    booked = rules_candidates(session(("user", "Hall is booked: the Elm Lodge in Salem, May 3rd")))
    assert [(c.subject, c.value) for c in booked] == [
        ("Hall", "Elm Lodge in Salem"),
        ("Hall", "May 3rd"),  # the clause before gave the subject
    ]


def test_a_place_named_with_a_possessive_is_where_not_a_clause_of_its_own() -> None:
    made = rules_candidates(
        session(("user", "we're playing 5e, every other saturday at 2, at Mike's place"))
    )
    assert [(c.subject, c.value) for c in made if c.type == "decision"] == [
        (None, "5e"),
        ("playing", "every other saturday at 2"),
        ("playing", "at Mike's place"),
    ]
    # after a pronoun "'s" is still a verb: a clause of its own, no place of the plan
    said = rules_candidates(session(("user", "we're playing 5e, every other saturday, it's far")))
    assert [c.value for c in said if c.type == "decision"] == ["5e", "every other saturday"]


def test_a_choice_added_in_a_clause_of_its_own_beside_a_change_is_one() -> None:
    made = rules_candidates(
        session(
            (
                "user",
                "Since that saved a bunch, cap comes down to $3,000, and I'm adding a Tiffen ND "
                "filter.",
            ),
            ("user", "We're parting ways with Northwind, Lumen Studio is the new agency."),
        )
    )
    assert [(c.type, c.value, c.change) for c in made if c.type in ("decision", "constraint")] == [
        ("constraint", "$3,000", "update"),
        ("decision", "Tiffen ND", None),
        ("decision", "Lumen Studio", "update"),  # what it replaces opened the sentence: no choice
    ]


def test_a_way_chosen_over_another_is_a_decision_not_a_task() -> None:
    made = rules_candidates(
        session(
            ("user", "yes. and i'll read it off index cards, not my phone"),
            ("user", "I'll read the toast off index cards."),
        )
    )
    assert [(c.type, c.text) for c in made] == [
        ("decision", "Read it off index cards"),
        ("action", "Read the toast off index cards"),
    ]


@pytest.mark.parametrize(
    ("first", "then", "left"),
    [
        (
            "We'll host the docs on Netlify.",
            "Actually, GitHub Pages is cheaper, let's put the docs there.",
            ["Use GitHub Pages for docs"],
        ),
        (
            "The team lunch is at Sushi Zen on Friday.",
            "Sushi Zen is closed Friday, so lunch is at Taco Bell instead.",
            ["Use Friday for team lunch", "Use Taco Bell for lunch instead of Sushi Zen"],
        ),
        ("Standup is at 9:30.", "Standup's been pushed to 10.", ["Standup: 10"]),
        # what failed is out whatever each sentence calls what it was for
        (
            "The reception will be at the Oakwood Barn on June 14.",
            "Oakwood double-booked us, so the party's moving to the Riverside Pavilion.",
            ["Use June 14 for reception", "Party's: Riverside Pavilion"],
        ),
        (
            "My running goal this year is 1000 km.",
            "Revised my running goal to 1200 km.",
            ["Running goal: 1200 km"],
        ),
        ("Let's name the cat Mochi.", "Nah, the cat is called Biscuit.", ["Use Biscuit for cat"]),
        (
            "For my thesis I use LaTeX.",
            "I give up with LaTeX, I write the thesis in Word now.",
            ["Thesis: Word"],
        ),
        (
            "I use YNAB for budgeting.",
            "Cancelled YNAB. Doing my budget in a Google Sheet now.",
            ["Drop YNAB", "Budget: Google Sheet"],  # a decision: no amount, no limit
        ),
        (
            "Our office plants get watered on Mondays.",
            "Plants are now watered on Wednesdays and Saturdays.",
            ["Plants: Wednesdays"],
        ),
        # who the new one is, then the name: the name is the value, once
        (
            "Photographer is Lena Brooks.",
            "Lena double-booked us, so our photographer is now her associate, Marco Ruiz.",
            ["Photographer: Marco Ruiz"],
        ),
    ],
)
def test_a_change_said_in_passing_leaves_only_the_new_choice(
    first: str, then: str, left: list[str]
) -> None:
    assert live(state(("user", first), ("user", then))) == left


def test_what_was_agreed_is_read_wherever_the_agreement_is_said() -> None:
    long = (
        "after a lot of back and forth with Ana we agreed orchestration goes on Airflow, which "
        "I'll run on MWAA since nobody wants to babysit a scheduler."
    )
    assert frame(long) == Frame("orchestration", "Airflow")
    assert frame("after a lot of back and forth orchestration goes on Airflow") == Frame()


def test_a_limit_in_another_clause_leaves_the_choice_a_decision() -> None:
    made = rules_candidates(session(("user", "we're launching a Team plan, minimum 5 seats")))
    assert [(c.type, c.value) for c in made] == [
        ("decision", "Team plan"),
        ("constraint", "5 seats"),
    ]
    capped = rules_candidates(session(("user", "the Team plan is capped at 5 seats")))
    assert [c.type for c in capped] == ["constraint"]


def test_a_reason_after_a_reversal_and_a_clause_that_only_stresses_are_no_items() -> None:
    made = rules_candidates(
        session(
            ("user", "wait scratch that, the survey just came in, Basic stays at $9"),
            ("user", "practiced on my sister, she laughed lol."),
            ("user", "20 min a day, no exceptions"),
        )
    )
    assert [(c.type, c.text) for c in made] == [
        ("decision", "Use $9 for Basic"),
        ("constraint", "20 min a day, no exceptions"),
    ]


@pytest.mark.parametrize(
    ("sentence", "hedged"),
    [
        ("Jess wants to switch to the Russian Revolution but I said no way.", True),
        ("Aunt Linda thinks we should go to Branson, but we settled on Hendricks Lodge.", False),
        ("Nobody wants to babysit a scheduler, so Airflow runs on MWAA.", False),
        ("I want to switch to Linear for tickets.", False),
    ],
)
def test_someone_elses_wish_chooses_nothing_unless_settled_after_it(
    sentence: str, hedged: bool
) -> None:
    assert tentative(sentence) is hedged


def test_a_lead_in_word_is_no_subject() -> None:
    made = rules_candidates(
        session(
            ("user", "The portal has to pass an accessibility audit, specifically WCAG 2.1 AA."),
            ("user", "Even Bootstrap 5.3 looks off on mobile."),
        )
    )
    assert not [c.text for c in made if (c.subject or "").lower() in ("specifically", "even")]


def test_a_title_with_commas_is_one_choice() -> None:
    """The book's title is "Tomorrow, and Tomorrow, and Tomorrow": its parts are no more
    choices, and a value that is a time word is not cut off as one."""
    made = rules_candidates(session(("user", "first pick is Tomorrow, and Tomorrow, and Tomorrow")))
    assert [c.text for c in made if c.type == "decision"] == ["Use Tomorrow for first pick"]
    said = Frame("first pick", "Tomorrow", said="First pick: Tomorrow")
    assert choice_text(said) == "First pick: Tomorrow"
    assert choice_text(Frame("flight", "Lisbon", said="Flight to Lisbon tomorrow")) == (
        "Flight to Lisbon"
    )


def test_a_hard_limit_said_after_a_limit_is_no_second_limit_and_no_more_than_is_a_limit() -> None:
    made = rules_candidates(
        session(
            ("user", "The garage budget is capped at 45k all in, hard limit."),
            ("user", "The physio says no more than 3 miles per run for now."),
        )
    )
    assert [(c.type, c.text) for c in made if c.type in ("decision", "constraint")] == [
        ("constraint", "The garage budget is capped at 45k all in"),
        ("constraint", "The physio says no more than 3 miles per run for now"),
    ]


@pytest.mark.parametrize(
    "sentence",
    [
        "Change of plans: onboarding gets two steps, the third one tested badly.",
        "Quick update: I finished the report, and the tests pass.",
        "The podcast drops Tuesdays.",
    ],
)
def test_a_single_change_or_news_is_no_list_of_choices(sentence: str) -> None:
    made = rules_candidates(session(("user", sentence)))
    assert all(c.change != "cancel" for c in made)
    assert len([c for c in made if c.type == "decision"]) <= 1


def test_a_yes_to_the_assistant_chooses_its_proposal_for_what_was_asked() -> None:
    items = state(
        ("user", "I need a hotel in Lisbon from the 12th to the 15th."),
        ("assistant", "Two options: Memmo Alfama at 180 a night, or Convento do Salvador."),
        ("user", "Ok, go with the second option."),
    )
    (chosen,) = [i for i in items if i.type == "decision"]
    assert (chosen.subject, chosen.value, chosen.refs) == ("hotel", "Convento do Salvador", ["m2"])


def test_the_option_named_by_a_word_of_it_is_the_one_chosen() -> None:
    items = state(
        ("user", "I need a dentist appointment next week."),
        ("assistant", "Dr. Lee has Tuesday at 10am or Thursday at 3pm."),
        ("user", "Yes, book the Thursday one."),
    )
    (chosen,) = [i for i in items if i.type == "decision"]
    assert (chosen.subject, chosen.value) == ("dentist appointment", "Thursday at 3pm")


def test_a_long_list_of_tips_offers_nothing_to_choose() -> None:
    tips = "\n".join(
        f"{n}. **{tip}**: do it every week."
        for n, tip in enumerate(
            [
                "Set Goals",
                "Plan Ahead",
                "Take Breaks",
                "Track Progress",
                "Rest Days",
                "Find a Buddy",
                "Limit Distractions",
                "Celebrate Wins",
                "Write Daily",
            ],
            1,
        )
    )
    items = state(
        ("user", "I want to keep my weekly word count up."),
        ("assistant", f"Here are some strategies:\n{tips}"),
        ("user", "Thanks! I'll make sure to take breaks on weekends."),
    )
    assert [i for i in items if i.type == "decision" and "m2" in i.refs] == []
    few = state(
        ("user", "I need a dentist appointment next week."),
        ("assistant", "Dr. Lee has:\n1. Tuesday at 10am\n2. Thursday at 3pm\n3. Friday at 9am"),
        ("user", "Thursday works."),
    )
    assert [i.value for i in few if i.type == "decision"] == ["Thursday at 3pm"]


def test_what_a_place_has_and_a_list_of_steps_are_no_options_to_take() -> None:
    """ "Santiago ... has 19 rooms" describes; "Book it" after the user's own choice books that.
    A to-do list of different verbs is steps: "I'll take the DAG" takes a task, it does not
    choose the first step as a decision. A list of alternatives shares its verb."""
    described = state(
        ("assistant", "Yes. Santiago is on a small street and has 19 rooms."),
        ("user", "OK, Santiago de Alfama it is. Book it for three nights."),
    )
    assert live(described) == ["Go with Santiago de Alfama"]
    steps = state(
        (
            "assistant",
            "A first TODO list:\n- set up the Airflow DAG\n- add dbt models\n"
            "- backfill 18 months of orders",
        ),
        ("user", "I'll take the DAG."),
    )
    assert not any("Set up the Airflow DAG" in text for text in live(steps))
    alternatives = state(
        ("user", "I need a flight to Denver on Friday."),
        ("assistant", "- book the 9am United flight\n- book the 1pm Delta flight"),
        ("user", "The Delta one please."),
    )
    assert [i.value for i in alternatives if i.type == "decision"] == ["Book the 1pm Delta flight"]


def test_thinking_about_a_proposal_chooses_nothing() -> None:
    items = state(
        ("assistant", "You could use Memcached instead of Redis for caching."),
        ("user", "Hmm, let me think about it."),
    )
    assert live(items) == []


def test_an_assistant_echo_of_the_users_choice_is_no_second_decision() -> None:
    items = state(("user", "We use Postgres for analytics."), ("assistant", "Postgres it is."))
    (decision,) = [i for i in items if i.type == "decision"]
    assert decision.refs == ["m0", "m1"]


def test_never_against_a_done_experience_is_a_conflict_of_two_facts() -> None:
    items = state(
        ("user", "I just downloaded Zotero on March 2 to manage my references."),
        ("assistant", "Nice."),
        (
            "user",
            "I've never used any citation management software, like Zotero, so how do I start?",
        ),
    )
    facts = [i for i in items if i.type == "fact"]
    assert sorted(f.value or "" for f in facts) == ["never", "yes"]
    assert all(f.conflict and f.subject == "zotero" for f in facts)
    assert {r for f in facts for r in f.refs} == {"m0", "m2"}


def test_a_never_cites_the_earlier_sessions_turn_that_affirms_it_and_copies_nothing() -> None:
    batch = session(("user", "I've never used any citation software, like Zotero. Where to start?"))
    earlier = [
        Message(id=i, session_id="old", role=role, content=text, created_at=T0)
        for i, role, text in (
            ("a1", "user", "I set up Zotero last week and imported my papers."),
            ("a2", "assistant", "You have used Zotero since March."),
            ("a3", "user", "I want to learn Zotero someday."),  # a wish affirms nothing
        )
    ]
    (fact,) = earlier_contradictions(batch, earlier)
    assert (fact.type, fact.subject, fact.value) == ("fact", "zotero", "never")
    assert fact.refs == ["m0", "a1"] and "imported" not in fact.text
    assert earlier_contradictions(batch, earlier[1:]) == []


def test_a_never_is_about_its_first_clause_not_a_name_said_after_a_comma() -> None:
    (said,) = negations(
        ["I've never apologized for missing any rehearsals, considering Rachael and I performed"]
    )
    assert (said.about, said.search) == ("missing rehearsals", ("missing", "rehearsals"))
    (named,) = negations(["I've never used citation software, like Zotero or EndNote"])
    assert (named.about, named.search) == ("zotero", ("zotero",))


def test_restatements_and_wishes_are_no_contradiction() -> None:
    assert contradictions(["I've never run a marathon.", "I've also never run a marathon."]) == []
    assert (
        contradictions(["I want to learn Flask routes.", "I've never written Flask routes."]) == []
    )
    found = contradictions(
        [
            "I've never attempted any triangle classification problems before, but I recently "
            "completed 15 classification problems."
        ]
    )
    assert [(c.never.index, [a.index for a in c.affirmed]) for c in found] == [(0, [0])]


def test_the_same_deed_without_every_name_affirms_a_never() -> None:
    never = "I've never apologized to Rachael in person for forgetting our anniversary."
    (found,) = contradictions(
        ["I apologized in person at Cafe La Mer for forgetting our anniversary.", never]
    )
    assert (found.never.index, [a.index for a in found.affirmed]) == (1, [0])
    # another deed, or the same deed about other things, is not it
    assert contradictions(["I forgot our anniversary in person, sadly.", never]) == []
    assert contradictions(["I apologized to my boss for the late report.", never]) == []


def test_a_question_affirms_a_never_only_where_it_says_what_was_done() -> None:
    never = "I've never attended any science lectures or family brunches."
    done = "How can I help Samantha when I attend her science lecture, like I did on March 10th?"
    (found,) = contradictions([done, never])
    assert found.affirmed[0].text.startswith("when I attend her science lecture")
    assert contradictions(["How can I attend a science lecture next month?", never]) == []


def test_a_question_that_reports_a_past_deed_affirms_a_never() -> None:
    """ "Can you help me apply what I learned from the online course?" says the course was
    taken (BEAM 500K, a tuning chat); a past wish ("I needed ...") says nothing was done."""
    never = "I have never completed any online courses related to fundraising strategies."
    done = "Can you help me apply the strategies I learned from the online course on fundraising?"
    (found,) = contradictions([done, never])
    assert [a.index for a in found.affirmed] == [0]
    wish = "Could you find me an online course on fundraising, as I needed one last year?"
    assert contradictions([wish, never]) == []


def test_a_never_is_flagged_against_its_four_affirmations_however_far() -> None:
    """All four mentions of the therapy are cited, the farthest included (BEAM 500K: the
    labelled one was the fourth by distance, and three were kept)."""
    affirmed = [
        "I've been tracking my aquatic therapy progress after 12 sessions in June.",
        *["Filler about my garden and the weather."] * 5,
        "I've been logging my aquatic therapy sessions every week.",
        "I added Saturday aquatic therapy sessions to my plan.",
        "My aquatic therapy sessions leave me tired.",
    ]
    (found,) = contradictions([*affirmed, "I've never attended any aquatic therapy sessions."])
    assert sorted(a.index for a in found.affirmed) == [0, 6, 7, 8]


def test_a_far_statement_of_the_deed_itself_is_cited_beside_closer_mentions() -> None:
    """More closer sentences than are cited only name the problems; the one that says they
    were completed, far before, is cited too (BEAM 500K, a tuning chat: the labelled one)."""
    done = "I just completed 6 geometric sequence problems and scored 5/6 correct."
    mentions = [
        f"I'm working on geometric sequence problems, part {n}." for n in range(MAX_AFFIRMED + 1)
    ]
    never = "I've never completed any geometric sequence problems."
    said = [done, *["Filler about the weather."] * 20, *mentions, never]
    (found,) = contradictions(said)
    cited = sorted(a.index for a in found.affirmed)
    closest = range(len(said) - 1 - MAX_AFFIRMED, len(said) - 1)
    assert cited == [0, *closest], cited  # the deed, and the closest mentions
    # without the verb, only the closest
    (found,) = contradictions([mentions[0], *["Filler."] * 20, *mentions[1:], never])
    assert 0 not in [a.index for a in found.affirmed]


def test_a_question_that_dates_the_deed_with_its_own_verb_affirms_a_never() -> None:
    never = "I've never actually obtained an API key for this project."
    dated = "How can I handle the rate limits of my OpenWeather API key obtained on March 10, 2024?"
    (found,) = contradictions([dated, never])
    assert [a.text for a in found.affirmed] == [
        "my OpenWeather API key obtained on March 10, 2024?"
    ]
    for undated in (
        "How do I store the API key obtained from the dashboard?",
        "How should I use the API key I will get on March 10?",
    ):
        assert contradictions([undated, never]) == [], undated


def test_a_wish_in_another_clause_than_the_deed_still_affirms() -> None:
    never = "I've never completed any induction problems on sums of integers before."
    done = (
        "I'm completely stuck - I've completed 3 induction problems on sums of first n integers, "
        "so I want to make sure I understand induction."
    )
    (found,) = contradictions([done, never])
    assert [a.index for a in found.affirmed] == [0]
    assert (
        contradictions(["I want to complete induction problems on sums of integers.", never]) == []
    )


def test_one_fact_cites_every_affirmation_of_a_never_so_a_person_reviews_one_pair() -> None:
    items = state(
        ("user", "I finished the Coursera course on Spanish grammar last spring."),
        ("user", "I also finished a Duolingo Spanish grammar course in May."),
        ("user", "I've never finished any Spanish grammar course, where should I start?"),
    )
    never, yes = sorted((i for i in items if i.type == "fact"), key=lambda i: i.value or "")
    assert (never.value, yes.value) == ("never", "yes")
    assert yes.refs == ["m0", "m1"] and "finished a" in yes.text.lower()
    assert never.conflict_with == [yes.uid] and yes.conflict_with == [never.uid]


def test_a_contradictions_facts_say_the_deed_and_keep_a_titles_name() -> None:
    batch = [
        Message(
            id=str(n),
            session_id="s",
            role="user",
            content=text,
            created_at=datetime(2026, 1, 1, tzinfo=UTC),
        )
        for n, text in enumerate(
            [
                "I'm worried about how things with Troy are going, we just attended couples "
                "therapy on April 20 and it helped, what now?",
                "I've never attended any couples therapy sessions with Troy, how do I ask him?",
                "I've started seeing Dr. Farah at the clinic every Tuesday, is that enough?",
                "I've never seen Dr. Farah in person, how do I prepare?",
            ]
        )
    ]
    facts = {c.text for c in rules_candidates(batch) if c.type == "fact"}
    assert facts == {
        "Just attended couples therapy on April 20",
        "Never attended any couples therapy sessions with Troy",
        "Started seeing Dr. Farah at the clinic every Tuesday",
        "Never seen Dr. Farah in person",
    }, facts


def test_over_the_cap_a_batch_keeps_changes_before_chatter() -> None:
    turns = [("user", f"Can you check item {n} for me?") for n in range(6)]
    turns.append(("user", "Bump the upload limit to 10 MB."))
    batch = session(*turns)
    kept = admit(rules_candidates(batch), batch, 2).candidates
    assert any(c.change == "update" and c.value == "10 MB" for c in kept)


def test_frames_of_commitments_carry_their_words() -> None:
    said = frame("We're staying at an Airbnb in Croix-Rousse.")
    assert said == Frame(None, "Airbnb") and said.commit
    assert said.said == "stay at an Airbnb in Croix-Rousse"


def test_a_change_the_user_asks_for_is_chosen_once_the_assistant_has_made_it() -> None:
    items = state(
        ("user", "The dentist appointment is on Tuesday at 10am."),
        ("assistant", "Ok."),
        ("user", "Can you move the dentist appointment to Friday?"),
        ("assistant", "Done, moved to Friday."),
    )
    assert live(items) == ["Use Friday for dentist appointment"]
    asked = state(
        ("user", "The dentist appointment is on Tuesday at 10am."),
        ("user", "Can you move the dentist appointment to Friday?"),
        ("assistant", "Friday is fully booked, sorry."),
    )
    assert live(asked) == ["Use Tuesday at 10am for dentist appointment"]


def test_an_option_named_with_a_yes_is_chosen_for_what_was_asked() -> None:
    items = state(
        ("user", "Which flight should I take to Boston?"),
        ("assistant", "There's a 7am on Delta or a 1pm on JetBlue."),
        ("user", "The 1pm works."),
    )
    (chosen,) = [i for i in items if i.type == "decision"]
    assert (chosen.subject, chosen.value) == ("flight", "1pm on JetBlue")


def test_when_a_plan_without_a_subject_happens_is_a_choice_about_its_verb() -> None:
    items = state(("user", "new campaign!! we're playing 5e, every other saturday at 2"))
    assert live(items) == ["Playing 5e", "Playing: every other saturday at 2"]
    # a when said after a choice with a subject is about that subject, not a verb
    items = state(("user", "standups are on Zoom, every other monday"))
    assert [i.subject for i in items if i.type == "decision"] == ["standups"] * 2


@pytest.mark.parametrize(
    "sentence",
    [
        "I have a few errands to run.",
        "Usually I just have cereal and coffee.",
        "I have also visited Portugal once.",
        "I would take my grandmother to see the ocean.",
        "Tiramisu is a fantastic choice!",
        "Yeah the lasagna is pretty awesome",
        "Congrats on the new job!",
        "You're now my favourite person lol",
        "It must be a long drive from there.",
        "Those museums must have been crowded.",
        "The view from the top must feel amazing.",
        "My favourite city has to be Lisbon.",
        "No but I'll ask them again tomorrow.",
        "Never thought I'd enjoy running this much.",
        "Fair, no point adding price pressure while churn is up.",
        "Jess wants to switch to the Russian Revolution but I said no way.",
        "Sam suggested we move to Postgres, but I said no.",
        "Ok, no sense waiting for them.",
        "Louis has to be my favorite character.",
        "Must be a pretty busy day today.",
        "They want you to quit so that they don't have to be responsible for firing you.",
        "I don't think everything has to be a conspiracy.",
    ],
)
def test_small_talk_chooses_and_limits_nothing(sentence: str) -> None:
    """What people say in passing: what they have, would do, think of, or infer."""
    found = rules_candidates(session(("user", sentence)))
    assert [i.text for i in found if i.type in ("decision", "constraint")] == []


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("We take the dog to Paws & Claws for grooming.", "decision"),
        ("We'll have the party at Nopa.", "decision"),
        ("We do pickup at Safeway now.", "decision"),
        ("The report must be 12 pages.", "constraint"),
        ("We don't have to finish by Friday, but the report must be under 10 pages.", "constraint"),
        ("It must be under 5 minutes.", "constraint"),
        ("Never round the figures.", "constraint"),
    ],
)
def test_habits_plans_and_limits_that_name_something_still_count(sentence: str, kind: str) -> None:
    found = rules_candidates(session(("user", sentence)))
    assert kind in [i.type for i in found]


def test_a_yes_takes_a_proposal_not_whatever_the_assistant_mentioned() -> None:
    mentioned = session(
        ("assistant", "There's a bakery called Crumbs near the station. Any plans tonight?"),
        ("user", "Yeah"),
    )
    proposed = session(
        ("assistant", "I'd suggest Crumbs, the bakery near the station."),
        ("user", "Yeah"),
    )
    assert [i.text for i in rules_candidates(mentioned) if i.type == "decision"] == []
    assert [i.type for i in rules_candidates(proposed)] == ["decision"]


def test_what_the_assistant_restates_of_the_users_message_is_chosen() -> None:
    """A bot confirms in few words what the user said in many; an entry counts when the user
    said its names and numbers, and cites both messages."""
    found = rules_candidates(
        session(
            ("user", "payments through Stripe, and pickup at the Elm Street shop for now"),
            ("assistant", "Got it: Stripe for payments, pickup at Elm Street."),
        )
    )
    decisions = [i for i in found if i.type == "decision"]
    assert any("Elm Street" in i.text and i.refs == ["m0", "m1"] for i in decisions)
    assert len([i for i in decisions if "Stripe" in i.text]) == 1  # read once, not twice


@pytest.mark.parametrize(
    "reply",
    [
        "Got it: Square for payments.",  # a name the user never said
        "Noted: a $2k ceiling for the move.",  # a limit: the user's sentence gives it
        "Great: here are a few options: Stripe, Square, Adyen, PayPal, Braintree, Mollie.",
    ],
)
def test_an_acknowledgement_adds_only_what_the_user_said(reply: str) -> None:
    found = rules_candidates(
        session(("user", "we keep the old till for now, budget is 2k max"), ("assistant", reply))
    )
    assert [i.text for i in found if i.type == "decision" and "m1" in i.refs] == []


def test_a_question_the_assistant_answers_is_answered_and_one_it_asks_back_stays_open() -> None:
    answered = rules_candidates(
        session(
            ("user", "How much does Memcached cost compared to upgrading?"),
            ("assistant", "A 1 GB Memcached node is about $15 a month; the upgrade is $45."),
        )
    )
    asked_back = rules_candidates(
        session(
            ("user", "Which region should we deploy the worker to?"),
            ("assistant", "Where are most of your users?"),
        )
    )
    question = next(i for i in answered if i.type == "question")
    assert question.status == "answered" and question.refs == ["m0", "m1"]
    assert [i.status for i in asked_back if i.type == "question"] == [None]


def test_a_change_replaces_the_choice_whose_words_name_what_it_drops() -> None:
    """ "Scrap the guesthouse" drops the stay whose value is Alfama but whose words hold the
    guesthouse; a choice that does not hold every dropped word stays."""
    items = state(
        ("user", "We're staying at that little guesthouse in Alfama."),
        ("user", "Let's use Stripe for payments."),
        ("user", "Actually wait, scrap the guesthouse, so we're going with an Airbnb in Chiado."),
    )
    assert live(items) == ["Use Stripe for payments", "Go with an Airbnb in Chiado"]


def test_a_bound_on_a_subject_is_changed_by_a_new_cap_on_it() -> None:
    """ "The guest list can't go over 120" is the guest limit that "the guest cap is bumped up
    to 150" changes (a writer's wedding plan, the blind tuning part)."""
    assert statement("Guest list can't go over 120, that's the barn's max.").subject == (
        "Guest list limit"
    )
    assert statement("The budget for the trip is 3000 euros.").subject == "budget for the trip"
    items = state(
        ("user", "Guest list can't go over 120, that's the barn's max capacity."),
        ("user", "Willow Creek holds more people so the guest cap is bumped up to 150."),
    )
    assert [i.value for i in items if i.type == "constraint" and i.status != "superseded"] == [
        "up to 150"
    ]


def test_a_requirement_noted_without_a_verb_is_on_the_words_before_its_number() -> None:
    """ "Guest list capped at 120" and "inference latency budget 50 ms p99" are notes of a
    limit: the words before the number are what a later "cap: 150" or "latency budget: 30 ms"
    changes. A date ("June 21"), a bound with no subject ("max 8 people") or an act ("trying
    to stay under 2000 cal") is no subject and its number."""
    assert statement("Guest list capped at 120.") == Frame("Guest list limit", "120")
    assert statement("Monthly budget capped at $1,200") == Frame("Monthly budget limit", "$1,200")
    assert statement("inference latency budget 50 ms p99.") == Frame(
        "inference latency budget", "50 ms p99"
    )
    for sentence in (
        "June 21",
        "Week of March 10",
        "Under 5 minutes",
        "Up to 20 kids",
        "Trying to stay under 2000 cal a day",
        "Quiet hours after 11pm weeknights",
    ):
        assert statement(sentence).subject is None, sentence
    items = state(
        ("user", "Okay wedding stuff! Venue is locked: Hawthorne Barn. Guest list capped at 120."),
        ("user", "Oh also my mom invited half the church so the cap is 150 now."),
    )
    assert [i.value for i in items if i.type == "constraint" and i.status != "superseded"] == [
        "150"
    ]


def test_now_before_a_subject_is_news_of_it_and_a_unit_goes_with_its_number() -> None:
    """ "now deadline is 15 June" updates the deadline (not a subject "now deadline"), and in
    "..., 14 days retention" the days are the retention's value, not part of its name."""
    items = state(
        ("user", "I write my master thesis on solar panels. Deadline for submit is 30 May."),
        ("user", "Also the university give extension, now deadline is 15 June."),
    )
    assert [(i.subject, i.value) for i in items if i.status != "superseded"] == [
        ("deadline", "15 June")
    ]
    assert fragment_choice("14 days retention", Frame("backups", "S3")) == Frame(
        "retention", "14 days", said="14 days retention"
    )


def test_a_clause_with_a_thing_of_an_amount_gives_the_thing_that_amount() -> None:
    """ "..., with a ticket price of $150" sets the ticket price that a later "the ticket price
    is reduced to $125" changes; "a booth of 36 square meters" is the booth's size."""
    assert fragment_choice("with a ticket price of $150.", Frame("gala", "Riverside")) == Frame(
        "ticket price", "$150", said="with a ticket price of $150."
    )
    assert fragment_choice("a booth of 36 square meters", Frame("fair", "Messe")).value == (
        "36 square meters"
    )
    assert fragment_choice("with the kids", Frame("trip", "Rome")) == Frame()
    items = state(
        ("user", "The gala will be held at the Riverside Pavilion, with a ticket price of $150."),
        ("user", "Amendment: the ticket price is reduced to $125 to encourage attendance."),
    )
    assert [i.value for i in items if i.subject == "ticket price" and i.status != "superseded"] == [
        "$125 to encourage attendance"
    ]


def test_a_thing_called_a_pain_is_what_the_next_choice_replaces() -> None:
    """ "foundry is a pain, we're just gonna use owlbear rodeo" replaces foundry; "such a
    nightmare" is how Jira is, no value of it; "a pain to fix" names no failure."""
    items = state(
        ("user", "campaign starting!! we're using foundry vtt for the maps."),
        ("user", "foundry is a pain, we're just gonna use owlbear rodeo"),
    )
    assert live(items) == ["Use owlbear rodeo"]
    assert [i.text for i in state(("user", "Jira is such a nightmare."))] == []
    kept = state(
        ("user", "We use the deploy script for releases."),
        ("user", "The ticket is a pain to fix, we'll use the old script."),
    )
    assert "Use deploy script for releases" in live(kept)


def test_a_decision_and_a_choice_of_another_clause_are_two_items() -> None:
    """ "we'll use n=24 per group, and imaging is on the Zeiss confocal": the decision's words
    do not hold the Zeiss, so the imaging choice is an item of its own that a later move of
    the imaging replaces; "agreed to" is no part of what was agreed."""
    items = state(
        ("user", "For the study we'll use n=24 per group, and imaging is on the Zeiss confocal."),
        ("user", "The Zeiss is down for service, so imaging moves to the Leica SP8."),
    )
    imaging = [(i.value, i.status) for i in items if i.subject == "imaging"]
    assert imaging == [("Zeiss confocal", "superseded"), ("Leica SP8", "active")]
    assert "Use n=24 per group" in live(items)
    assert frame("we have agreed to New York law instead.").value == "New York law"


def test_a_dash_between_clauses_parts_them_like_a_comma() -> None:
    """ "no free tier — 14-day trial, no card required" says three things; the trial is
    one that a later "trial is now 7 days" changes."""
    items = state(
        ("user", "pricing: no free tier — 14-day trial, no card required"),
        ("user", "trial is now 7 days, the 14-day cohort wasn't converting any better"),
    )
    trial = [(i.value, i.status) for i in items if i.subject == "trial"]
    assert trial == [("14-day", "superseded"), ("7 days", "active")]
    # "re:" names the topic, and a change after the dash is read though a gerund leads it
    items = state(
        ("user", "We're going with Postgres for the analytics store, decided that today."),
        ("user", "re: the analytics db — scrapping postgres, ClickHouse is way better."),
    )
    assert not any("Postgres" in text for text in live(items))
    assert not any(i.subject == "re" for i in items)


def test_a_deadline_is_a_constraint_stated_as_its_subject_and_date() -> None:
    """A deadline bounds a time: "Deadline for submit is 30 May" is a constraint (as the
    blind tuning part's writer labels it), said "Deadline for submit: 30 May"."""
    items = state(("user", "Deadline for submit is 30 May."))
    assert [(i.type, i.text) for i in items] == [("constraint", "Deadline for submit: 30 May")]


def test_a_rate_is_about_the_thing_it_counts() -> None:
    """ "..., 3 meals a day" and a later "switch to 2 meals a day" are both about the meals;
    "30 min a day" counts a unit, no thing."""
    items = state(
        ("user", "got a puppy!! feeding Royal Canin puppy, 3 meals a day 🍗"),
        ("user", "and vet said switch to 2 meals a day now she's 6 months"),
    )
    meals = [(i.value, i.status) for i in items if i.subject == "meals"]
    assert meals == [("3 meals a day", "superseded"), ("2 meals a day", "active")]
    assert fragment_choice("30 min a day", Frame("kanji", "WaniKani")).subject != "min"


def test_a_clause_whose_subject_is_a_gerund_is_a_choice_of_its_own() -> None:
    """ "..., styling is Tailwind" is a choice for the styling; "..., focusing on layout
    consistency" goes on with the clause before it and chooses nothing."""
    items = state(
        ("user", "for the new dashboard we're going with React + Vite, styling is Tailwind."),
        ("user", "We redesigned the page, focusing on layout consistency."),
    )
    assert [(i.subject, i.value) for i in items] == [
        ("dashboard", "React + Vite"),
        ("styling", "Tailwind"),
    ]


def test_a_change_without_a_subject_replaces_the_name_said_before_it() -> None:
    """ "half the class read Holes last year, so we're reading Wonder instead" replaces Holes,
    named before the new value; a name that opens the sentence (who said it) is none."""
    items = state(
        ("user", 'For my class this term, the class novel is "Holes".'),
        (
            "user",
            'Turns out half the class read Holes last year, so we\'re reading "Wonder" instead.',
        ),
    )
    assert live(items) == ["Use Wonder instead of Holes"]
    said = state(("user", "Sam said we should switch to Linear instead."))
    assert [i.replaces for i in said] == [None]


def test_a_reversal_that_says_a_thing_stays_where_it_is_replaces_the_move() -> None:
    """ "Scratch that, nightly jobs stay on cron" keeps them where they were: the move to
    Airflow stops (a probe in the issue's words, written after the rules)."""
    items = state(
        ("user", "We'll run the nightly jobs on Airflow."),
        ("user", "Scratch that, nightly jobs stay on cron."),
    )
    assert [i.value for i in items if i.type == "decision" and i.status != "superseded"] == ["cron"]


def test_a_handover_replaces_who_had_it_and_a_change_of_mind_names_no_subject() -> None:
    """ "Priya is taking over the code review rotation from Sam" is a new value of the rotation,
    replacing Sam's; "changed our minds, ..." is a lead-in, not a subject "our minds" (probes in
    the issue's words, written after the rules)."""
    items = state(
        ("user", "Sam is doing the code review rotation this week."),
        ("user", "Priya is taking over the code review rotation from Sam."),
    )
    assert [i.value for i in items if i.type == "decision" and i.status != "superseded"] == [
        "Priya"
    ]
    said = frame("Changed our minds, we're taking the loft on Pine Street instead.")
    assert said.subject is None and said.value == "loft" and said.change == "replace"


def test_a_dash_ends_a_phrase_as_a_comma_does() -> None:
    """ "Rosa's is out — dinner's at The Olive Room now": the subject is the dinner, not
    "Rosa's is out — dinner"; a value ends at a dash ("Fridays — no exceptions")."""
    said = frame("Rosa's is out — dinner's at The Olive Room now.")
    assert (said.subject, said.value) == ("dinner", "The Olive Room")
    assert frame("Deploys go out on Fridays — no exceptions.").value == "Fridays"


def test_texting_leads_and_spellings_are_read_as_words() -> None:
    """ "k so the newsletter is going out thru Substack": "k" is a lead-in like "ok", "thru" is
    "through" (it made "Use going out thru Substack for k so the newsletter")."""
    said = frame("k so the newsletter is going out thru Substack")
    assert (said.subject, said.value) == ("newsletter", "Substack")


def test_a_limit_named_by_its_subject_is_a_constraint_and_a_document_is_not() -> None:
    """ "SLA", "min iOS", "retention" given a time or an amount limit something, whatever the
    verb; "the budget appendix" is a document, due on a date."""
    made = rules_candidates(
        session(
            ("user", "SLA moved to 7am ET since the east coast team starts later."),
            ("user", "bump min iOS to 16, we need the new SwiftUI APIs."),
            ("user", "The budget appendix is due on April 25."),
            ("user", "Organizers moved me to 45 minute slot."),
            ("user", "We got the Tuesday slot."),
            ("user", "The IACUC protocol requires endpoints at 12 weeks."),
        )
    )
    assert [(c.type, c.text) for c in made if c.type in ("decision", "constraint")] == [
        ("constraint", "SLA: 7am ET"),
        ("constraint", "Min iOS: 16"),
        ("decision", "Use April 25 for budget appendix"),
        ("constraint", "Slot: 45 minute"),  # a slot's length, not its time
        ("constraint", "The IACUC protocol requires endpoints at 12 weeks"),
    ]


def test_criteria_payment_terms_and_a_cap_are_limits() -> None:
    """An exclusion criterion and payment terms bound what may happen, as does capping
    something at an amount; a document's due date stays a choice (above)."""
    made = rules_candidates(
        session(
            ("user", "Exclusion criterion: anyone with eGFR below 30."),
            ("user", "The payment terms are net 45."),
            ("user", "We're capping the guest list at 120."),
        )
    )
    assert [(c.type, c.text) for c in made if c.type in ("decision", "constraint")] == [
        ("constraint", "Exclusion criterion: anyone with eGFR below 30"),
        ("constraint", "Payment terms: net 45"),
        ("constraint", "We're capping the guest list at 120"),
    ]


def test_a_limit_in_a_long_sentence_is_the_clause_that_states_it() -> None:
    made = rules_candidates(
        session(
            (
                "user",
                "Okay so Maya's 7th birthday party, I'm thinking we do it at the trampoline park, "
                "Bounce Zone, on Saturday the 14th, and honestly I want to cap it at 12 kids "
                "because last year was total chaos and I still have nightmares about it.",
            )
        )
    )
    assert [c.text for c in made if c.type == "constraint"] == [
        "I want to cap it at 12 kids because last year was total chaos"
    ]


def test_a_change_after_a_place_flooded_replaces_that_place() -> None:
    made = rules_candidates(
        session(
            ("user", "riverside park flooded last wk so the run is relocating to Lincoln Field")
        )
    )
    assert [(c.value, c.replaces) for c in made if c.type == "decision"] == [
        ("Lincoln Field", "riverside park")
    ]


def test_a_list_under_any_heading_gives_one_choice_an_entry() -> None:
    """ "monthly budget: groceries 600, dining out 200, ...": each entry names its own subject
    and amount, and each can change alone later; emoji are no part of a choice."""
    made = rules_candidates(
        session(
            ("user", "monthly budget: groceries 600, dining out 200, savings 1500 into Vanguard."),
            ("user", "vet is Dr. Alvarez at Paws & Claws 🏥"),
            ("user", "Note: I went to Paris, then Rome."),
        )
    )
    assert [c.text for c in made if c.type == "decision"] == [
        "Groceries 600",
        "Dining out 200",
        "Savings 1500 into Vanguard",
        "Use Dr. Alvarez for vet",
    ]


def test_a_limit_the_assistant_says_back_is_the_users() -> None:
    """ "Rate limit of 100 req/s per IP recorded" restates the user's own words: the item cites
    the user's message (where the limit was set), and the user's own item of it cites the
    reply instead of a second item; one that only notes the user's limit adds none; a limit
    of the assistant's own cites the assistant alone."""
    made = rules_candidates(
        session(
            ("user", "nginx rate limit 100 req/s per ip."),
            ("assistant", "Rate limit of 100 req/s per IP recorded."),
            ("user", "The budget is capped at $500."),
            ("assistant", "Noted, budget capped at $500."),
            ("user", "What about uploads?"),
            ("assistant", "Uploads are limited to 25 MB per file on that plan."),
            ("user", "Guest list capped at 120."),
            ("assistant", "A cap of 120 guests, got it."),
        )
    )
    limits = [(c.text, c.refs) for c in made if c.type == "constraint"]
    assert limits == [
        ("Rate limit of 100 req/s per IP recorded", ["m0", "m1"]),
        ("The budget is capped at $500", ["m2"]),
        ("Uploads are limited to 25 MB per file on that plan", ["m5"]),
        ("Guest list capped at 120", ["m6", "m7"]),
    ]
