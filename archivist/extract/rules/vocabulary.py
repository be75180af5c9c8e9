"""The words the rules know: function and chat words, domains, tokens, stems, known names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from archivist.models import EntityType
from archivist.words import FUNCTION_WORDS, tokens, word_set

CHAT_WORDS = word_set(
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
CHATTER_VERBS = word_set(
    """know think explain clarify summarize summarise recap rephrase elaborate be help see walk
    break repeat answer guess say note mention outline describe suggest recommend assume admit
    remember pass wait let take hope bet get have continue stay begin need want try circle
    talk discuss chat brainstorm not never go do"""
)
COMMON_VERBS = word_set(
    """keep use move switch add set run deploy drop remove ship make create update write put
    leave migrate connect send book check test fix open close review merge push draft schedule
    email call ask ping rotate backfill document plan install configure enable disable upgrade
    build delete replace rename invite share reserve hold buy pay order print pack rent cancel
    confirm land load flip log watch wire start stop revert"""
)
NOT_PREFERENCE = word_set(
    """know think worry understand see have get remember mind want need care forget really even
    like feel believe mean recall quite bother hesitate panic stress sweat hate love"""
)
GENERIC_NAMES = word_set(
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
NOT_NAMES = word_set(
    """monday tuesday wednesday thursday friday saturday sunday january february march april may
    june july august september october november december today tomorrow tonight everyone
    everybody someone somebody anyone anybody nobody team support them him her us you me it the
    this that jarvis assistant bot google siri alexa chatgpt claude gpt hey hi hello and or please
    about when what why how for to with a an i if all both legal sales marketing finance hr ops
    engineering design product security dev devops mom dad mum there here back later again now
    then yes no thanks our my your their his its next last these those each every any some first
    second new old also just still either neither soon immediately"""
)
NOT_HANDLES = word_set(
    """here channel everyone all property dataclass staticmethod classmethod pytest app override
    param returns return types media import keyframes font decorator mention tailwind apply layer
    cache fixture mark router api get post route user users"""
)
GITHUB_PAGES = word_set(
    """orgs settings features about marketplace topics explore login sponsors pricing enterprise
    notifications issues pulls search trending collections apps site security readme team join"""
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
_NOT_PROSE = re.compile(r"[/@\\]|\.(?:com|org|io|dev|app|net)\b")
_CLAUSE_BREAK = re.compile(r"[,;:()\[\]\"!?]|\s[-\u2013\u2014]+\s|\u2014|\.(?:\s|$)")


def topic_clauses(sentence: str) -> list[list[str]]:
    """Tokens of each clause of a sentence, without URLs, paths, repos and mentions."""
    prose = " ".join(w for w in sentence.split() if not _NOT_PROSE.search(w))
    return [tokens(part) for part in _CLAUSE_BREAK.split(prose)]


def domain_of(text: str) -> str | None:
    """The broad area a sentence is about ("deployment", "auth", ...), from its first keyword."""
    return next((DOMAINS[t] for t in tokens(text) if t in DOMAINS), None)


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


def _trie_pattern(words: frozenset[str]) -> str:
    """An alternation of `words` as a trie ("post(?:gres(?:ql)?|hog)"): it matches what the
    flat alternation longest first matches, the longest word that the text goes on with first
    and a shorter one where what follows fails (the same backtracking), but reads each
    character once instead of trying every word at every word start."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: dict[str, Any]) -> str:
        ends = "" in node
        branches = [re.escape(c) + pattern(node[c]) for c in sorted(node) if c]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if ends:
            return body + "?" if len(branches) == 1 and len(body) == 1 else f"(?:{body})?"
        return body

    return pattern(trie)


KNOWN_RE = re.compile(
    r"(?<![\w.@/#-])(" + _trie_pattern(KNOWN_ALIASES) + r")(?![\w@/-]|\.\w)",
    re.I,
)


def known_name(text: str) -> KnownName | None:
    """The gazetteer entry `text` names, respecting case-sensitive entries."""
    entries = _KNOWN_BY_ALIAS.get(text.lower(), [])
    return next((e for e in entries if not e.case_sensitive or text in e.aliases), None)
