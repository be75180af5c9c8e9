"""The planner on its own: no database, no embedder server, no I/O.

`plan_version` gets a `SessionRead` (what the one read returns) and a deterministic vectors
function; these tests check what a version covers and, above all, which texts it asks to embed:
a session that grew embeds its new turns and changed items, never a text a stored chunk has.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from archivist.config import Settings
from archivist.embed.base import Vector
from archivist.embed.hashing import HashEmbedder
from archivist.extract.base import RulesExtractor
from archivist.models import Message, SessionState, SessionSummary, Watermark
from archivist.pipeline.planning import PlanSettings, VersionPlan, plan_version
from archivist.pipeline.reading import LastWindow, SessionRead
from archivist.state.reconcile import Thresholds

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SID = "plan-1"
LINES = [
    ("user", "Should we move the billing API from Redis to Memcached?"),
    ("assistant", "We decided to switch the billing API from Redis to Memcached."),
    ("user", "Remind me to rotate the Memcached credentials on Friday."),
    ("assistant", "I'll set up Grafana for the billing API and share the dashboard with Priya."),
    ("user", "Let's go with Terraform; Priya already has an account."),
    ("assistant", "Deployed: version 12 of the billing API is live on Fly.io."),
    ("user", "Why does Kubernetes keep restarting the pods of the ingest worker?"),
    (
        "assistant",
        "The error comes from a missing index; adding it brings the ingest worker under 80 ms.",
    ),
    ("user", "ok, thanks, that worked."),
    ("assistant", "Next step: I'll open a PR that adds Sentry metrics to the ingest worker."),
]


class Recorder:
    """The planner's vectors function: the hash embedder, remembering what it was asked."""

    def __init__(self) -> None:
        self.embedder = HashEmbedder()
        self.asked: list[str] = []
        self.calls = 0

    def __call__(self, texts: list[str]) -> list[Vector]:
        self.asked += texts
        self.calls += 1
        return self.embedder.embed_batch(texts)


def message(i: int) -> Message:
    role, text = LINES[i % len(LINES)]
    md5 = f"{i:032x}"
    return Message(
        id=str(i),
        session_id=SID,
        role=role,
        content=f"{text} ({i})",
        created_at=T0 + timedelta(minutes=i),
        source_md5=md5,
        source_chars=len(text),
    )


def settings() -> PlanSettings:
    s = Settings()
    return PlanSettings(
        model="hash-768",
        chunk_chars=s.chunk_max_chars,
        window_chars=s.window_max_chars,
        turns_per_window=s.turns_per_window,
        speaker_labels=s.speaker_labels,
        max_message_chars=s.max_message_chars,
        state_max_candidates=s.state_max_candidates,
        thresholds=Thresholds(s.state_merge_threshold, s.state_conflict_threshold),
    )


def first_read(n: int) -> SessionRead:
    return SessionRead(
        session_id=SID,
        state=None,
        rebuild=False,
        limit=2000,
        new=[message(i) for i in range(n)],
        summary=SessionSummary(
            session_id=SID, summary_text="Moving billing to Memcached.", updated_at=T0
        ),
    )


def archived(read: SessionRead, plan: VersionPlan, vectors: Recorder) -> SessionRead:
    """What the next read returns after `plan` was committed (nothing new yet)."""
    stored = {c.id: c.slot for c in plan.chunks}
    last_slot = max(c.slot for c in plan.chunks if c.slot.startswith("turns:"))
    last = [c for c in plan.chunks if c.slot == last_slot]
    covered = [i for c in last for i in c.metadata["message_ids"]]  # type: ignore[union-attr]
    by_id = {m.id: m for m in plan.new_messages}
    items = [
        (i.uid, i.text, vectors.embedder.embed_batch([i.text])[0])
        for i in plan.extraction.state_items
        if i.status != "superseded"
    ]
    return SessionRead(
        session_id=SID,
        state=SessionState(
            session_id=SID,
            version=plan.from_version + 1,
            watermark=plan.watermark,
            message_count=plan.message_count,
            summary_at=plan.summary.updated_at if plan.summary else None,
            extraction=plan.extraction,
        ),
        rebuild=False,
        limit=read.limit,
        summary=plan.summary,
        last_window=LastWindow(
            int(last_slot.split(":")[1]),
            [str(i) for i in covered],
            [
                by_id[str(i)].model_copy(update={"archived_md5": by_id[str(i)].source_md5})
                for i in covered
            ],
        ),
        stored=stored,
        stored_hashes=frozenset(c.content_hash for c in plan.chunks),
        item_vectors=items,
    )


def test_a_first_version_embeds_every_chunk_once() -> None:
    vectors = Recorder()
    read = first_read(10)
    plan = plan_version(read, settings(), RulesExtractor(), vectors)
    assert plan is not None
    assert plan.from_version == 0 and plan.slots is not None
    assert plan.watermark == Watermark(created_at=read.new[-1].created_at, message_id="9")
    assert plan.message_count == 10
    assert {c.slot for c in plan.chunks} >= {"summary", "extraction", "state", "turns:000000"}
    assert plan.existing == {} and plan.to_write == plan.chunks
    # State items were embedded as candidates: their chunks' texts are not asked again.
    assert set(plan.texts_to_embed).isdisjoint(vectors.asked)
    assert set(plan.texts_to_embed) | set(vectors.asked) >= {c.content for c in plan.chunks}
    assert [m.id for m in plan.new_messages] == [str(i) for i in range(10)]
    assert {a["id"] for a in plan.archived} == {str(i) for i in range(10)}


def test_nothing_new_plans_nothing() -> None:
    vectors = Recorder()
    read = first_read(10)
    plan = plan_version(read, settings(), RulesExtractor(), vectors)
    assert plan is not None
    assert (
        plan_version(archived(read, plan, vectors), settings(), RulesExtractor(), vectors) is None
    )


def test_a_session_that_grew_embeds_only_its_new_turns_and_changed_texts() -> None:
    vectors = Recorder()
    read = first_read(10)
    first = plan_version(read, settings(), RulesExtractor(), vectors)
    assert first is not None
    grown = archived(read, first, vectors)
    grown.new = [message(10)]
    vectors.asked.clear()
    plan = plan_version(grown, settings(), RulesExtractor(), vectors)
    assert plan is not None
    stored_texts = {c.content for c in first.chunks}
    to_embed = set(plan.texts_to_embed) | set(vectors.asked)
    # Nothing a stored chunk holds is embedded again, whatever its id now is.
    assert to_embed.isdisjoint(stored_texts)
    # The new turn is, in the last window, which is rewritten with its earlier turns.
    turns = [c for c in plan.to_write if c.source == "session_turn"]
    assert turns and all("(10)" in c.content for c in turns)
    assert plan.watermark is not None and plan.watermark.message_id == "10"
    assert plan.message_count == 11
    # Chunks of slots this version rewrites that it no longer has are removed.
    assert plan.to_remove <= set(first_ids := {c.id for c in first.chunks}) and first_ids


TOOLS = ["Redis", "Kafka", "Sentry", "Grafana", "Terraform", "Celery", "Nginx", "Airflow"]
SERVICES = [
    "billing API", "auth service", "web app", "ingest worker", "search backend", "nightly ETL",
    "mobile API", "admin dashboard", "notification queue", "reporting job", "payment gateway",
]  # fmt: skip


def fact(i: int) -> Message:
    """A message with a decision (even i) or a planned action (odd i) of its own."""
    tool, service = TOOLS[i % len(TOOLS)], SERVICES[(i // len(TOOLS)) % len(SERVICES)]
    role, text = (
        ("user", f"Let's use {tool} for the {service}.")
        if i % 2 == 0
        else ("assistant", f"Next step: I'll set up {tool} for the {service}.")
    )
    return Message(
        id=str(i), session_id=SID, role=role, content=text, created_at=T0 + timedelta(minutes=i)
    )


def test_a_grown_session_embeds_its_new_turns_new_items_and_one_summary() -> None:
    vectors = Recorder()
    read = first_read(0)
    read.new = [fact(i) for i in range(80)]
    first = plan_version(read, settings(), RulesExtractor(), vectors)
    assert first is not None
    grown = archived(read, first, vectors)
    grown.new = [fact(i) for i in range(80, 88)]
    plan = plan_version(grown, settings(), RulesExtractor(), vectors)
    assert plan is not None
    stored = {c.content for c in first.chunks}
    embedded = {
        c.source: [x.content for x in plan.to_embed if x.source == c.source] for c in plan.to_embed
    }
    assert not stored & {c.content for c in plan.to_embed}
    # Of the extraction, only its head: the summary and topics (decisions and actions are
    # state items, embedded once as such).
    assert [t.split("\n")[0][:9] for t in embedded.get("archive_extraction", [])] == ["Summary: "]
    assert embedded["session_turn"]  # the new turns
    new_items = {i.text for i in plan.extraction.state_items} - {
        i.text for i in first.extraction.state_items
    }
    assert new_items and set(plan.state.texts_embedded) >= new_items - stored
    assert set(embedded) <= {"archive_extraction", "session_turn"} | (
        {"state_item"} if new_items else set()
    )


def test_with_embed_chunks_the_new_chunks_texts_go_in_the_candidates_call() -> None:
    apart, together = Recorder(), Recorder()
    read = first_read(0)
    read.new = [fact(i) for i in range(80)]
    first = plan_version(read, settings(), RulesExtractor(), apart)
    assert first is not None
    grown = archived(read, first, apart)
    grown.new = [fact(i) for i in range(80, 88)]
    for vectors in (apart, together):
        vectors.asked, vectors.calls = [], 0
    left = plan_version(grown, settings(), RulesExtractor(), apart)
    one = plan_version(grown, settings(), RulesExtractor(), together, embed_chunks=True)
    assert left is not None and one is not None
    assert together.calls == apart.calls == 1  # the state candidates' call
    assert one.texts_to_embed == [] and left.texts_to_embed
    assert set(together.asked) == set(apart.asked) | set(left.texts_to_embed)
    # The same version either way, and still nothing a stored chunk holds is embedded.
    assert [c.id for c in one.chunks] == [c.id for c in left.chunks]
    assert one.slots == left.slots
    assert {c.content for c in first.chunks}.isdisjoint(together.asked)


def test_a_last_window_with_an_edited_message_is_left_as_archived() -> None:
    vectors = Recorder()
    read = first_read(10)
    first = plan_version(read, settings(), RulesExtractor(), vectors)
    assert first is not None
    grown = archived(read, first, vectors)
    assert grown.last_window is not None and len(grown.last_window.covered) < 4
    edited = grown.last_window.present[0].model_copy(update={"archived_md5": "another"})
    grown.last_window = LastWindow(
        grown.last_window.index,
        grown.last_window.covered,
        [edited, *grown.last_window.present[1:]],
    )
    grown.new = [message(10)]
    plan = plan_version(grown, settings(), RulesExtractor(), vectors)
    assert plan is not None
    windows = {c.slot for c in plan.chunks if c.slot.startswith("turns:")}
    assert windows == {f"turns:{grown.last_window.index + 1:06d}"}


def test_a_rebuild_starts_over_and_rewrites_every_slot() -> None:
    vectors = Recorder()
    read = first_read(10)
    first = plan_version(read, settings(), RulesExtractor(), vectors)
    assert first is not None
    again = archived(read, first, vectors)
    again.rebuild = True
    again.new = [message(i) for i in range(10)]
    plan = plan_version(again, settings(), RulesExtractor(), vectors)
    assert plan is not None
    assert plan.slots is None and plan.from_version == 1
    assert plan.message_count == 10
    # The same messages make the same chunks: nothing to write, nothing to embed.
    assert plan.to_write == [] and plan.texts_to_embed == [] and plan.to_remove == set()
