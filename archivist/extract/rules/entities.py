"""Entities: URLs, known tools and products, repositories, people and projects; their keys."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from archivist.extract.rules.findings import EntityHit, Finding
from archivist.extract.rules.phrases import MAX_PHRASE_CHARS
from archivist.extract.rules.text import ascii_fold
from archivist.extract.rules.vocabulary import (
    GENERIC_NAMES,
    GITHUB_PAGES,
    KNOWN_ALIASES,
    KNOWN_RE,
    NOT_HANDLES,
    NOT_NAMES,
    known_name,
)
from archivist.models import EntityType
from archivist.prefilter import Gated
from archivist.words import FUNCTION_WORDS

_URL = Gated(r"\b(?:https?://|www\.)[^\s<>\"'`\])}]{2,400}", re.I)
_URL_PARTS = re.compile(r"^(?:https?://)?(?:www\.)?(?P<host>[^/?#:\s]+)(?::\d+)?(?P<path>/[^?#]*)?")
_GIT_URL = re.compile(
    r"^(?:https?://)?(?:www\.)?(?:github|gitlab)\.com/(?P<owner>[A-Za-z0-9][A-Za-z0-9-]*)"
    r"/(?P<name>[A-Za-z0-9_.-]+)"
)
_REPO = Gated(
    r"(?<![\w./@:-])(?P<repo>[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9_.-]{1,100})(?P<issue>#\d+)?"
)
_REPO_BEFORE = re.compile(
    r"\b(?:repo|repos|repository|fork|forked|clone|cloned|pull request|PR|monorepo|github"
    r"|gitlab)\b",
    re.I,
)
_REPO_AFTER = re.compile(r"\s+(?:repo|repository|monorepo)\b", re.I)
_PERSON = Gated(
    r"(?i:\b(?:ask|asked|ping|pinged|tell|told|cc|email|emailed|message|messaged|remind|reminded"
    r"|thank|thanked|loop in|looped in|call with|meeting with|meet with|met with|sync with"
    r"|synced with|chat with|talk to|talked to|talk with|talked with|spoke to|spoke with"
    r"|speak to|speak with|pair with|paired with|lunch with|dinner with|coffee with|check with"
    r"|checked with|hand off to|assigned to|(?:my|our) (?:colleague|coworker|cofounder"
    r"|co-founder|manager|boss|friend|wife|husband|partner|sister|brother|mom|mum|dad|teammate"
    r"|designer|cto|ceo|lead|intern|roommate|son|daughter|client))\b:?\s+)"
    r"(?P<name>[A-Z][^\W\d_]+(?:\s+[A-Z][^\W\d_]+)?)\b"
)
_MENTION = Gated(r"(?<![\w.@/])@(?P<handle>[A-Za-z][A-Za-z0-9_-]{1,38})(?![\w@/(-]|\.\w)")
_PROJECT = Gated(
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


def entity_key(entity_type: str, name: str) -> str:
    """`type:slug`: lowercase, punctuation removed, spaces and hyphens as underscores, slashes
    kept as the separators they are (`product:ci/cd`).

    Accents fold to ASCII. The result matches `^[a-z]+:[a-z0-9_/]*$`, except for addresses a
    person types as they are: a URL's key is its host and path, lowercase, without scheme,
    `www.`, query or fragment (`url:docs.stripe.com/webhooks/signature`), and a repository's
    is its `owner/name` (`repo:acme/billing-service`); both match `^[a-z]+:[a-z0-9._~/-]*$`.
    Versions written before repository keys kept their slash hold `repo:acme_olive`; the
    next version of the session recomputes the key from the name.
    """
    kind = re.sub(r"[^a-z]", "", ascii_fold(entity_type).lower()) or "entity"
    if kind == "url":
        return f"url:{_url_slug(name)}"
    if kind == "repo":
        return f"repo:{_url_slug(name).removesuffix('.git')}"
    parts = (_slug(part) for part in ascii_fold(name).lower().split("/"))
    return f"{kind}:{'/'.join(p for p in parts if p)}"


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9_]", "", re.sub(r"[\s_-]+", "_", text))
    return re.sub(r"_+", "_", slug).strip("_")


_SCHEME = re.compile(r"^(?:[a-z][a-z0-9+.-]*:/+)?(?:www\.)?")


def _url_slug(name: str) -> str:
    address = _SCHEME.sub("", ascii_fold(name).lower().strip())
    address = re.split(r"[?#\s]", address, maxsplit=1)[0]
    address = re.sub(r"[^a-z0-9._~/-]", "", address)
    return re.sub(r"/{2,}", "/", address).strip("/.")
