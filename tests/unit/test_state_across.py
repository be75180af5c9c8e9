"""`state.across`: a session's new change tied to the user's earlier item it changes in other
words, and left alone where its message names nothing of one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from archivist.models import StateItem
from archivist.state.across import link_earlier
from archivist.state.current import CurrentItem

EARLIER = datetime(2026, 3, 1, tzinfo=UTC)
LATER = EARLIER + timedelta(days=7)


def earlier(uid: str, value: str, subject: str | None = None, **kw: object) -> CurrentItem:
    fields = {"type": "decision", "current": True, "became_at": EARLIER, **kw}
    return CurrentItem(
        session_id="s1",
        uid=uid,
        text=value,
        status="active",
        subject=subject,
        value=value,
        **fields,  # type: ignore[arg-type]
    )


def new(
    value: str, subject: str | None = None, change: str | None = None, **kw: object
) -> StateItem:
    return StateItem(
        uid="d_new",
        type="decision",
        text=value,
        status="active",
        refs=["m1"],
        created_at=LATER,
        subject=subject,
        value=value,
        change=change,
        **kw,  # type: ignore[arg-type]
    )


def tie(item: StateItem, message: str, *olds: CurrentItem) -> str | None:
    tied = link_earlier([item], olds, {"m1": message})
    return tied[0][1].uid if tied else None


def test_a_change_naming_the_old_subject_takes_it() -> None:
    item = new("Buttondown")
    old = earlier("d_old", "Mailchimp", "newsletter")
    message = "Moving the newsletter off Mailchimp, their pricing jumped. Going to Buttondown."
    assert tie(item, message, old, earlier("d_db", "Postgres", "database")) == "d_old"
    assert (item.subject, item.change) == ("newsletter", "update")


def test_an_old_value_without_a_subject_is_named_as_replaced() -> None:
    item = new("memcached", "session cache", "replace")
    old = earlier("d_old", "Redis for session cache")
    assert tie(item, "moving session cache to memcached. redis stays for sidekiq.", old) == "d_old"
    assert (item.subject, item.replaces) == ("session cache", "Redis for session cache")


def test_amounts_counted_per_the_same_thing_or_of_one_unit() -> None:
    assert (
        tie(
            new("$700 each"),
            "landlord raised rent so its $700 each now",
            earlier("d_old", "$650 each"),
        )
        == "d_old"
    )
    assert (
        tie(new("$700"), "landlord raised rent so its $700 now", earlier("d_old", "$650 each"))
        is None
    )
    people = new("8 people", change="update")
    assert (
        tie(people, "We can go up to 8 people now.", earlier("d_old", "6 people", "Max team size"))
        == "d_old"
    )


def test_without_a_named_word_or_a_change_in_the_message_nothing_is_tied() -> None:
    old = earlier("d_old", "pytest", "Backend tests")
    moved = "Frontend tests moved to Playwright for the e2e part."
    assert tie(new("Playwright", "Frontend tests", "update"), moved, old) is None
    # the message names the newsletter, but says no change
    assert (
        tie(
            new("Buttondown"),
            "The newsletter will link to Buttondown.",
            earlier("d_old", "Mailchimp", "newsletter"),
        )
        is None
    )


def test_values_of_another_kind_or_side_and_earlier_values_said_again_are_left() -> None:
    old = earlier("d_old", "science fair on May 2", "big project")
    assert (
        tie(
            new("May 16", "science fair", "update"),
            "The district moved the science fair to May 16.",
            old,
        )
        is None
    )
    again = new("Vitest", "unit tests", "update")
    olds = (earlier("d_fe", "Vitest", "Frontend tests"), earlier("d_be", "pytest", "Backend tests"))
    assert (
        tie(again, "Frontend tests moved to Playwright, unit tests stay on Vitest.", *olds) is None
    )


def test_an_item_the_reconciliation_pairs_already_or_said_later_is_left() -> None:
    same = new("Buttondown", "newsletter", "replace")
    message = "Moving the newsletter off Mailchimp. Going to Buttondown."
    assert tie(same, message, earlier("d_old", "Mailchimp", "newsletter")) is None
    later = earlier("d_old", "Mailchimp", "newsletter", became_at=LATER + timedelta(days=1))
    assert tie(new("Buttondown"), message, later) is None
    stopped = earlier("d_old", "Mailchimp", "newsletter", current=False)
    assert tie(new("Buttondown"), message, stopped) is None
