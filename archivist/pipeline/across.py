"""Before a version is written: its new changes tied to the items of the user's earlier
sessions that they change in other words (`state.across`), read from the user's current
state as the database holds it just before this commit."""

from __future__ import annotations

import logging

from archivist.models import USER_ROLES
from archivist.pipeline.planning import VersionPlan
from archivist.state.across import CHANGEABLE, link_earlier
from archivist.state.current import CURRENT_MAX_ITEMS, CurrentState, CurrentStateQuery
from archivist.store import Store

log = logging.getLogger(__name__)


def tie_to_earlier(store: Store, plan: VersionPlan) -> None:
    """Tie the plan's new decisions and constraints to the earlier items they change (their
    subject or `replaces` set, each tie logged). The scope looked in is the session's user's,
    or the whole archive's without per-user memory (its latest 1,000 current items; a session
    of several users has none), read only when the version has such an item."""
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
    for item, old in link_earlier(items, earlier, said):
        log.info("%s: %s changes %s of %s", plan.session_id, item.uid, old.uid, old.session_id)
