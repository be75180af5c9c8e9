"""What one message says, for the rules extractor: an ordered list of findings.

Everything here is stateless: `analyse` turns a message's text into decisions, actions,
completions, preferences and entity mentions in the order they occur, and `rules.py` folds
them into an `Extraction`. The patterns are deliberately conservative: bots filter sessions by
these facts, so a missed decision costs less than an invented one. Questions, conditionals and
hedged sentences ("maybe we could use X") therefore yield no decisions or actions.

Cost is bounded: only the first `MAX_ANALYSED_CHARS` of a message are read, and every pattern
captures at most a few hundred characters after its trigger.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from archivist.models import EntityType

MAX_ANALYSED_CHARS = 20_000
MAX_PHRASE_CHARS = 200
DECISION_WORDS = 12
ACTION_WORDS = 14
REQUEST_CHARS = 200


@dataclass(frozen=True)
class DecisionHit:
    text: str
    domain: str | None


@dataclass(frozen=True)
class ActionHit:
    text: str
    outcome: Literal["planned", "done"]


@dataclass(frozen=True)
class Completion:
    """Completion language: `text` as said, `stems` to match it against planned actions."""

    text: str
    stems: frozenset[str]


@dataclass(frozen=True)
class PreferenceHit:
    text: str


@dataclass(frozen=True)
class EntityHit:
    type: EntityType
    name: str


Finding = DecisionHit | ActionHit | Completion | PreferenceHit | EntityHit


@dataclass(frozen=True)
class Analysis:
    """A message's findings in text order, and its conversational sentences (for topics)."""

    findings: list[Finding]
    sentences: list[str]


# --- vocabulary ---


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


FUNCTION_WORDS = _words(
    """a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't down during each few for from further had hadn't has hasn't have haven't
    having he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll
    i'm i've if in into is isn't it it's its itself let's lets let me more most my myself no nor
    not of off on once only or other ought our ours ourselves out over own same she should
    shouldn't so some such than that that's the their theirs them themselves then there there's
    these they they'd they'll they're they've this those through to too under until up very was
    wasn't we we'd we'll we're we've were weren't what what's when where which while who whom
    why will with won't would wouldn't you you'd you'll you're you've your yours yourself
    yourselves also just via per etc vs yet still already ever every much many lot lots anything
    something nothing everything someone anyone everyone either neither whether though although
    since unless upon within without across along around among toward towards onto instead
    rather quite really maybe perhaps probably actually basically gonna wanna gotta ok okay yes
    yeah yep no nope hey hi hello thanks thank please sure right well oh ah hmm"""
)
CHAT_WORDS = _words(
    """one two three four five first second third last next new old thing things way ways time
    times day days week weeks month today tomorrow tonight yesterday now later soon bit kind sort
    part point idea ideas question questions answer help works working worked work use used uses
    using try tried trying set add added adding run running ran check checked checking keep start
    started done doing said say says tell told ask asked mean means seems seem feel feels guess
    hope wait makes make making made sense happy glad sorry better best worse bad big small little
    easy hard simple quick quickly fast slow able true false real exactly definitely totally pretty
    enough else another stuff alright agreed sounds sound let plan step steps option options
    choice decide decided decision agree prefer love hate want wanted wants need needed needs
    must might may can gonna note get got gets getting go going goes went gone take takes took
    think thinks know knows see look looks like likes cool great good nice awesome perfect fine
    jarvis assistant user look good looks thing yeah anyway let's i'll we'll you'll here's
    that's it's there's what's don't doesn't didn't isn't won't can't i've we've you've i'm
    you're we're they're should've would've lol thx btw also sounds around hour hours
    minute minutes seconds call calls people person case cases number end side"""
)
TOPIC_STOPWORDS = FUNCTION_WORDS | CHAT_WORDS
VAGUE = _words(
    """it that this them those these one so too now then there here up out again later soon
    today tomorrow tonight something things stuff more all everything anything away over done
    ok okay first next thing on off in back a an the to for with and or of at by from is are be
    me you us him her i we my our your just also right"""
)
CHATTER_VERBS = _words(
    """know think explain clarify summarize summarise recap rephrase elaborate be help see walk
    break repeat answer guess say note mention outline describe suggest recommend assume admit
    remember pass wait let take hope bet get have continue stay begin need want try circle
    talk discuss chat brainstorm not never go do"""
)
COMMON_VERBS = _words(
    """keep use move switch add set run deploy drop remove ship make create update write put
    leave migrate connect send book check test fix open close review merge push draft schedule
    email call ask ping rotate backfill document plan install configure enable disable upgrade
    build delete replace rename invite share reserve hold buy pay order print pack rent cancel
    confirm land load flip log watch wire start stop revert"""
)
NOT_PREFERENCE = _words(
    """know think worry understand see have get remember mind want need care forget really even
    like feel believe mean recall quite bother hesitate panic stress sweat hate love"""
)
GENERIC_NAMES = _words(
    """new old main mobile web ios android desktop whole same other current first second last
    demo test testing tests sample internal public private admin side front back staging
    production prod dev development local entire existing original next previous final live real
    actual booking weather todo chat notes note photo travel banking fitness company team personal
    shared legacy marketing landing static rest api backend frontend data analytics auth payment
    payments billing search email notification notifications user users customer customers
    pipeline cron worker workers management manager plan planning structure root folder directory
    setup settings config configuration file files board scope timeline status update updates
    goals goal lead deadline budget work name page pages docs documentation overview description
    requirements kickoff meeting code level template dependencies key url proposal brief report
    owner members lifecycle state context history source build release open big small simple
    basic core pet school class group research thesis home family trip holiday vacation wedding
    party birthday garden kitchen house renovation free paid pro beta alpha mvp prototype external
    client server ui ux design companion only every each any whole several few various specific
    entire overall dashboard site website service app repo codebase monorepo bot extension cli
    project projects company's team's existing underlying relevant same different"""
)
NOT_NAMES = _words(
    """monday tuesday wednesday thursday friday saturday sunday january february march april may
    june july august september october november december today tomorrow tonight everyone
    everybody someone somebody anyone anybody nobody team support them him her us you me it the
    this that jarvis assistant bot google siri alexa chatgpt claude gpt hey hi hello and or please
    about when what why how for to with a an i if all both legal sales marketing finance hr ops
    engineering design product security dev devops mom dad mum there here back later again now
    then yes no thanks our my your their his its next last these those each every any some first
    second new old also just still either neither soon immediately"""
)
NOT_HANDLES = _words(
    """here channel everyone all property dataclass staticmethod classmethod pytest app override
    param returns return types media import keyframes font decorator mention tailwind apply layer
    cache fixture mark router api get post route user users"""
)
GITHUB_PAGES = _words(
    """orgs settings features about marketplace topics explore login sponsors pricing enterprise
    notifications issues pulls search trending collections apps site security readme team join"""
)
_COMPLETION_GENERIC = _words(
    "done live finished finish complete completed sorted place running now all everything "
    "officially finally already just"
)
DOMAINS: dict[str, str] = {
    **dict.fromkeys(["deploy", "deploys", "deployment", "deploying", "hosting"], "deployment"),
    **dict.fromkeys(["cache", "caching", "cached", "ttl", "eviction"], "caching"),
    **dict.fromkeys(["auth", "oauth", "login", "token", "tokens", "sso", "jwt", "refresh"], "auth"),
    **dict.fromkeys(["database", "db", "schema", "migration", "migrations", "index"], "database"),
    **dict.fromkeys(
        ["pipeline", "etl", "ingestion", "warehouse", "backfill", "dag", "orchestration"], "data"
    ),
    **dict.fromkeys(["monitoring", "alerting", "alerts", "logging", "observability"], "monitoring"),
    **dict.fromkeys(["payment", "payments", "billing", "checkout", "invoice"], "payments"),
    **dict.fromkeys(["frontend", "ui", "css"], "frontend"),
    **dict.fromkeys(["backend", "api", "endpoint"], "backend"),
    **dict.fromkeys(["ci", "tests", "testing"], "testing"),
    **dict.fromkeys(["trip", "flight", "flights", "hotel", "itinerary", "travel"], "travel"),
    **dict.fromkeys(["budget", "cost", "costs", "pricing"], "budget"),
    **dict.fromkeys(["security", "secrets", "encryption"], "security"),
}
GREETING = re.compile(
    r"^(?:hi|hey|hello|yo|hiya|good (?:morning|afternoon|evening)|morning|thanks|thank you"
    r"|ok(?:ay)?|cool|great)\b[\s\w,!.']{0,20}$",
    re.I,
)
_TOKEN = re.compile(r"[a-z0-9][a-z0-9+#.'-]*")


def tokens(text: str) -> list[str]:
    """Lowercase word tokens, without trailing punctuation or possessive `'s`."""
    found = (t.rstrip(".'-").removesuffix("'s") for t in _TOKEN.findall(text.lower()))
    return [t for t in found if t]


_NOT_PROSE = re.compile(r"[/@\\]|\.(?:com|org|io|dev|app|net)\b")
_CLAUSE_BREAK = re.compile(r"[,;:()\[\]\"!?]|\s[-\u2013\u2014]+\s|\u2014|\.(?:\s|$)")


def topic_clauses(sentence: str) -> list[list[str]]:
    """Tokens of each clause of a sentence, without URLs, paths, repos and mentions."""
    prose = " ".join(w for w in sentence.split() if not _NOT_PROSE.search(w))
    return [tokens(part) for part in _CLAUSE_BREAK.split(prose)]


def domain_of(text: str) -> str | None:
    """The broad area a sentence is about ("deployment", "auth", ...), from its first keyword."""
    return next((DOMAINS[t] for t in tokens(text) if t in DOMAINS), None)


def stem(word: str) -> str:
    """A crude stem so that "deploy", "deployed" and "deploys" compare equal."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) >= 3 and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]
    return word


def content_stems(text: str) -> frozenset[str]:
    """Stems of the words that carry meaning, for matching a completion to a planned action."""
    ignored = FUNCTION_WORDS | VAGUE | _COMPLETION_GENERIC
    return frozenset(stem(t) for t in tokens(text) if t not in ignored)


@dataclass(frozen=True)
class KnownName:
    """A well-known tool, product or organisation. Case-sensitive entries are common words too
    ("Slack", "Notion"), so they only count when written with their capitals."""

    name: str
    type: EntityType
    aliases: tuple[str, ...]
    case_sensitive: bool = False


def _known(name: str, kind: EntityType, *aliases: str, cs: bool = False) -> KnownName:
    return KnownName(name, kind, aliases or (name.lower(),), cs)


KNOWN_NAMES: tuple[KnownName, ...] = (
    _known("Vercel", "tool"),
    _known("Netlify", "tool"),
    _known("Supabase", "tool"),
    _known("Postgres", "tool", "postgres", "postgresql"),
    _known("MySQL", "tool"),
    _known("SQLite", "tool", "sqlite", "sqlite3"),
    _known("MongoDB", "tool", "mongodb", "mongo"),
    _known("Redis", "tool"),
    _known("Memcached", "tool", "memcached", "memcache"),
    _known("Elasticsearch", "tool"),
    _known("Kafka", "tool"),
    _known("RabbitMQ", "tool"),
    _known("Docker", "tool", "docker", "docker compose", "docker-compose"),
    _known("Kubernetes", "tool", "kubernetes", "k8s"),
    _known("Terraform", "tool"),
    _known("GitHub Actions", "tool"),
    _known("GitHub", "tool"),
    _known("GitLab", "tool"),
    _known("CircleCI", "tool"),
    _known("Jenkins", "tool"),
    _known("AWS", "tool", "aws", "amazon web services"),
    _known("Amazon S3", "tool", "s3", "amazon s3", "aws s3"),
    _known("AWS Lambda", "tool", "aws lambda"),
    _known("AWS Lambda", "tool", "Lambda", cs=True),
    _known("Google Cloud", "tool", "google cloud", "gcp"),
    _known("Azure", "tool"),
    _known("Cloudflare", "tool", "cloudflare", "cloudflare workers"),
    _known("Heroku", "tool"),
    _known("Fly.io", "tool"),
    _known("Railway", "tool", "Railway", cs=True),
    _known("DigitalOcean", "tool", "digitalocean", "digital ocean"),
    _known("Ollama", "tool"),
    _known("pgvector", "tool"),
    _known("Stripe", "tool"),
    _known("Twilio", "tool"),
    _known("SendGrid", "tool"),
    _known("Slack", "tool", "Slack", cs=True),
    _known("Discord", "tool"),
    _known("Notion", "tool", "Notion", cs=True),
    _known("Linear", "tool", "Linear", cs=True),
    _known("Jira", "tool"),
    _known("Figma", "tool"),
    _known("React", "tool", "React", "React.js", "ReactJS", cs=True),
    _known("Next.js", "tool", "next.js", "nextjs"),
    _known("Vue", "tool", "vue", "vue.js", "vuejs"),
    _known("Svelte", "tool", "svelte", "sveltekit"),
    _known("Angular", "tool", "Angular", cs=True),
    _known("Tailwind", "tool", "tailwind", "tailwind css", "tailwindcss"),
    _known("TypeScript", "tool"),
    _known("JavaScript", "tool"),
    _known("Python", "tool", "python", "python3"),
    _known("Node.js", "tool", "node.js", "nodejs"),
    _known("Node.js", "tool", "Node", cs=True),
    _known("Deno", "tool"),
    _known("Express", "tool", "Express", "Express.js", cs=True),
    _known("Vite", "tool"),
    _known("Rust", "tool", "Rust", cs=True),
    _known("Django", "tool"),
    _known("Flask", "tool", "Flask", cs=True),
    _known("FastAPI", "tool"),
    _known("Ruby on Rails", "tool", "ruby on rails"),
    _known("Ruby on Rails", "tool", "Rails", cs=True),
    _known("Sentry", "tool"),
    _known("Grafana", "tool"),
    _known("Prometheus", "tool"),
    _known("Datadog", "tool"),
    _known("PagerDuty", "tool"),
    _known("Airflow", "tool", "airflow", "apache airflow"),
    _known("Fivetran", "tool"),
    _known("Airbyte", "tool"),
    _known("dbt", "tool"),
    _known("Snowflake", "tool", "Snowflake", cs=True),
    _known("BigQuery", "tool"),
    _known("DuckDB", "tool"),
    _known("Apache Spark", "tool", "apache spark", "pyspark"),
    _known("Apache Spark", "tool", "Spark", cs=True),
    _known("pandas", "tool"),
    _known("Auth0", "tool"),
    _known("Okta", "tool"),
    _known("Firebase", "tool"),
    _known("Prisma", "tool"),
    _known("GraphQL", "tool"),
    _known("nginx", "tool"),
    _known("Celery", "tool", "Celery", cs=True),
    _known("Ansible", "tool"),
    _known("Playwright", "tool"),
    _known("pytest", "tool"),
    _known("VS Code", "tool", "vs code", "vscode"),
    _known("npm", "tool"),
    _known("OpenAI", "org"),
    _known("Anthropic", "org"),
    _known("Microsoft", "org"),
    _known("ChatGPT", "product"),
    _known("Gmail", "product"),
    _known("Google Calendar", "product", "google calendar", "gcal"),
    _known("Google Maps", "product"),
    _known("Google Flights", "product"),
    _known("Airbnb", "product"),
    _known("Booking.com", "product"),
    _known("Uber", "product"),
    _known("Spotify", "product"),
    _known("Trello", "product"),
    _known("Zoom", "product", "Zoom", cs=True),
    _known("WhatsApp", "product"),
    _known("Dropbox", "product"),
    _known("1Password", "product"),
)
_KNOWN_BY_ALIAS: dict[str, list[KnownName]] = {}
for _entry in KNOWN_NAMES:
    for _alias in _entry.aliases:
        _KNOWN_BY_ALIAS.setdefault(_alias.lower(), []).append(_entry)
KNOWN_ALIASES = frozenset(_KNOWN_BY_ALIAS)
KNOWN_RE = re.compile(
    r"(?<![\w.@/#-])("
    + "|".join(re.escape(a) for a in sorted(KNOWN_ALIASES, key=lambda a: (-len(a), a)))
    + r")(?![\w@/-]|\.\w)",
    re.I,
)


def known_name(text: str) -> KnownName | None:
    """The gazetteer entry `text` names, respecting case-sensitive entries."""
    entries = _KNOWN_BY_ALIAS.get(text.lower(), [])
    return next((e for e in entries if not e.case_sensitive or text in e.aliases), None)


# --- text preparation ---

_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029]")
_FENCED = re.compile(r"```.*?```", re.S)
_EMPHASIS = re.compile(r"\*\*|__|~~|`")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
_SENTENCE_BREAK = re.compile(r"(?<=[.!?\u2026])\s+")
_LINE_PREFIX = re.compile(r"^(?:>+\s*|#{1,6}\s+)")
_LIST_ITEM = re.compile(r"^(?:[-*\u2022+]|\d{1,2}[.)])\s+(?P<body>\S.*)$")
_CHECKBOX = re.compile(r"^(?:[-*+]\s+)?\[(?P<mark>[ xX])\]\s+(?P<body>\S.*)$")
_LIST_HEADER = re.compile(
    r"^(?=.{1,60}$)(?!.*\b(?:problems?|issues?|risks?|concerns?|questions?|pros|cons)\b)"
    r"(?:#{1,6}\s*)?(?:.*\b)?(?:plan|next steps?|next up|to-?dos?|to do|action items?|tasks?"
    r"|checklist|follow[- ]?ups?|remaining (?:work|items|steps))\b[^:]*(?::|(?<=\w))$",
    re.I,
)


def clean_text(text: str) -> str:
    """`text` cut to the analysed length, with control characters and surrogates blanked."""
    return _CONTROL.sub(" ", text[:MAX_ANALYSED_CHARS]).translate(_QUOTES)


def prepare(text: str) -> str:
    """The prose of a message: cleaned, without fenced code blocks and markdown emphasis."""
    return _EMPHASIS.sub("", _FENCED.sub("\n", clean_text(text)))


def split_sentences(text: str) -> list[str]:
    return [s for s in (p.strip() for p in _SENTENCE_BREAK.split(text)) if s]


def _units(text: str) -> Iterator[tuple[str, Literal["planned", "done"] | None]]:
    """Sentences of the prose, each with the outcome it has when it is an item of a task list.

    A list directly under a header such as "Next steps:" or "TODO:" is a list of planned
    actions; markdown checkboxes are actions whatever precedes them.
    """
    in_list = seen_item = False
    for raw in text.split("\n"):
        line = raw.strip()
        if not line:
            in_list = in_list and not seen_item
            continue
        box = _CHECKBOX.match(line)
        item = _LIST_ITEM.match(line)
        if box:
            yield box.group("body"), "planned" if box.group("mark") == " " else "done"
        elif item and in_list:
            seen_item = True
            yield item.group("body"), "planned"
        elif _LIST_HEADER.match(line):
            in_list, seen_item = True, False
        else:
            in_list = False
            body = _LINE_PREFIX.sub("", item.group("body") if item else line)
            for sentence in split_sentences(body):
                yield sentence, None


def units(text: str) -> list[tuple[str, Literal["planned", "done"] | None]]:
    """The sentences of a message's prose, each with its task-list outcome (see `_units`)."""
    return list(_units(prepare(text)))


# --- phrases ---

_CUT = re.compile(
    r"[;!?()\[\]{}\"]|[,:](?=\s|$)|\.(?=\s|$)|\s[\u2014\u2013-]+\s|\u2014"
    r"|\s(?:because|since|so that|so|but|though|although|unless|while|whereas|which"
    r"|otherwise|if|when|once|except)\b"
    r"|\s(?:and|or)\s+(?:i|we|you|let'?s|let us|then|also|maybe|it|that|this)\b"
    r"|\sthen\b",
    re.I,
)
_TRAILING = re.compile(
    r"(?:\s+(?:then|please|i think|i guess|i suppose|ok|okay|anyway|for sure|right|yeah|too"
    r"|as well|the|a|an|and|or|to|for|with|of|in|on|at|by|from|is|are|be|so|but|my|our|your))+$",
    re.I,
)
_FILLER = re.compile(
    r"^(?:(?:ok(?:ay)?|alright|all right|sure|great|cool|perfect|yes|yeah|yep|yup|right|fine"
    r"|good|nice|awesome|excellent|sounds good|got it|thanks|thank you|so|then|and|but|also"
    r"|well|hmm+|oh|ah|makes sense|in that case|honestly|anyway|understood)\b[\s,.!:;\u2014-]*)+",
    re.I,
)
_ACTION_LEAD = re.compile(
    r"^(?:(?:just|also|then|now|first|quickly|probably|definitely|actually|still|go ahead and"
    r"|need to|have to|try to|try and|want to|get to|be sure to|start by)\s+)+",
    re.I,
)


def clause(text: str) -> str:
    """`text` up to the end of its clause (punctuation, a conjunction, a new subject)."""
    cut = _CUT.search(text)
    return text[: cut.start()] if cut else text


_COORDINATED = re.compile(
    r"\s+and\s+(?:also\s+)?(?=(?:" + "|".join(sorted(COMMON_VERBS)) + r")\b)", re.I
)


def coordinated(text: str) -> list[str]:
    """A clause split where "and" starts a new verb phrase: "add X and keep Y" -> both."""
    return _COORDINATED.split(text)


def tidy(text: str, max_words: int, *, capital: bool = True) -> str:
    """A clause as a short phrase: capped in words and characters, without trailing filler."""
    phrase = " ".join(text.split()[:max_words])
    phrase = _TRAILING.sub("", " " + phrase).strip(" '\"*.,")[:MAX_PHRASE_CHARS].strip()
    return phrase[:1].upper() + phrase[1:] if capital else phrase


def strip_fillers(sentence: str) -> str:
    return _FILLER.sub("", sentence.strip())


def has_substance(phrase: str) -> bool:
    """At least two words, and something after the first one that is not a pronoun or filler."""
    parts = [w.strip(".,'\"").lower() for w in phrase.split()]
    return len(parts) >= 2 and any(w and w not in VAGUE for w in parts[1:])


def request_phrase(text: str) -> str:
    """What a message asks, for a summary: its first non-greeting sentences, at most 200 chars."""
    sentences = split_sentences(" ".join(prepare(text).split()))
    wanted = [s for s in sentences if not GREETING.match(s)] or sentences
    phrase = ""
    for sentence in wanted:
        phrase = f"{phrase} {sentence}".strip()
        if len(phrase) >= 40:
            break
    phrase = phrase or " ".join(clean_text(text).split())
    if len(phrase) > REQUEST_CHARS:
        phrase = phrase[:REQUEST_CHARS].rsplit(" ", 1)[0] + "\u2026"
    return phrase.replace('"', "'")


# --- sentence guards ---

_TAG_QUESTION = re.compile(
    r"[,\s](?:ok|okay|right|yeah|yes|agreed|alright|sounds? good|cool|deal)\s*\?+\s*$", re.I
)
_QUESTION_START = re.compile(
    r"^(?:should|shall|could|would|can|what|which|how|why|whether|where|who|does|did"
    r"|do you think|any (?:thoughts|ideas|suggestions)|is it|are we|are you)\b",
    re.I,
)
_CONDITIONAL = re.compile(r"\b(?:if|whether|unless|what if|suppose|supposing|in case)\b", re.I)
_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|might|could|would|should|considering|consider|thinking about|not|never"
    r"|wondering|option|alternatively|or|unsure)\b|n't\b",
    re.I,
)
_NOT_YET = re.compile(
    r"\b(?:if|when|once|after|before|until|unless|whether|hope|hopefully|not|never|yet|will"
    r"|should|need to|going to)\b|n't\b",
    re.I,
)


def is_question(sentence: str) -> bool:
    text = sentence.rstrip()
    if text.endswith("?") and not _TAG_QUESTION.search(text):
        return True
    return bool(_QUESTION_START.match(strip_fillers(text)))


def _clause_before(text: str, end: int) -> str:
    """The part of the clause that precedes position `end` (at most 200 chars back)."""
    before = text[max(0, end - 200) : end]
    return re.split(r"[,;:]\s", before)[-1]


def _hedged(text: str, start: int) -> bool:
    """A conditional anywhere before `start`, or a hedge or negation in the same clause."""
    return bool(
        _CONDITIONAL.search(text[max(0, start - 300) : start])
        or _HEDGE.search(_clause_before(text, start))
    )


# --- decisions ---

_OBJ = r"(?P<obj>\S.{0,400})"
_CHOICE = (
    r"use|go with|go for|pick|choose|adopt|stick with|stay with|switch(?: over)? to|move to"
    r"|migrate to|standardi[sz]e on|settle on|drop|replace|ditch"
)
_VERB_BASE = {
    "going with": "go with",
    "sticking with": "stick with",
    "switching to": "switch to",
    "switching over to": "switch to",
    "switch over to": "switch to",
    "switched to": "switch to",
    "switched over to": "switch to",
    "migrated to": "migrate to",
    "migrating to": "migrate to",
    "moving to": "move to",
}


_DECISIONS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, re.I)
    for pattern in (
        rf"\b(?:let's|lets|let us)\s+(?:just\s+|definitely\s+|go ahead and\s+)?"
        rf"(?P<neg>not\s+)?(?P<verb>{_CHOICE})\s+{_OBJ}",
        r"\bwe(?:'ll|\s+will|'re going to|\s+are going to|\s+shall)\s+(?:just\s+|definitely\s+)?"
        rf"(?P<verb>{_CHOICE})\s+{_OBJ}",
        r"\bi(?:'ll|\s+will|'m going to|\s+am going to)\s+(?:just\s+)?"
        rf"(?P<verb>go with|go for|stick with|switch(?: over)? to)\s+{_OBJ}",
        r"\b(?:we(?:'re|\s+are)|i(?:'m|\s+am))\s+(?:now\s+)?"
        rf"(?P<verb>going with|switching(?: over)? to|sticking with|migrating to)\s+{_OBJ}",
        r"\b(?:we|i)\s+(?:(?:'ve|have)\s+)?(?:now\s+|just\s+|finally\s+)?"
        rf"(?P<verb>switched(?: over)? to|migrated to)\s+{_OBJ}",
        r"^(?P<verb>go with|going with|switch(?: over)? to|switching(?: over)? to|stick with"
        rf"|sticking with)\s+{_OBJ}",
        r"\bdecided\s+(?P<neg>not\s+)?(?P<link>(?:that\s+)?(?:we|i)(?:'ll|\s+will|\s+should"
        rf"|\s+need\s+to|\s+would)?|to|on|that)\s+{_OBJ}",
        rf"\bdecided\s*:\s*{_OBJ}",
        r"\b(?:we|i|everyone|both of us)(?:'ve|\s+have|\s+all|\s+have all|'ve all)?\s+agreed\s+"
        rf"(?P<link>to|on|that)\s+{_OBJ}",
        rf"^agreed\s*(?::\s*|\s+(?P<link>to|on|that)\s+){_OBJ}",
        r"\b(?:the\s+|our\s+|my\s+)?(?:final\s+)?decision\s*(?::|(?:is|was)\s+(?:to|that))\s*"
        + _OBJ,
    )
) + (
    # "Vercel it is." (names only, so case-sensitive)
    re.compile(
        r"^(?P<itis>)(?P<obj>[A-Z][\w.+#'-]*(?:\s+(?:(?:de|da|do|del|la|le|van|von|of|the)\s+)?"
        r"[A-Z0-9][\w.+#'-]*){0,3})\s+it\s+is\s*[.!]*$"
    ),
)
_PRONOUN_OBJECTS = frozenset(
    "it|that|this|them|those|these|one|either|both|that one|this one|the other|the other one"
    "|the former|the latter|your suggestion|your recommendation|your idea|option|yours"
    "|the first|the second|the first one|the second one".split("|")
)


def _decision_text(match: re.Match[str], obj: str) -> str | None:
    """The decision as a short imperative sentence ("Use Vercel for the frontend deploy")."""
    phrase = tidy(obj, DECISION_WORDS, capital=False)
    if not phrase or phrase.lower() in _PRONOUN_OBJECTS:
        return None
    groups = match.groupdict()
    negative = bool(groups.get("neg"))
    if groups.get("verb"):
        verb = " ".join(groups["verb"].lower().split())
        text = f"{_VERB_BASE.get(verb, verb).capitalize()} {phrase}"
        text = f"Do not {text[0].lower()}{text[1:]}" if negative else text
    elif groups.get("link") == "on" or groups.get("itis") is not None:
        text = f"Go with {phrase}"
    else:
        text = f"Do not {phrase}" if negative else phrase[:1].upper() + phrase[1:]
    return text if has_substance(text) else None


def _plain_decision(text: str) -> str | None:
    phrase = tidy(text, DECISION_WORDS)
    return phrase if has_substance(phrase) else None


# --- actions, completions, preferences ---

_ACTIONS: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"\b(?:i|we)(?:'ll|\s+will|'m going to|\s+am going to|'re going to|\s+are going to"
        rf"|'m gonna|'re gonna|\s+shall)\s+{_OBJ}",
        re.I,
    ),
    re.compile(rf"\blet me\s+{_OBJ}", re.I),
    re.compile(rf"\b(?:let's|let us)\s+{_OBJ}", re.I),
    re.compile(
        r"\b(?:i|we)\s+(?:still\s+|also\s+|really\s+|definitely\s+|just\s+)?(?:need|have|got)"
        rf"\s+to\s+{_OBJ}",
        re.I,
    ),
    re.compile(rf"^(?:still\s+|also\s+)?need\s+to\s+{_OBJ}", re.I),
    re.compile(rf"\b(?:remind me to|don't forget to|do not forget to)\s+{_OBJ}", re.I),
    re.compile(rf"^(?:TODO|FIXME)\b[\s:\u2013-]*{_OBJ}"),
    re.compile(rf"^(?:to-?do|to do)\s*:\s*{_OBJ}", re.I),
    re.compile(rf"\b(?:the|our|my)\s+plan\s+(?:is|was)\s+to\s+{_OBJ}", re.I),
)
_SHOULD_ACTION = re.compile(rf"\b(?:we|i)\s+should\s+{_OBJ}", re.I)
_WHEN_MARKER = re.compile(
    r"\b(?:tomorrow|tonight|next|later today|later this week|this week|this afternoon"
    r"|this evening|first thing|on (?:mon|tues|wednes|thurs|fri|satur|sun)day"
    r"|by (?:mon|tues|wednes|thurs|fri|satur|sun)day|by eod|end of day)\b",
    re.I,
)
_NEXT_LIST = re.compile(
    r"^next(?:\s+steps?|\s+up)?\s*[:\u2013\u2014-]\s*(?P<obj>\S.{0,600})"
    r"|\bnext steps?\s+(?:is|are|will be|would be)\s*:?\s+(?:to\s+)?(?P<obj2>\S.{0,600})",
    re.I,
)
_ITEM_SPLIT = re.compile(r";|(?:^|\s)\(?\d{1,2}[.)]\s+|,\s+(?:and\s+)?then\s+|\s+and then\s+")


def _action_text(obj: str) -> str | None:
    """A planned action as an imperative phrase, unless it is conversational filler."""
    phrase = tidy(_ACTION_LEAD.sub("", obj.strip()), ACTION_WORDS)
    first, _, rest = phrase.lower().partition(" ")
    if first in CHATTER_VERBS or rest.startswith("you ") or rest == "you":
        return None
    return phrase if has_substance(phrase) else None


_PAST = (
    r"deployed|shipped|finished|completed|fixed|merged|pushed|set up|created|added|updated"
    r"|booked|sent|wrote|written|installed|configured|migrated|drafted|rotated|released"
    r"|published|implemented|reserved|scheduled|submitted|built|tested|reverted|removed"
    r"|deleted|enabled|disabled|connected|upgraded|bought|paid|cancell?ed|ordered|filed"
    r"|resolved|opened|wired up|hooked up|cleaned up|backfilled|renamed|refactored|documented"
    r"|emailed|pinged|confirmed|uploaded|applied|signed up|registered|renewed|switched"
    r"|patched|bumped|rolled back|rolled out"
)
_MORE_DONE = re.compile(rf"\s+and\s+(?:also\s+|then\s+)?(?=(?:{_PAST})\b)", re.I)
_COMPLETIONS: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"\b(?:i|we)(?:'ve|\s+have|\s+had)?\s+(?:just\s+|now\s+|already\s+|finally\s+|also\s+"
        rf"|successfully\s+)?(?P<verb>{_PAST})\b(?P<obj>.{{0,400}})",
        re.I,
    ),
    re.compile(
        r"^(?:just\s+|all\s+|finally\s+)?(?P<verb>done|finished|completed|shipped|deployed"
        r"|merged|pushed|fixed|booked|sent|added|created|updated|installed|configured|rotated"
        r"|released|published|implemented|reserved|submitted|removed|deleted|upgraded|bought"
        r"|paid|ordered|resolved|backfilled|renamed|refactored|uploaded|applied|patched)\b"
        r"(?P<obj>.{0,400})",
        re.I,
    ),
    re.compile(
        r"^(?P<verb>)(?P<obj>(?:(?:the|my|our|your|that|this)\s+[^,;:]{1,60}?|it|that|this"
        r"|everything|all|both)\s+(?:is|are|'s|has been|have been|was|were)\s+(?:now\s+|all\s+"
        r"|finally\s+|officially\s+)?(?:done|live|deployed|merged|fixed|finished|complete"
        r"|completed|shipped|booked|sent|resolved|in place|up and running|sorted))\b",
        re.I,
    ),
)

_PREFERENCES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str], str], str]], ...] = (
    (
        re.compile(
            r"\b(?:i|we)(?:'d|\s+would)?\s+(?:really\s+|much\s+|generally\s+|usually\s+"
            rf"|strongly\s+|always\s+)?prefer\s+{_OBJ}",
            re.I,
        ),
        lambda m, obj: f"Prefers {obj}",
    ),
    (
        re.compile(rf"\b(?:i|we)(?:'d|\s+would)\s+(?:much\s+)?rather\s+{_OBJ}", re.I),
        lambda m, obj: f"Would rather {obj}",
    ),
    (
        re.compile(
            r"\bi\s+(?:really\s+|much\s+)?like\s+(?P<obj>[^,;.!?]{1,120}?)\s+(?:a lot\s+)?"
            r"(?:better|more)\b(?:\s+than\s+(?P<than>[^,;.!?]{1,80}))?",
            re.I,
        ),
        lambda m, obj: f"Prefers {obj}" + (f" over {m.group('than')}" if m.group("than") else ""),
    ),
    (
        re.compile(
            r"\bi\s+(?:really\s+)?(?:hate|dislike|can't stand|don't like|do not like)\s+" + _OBJ,
            re.I,
        ),
        lambda m, obj: f"Dislikes {obj}",
    ),
    (
        re.compile(rf"(?:^|\bplease\s+)(?:please\s+)?always\s+{_OBJ}", re.I),
        lambda m, obj: f"Always {obj}",
    ),
    (
        re.compile(rf"(?:^|\bplease\s+)(?:please\s+)?never\s+{_OBJ}", re.I),
        lambda m, obj: f"Never {obj}",
    ),
    (
        re.compile(rf"(?:^|\bplease\s+)(?:please\s+)?(?:don't|do not)\s+{_OBJ}", re.I),
        lambda m, obj: "" if obj.split()[0].lower() in NOT_PREFERENCE else f"Don't {obj}",
    ),
    (
        re.compile(
            r"\bmy\s+(?:favou?rite|preferred)\s+(?P<what>[a-z][a-z ]{1,30}?)\s+is\s+" + _OBJ,
            re.I,
        ),
        lambda m, obj: f"Favourite {m.group('what').lower()}: {obj}",
    ),
)


# --- scanning ---


def _scan(pattern: re.Pattern[str], text: str) -> Iterator[tuple[re.Match[str], str]]:
    """Matches of `pattern` with the clause of their object; the next search starts after it."""
    pos = 0
    while (match := pattern.search(text, pos)) is not None:
        obj = clause(match.group("obj") or "")
        yield match, obj
        pos = max(match.start("obj") + len(obj), match.start() + 1)


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= pos < end for start, end in spans)


def _decisions(body: str) -> tuple[list[tuple[int, Finding]], list[tuple[int, int]]]:
    found: list[tuple[int, Finding]] = []
    spans: list[tuple[int, int]] = []
    for pattern in _DECISIONS:
        for match, obj in _scan(pattern, body):
            if _inside(match.start(), spans) or _hedged(body, match.start()):
                continue
            first, *more = coordinated(obj)
            texts = [_decision_text(match, first), *(_plain_decision(part) for part in more)]
            for text in texts:
                if text:
                    found.append((match.start(), DecisionHit(text, domain_of(body))))
            spans.append((match.start(), match.start("obj") + len(obj)))
    return found, spans


def _actions(body: str, taken: list[tuple[int, int]]) -> list[tuple[int, Finding]]:
    found: list[tuple[int, Finding]] = []
    for pattern in _ACTIONS:
        for match, obj in _scan(pattern, body):
            if _inside(match.start(), taken) or _hedged(body, match.start()):
                continue
            texts = [_action_text(part) for part in coordinated(obj)]
            found += [(match.start(), ActionHit(text, "planned")) for text in texts if text]
            if any(texts):
                taken.append((match.start(), match.start("obj") + len(obj)))
    if _WHEN_MARKER.search(body):
        for match, obj in _scan(_SHOULD_ACTION, body):
            text = None if _inside(match.start(), taken) else _action_text(obj)
            if text:
                found.append((match.start(), ActionHit(text, "planned")))
    return found + _next_items(body)


def _next_items(body: str) -> list[tuple[int, Finding]]:
    """Items of "Next: a; b" or "next steps are 1) a 2) b"."""
    match = _NEXT_LIST.search(body)
    if match is None:
        return []
    rest = match.group("obj") or match.group("obj2") or ""
    items = (_action_text(clause(part)) for part in _ITEM_SPLIT.split(rest))
    return [(match.start(), ActionHit(text, "planned")) for text in items if text]


def _completions(body: str) -> list[tuple[int, Finding]]:
    found: list[tuple[int, Finding]] = []
    for pattern in _COMPLETIONS:
        for match, obj in _scan(pattern, body):
            if _NOT_YET.search(_clause_before(body, match.start())):
                continue
            for part in _MORE_DONE.split(f"{match.group('verb')} {obj}"):
                text = tidy(part, ACTION_WORDS)
                stems = content_stems(text)
                if stems:
                    found.append((match.start(), Completion(text, stems)))
    return found


def _preferences(body: str) -> list[tuple[int, Finding]]:
    found: list[tuple[int, Finding]] = []
    for pattern, build in _PREFERENCES:
        for match, obj in _scan(pattern, body):
            phrase = tidy(obj, ACTION_WORDS, capital=False)
            if not phrase or _CONDITIONAL.search(body[: match.start()]):
                continue
            text = tidy(build(match, phrase), ACTION_WORDS + 4)
            if has_substance(text):
                found.append((match.start(), PreferenceHit(text)))
    return found


def _sentence_findings(sentence: str, *, user: bool) -> list[Finding]:
    """Decisions, actions, completions and (from the user) preferences, in sentence order."""
    if is_question(sentence):
        return []
    body = strip_fillers(sentence)
    found, taken = _decisions(body)
    found += _actions(body, taken) + _completions(body)
    if user:
        found += _preferences(body)
    return [finding for _, finding in sorted(found, key=lambda pair: pair[0])]


# --- entities ---

_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"'`\])}]{2,400}", re.I)
_URL_PARTS = re.compile(r"^(?:https?://)?(?:www\.)?(?P<host>[^/?#:\s]+)(?::\d+)?(?P<path>/[^?#]*)?")
_GIT_URL = re.compile(
    r"^(?:https?://)?(?:www\.)?(?:github|gitlab)\.com/(?P<owner>[A-Za-z0-9][A-Za-z0-9-]*)"
    r"/(?P<name>[A-Za-z0-9_.-]+)"
)
_REPO = re.compile(
    r"(?<![\w./@:-])(?P<repo>[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9_.-]{1,100})(?P<issue>#\d+)?"
)
_REPO_BEFORE = re.compile(
    r"\b(?:repo|repos|repository|fork|forked|clone|cloned|pull request|PR|monorepo|github"
    r"|gitlab)\b",
    re.I,
)
_REPO_AFTER = re.compile(r"\s+(?:repo|repository|monorepo)\b", re.I)
_PERSON = re.compile(
    r"(?i:\b(?:ask|asked|ping|pinged|tell|told|cc|email|emailed|message|messaged|remind|reminded"
    r"|thank|thanked|loop in|looped in|call with|meeting with|meet with|met with|sync with"
    r"|synced with|chat with|talk to|talked to|talk with|talked with|spoke to|spoke with"
    r"|speak to|speak with|pair with|paired with|lunch with|dinner with|coffee with|check with"
    r"|checked with|hand off to|assigned to|(?:my|our) (?:colleague|coworker|cofounder"
    r"|co-founder|manager|boss|friend|wife|husband|partner|sister|brother|mom|mum|dad|teammate"
    r"|designer|cto|ceo|lead|intern|roommate|son|daughter|client))\b:?\s+)"
    r"(?P<name>[A-Z][^\W\d_]+(?:\s+[A-Z][^\W\d_]+)?)\b"
)
_MENTION = re.compile(r"(?<![\w.@/])@(?P<handle>[A-Za-z][A-Za-z0-9_-]{1,38})(?![\w@/(-]|\.\w)")
_PROJECT = re.compile(
    r"(?<![\w-])(?i:project|codename|code-named|code named)\s+[\"']?"
    r"(?P<name>[A-Za-z][A-Za-z0-9_-]{1,30})"
)
_THE_X = re.compile(
    r"\b(?i:the|our|my)\s+(?P<name>[A-Za-z][A-Za-z0-9_-]{1,30})\s+(?P<kind>(?i:app|project|frontend"
    r"|backend|site|website|service|api|dashboard|repo|codebase|monorepo|bot|extension|cli))\b"
)
_PROJECT_KINDS = frozenset({"project", "repo", "codebase", "monorepo"})


def _url_name(raw: str) -> str | None:
    """`host/path` of a URL, without scheme, `www.`, query and fragment."""
    parts = _URL_PARTS.match(raw.rstrip(".,;:!?'\")"))
    if parts is None:
        return None
    host = parts.group("host").lower().strip(".")
    if "." not in host or host.replace(".", "").isdigit():
        return None
    return (host + (parts.group("path") or "").rstrip("/"))[:MAX_PHRASE_CHARS]


def _name_allowed(name: str) -> bool:
    lowered = name.lower()
    return (
        lowered not in FUNCTION_WORDS
        and lowered not in GENERIC_NAMES
        and lowered not in KNOWN_ALIASES
    )


def _url_hits(sentence: str) -> Iterator[tuple[int, int, EntityHit]]:
    for match in _URL.finditer(sentence):
        name = _url_name(match.group())
        if name is None:
            continue
        yield match.start(), match.end(), EntityHit("url", name)
        repo = _GIT_URL.match(name)
        if repo and repo.group("owner").lower() not in GITHUB_PAGES:
            repo_name = repo.group("name").removesuffix(".git")
            yield (
                match.start(),
                match.end(),
                EntityHit("repo", f"{repo.group('owner')}/{repo_name}"),
            )


def _known_hits(sentence: str) -> Iterator[tuple[int, int, EntityHit]]:
    for match in KNOWN_RE.finditer(sentence):
        known = known_name(match.group(1))
        if known is not None:
            yield match.start(), match.end(), EntityHit(known.type, known.name)


def _repo_hits(sentence: str) -> Iterator[tuple[int, int, EntityHit]]:
    """`owner/name` only next to a word that says it is a repository ("the repo acme/api",
    "a PR on acme/api", "acme/api#12"), since "and/or" and "TCP/IP" have the same shape."""
    for match in _REPO.finditer(sentence):
        repo = match.group("repo").rstrip(".").removesuffix(".git")
        owner, _, name = repo.partition("/")
        plausible = not (owner.isdigit() or name.isdigit() or name.lower() in FUNCTION_WORDS)
        context = (
            match.group("issue")
            or _REPO_BEFORE.search(sentence, max(0, match.start() - 40), match.start())
            or _REPO_AFTER.match(sentence, match.end())
        )
        if plausible and context and name:
            yield match.start(), match.end(), EntityHit("repo", repo)


def _people_hits(sentence: str) -> Iterator[tuple[int, int, EntityHit]]:
    for match in _PERSON.finditer(sentence):
        parts = match.group("name").split()
        if parts[-1].lower() in NOT_NAMES:
            parts = parts[:-1]
        if parts and parts[0].lower() not in NOT_NAMES and any(c.islower() for c in parts[0]):
            yield match.start("name"), match.end("name"), EntityHit("person", " ".join(parts))
    for match in _MENTION.finditer(sentence):
        if match.group("handle").lower() not in NOT_HANDLES:
            yield match.start(), match.end(), EntityHit("person", "@" + match.group("handle"))


def _project_hits(sentence: str) -> Iterator[tuple[int, int, EntityHit]]:
    for match in _PROJECT.finditer(sentence):
        name = match.group("name").strip("-_")
        if _name_allowed(name) and len(name) > 1:
            yield match.start("name"), match.end("name"), EntityHit("project", name)
    for match in _THE_X.finditer(sentence):
        name = match.group("name").strip("-_")
        kind: EntityType = "project" if match.group("kind").lower() in _PROJECT_KINDS else "product"
        if _name_allowed(name) and len(name) > 1:
            yield match.start("name"), match.end("name"), EntityHit(kind, name)


_ENTITY_FINDERS: tuple[Callable[[str], Iterator[tuple[int, int, EntityHit]]], ...] = (
    _url_hits,
    _known_hits,
    _repo_hits,
    _people_hits,
    _project_hits,
)


def entities_in(sentence: str) -> list[Finding]:
    """Entity mentions in text order; earlier finders win where mentions overlap."""
    taken = bytearray(len(sentence))
    found: list[tuple[int, Finding]] = []
    for finder in _ENTITY_FINDERS:
        for start, end, hit in finder(sentence):
            if any(taken[start:end]) and not (hit.type == "repo" and finder is _url_hits):
                continue
            taken[start:end] = b"\x01" * (end - start)
            found.append((start, hit))
    return [hit for _, hit in sorted(found, key=lambda pair: pair[0])]


# --- the message ---


def analyse(text: str, *, user: bool, conversational: bool) -> Analysis:
    """The findings of one message, in order; non-conversational roles give entities only."""
    findings: list[Finding] = []
    sentences: list[str] = []
    for sentence, list_outcome in _units(prepare(text)):
        findings += entities_in(sentence)
        if not conversational:
            continue
        sentences.append(sentence)
        if list_outcome is None:
            findings += _sentence_findings(sentence, user=user)
            continue
        item = tidy(clause(_ACTION_LEAD.sub("", sentence)), ACTION_WORDS)
        if any(c.isalnum() for c in item):
            findings.append(ActionHit(item, list_outcome))
    return Analysis(findings, sentences)
