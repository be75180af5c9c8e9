"""A labelled retrieval set, generated: long multi-session conversations and questions about them.

Each conversation is one person's memory: 14-16 sessions (one `session_id` each) of 20-26
messages between the person and their assistant, at least 300 messages in all, spread over
months. Ten storylines run through the sessions (a trip, a flat, a work launch, a dentist, a
wedding, ...), each told in three events in three sessions, most with a change of plan (a new
city, a moved date, another venue); the people in them are introduced once, by relation ("my
sister Leah ..."), and later named only. Around them: small talk, the assistant's advice and
questions that reuse the storylines' words without stating their facts. Every session has the
bot's own summary, which, like real ones, repeats the facts of that session.

Questions, each labelled with the keys of the messages that hold the answer (`session_id#n`):
  single-fact  one fact stated in one message ("Which hotel did I book in Porto?")
  multi-hop    a relation from one session and a fact from another ("Where is my sister's
               wedding now?" needs "my sister Leah" and "Leah's wedding moved to ...")
  temporal     when something is or was, what the plan was before it changed, which of two
               events came first
  no-answer    plausible questions about the same people and places that nothing answers
               (no evidence); scored by how well a search's top score tells them apart

Everything comes from one seed through `random.Random`, so the set is the same on every machine;
`tests/retrieval/manifest.json` holds the seed and the SHA-256 of the set's canonical JSON, which
the evaluation and a test check. The texts are written here (templates and word lists), so the
set is free of any licence but this project's.

Printed, written or re-manifested by `python -m scripts.evals.retrieval_set`.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

MANIFEST = Path(__file__).resolve().parents[1] / "retrieval" / "manifest.json"
SEED = 20260513
CONVERSATIONS = 24
CLASSES = ("single-fact", "multi-hop", "temporal", "no-answer")
# Questions per conversation and class, when the storylines offer that many.
QUOTA = {"single-fact": 9, "multi-hop": 5, "temporal": 8, "no-answer": 4}
MIN_MESSAGES = 300


# -- the set's shape ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Message:
    key: str
    role: str
    content: str
    created_at: str


@dataclass
class Session:
    session_id: str
    summary: str
    summary_at: str
    messages: list[Message]


@dataclass
class Conversation:
    conversation_id: str
    owner: str
    sessions: list[Session]

    @property
    def session_ids(self) -> list[str]:
        return [s.session_id for s in self.sessions]

    @property
    def message_count(self) -> int:
        return sum(len(s.messages) for s in self.sessions)


@dataclass(frozen=True)
class Question:
    qid: str
    conversation_id: str
    cls: str
    question: str
    evidence: tuple[str, ...]


@dataclass
class LabelledSet:
    seed: int
    conversations: list[Conversation]
    questions: list[Question]

    def to_json(self) -> dict[str, object]:
        return {
            "seed": self.seed,
            "conversations": [asdict(c) for c in self.conversations],
            "questions": [asdict(q) for q in self.questions],
        }

    def checksum(self) -> str:
        """SHA-256 of the canonical JSON (sorted keys, no spaces)."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def subset(self, conversations: int) -> LabelledSet:
        """The first `conversations` conversations and their questions."""
        kept = self.conversations[:conversations]
        ids = {c.conversation_id for c in kept}
        return LabelledSet(self.seed, kept, [q for q in self.questions if q.conversation_id in ids])


# -- words --------------------------------------------------------------------------------------

NAMES = """Aisha Alejandro Amara Anders Ananya Benedikt Bianca Camille Chidi Chloe Dario Dmitri
Elif Emeka Esther Farah Felix Gabriela Hamid Hana Ingrid Isabel Jonas Julien Kavya Kenji Lars
Leah Lucia Magnus Malik Marisol Mateo Mei Nadia Niamh Nikhil Noor Oksana Olivia Omar Paolo
Priya Quentin Rafael Rania Rohan Rosa Sanjay Sofia Soren Tariq Tomas Valentina Wanjiru Yara
Yusuf Zainab Zofia Ines Arjun Beatriz Callum Daria Emil Fatima Goran Hugo Imani Jasper Keiko
Lorenzo Marta Nils Odette Pavel Renata Samir Talia Viktor Wren Xavier Yasmin""".split()
SURNAMES = """Okafor Lindqvist Moreau Tanaka Kowalski Haddad Ferreira Novak Brennan Castillo
Nakamura Osei Petrov Rahman Schultz Varga Whitfield Ibarra Kaur Laine Mbeki Oyelaran Quintero
Sandoval Takeda Ulloa Vasquez Adeyemi Bjork Costa""".split()
CITIES = """Lisbon Porto Kyoto Oaxaca Edinburgh Tbilisi Ljubljana Valencia Montreal Hanoi
Copenhagen Marrakesh Seville Bergen Krakow Naples Cusco Tallinn Dubrovnik Galway Sapporo
Cartagena Hobart Bruges Salzburg Ghent Bologna Split Tromso Granada""".split()
OWNER_CITIES = """Toronto Melbourne Berlin Rotterdam Austin Leeds Dublin Lyon Denver Glasgow
Portland Zurich""".split()
RELATIONS = [
    "sister",
    "brother",
    "manager",
    "coworker",
    "best friend",
    "neighbour",
    "cousin",
    "flatmate",
]
JOBS = """a nurse|a structural engineer|a primary school teacher|a pastry chef|a paramedic|an
architect|a data analyst|a physiotherapist|a journalist|a pilot|a veterinarian|a sound
engineer|a pharmacist|a carpenter|a translator|a park ranger""".replace("\n", " ").split("|")
HOBBIES = """climbing|sourdough baking|birdwatching|salsa dancing|chess|pottery|sailing|cycling
|open-water swimming|astronomy|beekeeping|woodworking""".replace("\n", "").split("|")
HOTELS = (
    """Casa Azul|Hotel Miradouro|The Lantern Inn|Pension Aurora|The Salt House|Villa
Limonaia|Hotel Ostrava|The Granary|Hostal Jardin|Riverside Lodge|The Quiet Owl|Hotel Belvedere
|Maison Claire|The Old Ropeworks""".replace("\n", " ")
    .replace(" |", "|")
    .split("|")
)
HOODS = """Riverside|Old Town|Westmount|Harbourview|Elm Park|Northgate|Canal District|Hillcrest
|Greenfield|St. Anne's|Millbrook|Southbank""".replace("\n", "").split("|")
PROJECTS = """Atlas|Beacon|Cobalt|Driftwood|Ember|Falcon|Granite|Harbor|Juniper|Kestrel|Lumen
|Meridian|Nimbus|Orchid|Pioneer|Quartz""".replace("\n", "").split("|")
PROJECT_PARTS = """the onboarding flow|the billing migration|the search page|the mobile
checkout|the reporting dashboard|the data import|the admin console|the pricing page""".replace(
    "\n", " "
).split("|")
SLIP_REASONS = """legal still has to review the contract|the vendor API changed|two engineers
got pulled onto an outage|the designs came back late|security found a problem in the login
step|QA found a data-loss bug""".replace("\n", " ").split("|")
PROCEDURES = """a crown on a molar|a filling on the left side|a deep cleaning|a wisdom tooth
out|a night guard|a root canal""".replace("\n", " ").split("|")
INSTRUMENTS = ["cello", "piano", "violin", "guitar", "saxophone", "drums", "flute"]
PIECES = """Clair de Lune|the Bach prelude in C|Gymnopedie No. 1|Autumn Leaves|the Pachelbel
canon|Fly Me to the Moon|a Chopin nocturne|Blackbird""".replace("\n", " ").split("|")
BREEDS = """beagle|greyhound|border collie|labrador mix|dachshund|whippet|corgi|spaniel
mix""".replace("\n", " ").split("|")
PET_NAMES = """Biscuit|Juno|Pepper|Miso|Olive|Ziggy|Nala|Pickle|Rosie|Mango|Clover|Dot""".split("|")
SHELTERS = ["Second Chance", "Happy Tails", "Paws Haven", "Northside", "Little Ark"]
VENUES = """the botanical garden|a vineyard outside town|the old boathouse|her aunt's farm|the
rooftop at the Grand|a chapel by the lake|the town hall|a barn in the hills|the harbour
pavilion""".replace("\n", " ").split("|")
VENUE_REASONS = """the roof there needs repairs|the caterer only works weekends there|the
price doubled|it could not fit all the guests|the road there floods in spring""".replace(
    "\n", " "
).split("|")
GIFTS = """a set of copper pans|a framed map of where they met|a weekend at a spa|a fancy
espresso machine|a hand-thrown dinner set|a picnic hamper|a record player""".replace(
    "\n", " "
).split("|")
BODY_PARTS = ["left knee", "right ankle", "hamstring", "achilles", "lower back", "hip"]
RACE_GOALS = ["1:55", "2:05", "1:48", "2:10", "1:59", "2:15"]
GARAGES = """Kwik Fix|Dale's Auto|Northside Motors|Precision Garage|Ace Autocare|Harbor
Mechanics|Greenline Service""".replace("\n", " ").split("|")
CAR_PARTS = """the front brake pads|a wheel bearing|the alternator|the timing belt|the clutch
plate|a coolant pump""".replace("\n", " ").split("|")
BOOKS = (
    """The Remains of the Day|Station Eleven|Pachinko|The Overstory|Klara and the Sun
|Piranesi|A Gentleman in Moscow|The Vanishing Half|Circe|The Dutch House|Middlemarch|Lessons in
Chemistry""".replace("\n", "")
    .replace("Moscow|The", "Moscow|The")
    .split("|")
)
DISHES = ["a salad", "dessert", "bread", "a bottle of wine", "cheese", "snacks"]
LAPTOPS = """Aero 14|Zenbook S|ThinkPad X1|Swift Go|Spectre 13|Galaxy Book|XPS 15|Yoga
Slim""".replace("\n", " ").split("|")
CERTS = """AWS Solutions Architect|CPA|PMP|CFA level one|Kubernetes administrator|German B2
|Azure data engineer""".replace("\n", "").split("|")
SECTIONS = ["networking", "ethics", "statistics", "listening", "security", "cost estimation"]
PARTY_VENUES = """Luigi's trattoria|the bowling alley on Queen Street|the back room at The
Fox|a karaoke bar downtown|the community hall|the rooftop terrace at Nine""".replace(
    "\n", " "
).split("|")
CAKES = ["lemon", "chocolate hazelnut", "carrot", "red velvet", "matcha", "raspberry"]
BAKERIES = ["Crumb & Co", "Sweet Lane", "Bakehouse 12", "Rising Sun", "Flour Power"]
TILES = ["terracotta", "white subway", "green zellige", "grey slate", "hexagon", "blue"]
CONTRACTORS = ["Bright Build", "Oakline", "Stone & Sons", "Norris Renovations", "Keystone"]
MONTHS = """January February March April May June July August September October November
December""".split()
WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()


def day_text(d: date) -> str:
    """'Saturday, June 14' (word tables, not strftime, so no locale changes the set)."""
    return f"{WEEKDAYS[d.weekday()]}, {MONTHS[d.month - 1]} {d.day}"


def clock(rng: random.Random) -> str:
    hour = rng.choice([8, 9, 10, 11, 14, 15, 16, 17])
    return f"{hour if hour <= 12 else hour - 12}:{rng.choice(['00', '15', '30', '45'])} " + (
        "am" if hour < 12 else "pm"
    )


def money(rng: random.Random, low: int, high: int, step: int) -> str:
    return f"${rng.randrange(low, high, step):,}"


# -- storylines ---------------------------------------------------------------------------------


@dataclass
class Turn:
    role: str
    text: str
    tag: str | None = None  # evidence tag, resolved to a message key once placed


@dataclass(frozen=True)
class QSpec:
    cls: str
    text: str
    tags: tuple[str, ...]


@dataclass
class Event:
    turns: list[Turn]
    label: str  # what the session summary says of it


@dataclass
class Story:
    events: list[Event]  # told in this order, one event a session
    questions: list[QSpec]
    people: list[str]  # cast members it names (introduced before its first event)
    asides: list[list[Turn]]  # talk that reuses its words without new facts
    ending: tuple[str, str] | None = None  # (phrase, tag) of a dated outcome, for "which first"


@dataclass
class Ctx:
    """What a storyline may draw on: the random source, the owner and their cast."""

    rng: random.Random
    owner: str
    home: str
    cast: dict[str, str]  # name -> relation
    used: set[str] = field(default_factory=set)
    tag_counter: int = 0

    def tag(self) -> str:
        self.tag_counter += 1
        return f"t{self.tag_counter}"

    def pick(self, pool: Sequence[str]) -> str:
        """A value not used yet in this conversation (if any is left)."""
        fresh = [v for v in pool if v not in self.used]
        value = self.rng.choice(fresh or list(pool))
        self.used.add(value)
        return value

    def person(self) -> str:
        """A cast member, preferring those no storyline has named yet."""
        return self.pick(list(self.cast))

    def rel(self, name: str) -> str:
        return self.cast[name]

    def one(self, *options: str) -> str:
        return self.rng.choice(options)

    def later(self, d: date, low: int, high: int) -> date:
        return d + timedelta(days=self.rng.randint(low, high))


StoryMaker = Callable[[Ctx, list[date]], Story]


def _ack(c: Ctx, *options: str) -> Turn:
    return Turn("assistant", c.one(*options))


def trip(c: Ctx, when: list[date]) -> Story:
    p = c.person()
    city1, city2 = c.pick(CITIES), c.pick(CITIES)
    hotel = c.pick(HOTELS)
    d1, d2 = c.later(when[0], 20, 50), c.later(when[1], 15, 40)
    nights = c.rng.randint(3, 9)
    t1, t2, t3 = c.tag(), c.tag(), c.tag()
    events = [
        Event(
            [
                Turn(
                    "user",
                    c.one(
                        f"{p} and I are planning a trip to {city1}, leaving {day_text(d1)}.",
                        f"Big news: {p} talked me into a trip to {city1}. We'd fly out on "
                        f"{day_text(d1)}.",
                    ),
                    t1,
                ),
                _ack(c, f"{city1} sounds lovely! Do you want help with an itinerary?"),
                Turn("user", "Maybe later, we haven't booked anything yet."),
            ],
            f"a trip to {city1} with {p} on {day_text(d1)}",
        ),
        Event(
            [
                Turn(
                    "user",
                    c.one(
                        f"Change of plans: {p} can't get time off then, so we're going to "
                        f"{city2} instead, on {day_text(d2)}.",
                        f"We dropped {city1}. {p} found cheaper flights to {city2}, so that's "
                        f"the new plan, leaving {day_text(d2)}.",
                    ),
                    t2,
                ),
                _ack(c, f"{city2} it is. That gives you a bit more time to plan."),
            ],
            f"the trip with {p} moving from {city1} to {city2} ({day_text(d2)})",
        ),
        Event(
            [
                Turn(
                    "user",
                    c.one(
                        f"Booked the hotel for {city2}: {hotel}, {nights} nights.",
                        f"We're staying at {hotel} in {city2}. I paid for {nights} nights.",
                    ),
                    t3,
                ),
                _ack(c, "Nice, that's the hardest part done."),
            ],
            f"booking {hotel} in {city2} for {nights} nights",
        ),
    ]
    asides = [
        [
            Turn("user", f"What should I pack for {city2} this time of year?"),
            Turn(
                "assistant",
                f"Layers and comfortable shoes; {city2} evenings can be cool, and you'll walk "
                "a lot more than you expect on a trip.",
            ),
        ],
        [
            Turn("user", f"Any tips for finding good food in {city2}?"),
            Turn(
                "assistant",
                "Walk one street away from the main squares and eat where the menu is short "
                "and only in the local language.",
            ),
        ],
    ]
    qs = [
        QSpec(
            "single-fact",
            c.one(f"Which hotel did I book in {city2}?", f"Where am I staying in {city2}?"),
            (t3,),
        ),
        QSpec("single-fact", f"How many nights is my hotel booking in {city2}?", (t3,)),
        QSpec(
            "temporal",
            c.one(
                f"Where were {p} and I going to travel before the plan changed?",
                f"What was the original destination of my trip with {p}?",
            ),
            (t1,),
        ),
        QSpec("temporal", f"When do {p} and I leave for {city2}?", (t2,)),
        QSpec("multi-hop", f"Which city am I visiting with my {c.rel(p)}?", ("intro:" + p, t2)),
    ]
    return Story(events, qs, [p], asides, (f"booking the hotel in {city2}", t3))


def flat(c: Ctx, when: list[date]) -> Story:
    p = c.person()
    hood1, hood2 = c.pick(HOODS), c.pick(HOODS)
    rent1, rent2 = money(c.rng, 1400, 2600, 25), money(c.rng, 1400, 2600, 25)
    move = c.later(when[2], 10, 30)
    t1, t2, t3, t4 = c.tag(), c.tag(), c.tag(), c.tag()
    events = [
        Event(
            [
                Turn(
                    "user",
                    f"I viewed a flat in {hood1} today, two bedrooms, {rent1} a month. "
                    "Tempted to apply.",
                    t1,
                ),
                _ack(c, "Two bedrooms would give you an office. How's the light?"),
                Turn("user", "Great light, tiny kitchen."),
            ],
            f"a flat in {hood1} for {rent1}",
        ),
        Event(
            [
                Turn(
                    "user",
                    f"The {hood1} flat fell through, the landlord gave it to someone else. "
                    f"I'm looking in {hood2} now.",
                    t2,
                ),
                _ack(c, f"Sorry to hear it. {hood2} has better transport anyway."),
            ],
            f"the {hood1} flat falling through and a search in {hood2}",
        ),
        Event(
            [
                Turn(
                    "user",
                    f"Signed the lease in {hood2}! Rent is {rent2} and I move in on "
                    f"{day_text(move)}.",
                    t3,
                ),
                _ack(c, "Congratulations! Do you need a moving checklist?"),
                Turn("user", f"Yes please. {p} offered to help with the van.", t4),
            ],
            f"signing a lease in {hood2} at {rent2}, moving {day_text(move)}",
        ),
    ]
    asides = [
        [
            Turn("user", "How do I tell if a landlord is legit before paying a deposit?"),
            Turn(
                "assistant",
                "Ask for the lease in writing first, check who owns the property in the land "
                "registry, and never pay a deposit in cash.",
            ),
        ]
    ]
    qs = [
        QSpec(
            "single-fact",
            c.one("How much is the rent on my new flat?", f"What rent will I pay in {hood2}?"),
            (t3,),
        ),
        QSpec("single-fact", "Who is helping me with the van when I move?", (t4,)),
        QSpec("temporal", "When do I move into the new flat?", (t3,)),
        QSpec(
            "temporal",
            f"Which neighbourhood was I looking at before {hood2}?",
            (t1,),
        ),
        QSpec("multi-hop", f"What is my {c.rel(p)} helping me with?", ("intro:" + p, t4)),
    ]
    return Story(events, qs, [p], asides, (f"signing the lease in {hood2}", t3))


def launch(c: Ctx, when: list[date]) -> Story:
    boss, helper = c.person(), c.person()
    project, part = c.pick(PROJECTS), c.pick(PROJECT_PARTS)
    d1 = c.later(when[0], 25, 45)
    d2 = c.later(d1, 10, 25)
    reason = c.pick(SLIP_REASONS)
    t1, t2, t3 = c.tag(), c.tag(), c.tag()
    events = [
        Event(
            [
                Turn(
                    "user",
                    f"{boss} put me in charge of the {project} launch. It's due {day_text(d1)}.",
                    t1,
                ),
                _ack(c, f"That's a vote of confidence. What's the scope of {project}?"),
                Turn("user", "A new version of our customer portal, more or less."),
            ],
            f"leading the {project} launch, due {day_text(d1)}",
        ),
        Event(
            [
                Turn("user", f"{project} slipped to {day_text(d2)} because {reason}.", t2),
                _ack(c, "Slips happen; telling people early is what matters."),
            ],
            f"{project} slipping to {day_text(d2)}",
        ),
        Event(
            [
                Turn("user", f"We shipped {project}! {helper} built {part}, huge effort.", t3),
                _ack(c, f"Congratulations to you and {helper}!"),
            ],
            f"shipping {project}, with {helper} building {part}",
        ),
    ]
    asides = [
        [
            Turn("user", f"How do I run a good retro after the {project} launch?"),
            Turn(
                "assistant",
                "Keep it blameless, collect notes before the meeting, and leave with no more "
                "than three actions, each with an owner.",
            ),
        ]
    ]
    qs = [
        QSpec("single-fact", f"Who built {part} for {project}?", (t3,)),
        QSpec("single-fact", f"Why did the {project} launch slip?", (t2,)),
        QSpec("temporal", f"What was the original deadline for {project}?", (t1,)),
        QSpec(
            "temporal",
            c.one(f"When is {project} due after the delay?", f"What is the new {project} date?"),
            (t2,),
        ),
        QSpec(
            "multi-hop",
            f"Which launch did my {c.rel(boss)} put me in charge of?",
            ("intro:" + boss, t1),
        ),
        QSpec(
            "multi-hop",
            f"What did my {c.rel(helper)} build for the launch?",
            ("intro:" + helper, t3),
        ),
    ]
    return Story(events, qs, [boss, helper], asides, (f"shipping {project}", t3))


def dentist(c: Ctx, when: list[date]) -> Story:
    doctor = f"Dr. {c.pick(SURNAMES)}"
    d1 = c.later(when[0], 7, 20)
    d2 = c.later(when[1], 5, 15)
    time1, time2 = clock(c.rng), clock(c.rng)
    procedure = c.pick(PROCEDURES)
    t1, t2, t3 = c.tag(), c.tag(), c.tag()
    events = [
        Event(
            [
                Turn(
                    "user",
                    f"Finally booked a dentist appointment with {doctor} for {day_text(d1)} at "
                    f"{time1}.",
                    t1,
                ),
                _ack(c, "Good, it's been a while. Want a reminder the day before?"),
            ],
            f"a dentist appointment with {doctor} on {day_text(d1)}",
        ),
        Event(
            [
                Turn(
                    "user",
                    f"{doctor}'s office called and moved me to {day_text(d2)} at {time2}.",
                    t2,
                ),
                _ack(c, "Noted the new time."),
            ],
            f"the dentist moving to {day_text(d2)} at {time2}",
        ),
        Event(
            [
                Turn("user", f"Dentist was fine, but I need {procedure} next month.", t3),
                _ack(c, "Better to fix it now than later. Does insurance cover it?"),
                Turn("user", "Mostly, I think."),
            ],
            f"needing {procedure}",
        ),
    ]
    asides = [
        [
            Turn("user", "Is it normal for gums to bleed a bit after a cleaning?"),
            Turn(
                "assistant",
                "A little bleeding for a day or two is common; if it lasts longer, call the "
                "dental office.",
            ),
        ]
    ]
    qs = [
        QSpec(
            "single-fact",
            c.one("What did the dentist say I need?", "What treatment does my tooth need?"),
            (t3,),
        ),
        QSpec("single-fact", "What's my dentist's name?", (t1,)),
        QSpec("temporal", "When is my dentist appointment after it was moved?", (t2,)),
        QSpec("temporal", "What time was my dentist appointment originally?", (t1,)),
    ]
    return Story(events, qs, [], asides, ("the dentist appointment", t2))


def lessons(c: Ctx, when: list[date]) -> Story:
    teacher = c.person()
    instrument = c.pick(INSTRUMENTS)
    day1, day2 = c.rng.sample(WEEKDAYS[:5], 2)
    piece = c.pick(PIECES)
    recital = c.later(when[2], 20, 40)
    t1, t2, t3 = c.tag(), c.tag(), c.tag()
    events = [
        Event(
            [
                Turn(
                    "user",
                    f"I signed up for {instrument} lessons with {teacher}, {day1} evenings.",
                    t1,
                ),
                _ack(c, f"How exciting! Have you played the {instrument} before?"),
                Turn("user", "Only a little as a kid."),
            ],
            f"{instrument} lessons with {teacher} on {day1}s",
        ),
        Event(
            [
                Turn("user", f"{teacher} moved my {instrument} lessons to {day2}s.", t2),
                _ack(c, f"{day2}s might be easier with your work anyway."),
            ],
            f"lessons moving to {day2}s",
        ),
        Event(
            [
                Turn(
                    "user",
                    f"I'm learning {piece} for the recital on {day_text(recital)}.",
                    t3,
                ),
                _ack(c, "That's a beautiful choice. Practise slowly first."),
            ],
            f"learning {piece} for a recital on {day_text(recital)}",
        ),
    ]
    asides = [
        [
            Turn("user", f"How long should I practise {instrument} each day as a beginner?"),
            Turn(
                "assistant",
                "Twenty focused minutes a day beats two hours once a week; end each session "
                "with something you enjoy playing.",
            ),
        ]
    ]
    qs = [
        QSpec("single-fact", f"What piece am I learning for the {instrument} recital?", (t3,)),
        QSpec("single-fact", "When is my recital?", (t3,)),
        QSpec("temporal", f"Which day were my {instrument} lessons before they moved?", (t1,)),
        QSpec("temporal", f"What day are my {instrument} lessons now?", (t2,)),
        QSpec("multi-hop", f"What does my {c.rel(teacher)} teach me?", ("intro:" + teacher, t1)),
    ]
    return Story(events, qs, [teacher], asides, None)


def puppy(c: Ctx, when: list[date]) -> Story:
    p = c.person()
    breed, shelter = c.pick(BREEDS), c.pick(SHELTERS)
    name1, name2 = c.pick(PET_NAMES), c.pick(PET_NAMES)
    vet = f"Dr. {c.pick(SURNAMES)}"
    visit = c.later(when[2], 3, 12)
    t1, t2, t3 = c.tag(), c.tag(), c.tag()
    events = [
        Event(
            [
                Turn(
                    "user",
                    f"We're adopting a {breed} from the {shelter} shelter! Going to call her "
                    f"{name1}.",
                    t1,
                ),
                _ack(c, "A new dog! Do you have a crate and a bed ready?"),
            ],
            f"adopting a {breed} named {name1} from {shelter}",
        ),
        Event(
            [
                Turn(
                    "user",
                    f"Name change: {p} insisted she looks like a {name2}, so {name2} it is.",
                    t2,
                ),
                _ack(c, f"{name2} suits her."),
            ],
            f"the dog renamed {name2} at {p}'s insistence",
        ),
        Event(
            [
                Turn(
                    "user",
                    f"{name2} has her first vet visit with {vet} on {day_text(visit)}.",
                    t3,
                ),
                _ack(c, "Bring any papers the shelter gave you."),
            ],
            f"{name2}'s vet visit with {vet} on {day_text(visit)}",
        ),
    ]
    asides = [
        [
            Turn("user", "How do I crate train a rescue dog?"),
            Turn(
                "assistant",
                "Make the crate the best place in the house: meals and treats inside, door "
                "open at first, and never use it as a punishment.",
            ),
        ]
    ]
    qs = [
        QSpec("single-fact", "What breed is the dog we adopted?", (t1,)),
        QSpec("single-fact", f"Who is {name2}'s vet?", (t3,)),
        QSpec("temporal", "What was our dog going to be called at first?", (t1,)),
        QSpec("temporal", "When is the dog's first vet visit?", (t3,)),
        QSpec(
            "multi-hop",
            f"Which dog name did my {c.rel(p)} insist on?",
            ("intro:" + p, t2),
        ),
    ]
    return Story(events, qs, [p], asides, (f"{name2}'s first vet visit", t3))


def wedding(c: Ctx, when: list[date]) -> Story:
    p = c.person()
    venue1, venue2 = c.pick(VENUES), c.pick(VENUES)
    reason, gift = c.pick(VENUE_REASONS), c.pick(GIFTS)
    day = c.later(when[0], 60, 120)
    t1, t2, t3 = c.tag(), c.tag(), c.tag()
    events = [
        Event(
            [
                Turn(
                    "user",
                    f"{p} is getting married on {day_text(day)}, at {venue1}.",
                    t1,
                ),
                _ack(c, "How wonderful! Are you in the wedding party?"),
                Turn("user", "Just a guest, thankfully."),
            ],
            f"{p}'s wedding at {venue1} on {day_text(day)}",
        ),
        Event(
            [
                Turn("user", f"{p} moved the wedding to {venue2} because {reason}.", t2),
                _ack(c, "Venue changes are stressful; good that they caught it early."),
            ],
            f"{p}'s wedding moving to {venue2}",
        ),
        Event(
            [
                Turn("user", f"I got {p} {gift} as a wedding present.", t3),
                _ack(c, "That's thoughtful, they'll use it for years."),
            ],
            f"{gift} as a present for {p}",
        ),
    ]
    asides = [
        [
            Turn("user", "How much is normal to spend on a wedding gift?"),
            Turn(
                "assistant",
                "It depends on how close you are; many people aim for what they'd spend on a "
                "nice dinner out, more for family.",
            ),
        ]
    ]
    qs = [
        QSpec("single-fact", f"What did I get {p} for the wedding?", (t3,)),
        QSpec("single-fact", f"Why did {p} change the wedding venue?", (t2,)),
        QSpec("temporal", f"When is {p}'s wedding?", (t1,)),
        QSpec("temporal", f"Where was {p}'s wedding going to be before it moved?", (t1,)),
        QSpec("multi-hop", f"Where is my {c.rel(p)}'s wedding now?", ("intro:" + p, t2)),
    ]
    return Story(events, qs, [p], asides, None)


def race(c: Ctx, when: list[date]) -> Story:
    coach = c.person()
    city = c.pick(OWNER_CITIES) if c.rng.random() < 0.5 else c.home
    goal, hurt = c.pick(RACE_GOALS), c.pick(BODY_PARTS)
    day = c.later(when[0], 50, 90)
    weekday = c.rng.choice(WEEKDAYS[:5])
    t1, t2, t3 = c.tag(), c.tag(), c.tag()
    events = [
        Event(
            [
                Turn(
                    "user",
                    f"Signed up for the {city} half marathon on {day_text(day)}. Aiming for "
                    f"{goal}.",
                    t1,
                ),
                _ack(c, "That's a solid goal. How many weeks of training do you have?"),
            ],
            f"the {city} half marathon on {day_text(day)}, goal {goal}",
        ),
        Event(
            [
                Turn(
                    "user",
                    f"I hurt my {hurt} on a long run, so I'm dropping to the 10K instead of "
                    "the half.",
                    t2,
                ),
                _ack(c, "Sensible. Rest it properly before you run again."),
            ],
            f"a {hurt} injury and switching to the 10K",
        ),
        Event(
            [
                Turn(
                    "user",
                    f"{coach} is coaching me now, intervals every {weekday} morning.",
                    t3,
                ),
                _ack(c, "Intervals will help with the 10K pace."),
            ],
            f"{coach} coaching intervals on {weekday}s",
        ),
    ]
    asides = [
        [
            Turn("user", "What should I eat the night before a race?"),
            Turn(
                "assistant",
                "Something familiar and carb-heavy, not too much fibre, and nothing new: race "
                "week is not the time to experiment.",
            ),
        ]
    ]
    qs = [
        QSpec(
            "single-fact",
            c.one("Which injury did I get while training?", "What did I hurt running?"),
            (t2,),
        ),
        QSpec("single-fact", "What finish time was I aiming for in the half marathon?", (t1,)),
        QSpec("temporal", "Which race distance did I sign up for before the injury?", (t1,)),
        QSpec("single-fact", "On which day do I do intervals?", (t3,)),
        QSpec(
            "multi-hop",
            f"What training does my {c.rel(coach)} have me doing?",
            ("intro:" + coach, t3),
        ),
    ]
    return Story(events, qs, [coach], asides, None)


def car(c: Ctx, when: list[date]) -> Story:
    garage1, garage2 = c.pick(GARAGES), c.pick(GARAGES)
    part = c.pick(CAR_PARTS)
    cost1, cost2 = money(c.rng, 600, 1400, 10), money(c.rng, 300, 590, 10)
    day = c.later(when[0], 1, 5)
    t1, t2, t3 = c.tag(), c.tag(), c.tag()
    events = [
        Event(
            [
                Turn(
                    "user",
                    f"The car is making a grinding noise. Taking it to {garage1} on "
                    f"{day_text(day)}.",
                    t1,
                ),
                _ack(c, "Grinding when you brake, or all the time?"),
                Turn("user", "Mostly when braking."),
            ],
            f"the car's grinding noise and {garage1}",
        ),
        Event(
            [
                Turn(
                    "user",
                    f"{garage1} says it's {part}, {cost1} to fix. I'm getting a second quote "
                    f"from {garage2}.",
                    t2,
                ),
                _ack(c, "A second quote is smart for a repair that size."),
            ],
            f"{part} quoted at {cost1} by {garage1}",
        ),
        Event(
            [
                Turn("user", f"Went with {garage2} in the end, paid {cost2} for the repair.", t3),
                _ack(c, "Glad it's sorted, and cheaper too."),
            ],
            f"repairing the car at {garage2} for {cost2}",
        ),
    ]
    asides = [
        [
            Turn("user", "How often should brake fluid be changed?"),
            Turn(
                "assistant",
                "Every two years is the usual advice; the manual for your car has the exact "
                "interval.",
            ),
        ]
    ]
    qs = [
        QSpec(
            "single-fact",
            c.one("What was wrong with my car?", "Which part of the car needed replacing?"),
            (t2,),
        ),
        QSpec("single-fact", "How much did I pay for the car repair?", (t3,)),
        QSpec("temporal", "Which garage did I take the car to first?", (t1,)),
        QSpec("single-fact", f"What did {garage1} quote for the repair?", (t2,)),
    ]
    return Story(events, qs, [], asides, ("the car repair", t3))


def book_club(c: Ctx, when: list[date]) -> Story:
    host, reader = c.person(), c.person()
    book1, book2 = c.pick(BOOKS), c.pick(BOOKS)
    dish = c.pick(DISHES)
    day = c.later(when[0], 20, 35)
    t1, t2, t3 = c.tag(), c.tag(), c.tag()
    events = [
        Event(
            [
                Turn(
                    "user",
                    f"Book club picked {book1} for next month; {host} is hosting on "
                    f"{day_text(day)}.",
                    t1,
                ),
                _ack(c, f"{book1} should give you plenty to talk about."),
            ],
            f"book club reading {book1} at {host}'s on {day_text(day)}",
        ),
        Event(
            [
                Turn(
                    "user",
                    f"We switched to {book2}, because {reader} had already read {book1}.",
                    t2,
                ),
                _ack(c, f"{book2} is a good swap."),
            ],
            f"book club switching to {book2}",
        ),
        Event(
            [
                Turn("user", f"{host} wants everyone to bring {dish} to book club.", t3),
                _ack(c, "Easy enough."),
            ],
            f"bringing {dish} to book club",
        ),
    ]
    asides = [
        [
            Turn("user", "How do I lead a book club discussion without it dying out?"),
            Turn(
                "assistant",
                "Bring three open questions, start with what people felt rather than what "
                "they thought, and let quiet members go first.",
            ),
        ]
    ]
    qs = [
        QSpec("single-fact", "What am I supposed to bring to book club?", (t3,)),
        QSpec("single-fact", "Which book is the book club reading now?", (t2,)),
        QSpec("temporal", "What book did the club pick before switching?", (t1,)),
        QSpec("temporal", "When is the next book club meeting?", (t1,)),
        QSpec(
            "multi-hop",
            f"Which book had my {c.rel(reader)} already read?",
            ("intro:" + reader, t2),
        ),
        QSpec(
            "multi-hop",
            f"On which date is book club at my {c.rel(host)}'s place?",
            ("intro:" + host, t1),
        ),
    ]
    return Story(events, qs, [host, reader], asides, None)


def laptop(c: Ctx, when: list[date]) -> Story:
    model1, model2 = c.pick(LAPTOPS), c.pick(LAPTOPS)
    price = money(c.rng, 900, 2400, 50)
    arrived = c.later(when[2], 0, 2)
    t1, t2, t3 = c.tag(), c.tag(), c.tag()
    events = [
        Event(
            [
                Turn("user", f"I'm going to buy the {model1}, it's {price} right now.", t1),
                _ack(c, f"The {model1} gets good reviews for the screen."),
            ],
            f"planning to buy the {model1} for {price}",
        ),
        Event(
            [
                Turn(
                    "user",
                    f"Switched to the {model2} instead, the battery on the {model1} is "
                    "terrible according to everyone.",
                    t2,
                ),
                _ack(c, "Battery life matters more than people think."),
            ],
            f"choosing the {model2} over the {model1}",
        ),
        Event(
            [
                Turn(
                    "user", f"The {model2} arrived on {day_text(arrived)}, setting it up now.", t3
                ),
                _ack(c, "Enjoy it! Move your files over before you wipe the old one."),
            ],
            f"the {model2} arriving",
        ),
    ]
    asides = [
        [
            Turn("user", "How much RAM do I need in a laptop these days?"),
            Turn(
                "assistant",
                "Sixteen gigabytes is comfortable for most work; go higher if you run virtual "
                "machines or edit video.",
            ),
        ]
    ]
    qs = [
        QSpec(
            "single-fact",
            c.one("Which laptop did I end up buying?", "What computer did I get?"),
            (t2,),
        ),
        QSpec("temporal", "Which laptop was I going to buy before I switched?", (t1,)),
        QSpec("temporal", "When did my new laptop arrive?", (t3,)),
        QSpec("single-fact", f"Why did I decide against the {model1}?", (t2,)),
    ]
    return Story(events, qs, [], asides, ("the new laptop arriving", t3))


def exam(c: Ctx, when: list[date]) -> Story:
    cert, section = c.pick(CERTS), c.pick(SECTIONS)
    d1 = c.later(when[0], 20, 40)
    d2 = c.later(when[1], 20, 40)
    score = c.rng.randint(72, 96)
    t1, t2, t3 = c.tag(), c.tag(), c.tag()
    events = [
        Event(
            [
                Turn("user", f"My {cert} exam is booked for {day_text(d1)}.", t1),
                _ack(c, "Let's make a study plan backwards from that date."),
            ],
            f"the {cert} exam booked for {day_text(d1)}",
        ),
        Event(
            [
                Turn(
                    "user",
                    f"I rescheduled the {cert} exam to {day_text(d2)}; I need more time on "
                    f"the {section} section.",
                    t2,
                ),
                _ack(c, f"Good call. We can focus the next weeks on {section}."),
            ],
            f"moving the {cert} exam to {day_text(d2)} for more {section} practice",
        ),
        Event(
            [
                Turn("user", f"I passed the {cert} exam with {score}%!", t3),
                _ack(c, "Congratulations, all that practice paid off!"),
            ],
            f"passing the {cert} exam with {score}%",
        ),
    ]
    asides = [
        [
            Turn("user", "Any tricks for remembering things the night before an exam?"),
            Turn(
                "assistant",
                "Sleep is the trick: a short review, then bed. Cramming late costs more than "
                "it gains.",
            ),
        ]
    ]
    qs = [
        QSpec("single-fact", f"What score did I get on the {cert} exam?", (t3,)),
        QSpec("single-fact", f"Which section of the {cert} exam did I need more time for?", (t2,)),
        QSpec("temporal", f"When was the {cert} exam originally scheduled?", (t1,)),
        QSpec("temporal", f"What date did I move the {cert} exam to?", (t2,)),
    ]
    return Story(events, qs, [], asides, (f"passing the {cert} exam", t3))


def party(c: Ctx, when: list[date]) -> Story:
    p = c.person()
    venue1, venue2 = c.pick(PARTY_VENUES), c.pick(PARTY_VENUES)
    cake, bakery = c.pick(CAKES), c.pick(BAKERIES)
    age = c.rng.choice([30, 35, 40, 45, 50, 60])
    t1, t2, t3 = c.tag(), c.tag(), c.tag()
    events = [
        Event(
            [
                Turn("user", f"Planning a surprise party for {p}'s {age}th at {venue1}.", t1),
                _ack(c, "Fun! How many people are you inviting?"),
                Turn("user", "About twenty."),
            ],
            f"a surprise party for {p}'s {age}th at {venue1}",
        ),
        Event(
            [
                Turn(
                    "user",
                    f"{venue1} is booked that weekend, so {p}'s party moves to {venue2}.",
                    t2,
                ),
                _ack(c, f"{venue2} could be even better for a surprise."),
            ],
            f"{p}'s party moving to {venue2}",
        ),
        Event(
            [
                Turn("user", f"Ordered a {cake} cake from {bakery} for {p}.", t3),
                _ack(c, "Good choice."),
            ],
            f"a {cake} cake from {bakery}",
        ),
    ]
    asides = [
        [
            Turn("user", "How do I keep a surprise party secret?"),
            Turn(
                "assistant",
                "Tell guests as late as you can, use a group chat the guest of honour isn't "
                "in, and give one trusted person the job of getting them there.",
            ),
        ]
    ]
    qs = [
        QSpec("single-fact", f"What flavour is the cake for {p}'s party?", (t3,)),
        QSpec("single-fact", "Which bakery did I order the cake from?", (t3,)),
        QSpec("temporal", f"Where was {p}'s party going to be before it moved?", (t1,)),
        QSpec("single-fact", f"How old is {p} turning?", (t1,)),
        QSpec(
            "multi-hop", f"Where is the surprise party for my {c.rel(p)} now?", ("intro:" + p, t2)
        ),
    ]
    return Story(events, qs, [p], asides, None)


def kitchen(c: Ctx, when: list[date]) -> Story:
    firm = c.pick(CONTRACTORS)
    tile1, tile2 = c.pick(TILES), c.pick(TILES)
    quote = money(c.rng, 9000, 30000, 500)
    done = c.later(when[2], 14, 40)
    t1, t2, t3 = c.tag(), c.tag(), c.tag()
    events = [
        Event(
            [
                Turn("user", f"Getting the kitchen redone. {firm} quoted {quote}.", t1),
                _ack(c, "Is that with or without appliances?"),
                Turn("user", "Without."),
            ],
            f"a kitchen renovation quoted at {quote} by {firm}",
        ),
        Event(
            [
                Turn(
                    "user",
                    f"We went with {tile2} tiles for the kitchen instead of the {tile1} ones.",
                    t2,
                ),
                _ack(c, f"{tile2.capitalize()} will be easier to keep clean."),
            ],
            f"{tile2} tiles instead of {tile1}",
        ),
        Event(
            [
                Turn("user", f"{firm} says the kitchen will be finished by {day_text(done)}.", t3),
                _ack(c, "Almost there. Eating takeaway until then?"),
            ],
            f"the kitchen finishing by {day_text(done)}",
        ),
    ]
    asides = [
        [
            Turn("user", "How do I survive weeks without a kitchen?"),
            Turn(
                "assistant",
                "Set up a camp corner with a kettle, a microwave and a rice cooker, and plan "
                "simple meals that need one pot.",
            ),
        ]
    ]
    qs = [
        QSpec("single-fact", "How much was the quote for the kitchen?", (t1,)),
        QSpec("single-fact", "Which tiles did we choose for the kitchen?", (t2,)),
        QSpec("temporal", "Which tiles did we want before we changed our minds?", (t2,)),
        QSpec("temporal", "When will the kitchen be finished?", (t3,)),
    ]
    return Story(events, qs, [], asides, ("the kitchen being finished", t3))


STORIES: tuple[StoryMaker, ...] = (
    trip,
    flat,
    launch,
    dentist,
    lessons,
    puppy,
    wedding,
    race,
    car,
    book_club,
    laptop,
    exam,
    party,
    kitchen,
)


# -- talk around the storylines -----------------------------------------------------------------

OPENERS = [
    ("Morning! Quick one before work.", "Morning! What's up?"),
    ("Hey, got a minute?", "Always. What's on your mind?"),
    ("Evening. Long day.", "Sorry to hear. Want to talk it through or just get things done?"),
    ("Hi again.", "Hi! Picking up where we left off?"),
    ("Hello, it's me.", "Hello! How have you been?"),
    ("Back again with a few things.", "Great, let's go through them."),
]
CLOSERS = [
    ("That's all for now, thanks.", "Anytime. Talk soon."),
    ("Okay, heading off.", "Have a good evening!"),
    ("Thanks, that helped.", "Glad to hear it."),
    ("I'll check back later this week.", "Sounds good, I'll be here."),
]
SMALL_TALK = [
    (
        "It's raining again in {home}, I'm staying in tonight.",
        "Good night for a film. Anything on your list?",
    ),
    (
        "I started a new series, it's slow but I like it.",
        "Slow shows can be the best ones. What's it about?",
    ),
    ("Made soup for the whole week on Sunday.", "That's a great habit for busy weeks."),
    (
        "I can't decide what to cook tonight.",
        "Something quick: eggs, greens and whatever bread you have?",
    ),
    (
        "My neighbour's building work starts at seven every day.",
        "That's rough. Earplugs might help.",
    ),
    ("Work was calm for once.", "Enjoy it while it lasts!"),
    (
        "I'm trying to read more before bed instead of scrolling.",
        "Keeping the phone in another room helps a lot.",
    ),
    ("Went for a long walk by the water this morning.", "Sounds like a good start to the day."),
    (
        "{name} sent me a funny video about cats, I can't stop laughing.",
        "Cat videos are undefeated.",
    ),
    (
        "Had coffee with {name} this afternoon, we talked for hours.",
        "Those conversations are the best.",
    ),
    (
        "I've been sleeping badly this week.",
        "Maybe try the same bedtime every night for a few days?",
    ),
    ("The heating in the office is broken again.", "Layers it is. Hope they fix it soon."),
    (
        "I want to learn to cook Thai food properly.",
        "Start with a green curry; it teaches you the balance of flavours.",
    ),
    ("{name} recommended a podcast about history.", "Podcasts are great for commutes."),
    (
        "Thinking about taking a weekend off from everything.",
        "A weekend without plans can reset a lot.",
    ),
    ("My plants are dying, I think I overwater them.", "Let the soil dry out between waterings."),
    ("I finally cleaned out the closet.", "That always feels good afterwards."),
    ("Traffic in {home} was terrible today.", "Podcasts make traffic a little more bearable."),
    (
        "I keep forgetting to drink water during the day.",
        "A bottle on your desk works better than any app.",
    ),
    ("{name} and I played board games all evening.", "Which game won the night?"),
    (
        "Should I get a standing desk?",
        "Alternating sitting and standing is what helps, not standing all day.",
    ),
    ("The weekend went by too fast.", "They always do. Anything nice happen?"),
    (
        "I signed up for a pottery class on a whim, then cancelled.",
        "Maybe another time, when things are calmer.",
    ),
    (
        "Remind me why I ever agreed to run a meeting at eight.",
        "Early meetings are at least short, usually.",
    ),
]
ASSISTANT_TAILS = [
    " Let me know if you want me to keep track of anything.",
    " I can remind you closer to the date.",
    " Tell me how it goes.",
    "",
    "",
    "",
]
INTROS = [
    "My {rel} {name} is {job}, and lately has been really into {hobby}.",
    "{name}, my {rel}, works as {job}; we mostly talk about {hobby}.",
    "You haven't heard about my {rel} yet: {name}, {job}, obsessed with {hobby}.",
]
NO_ANSWER = [
    "What is the name of {name}'s cat?",
    "When is {name}'s graduation ceremony?",
    "Which hotel did I book in {city}?",
    "What time is {name}'s flight to {city}?",
    "How much did {name} pay for the new car?",
    "What did the doctor prescribe for {name}'s allergy?",
    "Which restaurant did {name} recommend in {city}?",
    "What did I decide about the garden fence?",
    "When is my eye exam?",
    "How much is my gym membership?",
    "What is the wifi password at the new flat?",
    "Which insurance company did I switch to?",
]


# -- assembling one conversation ----------------------------------------------------------------


@dataclass
class Block:
    turns: list[Turn]
    label: str | None = None


def _conversation(seed: int, index: int) -> tuple[Conversation, list[Question]]:
    rng = random.Random(f"{seed}:{index}")
    owner = rng.choice(NAMES)
    home = rng.choice(OWNER_CITIES)
    others = rng.sample([n for n in NAMES if n != owner], len(RELATIONS))
    cast = dict(zip(others, rng.sample(RELATIONS, len(RELATIONS)), strict=True))
    c = Ctx(rng, owner, home, cast, used={owner, home})
    n_sessions = rng.randint(14, 16)
    start = date(2025, 1, 6) + timedelta(days=rng.randint(0, 120))
    days = [start]
    for _ in range(n_sessions - 1):
        days.append(days[-1] + timedelta(days=rng.randint(3, 12)))

    blocks: list[list[Block]] = [[] for _ in range(n_sessions)]
    questions: list[QSpec] = []
    endings: list[tuple[str, str, int]] = []
    first_use: dict[str, int] = {}
    for maker in rng.sample(STORIES, 10):
        first = rng.randint(1, n_sessions - 5)
        second = rng.randint(first + 1, n_sessions - 3)
        third = rng.randint(second + 1, n_sessions - 1)
        where = [first, second, third]
        story = maker(c, [days[s] for s in where])
        for session, event in zip(where, story.events, strict=True):
            blocks[session].append(Block(event.turns, event.label))
        for aside in story.asides:
            blocks[rng.randint(first, n_sessions - 1)].append(Block(aside))
        for person in story.people:
            first_use[person] = min(first_use.get(person, first), first)
        questions += story.questions
        if story.ending:
            endings.append((*story.ending, third))

    intro_tags: dict[str, Turn] = {}
    for person, first in first_use.items():
        job, hobby = rng.choice(JOBS), rng.choice(HOBBIES)
        text = rng.choice(INTROS).format(rel=cast[person], name=person, job=job, hobby=hobby)
        turn = Turn("user", text[0].upper() + text[1:], "intro:" + person)
        intro_tags[person] = turn
        questions.append(
            QSpec("single-fact", f"What does my {cast[person]} do for a living?", (turn.tag or "",))
        )
        blocks[rng.randint(0, first - 1)].append(
            Block(
                [turn, Turn("assistant", f"{person} sounds interesting! Good to know.")],
                f"{owner}'s {cast[person]} {person}, {job}",
            )
        )

    rng.shuffle(endings)
    for (a, ta, sa), (b, tb, sb) in zip(endings[0::2], endings[1::2], strict=False):
        if sa != sb:
            questions.append(QSpec("temporal", f"Which came first, {a} or {b}?", (ta, tb)))

    conv_id = f"conv{index + 1:02d}"
    sessions, keys = _place(c, conv_id, days, blocks)
    missing = QUOTA["no-answer"]
    named = [p for p in cast if p not in first_use] or list(cast)
    fills = {"name": rng.choice(named), "city": c.pick(CITIES)}
    questions += [QSpec("no-answer", t.format(**fills), ()) for t in rng.sample(NO_ANSWER, missing)]
    chosen: list[QSpec] = []
    for cls in CLASSES:
        pool = [q for q in questions if q.cls == cls and all(t in keys for t in q.tags)]
        chosen += rng.sample(pool, min(QUOTA[cls], len(pool)))
    return (
        Conversation(conv_id, owner, sessions),
        [
            Question(
                f"{conv_id}-q{n:02d}",
                conv_id,
                q.cls,
                q.text,
                tuple(sorted({keys[t] for t in q.tags}, key=_key_order)),
            )
            for n, q in enumerate(chosen, start=1)
        ],
    )


def _key_order(key: str) -> tuple[str, int]:
    session, _, n = key.rpartition("#")
    return session, int(n)


def _place(
    c: Ctx, conv_id: str, days: list[date], blocks: list[list[Block]]
) -> tuple[list[Session], dict[str, str]]:
    """Lay each session's blocks out as messages; returns the sessions and tag -> message key."""
    rng = c.rng
    keys: dict[str, str] = {}
    sessions: list[Session] = []
    total_target = MIN_MESSAGES + rng.randint(5, 40)
    for s, day in enumerate(days):
        middle = list(blocks[s])
        rng.shuffle(middle)
        target = rng.randint(20, 26)
        remaining = len(days) - s
        so_far = sum(len(x.messages) for x in sessions)
        target = max(target, -(-(total_target - so_far) // remaining))
        filler = list(SMALL_TALK)
        rng.shuffle(filler)
        opener, closer = rng.choice(OPENERS), rng.choice(CLOSERS)
        size = 4 + sum(len(b.turns) for b in middle)
        while size < target and filler:
            user, bot = filler.pop()
            fill = {"home": c.home, "name": rng.choice(list(c.cast))}
            middle.insert(
                rng.randint(0, len(middle)),
                Block([Turn("user", user.format(**fill)), Turn("assistant", bot.format(**fill))]),
            )
            size += 2
        turns = [Turn("user", opener[0]), Turn("assistant", opener[1])]
        for block in middle:
            turns += block.turns
        turns += [Turn("user", closer[0]), Turn("assistant", closer[1])]
        session_id = f"{conv_id}-s{s + 1:02d}"
        at = datetime(
            day.year,
            day.month,
            day.day,
            rng.randint(7, 20),
            rng.randint(0, 59),
            tzinfo=UTC,
        )
        messages = []
        for n, turn in enumerate(turns, start=1):
            key = f"{session_id}#{n}"
            text = turn.text
            if turn.role == "assistant" and turn.tag is None:
                text += rng.choice(ASSISTANT_TAILS)
            messages.append(Message(key, turn.role, text, at.isoformat()))
            if turn.tag:
                keys[turn.tag] = key
            at += timedelta(seconds=rng.randint(20, 300))
        labels = [b.label for b in blocks[s] if b.label]
        summary = (
            f"{c.owner} and the assistant talked about " + "; ".join(labels) + "."
            if labels
            else f"{c.owner} and the assistant made small talk."
        )
        sessions.append(Session(session_id, summary, at.isoformat(), messages))
    return sessions, keys


def generate(seed: int = SEED, conversations: int = CONVERSATIONS) -> LabelledSet:
    """The labelled set for `seed`: the same on every run and machine."""
    convs: list[Conversation] = []
    questions: list[Question] = []
    for index in range(conversations):
        conv, qs = _conversation(seed, index)
        convs.append(conv)
        questions += qs
    return LabelledSet(seed, convs, questions)


def problems(labelled: LabelledSet) -> list[str]:
    """What is wrong with a set (empty when it is well-formed)."""
    found: list[str] = []
    keys: dict[str, str] = {}
    for conv in labelled.conversations:
        if conv.message_count < MIN_MESSAGES:
            found.append(f"{conv.conversation_id}: {conv.message_count} messages")
        for session in conv.sessions:
            previous = None
            for n, message in enumerate(session.messages, start=1):
                if message.key != f"{session.session_id}#{n}":
                    found.append(f"{message.key}: out of sequence")
                if previous is not None and message.created_at <= previous:
                    found.append(f"{message.key}: not after the previous message")
                previous = message.created_at
                keys[message.key] = conv.conversation_id
    for q in labelled.questions:
        if q.cls not in CLASSES:
            found.append(f"{q.qid}: unknown class {q.cls!r}")
        if (q.cls == "no-answer") != (not q.evidence):
            found.append(f"{q.qid}: evidence does not fit its class")
        if any(keys.get(k) != q.conversation_id for k in q.evidence):
            found.append(f"{q.qid}: evidence outside its conversation")
        if q.cls == "multi-hop" and len({k.rpartition("#")[0] for k in q.evidence}) < 2:
            found.append(f"{q.qid}: multi-hop evidence in one session")
    return found


def read_manifest(path: Path = MANIFEST) -> dict[str, object]:
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def manifest_of(labelled: LabelledSet) -> dict[str, object]:
    counts = {cls: sum(q.cls == cls for q in labelled.questions) for cls in CLASSES}
    return {
        "seed": labelled.seed,
        "conversations": len(labelled.conversations),
        "sessions": sum(len(c.sessions) for c in labelled.conversations),
        "messages": sum(c.message_count for c in labelled.conversations),
        "questions": counts,
        "sha256": labelled.checksum(),
    }


def load_checked(path: Path = MANIFEST) -> LabelledSet:
    """The set the manifest names; ValueError when the generator no longer makes it."""
    manifest = read_manifest(path)
    labelled = generate(int(str(manifest["seed"])), int(str(manifest["conversations"])))
    if labelled.checksum() != manifest["sha256"]:
        raise ValueError(
            "the generated retrieval set differs from tests/retrieval/manifest.json; if the "
            "change is deliberate, run: python -m scripts.evals.retrieval_set --write-manifest"
        )
    return labelled
