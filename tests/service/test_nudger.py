"""Consumer-protocol groups: their advice, and the nudger that acts on it (no Kafka).

The nudge itself (the sidecar's member joining and leaving) is proven on a real
broker in ``tests/broker/test_nudge_kafka.py``; here the decision around it: which
groups are weighed, when a nudge starts, that it never repeats within the
cooldown, that two replicas of the sidecar nudge a group once between them, how it
is counted and shown.
"""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import datetime, timedelta

import pytest

from lagassign.groups.advice import AdvicePolicy, advise
from lagassign.groups.advice_tracker import AdviceTracker
from lagassign.groups.nudger import Epochs, EpochWatch, GroupNudger, nudge_line, recently_moved
from lagassign.groups.page import render_group
from lagassign.groups.report import group_report
from lagassign.http.schemas_advice import AdviceOut
from lagassign.lagview.kafka.consumer_group_describe import (
    DescribedConsumerGroup,
    DescribedConsumerMember,
)
from lagassign.lagview.kafka.groups import NUDGE_TOPIC, GroupDescription, consumer_group_answer
from lagassign.lagview.kafka.nudge import NudgeResult, Unless
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.metrics.nudge import NudgeCollector
from tests.service.group_builders import AS_OF, snapshot_of

SKEWED = {"c-1": {"t0": [0, 1]}, "c-2": {"t0": [2, 3]}}
LAGS: dict[str, list[int | None]] = {"t0": [900, 800, 10, 10]}
POLICY = AdvicePolicy(min_gain=0.3, hold_s=0, cooldown_s=60, consumer_groups=True)


def consumer_group(
    assignor: str = "lagassign", assignment: dict[str, dict[str, list[int]]] = SKEWED
) -> GroupSnapshot:
    snap = snapshot_of("g", assignment, LAGS, protocol_type="consumer")
    return dataclasses.replace(snap, assignment_strategy=assignor)


def test_a_consumer_group_on_the_plugin_is_advised_when_the_nudge_is_on() -> None:
    o = advise("g", consumer_group(), None, now=AS_OF, kafka_up=True, policy=POLICY)
    assert o.advice.advised, o.advice.reason
    assert (o.advice.worst_lag_now, o.advice.worst_lag_after) == (1700, 910)


def test_without_the_setting_or_on_another_assignor_it_is_not() -> None:
    off = dataclasses.replace(POLICY, consumer_groups=False)
    o = advise("g", consumer_group(), None, now=AS_OF, kafka_up=True, policy=off)
    assert not o.advice.advised
    assert "only classic groups" in o.advice.reason
    o = advise("g", consumer_group("uniform"), None, now=AS_OF, kafka_up=True, policy=POLICY)
    assert not o.advice.advised
    assert "'uniform', not 'lagassign'" in o.advice.reason


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.wall = AS_OF

    def __call__(self) -> float:
        return self.now

    def utc(self) -> datetime:
        return self.wall


class Coordinator:
    """The group's epochs as the coordinator keeps them: a join and its leave move both
    by two (the target is recomputed at once here)."""

    def __init__(self, epoch: int = 5) -> None:
        self.epoch = epoch

    def described(self) -> GroupDescription:
        return GroupDescription("g", "Stable", "consumer", "lagassign", (), self.epoch, self.epoch)

    def snapshot(self, snap: GroupSnapshot) -> GroupSnapshot:
        """``snap`` as a refresh reads it now, with the group's epochs."""
        return dataclasses.replace(snap, group_epoch=self.epoch, assignment_epoch=self.epoch)


class FakeNudge:
    """Stands in for the Kafka side only: records the calls, answers ``outcome``; with a
    ``coordinator``, describes the group to ``unless`` first and moves its epochs."""

    def __init__(self, outcome: str = "nudged", coordinator: Coordinator | None = None) -> None:
        self.calls: list[str] = []
        self.outcome = outcome
        self.coordinator = coordinator

    async def __call__(self, group_id: str, *, unless: Unless | None = None) -> NudgeResult:
        self.calls.append(group_id)
        coordinator = self.coordinator
        if coordinator is None:
            return NudgeResult(group_id, "m-x", self.outcome, "", 5, 6, 0.4)  # type: ignore[arg-type]
        before = coordinator.epoch
        why = unless(coordinator.described()) if unless is not None else None
        if why is not None:
            return NudgeResult(group_id, "m-x", "recomputed_recently", why, before)
        coordinator.epoch += 2
        return NudgeResult(group_id, "m-x", self.outcome, "", before, before + 1, 0.4)  # type: ignore[arg-type]


async def settle(nudger: GroupNudger) -> None:
    for _ in range(10):  # the nudge task runs on the loop: a few turns finish it
        await asyncio.sleep(0)
    await nudger.close()


def run_refreshes(
    snapshots: list[tuple[float, GroupSnapshot]], outcome: str = "nudged"
) -> tuple[FakeNudge, GroupNudger, AdviceTracker]:
    clock = Clock()
    tracker = AdviceTracker(POLICY, clock=clock.utc)
    fake = FakeNudge(outcome)
    nudger = GroupNudger(tracker, fake, clock=clock)

    async def go() -> None:
        for t, snap in snapshots:
            clock.now = t
            clock.wall = AS_OF + timedelta(seconds=t)
            snap = dataclasses.replace(snap, as_of=clock.wall)
            refresh = Refresh(0.1, True, [snap])
            tracker.observe(refresh, kafka_up=True, groups={snap.group_id})
            await nudger.refreshed(refresh)
            for _ in range(10):
                await asyncio.sleep(0)
        await settle(nudger)

    asyncio.run(go())
    return fake, nudger, tracker


def test_an_advised_group_is_nudged_once_within_the_cooldown() -> None:
    # The nudge moves nothing (the same skew stays): still only one nudge per 60 s.
    steps = [(float(t), consumer_group()) for t in range(0, 59, 1)]
    fake, nudger, tracker = run_refreshes(steps, outcome="not_recomputed")
    assert fake.calls == ["g"]
    assert nudger.counts() == {("g", "not_recomputed"): 1}
    advice = tracker.advice_of("g")
    assert advice is not None
    assert advice.nudges == 1
    assert advice.last_nudge is not None
    assert advice.last_nudge.startswith("not_recomputed")
    # After the cooldown, a skew that lasts is nudged again.
    fake, nudger, _ = run_refreshes([(0.0, consumer_group()), (60.0, consumer_group())])
    assert fake.calls == ["g", "g"]
    assert nudger.counts() == {("g", "nudged"): 2}


def test_a_group_no_longer_tracked_is_forgotten() -> None:
    """Nudged at 0 s, untracked at 1 s (deleted, or past the tracking cap), tracked
    again at 2 s: nothing of it was kept, so no cooldown holds its nudge back."""
    clock = Clock()
    tracker = AdviceTracker(POLICY, clock=clock.utc)
    coordinator = Coordinator()
    fake = FakeNudge(coordinator=coordinator)
    nudger = GroupNudger(tracker, fake, clock=clock)
    seen: list[tuple[object, object]] = []

    async def go() -> None:
        for t, groups in [(0.0, {"g"}), (1.0, set()), (2.0, {"g"})]:
            clock.now, clock.wall = t, AS_OF + timedelta(seconds=t)
            snap = dataclasses.replace(coordinator.snapshot(consumer_group()), as_of=clock.wall)
            refresh = Refresh(0.1, True, [snap] if groups else [])
            tracker.observe(refresh, kafka_up=True, groups=groups)
            await nudger.refreshed(refresh)
            for _ in range(10):
                await asyncio.sleep(0)
            seen.append((tracker.advice_of("g") is not None, dict(nudger.counts())))
        await settle(nudger)

    asyncio.run(go())
    assert seen == [
        (True, {("g", "nudged"): 1}),
        (False, {}),
        (True, {("g", "nudged"): 1}),
    ]
    assert fake.calls == ["g", "g"]


class Replica:
    """One replica of the sidecar: its own clock, advice and nudger (held 2 s, cooled
    60 s), nudging the group the ``coordinator`` keeps; no store shared with another."""

    def __init__(self, coordinator: Coordinator) -> None:
        self.clock = Clock()
        self.tracker = AdviceTracker(dataclasses.replace(POLICY, hold_s=2), clock=self.clock.utc)
        self.nudger = GroupNudger(
            self.tracker, FakeNudge(coordinator=coordinator), clock=self.clock
        )
        self.coordinator = coordinator

    async def refresh(self, t: float) -> None:
        """A refresh at ``t`` reads the skewed group as it is now; a nudge it starts has
        not run yet when this returns."""
        self.clock.now = t
        self.clock.wall = AS_OF + timedelta(seconds=t)
        snap = self.coordinator.snapshot(consumer_group())
        refresh = Refresh(0.1, True, [dataclasses.replace(snap, as_of=self.clock.wall)])
        self.tracker.observe(refresh, kafka_up=True, groups={"g"})
        await self.nudger.refreshed(refresh)


async def turns() -> None:
    for _ in range(10):  # the nudge tasks run on the loop: a few turns finish them
        await asyncio.sleep(0)


@pytest.mark.parametrize(
    ("b_refreshes", "why"),
    [
        # B's refresh comes half a second after A's nudge: it sees the epochs move.
        (0.5, "within the cooldown of 60.0 s"),
        # Both refresh before either nudge runs: B finds them moved when it describes
        # the group just before its join.
        (0.0, "moved since the last refresh (group epoch 7 -> 9, target assignment epoch 7 -> 9)"),
    ],
)
def test_two_replicas_nudge_a_skewed_group_once_between_them(b_refreshes: float, why: str) -> None:
    # The nudges move nothing (the same skew stays), so both replicas stay advised
    # for 70 s: as one sidecar, the group is nudged once per cooldown, at 2 s and 62 s.
    coordinator = Coordinator()
    a, b = Replica(coordinator), Replica(coordinator)

    async def go() -> None:
        for step in range(71):
            await a.refresh(float(step))
            if b_refreshes:
                await turns()
            await b.refresh(step + b_refreshes)
            await turns()
        await settle(a.nudger)
        await settle(b.nudger)

    asyncio.run(go())
    assert a.nudger.counts() == {("g", "nudged"): 2}
    assert b.nudger.counts() == {("g", "recomputed_recently"): 2}
    assert coordinator.epoch == 5 + 2 * 2
    advice = b.tracker.advice_of("g")
    assert advice is not None
    assert advice.last_nudge is not None
    assert advice.last_nudge.startswith("recomputed_recently in 0.0 s: its epochs moved")
    assert why in advice.last_nudge


@pytest.mark.parametrize(
    ("last", "moved", "described", "skipped"),
    [
        # nothing known of the group yet: never held back
        (None, None, Epochs(5, 5), None),
        # as the last refresh saw it, and no move known (or one older than the cooldown)
        (Epochs(5, 5), None, Epochs(5, 5), None),
        (Epochs(5, 5), 40.0, Epochs(5, 5), None),
        # moved 10 s ago, within the 30 s cooldown
        (Epochs(5, 5), 90.0, Epochs(5, 5), "its epochs moved 10.0 s ago"),
        # a recomputation still pending since the last refresh is a move too
        (Epochs(5, 5), None, Epochs(6, 5), "since the last refresh (group epoch 5 -> 6"),
    ],
)
def test_a_group_recomputed_recently_is_not_nudged(
    last: Epochs | None, moved: float | None, described: Epochs, skipped: str | None
) -> None:
    why = recently_moved(last, moved, described, 100.0, 30.0)
    assert (why is None) == (skipped is None), why
    assert skipped is None or skipped in (why or "")


def test_a_replicas_own_nudges_are_not_moves_but_anothers_are() -> None:
    watch = EpochWatch()
    watch.saw("g", Epochs(5, 5), 0.0)  # first seen: no move known
    own = watch.before_nudge("g", 30.0, lambda: 1.0)
    described = GroupDescription("g", "Stable", "consumer", "lagassign", (), 5, 5)
    assert own(described) is None
    watch.saw("g", Epochs(6, 5), 1.5)  # its join, seen while it runs
    watch.nudged("g", NudgeResult("g", "m", "nudged", "", 5, 6, 0.4))
    watch.saw("g", Epochs(7, 7), 2.0)  # its leave, computed
    later = watch.before_nudge("g", 30.0, lambda: 20.0)  # within 30 s of its own moves
    assert later(dataclasses.replace(described, group_epoch=7, assignment_epoch=7)) is None
    watch.nudged("g", NudgeResult("g", "m", "nudged", "", 7, 8, 0.4))
    watch.saw("g", Epochs(9, 9), 21.0)  # its own again
    watch.saw("g", Epochs(10, 10), 50.0)  # a member joined: not this replica's
    held = watch.before_nudge("g", 30.0, lambda: 60.0)
    moved = held(dataclasses.replace(described, group_epoch=10, assignment_epoch=10))
    assert moved is not None
    assert "moved 10.0 s ago" in moved


def test_classic_and_balanced_groups_are_never_nudged() -> None:
    classic = snapshot_of("g", SKEWED, LAGS)
    fake, _, tracker = run_refreshes([(0.0, classic)])
    advice = tracker.advice_of("g")
    assert advice is not None
    assert advice.advised  # advised: the classic helpers act on it
    assert fake.calls == []
    balanced = consumer_group(assignment={"c-1": {"t0": [0, 2]}, "c-2": {"t0": [1, 3]}})
    fake, _, _ = run_refreshes([(0.0, balanced)])
    assert fake.calls == []


def test_the_nudge_is_shown_on_the_advice_and_counted_in_the_metric() -> None:
    _, nudger, tracker = run_refreshes([(0.0, consumer_group()), (1.0, consumer_group())])
    advice = tracker.advice_of("g")
    assert advice is not None
    body = AdviceOut.of(advice).model_dump()
    assert body["nudges"] == 1
    assert body["last_nudge"] == "nudged, group epoch 5 -> 6 (join) -> leave in 0.4 s"
    (family,) = NudgeCollector(nudger.counts).collect()
    assert [(s.name, s.labels, s.value) for s in family.samples] == [
        ("lagassign_nudges_total", {"group": "g", "outcome": "nudged"}, 1.0)
    ]


def test_a_failed_nudge_reads_as_such() -> None:
    line = nudge_line(NudgeResult("g", "m", "refused", "GroupAuthorizationFailedError"))
    assert line == "refused in 0.0 s: GroupAuthorizationFailedError"


def test_the_view_leaves_the_nudge_topic_out_of_a_members_subscription() -> None:
    own = DescribedConsumerMember(
        "m-x", None, None, 4, "lagassign", "/127.0.0.1", (NUDGE_TOPIC,), None, (), ()
    )
    real = dataclasses.replace(own, member_id="m-1", subscribed_topics=("t0",))
    group = DescribedConsumerGroup(0, None, "g", "Assigning", 4, 3, "lagassign", (own, real))
    members = consumer_group_answer(group).members
    assert [(m.member_id, m.subscribed_topics) for m in members] == [
        ("m-1", ("t0",)),
        ("m-x", ()),
    ]


def test_the_group_page_says_how_often_the_group_was_nudged() -> None:
    _, _, tracker = run_refreshes([(0.0, consumer_group())])
    advice = tracker.advice_of("g")
    assert advice is not None
    snap = consumer_group()
    report = group_report("g", snap, (), default_strategy="balanced", now=AS_OF)
    page = render_group(report, advice)
    assert 'id="nudges"' in page
    assert "Nudged 1 time</b>" in page
    assert "the last: nudged, group epoch 5 -&gt; 6 (join) -&gt; leave in 0.4 s" in page
    assert 'id="nudges"' not in render_group(report, dataclasses.replace(advice, nudges=0))
