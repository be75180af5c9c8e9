"""What a new "never" statement contradicts in the user's other sessions.

"I've never met Raymond at any tech event" in May contradicts "I met Raymond at the library's
tech talk" in January, said in another session. Extraction sees one session's new messages, so
this read looks further: when those messages hold a first-person "never" statement and the
session has one user, the turn chunks of the user's other sessions that hold what it is about
(its names, else its head's words; and its verb, where that says a deed) are read back, and
their user turns go to planning, which pairs them with the statement
(`rules.earlier_contradictions`). The fact it makes cites both messages and is flagged as a
conflict; nothing of the other session's text is copied.

On BEAM's contradiction questions (tuning chats) the "never" came after the affirmation in 33
of 34, mostly in a later session; an affirmation said after the "never" is not looked for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from archivist.extract.rules.candidates import user_sentences
from archivist.extract.rules.experience import negations
from archivist.models import USER_ROLES, Message
from archivist.store import Store

MAX_NEGATIONS = 4  # "never" statements looked up per version
CHUNKS_PER_NEGATION = 8  # the best-matching turn chunks read back for each
_WORD = re.compile(r"[a-z0-9]+")


def earlier_user_turns(
    store: Store,
    session_id: str,
    users: Sequence[str],
    batch: Sequence[Message],
    speakers: Mapping[str, str],
    unsaved: Sequence[Message] = (),
) -> list[Message]:
    """The user turns of the user's other sessions that may affirm a "never" statement of
    `batch` (none when the session has not exactly one user or says no "never"): those the
    archive holds, and the user's messages of `unsaved` (another session of the user's, read
    before this one, whose commit may not be visible yet)."""
    if len(users) != 1:
        return []
    said = negations([sentence for _, sentence in user_sentences(batch)])[:MAX_NEGATIONS]
    if not said:
        return []
    turns = {m.id: m for m in unsaved if m.role.strip().lower() in USER_ROLES}
    labels = user_labels(speakers)
    for negation in said:
        words = [w for word in negation.search for w in _WORD.findall(word)]
        detail = [w for word in negation.object_words for w in _WORD.findall(word)]
        lookups = [words] if words else []
        if negation.names and negation.deed:
            # the same deed said without every name ("apologized in person for forgetting our
            # anniversary" against "never apologized to Rachael ..."): its verb, ranked by detail
            lookups.append(_WORD.findall(negation.verb))
        for needed in lookups:
            rows = store.earlier_turns(
                users[0], session_id, labels, needed, detail, CHUNKS_PER_NEGATION
            )
            for row in rows:
                for turn in user_turns(row, speakers):
                    turns.setdefault(turn.id, turn)
    # The newest first: of equally strong affirmations, pairing cites the nearest.
    return sorted(turns.values(), key=lambda m: m.created_at, reverse=True)


def user_labels(speakers: Mapping[str, str]) -> list[str]:
    """How a user's turn starts in a turn chunk ("User: ")."""
    return [f"{speakers.get(role, role.capitalize())}: " for role in sorted(USER_ROLES)]


def user_turns(row: Mapping[str, Any], speakers: Mapping[str, str]) -> list[Message]:
    """The user's turns in a turn chunk (`archivist_earlier_turns`), its speaker label cut off;
    a piece of a long message that does not start with one is left out (whose it is, the piece
    does not say)."""
    labels = user_labels(speakers)
    content, ids = str(row["content"]), [str(i) for i in row.get("message_ids") or []]
    starts = row.get("turn_starts") or [0]
    if len(starts) != len(ids):
        return []
    at = datetime.fromisoformat(str(row["first_at"]))
    ends = [*starts[1:], len(content) + 1]
    found = []
    for message_id, start, end in zip(ids, starts, ends, strict=True):
        line = content[start : end - 1]
        label = next((x for x in labels if line.startswith(x)), None)
        if label is not None:
            found.append(
                Message(
                    id=message_id,
                    session_id=str(row["session_id"]),
                    role="user",
                    content=line[len(label) :],
                    created_at=at,
                )
            )
    return found
