"""What a sentence decides (`state.frames`): subject, value and change, by structure."""

from __future__ import annotations

import pytest

from archivist.state.frames import (
    Frame,
    aside,
    choice_text,
    frame,
    is_time,
    same_side,
    same_subject,
    same_value,
    two_sides,
)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Login goes through Auth0 for the portal", Frame("Login", "Auth0")),
        ("We use Sentry for error monitoring", Frame("error monitoring", "Sentry")),
        ("The marketing site is deployed on Netlify", Frame("marketing site", "Netlify")),
        (
            "We're switching the order queue from RabbitMQ to SQS",
            Frame("order queue", "SQS", "RabbitMQ", "replace"),
        ),
        (
            "session cache: Redis → Memcached",
            Frame("session cache", "Memcached", "Redis", "replace"),
        ),
        ("Keep Redis for sessions after all.", Frame("sessions", "Redis", None, "reverse")),
        ("Scratch that, Heroku.", Frame(None, "Heroku", None, "reverse")),
        ("We no longer use Jenkins.", Frame(None, None, "Jenkins", "cancel")),
        ("Heads up, the launch moved to the 17th.", Frame("launch", "17th", None, "update")),
        ("Response time is now 250 ms.", Frame("Response time", "250 ms", None, "update")),
        ("We'll go with Meilisearch for product search.", Frame("product search", "Meilisearch")),
        ("I think the meeting went well", Frame()),
        # a subject with what it is for, longer than four words
        (
            "The agency for the Q3 campaign is Northwind Creative.",
            Frame("agency for the Q3 campaign", "Northwind Creative"),
        ),
        ("Our savings goal for the year is $15k.", Frame("savings goal for the year", "$15k")),
        ("The problem with the API is the timeout.", Frame()),
        (
            "We're killing the weekly digest, nobody opens it.",
            Frame(None, None, "weekly digest", "cancel"),
        ),
        ("We axed the Friday standup.", Frame(None, None, "Friday standup", "cancel")),
        ("I killed the server process.", Frame()),
        # a subject decided on, then its value; a change of mind on it
        (
            "We decided on the paint for the living room, it's going to be Swiss Coffee.",
            Frame("paint for the living room", "Swiss Coffee"),
        ),
        (
            "I changed my mind about the laptop, getting the ThinkPad.",
            Frame("laptop", "ThinkPad", None, "replace"),
        ),
        ("We decided on the name, it is great.", Frame()),
        # a name said first as what something is for, the subject keeping what it is for
        ("Sarah is the designer for the app.", Frame("designer for the app", "Sarah")),
        (
            "Tom is leaving, Priya is the new designer for the website.",
            Frame("designer for the website", "Priya", None, "update"),
        ),
        # what went wrong, how one starts, a question asked after a clause: no choice (BEAM's
        # help requests said them as "Have trouble getting ..." and "Use talking to ... for start")
        ("I have trouble getting the modals to display correctly.", Frame()),
        ("I get an error message that says the key is invalid.", Frame()),
        ("I think I'll start by talking to Michael about it.", Frame()),
        ("I'm having some issues with my deployment on Render.com.", Frame()),
        ("I'm getting CORS errors when I call the API.", Frame()),
        ("I'm getting some unexpected behavior when I submit the form.", Frame()),
        ("Let's get started.", Frame()),
        ("timeout: 30000, // 30 seconds", Frame()),  # code: no value
        # a count or a measure that describes ("a group of 23"): no choice;
        # an amount "of" a thing that is chosen still is one
        ("the chance that 2 people share a birthday in a group of 23, which is 0.507", Frame()),
        ("the server responded with a status of 404", Frame()),
        ("We're going with a learning rate of 3e-4.", Frame("learning rate", "3e-4")),
        # what kind of thing a subject is, going on, memory: no choice (REALTALK's tuning
        # chats); what a subject is still is one
        ("Absolutely, fiscal policy is a crucial tool for governments.", Frame()),
        ("Fashion is a form of self-expression.", Frame()),
        ("Starter is a beet salad.", Frame("Starter", "beet salad")),
        ("I'll keep you posted on the trip.", Frame()),
        ("I just kept asking for her number until she gave it to me", Frame()),
        ("I forget the full name of the Pokémon", Frame()),
        (
            "Forget the Pokémon cards, we're getting the Switch.",
            Frame(None, "Switch", "Pokémon cards", "replace"),
        ),
        # a value is not cut at a thousands separator (this read "finish a 5"), and a subject
        # ends before its preposition
        ("I've set a goal to finish a 5,000-word draft by April 15, 2024.", Frame()),
        ("I have a deadline of April 1, 2024, for the first sprint.", Frame("deadline", "April 1")),
        ("We launch on March 3.", Frame("launch", "March 3")),
        # a plan with any verb: its place or means is the value; a verb without an object is
        # what it is about, so that "imaging has moved to the Leica SP8" replaces it
        (
            "For the study we're imaging on the Zeiss LSM 880 in room 214",
            Frame("imaging", "Zeiss LSM 880"),
        ),
        ("so imaging has moved to the Leica SP8", Frame("imaging", "Leica SP8", None, "update")),
        ("I'm adding a day trip to Sintra on the 17th", Frame(None, "Sintra")),
        # where an amount goes each period is what it is about ("bumping the Roth up to 583")
        ("I'm putting 500 a month into my Roth IRA at Fidelity", Frame("Roth IRA", "500")),
        ("we're spending 200 a week on groceries", Frame("groceries", "200")),
        ("I'm adding 2 days to the Lisbon trip", Frame(None, "2 days")),
        # terse updates with a reason after them, an amount something goes to, a reported one
        (
            "Rent now $2,100 since the landlord renewed the lease.",
            Frame("Rent", "$2,100", None, "update"),
        ),
        (
            "standup now 10:00 because of the new timezone",
            Frame("standup", "10:00", None, "update"),
        ),
        ("Membership goes to $55 in March", Frame("Membership", "$55", None, "update")),
        ("the limit went up to 50 users", Frame("limit", "50 users", None, "update")),
        ("budget can go to 35000 if we get it", Frame("budget", "35000", None, "update")),
        (
            "reviews back down to 1 approval, 2 was slow",
            Frame("reviews", "1 approval", None, "update"),
        ),
        ("headcount down to 8", Frame("headcount", "8", None, "update")),
        ("prices up to 30% off this week", Frame()),
        ("The kid goes to the Lycée on weekdays.", Frame()),
        # a role named, then who fills it; a thing given its date or its place
        ("and we picked our DJ, Sam Rivera!", Frame("DJ", "Sam Rivera")),
        ("we chose our caterer, Fig and Thistle", Frame("caterer", "Fig and Thistle")),
        ("We picked Bellhop, Sam said so", Frame(None, "Bellhop")),
        ("We are using Postgres, Heroku", Frame(None, "Postgres")),  # a name is no role
        ("we hired a new designer, Priya", Frame("new designer", "Priya")),
        ("My defence has been scheduled for 12 June at 14:00.", Frame("defence", "12 June")),
        (
            "The presentation takes place in the Main Boardroom on the 4th floor.",
            Frame("presentation", "Main Boardroom"),
        ),
        (
            "Ms. Ruiz told me that the page limit is now 25 pages.",
            Frame("page limit", "25 pages", None, "update"),
        ),
        # reported without "that"; a report of no choice reads as none
        ("the landlord said rent is now $700", Frame("rent", "$700", None, "update")),
        ("my wife says budget can go to 35000", Frame("budget", "35000", None, "update")),
        ("Tom said the app is slow", Frame()),
        # a deed, then the choice joined by "and" (not a subject "and switched")
        ("we gave up and switched to Postgres", Frame(None, "Postgres", None, "replace")),
        ("I caved and went with the blue one", Frame(None, "blue one", commit=True)),
        # the alternative set aside after the value, with no comma, and a casual "because"
        (
            "we're doing a zine not a slideshow cuz the teacher said so",
            Frame(None, "zine", "slideshow", "replace"),
        ),
        ("we're doing a zine and I'm not sure about the cover", Frame(None, "zine")),
        # a short line naming who does it
        (
            "Saturday lunch catered by Blue Fork Kitchen",
            Frame("Saturday lunch", "Blue Fork Kitchen"),
        ),
        ("my car got hit by a truck", Frame()),
        # a short line naming a thing and what it is for
        ("Figma for the mockups", Frame("mockups", "Figma")),
        ("Postgres for the DB", Frame("DB", "Postgres")),
        ("Thanks for the help", Frame()),
        # weighing options is no plan yet
        ("I'm comparing the Kia EV6 and the Hyundai Ioniq 5 for my commute", Frame()),
        ("we're evaluating Hetzner for hosting", Frame()),
        # "have" as the tense of another verb chooses nothing
        ("The client wants a refund, which we have accepted.", Frame()),
        # going to a count of a unit leaves the count before it; doing one is a choice
        ("we're going to 45-minute sessions", Frame("sessions", "45-minute", None, "update")),
        ("we're doing 45-minute sessions", Frame("sessions", "45-minute")),
        # a line that starts with a plan's gerund and its object (but not any gerund)
        ("hiring a caterer from Blue Fork Kitchen", Frame("caterer", "Blue Fork Kitchen")),
        ("hosting stays Vercel", Frame("hosting", "Vercel")),
        ("having a rough week at work", Frame()),
        # a standing appointment, an act with its date alone, an outing with its place and date
        ("Maya has soccer practice Tuesdays at 5", Frame("soccer practice", "Tuesdays at 5")),
        ("they start March 4.", Frame("start", "March 4")),
        ("I have a meeting tomorrow", Frame(None, "meeting")),
        (
            "The field trip is to the Science Museum on Nov 20",
            Frame("field trip", "Science Museum on Nov 20"),
        ),
        # who does a job, said first (after a lead-in, with where they are from)
        (
            "Furthermore, Janet Okafor from Legal will review the draft.",
            Frame("draft", "Janet Okafor"),
        ),
        ("Hal's Hardware is sponsoring the medals!!", Frame("medals", "Hal's Hardware")),
        ("I think Mark is handling it", Frame()),
        ("Hens are staying on the layer feed", Frame("Hens", "layer feed")),
        # a change said by its verb, then the new value
        (
            "product tightened checkout p95, it's 250 ms",
            Frame("checkout p95", "250 ms", None, "update"),
        ),
        ("they moved the demo, now it's Friday", Frame("demo", "Friday", None, "update")),
        ("I changed my mind, it's fine", Frame()),
        # a name in quotes, a setting said as a clause, someone signed up
        ('My talk title is "Typing the Untypable".', Frame("talk title", "Typing the Untypable")),
        ("timer set to 6am every other day", Frame("timer", "6am every other day")),
        ("I set to work on it", Frame()),
        ("I signed Maya up for the swim camp at the Y", Frame(None, "swim camp")),
        # dropped for a name is replaced by it; dropped for a use is dropped there
        ("We're ditching Mailgun for Postmark", Frame(None, "Postmark", "Mailgun", "replace")),
        ("We are dropping Stripe for payments.", Frame("payments", None, "Stripe", "cancel")),
        # who uses it now is no subject of the choice after a cancel
        (
            "We don't use Slack anymore, everyone is on Teams now.",
            Frame(None, "Teams", "Slack", "replace"),
        ),
        # a reversal that keeps a thing where it was
        ("Never mind, keep the docs on Netlify.", Frame("docs", "Netlify", None, "reverse")),
        # the subject said first, after "for"; "decided on"; ordered from
        ("For the wedding cake we picked chocolate.", Frame("wedding cake", "chocolate")),
        ("We decided on Figma for design.", Frame("design", "Figma")),
        ("We'll cater lunch from Sweetgreen.", Frame("lunch", "Sweetgreen")),
        # a thing named by its time, frequency or size is that thing's choice
        ("Switched to the 7:40 train", Frame("train", "7:40 train", None, "replace")),
        ("We're switching to annual billing.", Frame("billing", "annual billing", None, "replace")),
        # counts in words, a start date that ends a value, acts on a day, what was given for
        ("We're moving to three-week sprints.", Frame("sprints", "three-week", None, "replace")),
        ("Standup moves to 10 starting Monday.", Frame("Standup", "10", None, "replace")),
        ("From now on we deploy on Thursdays.", Frame("deploy", "Thursdays", None, "update")),
        ("They gave us 30 minutes for the talk now.", Frame("talk", "30 minutes", None, "update")),
        ("I'm paying the contractor $4,000 for the deck.", Frame("deck", "4,000")),
        # a rewrite in another language, a relocation, a move indoors, a better name instead
        ("We're rewriting the API in Go.", Frame("API", "Go", None, "replace")),
        ("We relocated the office to Munich.", Frame("office", "Munich", None, "replace")),
        (
            "the wedding moves indoors to the Grand Hall",
            Frame("wedding", "Grand Hall", None, "replace"),
        ),
        (
            "Wait, the Hilton is closer to the venue, book that instead.",
            Frame(None, "Hilton", None, "replace"),
        ),
        ("half the team is out Friday", Frame()),
        # where a group meets, what a thing is learnt with, names given, a new one of a role
        ("Book club meets at Maria's.", Frame("Book club", "Maria's")),
        ("I'm learning Spanish with Duolingo.", Frame("Spanish", "Duolingo")),
        ("We're calling the app Pocketly.", Frame("app", "Pocketly")),
        ("the app is now called Stashr.", Frame("app", "Stashr", None, "update")),
        ("our new photographer is Ben Cho.", Frame("photographer", "Ben Cho", None, "update")),
        (
            "Asana is gone, we moved everything to ClickUp.",
            Frame(None, "ClickUp", "Asana", "replace"),
        ),
        (
            "Please note that the quarterly review will take place on 14 March.",
            Frame("quarterly review", "14 March"),
        ),
        # a name that is the role now, keeping a tool in use, how often, what is due
        ("Priya is the primary contact now.", Frame("primary contact", "Priya", None, "update")),
        ("Let's keep using Jenkins for CI.", Frame("CI", "Jenkins")),
        ("We ship releases every two weeks.", Frame("ship", "two weeks")),
        ("We're going to ship weekly from now on.", Frame("ship", "weekly", None, "update")),
        ("the thesis is now due May 15.", Frame("thesis", "May 15", None, "update")),
        # a name of two words that are also words, a filler first, off, flying into
        ("We replaced Pingdom by Better Stack.", Frame(None, "Better Stack", "Pingdom", "replace")),
        ("We monitor uptime with Pingdom.", Frame("uptime", "Pingdom")),
        ("Launch party is off.", Frame(None, None, "Launch party", "cancel")),
        ("the heating is off on weekends", Frame()),
        ("lol they cancelled on us.", Frame(None, None, None, "cancel")),
        (
            "Change of plans, flying into Boulder on the 13th instead.",
            Frame("fly", "Boulder on the 13th", None, "replace"),
        ),
        ("Meeting at 5 works for me", Frame("Meet", "5")),
        # a name that has been the role, a bare "back to", "only" before a day
        ("Sentry has been our error tracker.", Frame("error tracker", "Sentry")),
        (
            "OVH was flaky, back to Hetzner for the build servers.",
            Frame("build servers", "Hetzner", None, "reverse"),
        ),
        ("PT is only Fridays now.", Frame("PT", "Fridays", None, "update")),
        ("Just Redis for now", Frame()),
        ("Postgres it is for the warehouse.", Frame("warehouse", "Postgres")),
        # left for a name, going with one after a cancel, pulled in, transferred, wanted done
        ("We left Substack for Ghost.", Frame(None, "Ghost", "Substack", "replace")),
        ("She left the house for work", Frame()),
        (
            "We're dropping React Native and going native with Swift.",
            Frame(None, "Swift", "React Native", "replace"),
        ),
        (
            "Code freeze pulled in to December 10.",
            Frame("Code freeze", "December 10", None, "update"),
        ),
        ("Transferred the domain to Namecheap.", Frame("domain", "Namecheap", None, "replace")),
        ("Legal wants retention cut to 30 days.", Frame("retention", "30 days", None, "update")),
        # a switch said of the subject, an event done on a day, who moved, a colour, where now
        (
            "CDN switched over to Cloudflare last night.",
            Frame("CDN", "Cloudflare", None, "replace"),
        ),
        (
            "We're doing sprint reviews on Thursdays now.",
            Frame("sprint reviews", "Thursdays", None, "update"),
        ),
        (
            "Moved the team off 1Password onto Bitwarden.",
            Frame(None, "Bitwarden", "1Password", "replace"),
        ),
        ("Let's paint the nursery yellow.", Frame("nursery", "yellow")),
        (
            "I cancelled WeWork, working from the library now.",
            Frame(None, "library", "WeWork", "replace"),
        ),
        (
            "Hmm, actually Confluence for the wiki, IT already pays for it.",
            Frame("wiki", "Confluence", None, "replace"),
        ),
        # what replaces a thing dropped, said without a verb; "it": the thing said before
        (
            "ditching the chili, lentil soup for lunches this week",
            Frame("lunches", "lentil soup", "chili", "replace"),
        ),
        (
            "the chili was way too spicy so im ditching it, lentil soup for lunches this week",
            Frame("lunches", "lentil soup", None, "replace"),
        ),
        ("I'm dropping it, thanks for the help.", Frame(change="cancel")),
        (
            "riverside park flooded so the run is relocating to Lincoln Field",
            Frame("run", "Lincoln Field", None, "replace"),
        ),
        ("the run relocated to Lincoln Field", Frame("run", "Lincoln Field", None, "replace")),
        # a subject that is only a value of the value's kind is what changed
        ("the 22nd got pushed to the 29th", Frame(None, "29th", "22nd", "update")),
        ("PagerDuty is out, Opsgenie in.", Frame(None, "Opsgenie", "PagerDuty", "replace")),
        ("nvm foundry is back", Frame(None, "foundry", None, "reverse")),
        ("payment terms are revised to net 30", Frame("payment terms", "net 30", None, "update")),
        (
            "so new supervisor is Prof. Lindqvist",
            Frame("supervisor", "Prof. Lindqvist", None, "update"),
        ),
        (
            "The organizer has given us hall 9 instead of hall 7.",
            Frame(None, "hall 9", "hall 7", "replace"),
        ),
        ("so it's Tuesday 10am now", Frame(None, "Tuesday 10am", None, "update")),
        ("They might give us hall 9 instead of hall 7.", Frame()),  # offered, not taken
        (
            "neighbors complained so practice is at the rehearsal space on 5th st now",
            Frame("practice", "rehearsal space on 5th st", None, "update"),
        ),
        (
            "TwoGuys cancelled so we booked Atlas Van Lines for the same day.",
            Frame(
                None,
                "Atlas Van Lines",
                "TwoGuys",
                "replace",
                commit=True,
                said="book Atlas Van Lines for the same day",
            ),
        ),
        ("we dropped the keynote entirely", Frame(None, None, "keynote", "cancel")),
        ("Zucchini's out.", Frame(None, None, "Zucchini", "cancel")),
        ("We're not doing a DJ.", Frame(None, None, "DJ", "cancel")),
        ("we're back on April 9", Frame(None, "April 9", None, "reverse")),
        ("we're back on track", Frame()),
        ("the board reinstated the original $150", Frame(None, "$150", None, "reverse")),
        (
            "the board reinstated the original $150 ticket price",
            Frame("ticket price", "$150", None, "reverse"),
        ),
        ("I change the paella for lasagna.", Frame(None, "lasagna", "paella", "replace")),
        ("Linear replaced Jira.", Frame(None, "Linear", "Jira", "replace")),
        ("Jira's gone, Linear from now on.", Frame(None, "Linear", "Jira", "replace")),
        ("We ended up going with Linear.", Frame(None, "Linear", commit=True)),
        ("We decide finally for the Montessori.", Frame(None, "Montessori", commit=True)),
        ("CI should run on GitHub Actions.", Frame("CI", "GitHub Actions")),
        (
            "the quarterly board meeting will now take place on April 17",
            Frame("quarterly board meeting", "April 17", None, "update"),
        ),
        ("18 went EOL, bump us to Node 22.", Frame(None, "Node 22", None, "replace")),
        (
            "so I've handed the onboarding redesign to Aisha",
            Frame("onboarding redesign", "Aisha", None, "replace"),
        ),
        ("I gave the keys to Sam.", Frame()),
        (
            "Let's have Marcus lead the onboarding redesign.",
            Frame("onboarding redesign", "Marcus"),
        ),
        ("Marcus is heads-down on the migration through Q3.", Frame()),
        (
            "The team's on-call rotation is one week per person.",
            Frame("team's on-call rotation", "one week per person"),
        ),
        ("The rehearsal dinner is at Giorgio's.", Frame("rehearsal dinner", "Giorgio's")),
        (
            "grabbed the Bose QC Ultra instead, they were on sale",
            Frame(None, "Bose QC Ultra", None, "replace"),
        ),
        (
            "cedar was crazy expensive so the beds are going to be galvanized steel",
            Frame("beds", "galvanized steel"),
        ),
        # "the way to go" is no subject: what is said to be it is chosen
        (
            "Forget Jenkins, CircleCI is the way to go.",
            Frame(None, "CircleCI", "Jenkins", "replace", commit=True),
        ),
        ("CircleCI is the way to go for CI.", Frame("CI", "CircleCI", commit=True)),
        # a weekday and its date are one value, whatever comma parts them
        (
            "Due to a conflict, the quarterly review has been rescheduled to Wednesday, June 12.",
            Frame("quarterly review", "Wednesday, June 12", None, "update"),
        ),
        (
            "The standup moved to Tuesday, which works better.",
            Frame("standup", "Tuesday", None, "update"),
        ),
        # who someone is, then named: the name is the value; without a subject, a name after
        # a comma is who is spoken to
        (
            "the caterer is now my cousin, Dana Lee.",
            Frame("caterer", "Dana Lee", None, "update"),
        ),
        ("we're going with the pizza, Mike.", Frame(None, "pizza", commit=True)),
        # a verb at the start whose object runs into "is" was a noun of the subject
        (
            "Book club pick for April is Piranesi",
            Frame("Book club pick for April", "Piranesi"),
        ),
        # a choice said as a verb and a label: what follows the colon is the value
        (
            "We set the wedding date: October 12, 2025!",
            Frame("wedding date", "October 12"),
        ),
        ("we picked the venue: Hawthorne Barn.", Frame("venue", "Hawthorne Barn")),
        # "like" before a number and "(confirmed) as" before a name lead no value
        (
            "So the cabinet lead time is like 14 weeks for white shaker.",
            Frame("cabinet lead time", "14 weeks"),
        ),
        ("Sites are confirmed as Boston and Denver.", Frame("Sites", "Boston")),
        # "doing it on/at": what "it" is done on is the value
        (
            "Let's not do it at the office, book the rooftop bar.",
            Frame(None, "rooftop bar", "office", "replace"),
        ),
        (
            "so we're doing it on Sunday the 15th instead, same place.",
            Frame(None, "Sunday the 15th", None, "replace"),
        ),
        # a subject ending in an auxiliary is a clause: its verb is the change
        (
            "Rent went up so the savings thing has to drop to $120/month for now.",
            Frame("savings thing", "$120/month", None, "update"),
        ),
    ],
)
def test_frames_read_subject_value_and_change(sentence: str, expected: Frame) -> None:
    assert frame(sentence) == expected


def test_a_subject_ending_in_an_auxiliary_is_a_clause_only_before_a_verb_and_to() -> None:
    """ "the savings thing has to drop to $120" (a test above) is the savings thing's change;
    "the gala is relocated to the Grand Hall" stays a change of the gala."""
    found = frame(
        "The Riverside Pavilion is no longer available; the gala is relocated to the Grand "
        "Hall at City Museum."
    )
    assert (found.value, found.change) == ("Grand Hall at City Museum", "replace")


def test_a_purpose_said_with_to_is_no_place_and_no_part_of_the_value() -> None:
    """ "to save money" says why, not where: the floor tile is what is kept, Backblaze B2 what
    the backups moved to; "to staging" is where the API goes."""
    kept = frame("We're keeping the existing floor tile to save money.")
    assert (kept.subject, kept.value) == (None, "existing floor tile")
    moved = frame("We moved backups over to Backblaze B2 to save money.")
    assert (moved.subject, moved.value) == ("backups", "Backblaze B2")
    placed = frame("We're deploying the API to staging.")
    assert (placed.subject, placed.value) == ("API", "staging")


def test_going_to_a_number_of_things_is_no_new_amount() -> None:
    assert frame("Maya goes to 3 practices a week.").change is None
    assert frame("Maya's practices go to 3 a week.").change is None  # "go": a plan, not news


def test_an_update_in_passing_is_read_even_in_a_question() -> None:
    said = "I'm optimising the API response time, which has recently improved to 250ms, any tips?"
    assert aside(said) == Frame("API response time", "250ms", None, "update")
    said = (
        "How can I cut errors now that the login API latency, which has decreased to 120ms, holds?"
    )
    assert aside(said) == Frame("login API latency", "120ms", None, "update")  # down as up
    assert aside("Should we use Redis for the cache?") == Frame()
    # "it's been ...", a reading, an adjective of change; "$350 monthly" is no "$350 m"
    said = "I'm worried about my gym budget, it's been adjusted to $60 monthly, any tips?"
    assert aside(said) == Frame("gym budget", "$60", None, "update")
    said = "How do I read my resting heart rate, which recently measured 58 bpm?"
    assert aside(said) == Frame("resting heart rate", "58 bpm", None, "update")
    said = "Can you review the expanded 12-page style guide?"
    assert aside(said) == Frame("style guide", "12-page", None, "update")


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        # a value as it stands now, said in passing
        (
            "I'm tuning my API response time, which is currently at 180ms under load, ideas?",
            Frame("API response time", "180ms", None, "update"),
        ),
        (
            "I want to cut the batch memory usage, which is currently averaging around 140MB "
            "per session.",
            Frame("batch memory usage", "140MB per session", None, "update"),
        ),
        (
            "I've noticed that the average API response time is around 220ms at peak.",
            Frame("average API response time", "220ms", None, "update"),
        ),
        (
            "How can Scott keep his current homework completion rate of 92% by June?",
            Frame("homework completion rate", "92%", None, "update"),
        ),
        (
            "How do I help Scott improve his recent math test score of 68%?",
            Frame("math test score", "68%", None, "update"),
        ),
        # a unit written onto the number, a count of days in words
        (
            "How do I adjust the maxmemory setting to 1GB as mentioned?",
            Frame("maxmemory setting", "1GB", None, "update"),
        ),
        (
            "I extended my rest day on June 6 to two full days to recover, is that wise?",
            Frame("rest day", "two full days", None, "update"),
        ),
        (
            "I've recently stabilized my daily calorie intake at 1,750 kcal, how do I add protein?",
            Frame("daily calorie intake", "1,750 kcal", None, "update"),
        ),
        # "only" and "being" are no part of the subject; a date a planned thing is on
        (
            "I'm worried that my self-trust rating has only reached 60% as of May 15.",
            Frame("self-trust rating", "60%", None, "update"),
        ),
        (
            "I'm nervous about my portfolio review being moved to September 20, 2024.",
            Frame("portfolio review", "September 20, 2024", None, "update"),
        ),
        (
            "I've got a portfolio review coming up on June 20, 2024, can you help me prepare?",
            Frame("portfolio review", "June 20, 2024", None, "update"),
        ),
    ],
)
def test_values_said_in_passing_in_more_words(said: str, expected: Frame) -> None:
    assert aside(said) == expected


def test_a_current_thing_that_is_no_quantity_is_no_value() -> None:
    assert aside("The plan, which is currently a draft, needs work.") == Frame()
    assert aside("My sister is currently around the corner.") == Frame()


def test_subjects_are_the_same_only_when_the_words_of_one_are_all_in_the_other() -> None:
    assert same_subject("sessions", "the session cache")
    assert not same_subject("job queue", "session cache")
    # the word naming which side of a subject is decided is no part of it
    assert same_subject("offsite venue", "team offsite")
    assert same_subject("Pickup time", "Emma's school pickup")
    assert not same_subject("start time", "end time")
    assert same_subject("time", "times")


def test_a_time_is_told_from_a_thing_by_how_the_value_starts() -> None:
    assert all(map(is_time, ["Q2", "July 15", "3:30", "Wednesdays", "the 17th", "10am"]))
    assert not any(map(is_time, ["Dan", "15 GB", "Mint 15 GB", "Lakeview Lodge", None]))
    assert not same_subject(None, "session cache")


def test_choice_texts_name_what_they_replace() -> None:
    assert (
        choice_text(Frame("order queue", "SQS", "RabbitMQ", "replace"))
        == "Use SQS for order queue instead of RabbitMQ"
    )
    assert choice_text(Frame(None, None, "Jenkins", "cancel")) == "Drop Jenkins"
    assert choice_text(Frame("launch", "17th", None, "update")) == "Launch: 17th"


def test_a_bare_number_is_on_either_side_of_a_subject() -> None:
    """ "standup's now at 10" after "at 9:30", and "batch size 128" after "64": a bare number
    may be an hour or a count, so it replaces a time and a number alike."""
    assert same_side("9:30", "10") and same_side("64", "128") and same_side("Redis", "10")
    assert not same_side("9:30", "Lakeview Lodge") and not same_side("Q2", "Dan")
    # an amount is a side of its own; a thing with an amount in it may be either
    assert not same_side("10k", "Ally") and not same_side("30 min", "Q2")
    assert same_side("Mint 15 GB", "20 GB one") and same_side("$9", "12%")


@pytest.mark.parametrize(
    ("sentence", "value", "old"),
    [
        ("Scratch Figma, we're using Penpot.", "Penpot", "Figma"),
        (
            "Returned the blue sofa, went with the green one from West Elm.",
            "green one",
            "blue sofa",
        ),
        ("We ditched Jira last week, everything is in Linear now.", "Linear", "Jira"),
    ],
)
def test_a_thing_dropped_then_a_choice_is_a_replacement(
    sentence: str, value: str, old: str
) -> None:
    found = frame(sentence)
    assert (found.value, found.old, found.change) == (value, old, "replace")


def test_a_clock_time_is_one_value_and_a_clause_is_no_subject() -> None:
    """ "9:15" is not cut at its colon; "the pharmacist flagged that meloxicam is an NSAID"
    decides nothing about a "pharmacist flagged that meloxicam"."""
    assert frame("The standup moved to 9:15.").value == "9:15"
    assert frame("pharmacist flagged that meloxicam is an NSAID like ibuprofen").empty


def test_a_noun_of_a_number_keeps_no_punctuation_in_its_value() -> None:
    """ "a latency of 210ms, which ..." is 210ms: a value "210ms," would differ from "210ms"."""
    said = frame("now I'm experiencing a latency of 210ms, which is too slow.")
    assert (said.subject, said.value) == ("latency", "210ms")


@pytest.mark.parametrize(
    ("value", "sides"),
    [
        ("Lakeview Lodge on May 3rd", ("Lakeview Lodge", "May 3rd")),
        ("Friday at Nopa", ("Friday", "Nopa")),
        ("Saturday the 21st at the Roxy", ("Saturday the 21st", "Roxy")),
        ("Thursdays at 4", None),  # one time
        ("Tuesday at 3pm", None),
        ("the gym on 5th street", None),  # a street, not a date
        ("Redis in Frankfurt", None),  # two things
    ],
)
def test_a_place_and_a_time_in_one_value_are_two_sides(
    value: str, sides: tuple[str, str] | None
) -> None:
    split = two_sides(Frame("offsite", value))
    assert (split and (split[0].value, split[1].value)) == sides


def test_who_fills_a_role_is_said_without_the_sentence_end() -> None:
    """ "We're hiring a designer, Priya." was said "hire Priya. for designer"."""
    assert frame("We're hiring a designer, Priya.").said == "hire Priya for designer"


def test_a_choice_said_after_a_colon_without_a_subject_names_none() -> None:
    """ "I'll try this: ObjectId casting" was said "... for None"."""
    assert frame("I'll try this: ObjectId casting in the query.").said == (
        "try ObjectId casting in the query"
    )


def test_a_letter_that_names_one_of_a_kind_makes_another_value() -> None:
    """ "Hall A" and "Hall C" are two halls ("a" is no article there); "hall a" is Hall A."""
    assert not same_value("Hall A", "Hall C")
    assert same_value("Hall A", "hall a")
    assert same_value("Memcached", "memcached cluster")
