"""`state.across`: a session's new change tied to the user's earlier item it changes in other
words, and left alone where its message names nothing of one; an earlier choice it names but
that never became an item, recalled from the user's turn."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from archivist.models import Message, StateItem
from archivist.state.across import (
    link_earlier,
    naming,
    recalled,
    said_changes,
    unknown_replaced,
    untied_candidates,
)
from archivist.state.current import CurrentItem

EARLIER = datetime(2026, 3, 1, tzinfo=UTC)
LATER = EARLIER + timedelta(days=7)


def earlier(uid: str, value: str, subject: str | None = None, **kw: object) -> CurrentItem:
    fields = {"type": "decision", "text": value, "current": True, "became_at": EARLIER, **kw}
    return CurrentItem(
        session_id="s1",
        uid=uid,
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


def test_a_change_saying_only_a_date_or_time_changes_the_latest_of_its_kind() -> None:
    """ "pushed to the 17th" a day after "the team offsite is on the 10th", as within a session;
    a bare number or a thing said alone changes nothing."""
    offsite = earlier("d_offsite", "10th", "team offsite")
    dinner = earlier("d_dinner", "7pm", "dinner", became_at=EARLIER + timedelta(days=1))
    assert tie(new("17th", change="update"), "pushed to the 17th", offsite, dinner) == "d_offsite"
    assert tie(new("8pm", change="update"), "make it 8pm", offsite, dinner) == "d_dinner"
    assert tie(new("12", change="update"), "now 12", earlier("d_n", "10", "guests")) is None
    assert (
        tie(new("Vercel", change="replace"), "switched to Vercel", earlier("d_t", "Netlify"))
        is None
    )


def test_a_change_to_a_quantity_of_a_unit_only_one_earlier_item_counts_in_takes_it() -> None:
    """ "reduced presentation time to 15 minutes per paper" after "a strict limit of 20 minutes
    each": no word in common, but the only earlier value in minutes; with two such values, or
    without change words of its own, nothing is tied."""
    limit = earlier("c_limit", "20 minutes", "strict limit", type="constraint")
    message = "the organisers have reduced presentation time to 15 minutes per paper"
    changed = new("15 minutes per paper", "presentation time", "update")
    assert tie(changed, message, limit, earlier("d_n", "4 papers", "panel")) == "c_limit"
    assert changed.subject == "strict limit"
    walk = earlier("d_walk", "30 minutes", "dog walk")
    again = new("15 minutes per paper", "presentation time", "update")
    assert tie(again, message, limit, walk) is None
    plain = new("15 minutes per paper", "presentation time")
    assert tie(plain, "presentation time is 15 minutes per paper now", limit) is None


def test_a_date_changed_ties_an_earlier_item_without_a_subject_whose_text_says_one() -> None:
    """ "my driving test is now on 28 of May" after "Take my driving exam on 21 of May" (an
    item whose value is the exam): its text says a date, the message names the exam."""
    exam = earlier("d_exam", "driving exam", text="Take my driving exam on 21 of May at 10")
    moved = new("28 of May", "driving test", "update")
    said = "The exam center called me, my driving test is now on 28 of May, still 10 am."
    assert tie(moved, said, exam) == "d_exam"
    assert moved.replaces == "driving exam"
    undated = earlier("d_book", "driving exam", text="Book the driving exam")
    assert tie(new("28 of May", "driving test", "update"), said, undated) is None


def test_a_change_to_the_only_earlier_time_said_without_a_subject_takes_it() -> None:
    """ "pickup is 3:45 now" after "i pick up the kids at 3:15 on weekdays", whose item has no
    subject: the only earlier time. An earlier amount on a subject of its own is another
    thing's ("the gym fee drops to $30" leaves "$200 a month for the emergency fund")."""
    pickup = earlier("d_pickup", "3:15", None, text="Pick up the kids at 3:15 on weekdays")
    changed = new("3:45", "pickup", "update")
    assert tie(changed, "school changed dismissal so pickup is 3:45 now", pickup) == "d_pickup"
    assert changed.replaces == "3:15"
    fund = earlier("d_fund", "$200 a month", "emergency fund")
    fee = new("$30", "gym fee", "update")
    assert tie(fee, "The gym fee has to drop to $30.", fund) is None
    bare = earlier("d_bare", "$200 a month", None, text="Put $200 a month aside")
    assert tie(fee, "The gym fee has to drop to $30.", bare, pickup) == "d_bare"
    two = [bare, earlier("d_two", "$90", None, text="Pay $90 for the phone")]
    assert tie(new("$30", "gym fee", "update"), "The gym fee has to drop to $30.", *two) is None


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


def test_a_new_choice_whose_message_names_the_earlier_value_is_a_change_of_it() -> None:
    """Naming the earlier value is the change's word ("so SignUpGenius is done"), where the
    subjects, if both have one, share a word; another subject's value is only mentioned."""
    old = earlier("d_old", "SignUpGenius", "parents sign up")
    said = "Admin wants everyone on ParentSquare for conference sign-ups, so SignUpGenius is done."
    assert tie(new("ParentSquare", "conference sign-ups"), said, old) == "d_old"
    billing = earlier("d_old", "Postgres", "billing")
    said = "For analytics we'll use ClickHouse, not Postgres."
    assert tie(new("ClickHouse", "analytics"), said, billing) is None


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


def test_the_words_of_the_earlier_items_own_sentence_tie_a_change_in_other_words() -> None:
    """ "Dr. Patel's office called, the cleaning got moved" names nothing of "Use Tuesday for
    Dentist" but the sentence it was said in; the other sentence of that message (physical
    therapy) is not the one that names Patel."""
    said = {"m1": "Dr. Patel's office called, the cleaning got moved to Wednesday, same time."}
    message = "Dentist is Tuesday at 3pm with Dr. Patel. Physical therapy is Mondays at 8am."
    dentist = earlier("d_dentist", "Tuesday", "Dentist", refs=["o1"])
    therapy = earlier("d_pt", "Mondays", "Physical therapy", refs=["o1"])
    change = new("Wednesday", "cleaning", "update")
    assert link_earlier([change], [dentist, therapy], said) == []
    assert {o.uid for o in untied_candidates([change], [dentist, therapy], said)} == {
        "d_dentist",
        "d_pt",
    }
    tied = link_earlier([change], [dentist, therapy], said, {"o1": message})
    assert [old.uid for _, old in tied] == ["d_dentist"] and change.subject == "Dentist"


def test_only_names_of_the_earlier_sentence_count_not_its_other_words() -> None:
    """Long messages share words with anything said next ("added", "essay"): "I've added 12
    transition phrases to my essay" does not change "I've added 52 sources to my Zotero
    library"."""
    said = {"m1": "I've now added 12 transition phrases to my essay, is it enough?"}
    message = "I've added 52 sources to my Zotero library for my essay."
    sources = earlier("d_sources", "52", "sources", refs=["o1"])
    change = new("12", "transition phrases", "update")
    assert link_earlier([change], [sources], said, {"o1": message}) == []


def test_a_change_naming_what_it_replaces_is_not_tied_by_another_facts_words() -> None:
    """ "Redux ... ripped it out, Zustand now" replaces Redux, not "React + Vite" said in the
    same sentence; a change whose subject is the earlier item's value ("the barn") is tied."""
    said = {"m1": "Redux felt super heavy so we ripped it out, Zustand now."}
    message = "For the dashboard we're going with React + Vite, and Redux Toolkit for state."
    react = earlier("d_react", "React + Vite", "dashboard", refs=["o1"])
    change = new("Zustand", None, "replace", replaces="Redux")
    assert link_earlier([change], [react], said, {"o1": message}) == []
    barn = earlier("d_barn", "Hawthorne Barn", "venue")
    moved = new("Willow Farm", "barn", "update")
    said = {"m1": "The barn flooded, so now it's Willow Farm."}
    assert [old.uid for _, old in link_earlier([moved], [barn], said)] == ["d_barn"]


def test_an_item_on_an_earlier_subject_is_a_change_when_its_message_says_or_names_one() -> None:
    """The reconciliation would flag "Use Adyen for checkout" as a conflict of "Use Stripe for
    checkout integration"; its message names Stripe, or says "now": a change. Said plainly,
    it stays a conflict for a person to settle."""
    stripe = earlier("d_stripe", "Stripe", "checkout integration")
    for message in (
        "Our client is in a region Stripe doesn't support yet, so checkout goes through Adyen.",
        "Checkout goes through Adyen now.",
    ):
        item = new("Adyen", "checkout")
        assert [old.uid for _, old in said_changes([item], [stripe], {"m1": message})] == [
            "d_stripe"
        ]
        assert item.change == "update"
    plain = new("Adyen", "checkout")
    assert said_changes([plain], [stripe], {"m1": "Checkout goes through Adyen."}) == []
    assert plain.change is None
    other = new("Adyen", "payouts")
    assert said_changes([other], [stripe], {"m1": "Stripe was slow, payouts go via Adyen."}) == []


def turn(mid: str, content: str, at: datetime = EARLIER) -> Message:
    return Message(id=mid, session_id="s1", role="user", content=content, created_at=at)


def test_only_a_change_whose_replaced_value_no_item_holds_is_looked_up() -> None:
    said = {"m1": "moved the emergency fund from Marcus to Ally"}
    change = new("Ally", "emergency fund", "replace", replaces="Marcus")
    assert unknown_replaced([change], [], said) == [change]
    assert unknown_replaced([change], [earlier("d_old", "Marcus")], said) == []
    assert unknown_replaced([change], [earlier("d_x", "Marcus", became_at=LATER)], said) == [change]
    assert unknown_replaced([change], [earlier("d_fund", "Vanguard", "emergency fund")], said) == []
    assert unknown_replaced([change], [], {"m2": said["m1"]}) == []  # not said by the user
    plain = new("Ally", "emergency fund")
    assert unknown_replaced([plain], [], said) == []


def test_the_latest_earlier_turn_naming_the_value_as_a_phrase_is_the_one() -> None:
    turns = [
        turn("t1", "We keep it in a Marcus high-yield account."),
        turn("t2", "Marcus again: rates up.", EARLIER + timedelta(days=1)),
        turn("t3", "Marcuson is a name.", EARLIER + timedelta(days=2)),
        turn("t4", "Marcus is gone.", LATER + timedelta(days=1)),
    ]
    assert (found := naming("Marcus", turns, LATER)) is not None and found.id == "t2"
    assert naming("Genki I", [turn("t5", "Genki  I textbook")], LATER) is not None
    assert naming("Genki II", [turn("t5", "Genki I textbook")], LATER) is None
    assert naming("$650", [turn("t6", "rent split 3 ways, $650 each")], LATER) is not None


def test_a_recalled_choice_is_made_of_the_changes_words_and_superseded_by_it() -> None:
    change = new("Ally", "emergency fund", "replace", replaces="Marcus")
    old = recalled(change, turn("t1", "parked in a Marcus high-yield savings account"), "m1")
    assert (old.text, old.subject, old.value) == (
        "Use Marcus for emergency fund",
        "emergency fund",
        "Marcus",
    )
    assert (old.status, old.replaced_by, old.refs, old.created_at) == (
        "superseded",
        "d_new",
        ["t1"],
        EARLIER,
    )
    assert old.supersession_evidence == {
        "trigger": "replace",
        "ref_msg_id": "m1",
        "candidate_uid": "d_new",
    }
