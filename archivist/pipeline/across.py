"""Before a version is written: its new changes tied to the items of the user's earlier
sessions that they change in other words, and the earlier choices they name but that never
became items recalled from the user's earlier turns (`state.across`), read from the user's
current state and turn chunks as the database holds them just before this commit."""

from __future__ import annotations

import logging
import re

from archivist.models import USER_ROLES, StateChange, StateItem
from archivist.pipeline.earlier import user_labels, user_turns
from archivist.pipeline.planning import VersionPlan
from archivist.state.across import (
    CHANGEABLE,
    link_earlier,
    naming,
    recalled,
    said_changes,
    unknown_replaced,
    untied_candidates,
)
from archivist.state.current import (
    CURRENT_MAX_ITEMS,
    CurrentItem,
    CurrentState,
    CurrentStateQuery,
)
from archivist.store import Store

log = logging.getLogger(__name__)

MAX_TURNS_READ = 64  # messages of earlier items read back per version
MAX_RECALLS = 4  # earlier choices looked up per version
CHUNKS_PER_RECALL = 8  # the turn chunks read back for each
_WORD = re.compile(r"[a-z0-9]+")


def tie_to_earlier(store: Store, plan: VersionPlan) -> None:
    """Tie the plan's new decisions and constraints to the earlier items they change (their
    subject or `replaces` set), and add to the plan the earlier choices its changes replace
    that never became items, recalled from the user's turns; what it did goes to
    `plan.across`, each step logged. The scope looked in is the session's user's, or the
    whole archive's without per-user memory (its latest 1,000 current items, and no turns; a
    session of several users has none), read only when the version has such an item."""
    user = plan.user_id
    said = {
        m.id: m.content
        for m in plan.new_messages
        if m.role.strip().lower() in USER_ROLES and m.content
    }
    items = plan.extraction.state_items
    if plan.multi_user or not any(
        i.type in CHANGEABLE and i.value and said.keys() & set(i.refs) for i in items
    ):
        return
    query = CurrentStateQuery(user_id=user, limit=CURRENT_MAX_ITEMS)
    state = CurrentState.model_validate(store.call("archivist_current_state", **query.arguments()))
    earlier = [i for i in state.items if i.session_id != plan.session_id and i.user_id == user]
    tied = said_changes(items, earlier, said) + link_earlier(items, earlier, said)
    if user is not None:
        tied += _tie_by_their_messages(store, plan, user, earlier, said)
    for item, old in tied:
        log.info("%s: %s changes %s of %s", plan.session_id, item.uid, old.uid, old.session_id)
        plan.across.append(_superseded(old.uid, old.type, old.text, item.uid))
    if user is not None:
        _recall_replaced(store, plan, user, earlier, said, {item.uid for item, _ in tied})


def _tie_by_their_messages(
    store: Store, plan: VersionPlan, user: str, earlier: list[CurrentItem], said: dict[str, str]
) -> list[tuple[StateItem, CurrentItem]]:
    """The changes left untied, tied by the names in the earlier items' own messages."""
    items = plan.extraction.state_items
    candidates = untied_candidates(items, earlier, said)
    if not candidates:
        return []
    refs = list(dict.fromkeys(r for old in candidates for r in old.refs))[:MAX_TURNS_READ]
    rows = store.turns_of(user, refs)
    said_before = {t.id: t.content for row in rows for t in user_turns(row, plan.speakers)}
    return link_earlier(items, earlier, said, said_before)


def _recall_replaced(
    store: Store,
    plan: VersionPlan,
    user: str,
    earlier: list[CurrentItem],
    said: dict[str, str],
    tied: set[str],
) -> None:
    """Add to the plan the earlier choices its changes (not `tied`) name as replaced where no
    item holds them, found in the user's earlier turns."""
    items = plan.extraction.state_items
    changes = [i for i in unknown_replaced(items, earlier, said) if i.uid not in tied]
    labels = user_labels(plan.speakers)
    for change in changes[:MAX_RECALLS]:
        assert change.replaces is not None
        words = _WORD.findall(change.replaces.lower())
        rows = store.earlier_turns(user, plan.session_id, labels, words, words, CHUNKS_PER_RECALL)
        turns = [t for row in rows for t in user_turns(row, plan.speakers)]
        turn = naming(change.replaces, turns, change.created_at)
        if turn is None:
            continue
        cited = next(r for r in change.refs if r in said)
        before = recalled(change, turn, cited)
        if any(i.uid == before.uid for i in items):
            continue
        items.append(before)
        plan.across.append(
            StateChange(kind="added", uid=before.uid, type=before.type, text=before.text)
        )
        plan.across.append(_superseded(before.uid, before.type, before.text, change.uid))
        log.info("%s: %s replaces %s, said in %s", plan.session_id, change.uid, before.uid, turn.id)


def _superseded(uid: str, item_type: str, text: str, by: str) -> StateChange:
    return StateChange(kind="superseded", uid=uid, type=item_type, text=text, other_uid=by)
