"""The LLM extractor's prompt: the previous version, the existing state items and the new
messages in, one JSON answer (`llm_output.LlmAnswer`) out.

It follows the reference's merge prompt (seed 001: previous state + new messages -> merged
state) for the v1 fields, and its state-extraction prompt (seed 000) for the items: existing
items by UID, not to be repeated; refs only to message ids shown; supersession only on
explicit change language. `PROMPT_VERSION` is recorded with every version it produced: change
it whenever the text changes.

The prompt is held under `max_chars`: long messages are clipped (all by the same cap, the
largest that fits), and a batch that does not fit even so raises `PromptTooLong`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from archivist.models import Extraction, Message, SessionSummary
from archivist.state.items import StateItem

PROMPT_VERSION = "2"
# Below this many characters per message the model would see too little to extract from.
MIN_MESSAGE_CHARS = 80
MAX_EXISTING_ITEMS = 60

SYSTEM = """You are a structured state extractor for a chat archive. You get the previous \
extraction of a conversation, its existing state items, and the conversation's NEW messages. \
Answer with one JSON object that has two parts.

1. The merged extraction of the whole conversation so far (previous + new messages):
- "summary": 2-4 sentences on what the conversation is about and where it stands.
- "topics": short topic labels, most important first (at most 12).
- "decisions": every decision made so far, one sentence each.
- "entities": tools, products, repos, people, urls, orgs, projects named, with their type.
- "actions": things to do or done, with outcome planned, done or blocked.
- "preferences": preferences the user showed.
Keep what is still true from the previous extraction, update what changed, drop what the new \
messages contradict. Do not duplicate entries.

2. "items": NEW or CHANGED state items supported by the new messages.
Types: decision, constraint, action, question, risk, fact. DO NOT invent new item types.
A fact is what the user says they have or have never done ("I've never used Zotero", "I just \
downloaded Zotero"): "subject" the thing (Zotero), "value" "never" or "yes".
Statuses: decision, constraint, risk, fact: active. action: open, blocked or done. question: \
open or answered.
Each item: {"type", "text", "status", "confidence" (low|medium|high), "topic_tags" (1-3 short \
labels), "refs", "supersedes", "subject", "value", "change", "replaces"}.
Rules:
- Only concrete, specific items. No vague observations.
- Existing items are listed by UID. Do NOT repeat unchanged items.
- "refs" must be ids from this transcript (the [id] before each new message). Never invent ids.
- Set "supersedes" to an existing item's UID ONLY with explicit change language (instead, \
replaced, switched, changed to, no longer); otherwise null.
- For a decision or constraint, "subject" is what it decides about in a few words (the session \
cache, login, the launch date) and "value" what it decides (Memcached, Auth0, the 17th). Set \
"change" only when the message changes an earlier choice on that subject: replace (A to B), \
reverse (back to A, after all), cancel (no longer A), update (a new value); otherwise null; \
"replaces" is then the value it replaces (A). A change replaces only an item with the same \
subject.
- No new items: "items": [].

Example: new messages "[m1] user: Let's switch to Memcached instead of Redis" with existing \
"[d_abc123] decision (active): Use Redis for caching" give the item
{"type":"decision","text":"Use Memcached for caching instead of Redis","status":"active",\
"confidence":"high","topic_tags":["caching"],"refs":["m1"],"supersedes":"d_abc123",\
"subject":"caching","value":"Memcached","change":"replace","replaces":"Redis"}

Return ONLY the JSON object. No prose. No markdown fences."""


class PromptTooLong(ValueError):
    """The batch does not fit the prompt budget even with its messages clipped."""


@dataclass(frozen=True)
class Prompt:
    system: str
    user: str
    ref_ids: frozenset[str]  # the message ids shown: the only refs an item may cite
    clipped: int  # messages whose text was cut to fit

    @property
    def chars(self) -> int:
        return len(self.system) + len(self.user)


def build_prompt(
    previous: Extraction | None,
    messages: Sequence[Message],
    summary: SessionSummary | None,
    existing_items: Sequence[StateItem],
    max_chars: int,
) -> Prompt:
    """The system and user messages for one session's batch, within `max_chars`."""
    head = "\n\n".join(
        [
            "## Previous extraction\n" + _previous(previous),
            *(
                ["## The bot's own running summary\n" + summary.summary_text.strip()]
                if summary and summary.summary_text.strip()
                else []
            ),
            "## Existing state items (reference by UID, do NOT repeat unchanged items)\n"
            + _existing(existing_items),
            "## New messages\n",
        ]
    )
    prefixes = [f"[{m.id}] {m.role}: " for m in messages]
    texts = [" ".join(m.content.split()) for m in messages]
    room = max_chars - len(SYSTEM) - len(head) - sum(len(p) + 1 for p in prefixes)
    cap = _cap([len(t) for t in texts], room)
    if cap is None:
        raise PromptTooLong(
            f"{len(messages)} messages do not fit in {max_chars} characters "
            f"(llm_max_prompt_chars) with at least {MIN_MESSAGE_CHARS} characters each"
        )
    lines = [p + _clip(t, cap) for p, t in zip(prefixes, texts, strict=True)]
    return Prompt(
        system=SYSTEM,
        user=head + "\n".join(lines),
        ref_ids=frozenset(m.id for m in messages),
        clipped=sum(1 for t in texts if len(t) > cap),
    )


def _previous(previous: Extraction | None) -> str:
    if previous is None:
        return "none: these are the conversation's first messages"
    fields = {
        "summary": previous.summary,
        "topics": previous.topics,
        "decisions": [d.text for d in previous.decisions],
        "entities": [{"type": e.type, "name": e.name} for e in previous.entities],
        "actions": [a.model_dump(include={"description", "outcome"}) for a in previous.actions],
        "preferences": previous.preferences_inferred,
    }
    return json.dumps(fields, ensure_ascii=False)


def _existing(items: Sequence[StateItem]) -> str:
    live = [i for i in items if i.status != "superseded"][:MAX_EXISTING_ITEMS]
    if not live:
        return "none"
    return "\n".join(f"[{i.uid}] {i.type} ({i.status}): {i.text}" for i in live)


def _cap(lengths: list[int], room: int) -> int | None:
    """The largest per-message cap with every message clipped to it fitting `room`."""
    if room < 0:
        return None
    if sum(lengths) <= room:
        return max(lengths, default=0)
    low, high = 0, max(lengths)
    while low < high:
        middle = (low + high + 1) // 2
        if sum(min(n, middle) for n in lengths) <= room:
            low = middle
        else:
            high = middle - 1
    return low if low >= MIN_MESSAGE_CHARS else None


def _clip(text: str, cap: int) -> str:
    return text if len(text) <= cap else text[: cap - 1] + "\u2026"
