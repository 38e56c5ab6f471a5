"""How each live assignment was made, counted from the refreshes' user data notes."""

from __future__ import annotations

from dataclasses import replace

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from lagassign.lagview.assignment_note import AssignmentNote
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.metrics.assigned_by import AssignmentWatch
from tests.service.fake_lag_view import FakeLagView
from tests.service.group_builders import snapshot_of

pytestmark = pytest.mark.anyio

FALLBACK = AssignmentNote("range", "unreachable")
ANSWERED = AssignmentNote("sidecar", None, "balanced")


def noted(
    snapshot: GroupSnapshot, note: AssignmentNote | None, generation: int = 1
) -> GroupSnapshot:
    members = tuple(replace(m, note=note, generation=generation) for m in snapshot.members)
    return replace(snapshot, members=members)


GROUP = snapshot_of("g", {"c-1": {"t": [0]}, "c-2": {"t": [1]}}, {"t": [3, 4]})


async def test_each_new_assignment_is_counted_once_by_how_it_was_made() -> None:
    watch = AssignmentWatch()
    for snapshot in [
        noted(GROUP, FALLBACK),
        noted(GROUP, FALLBACK),  # the same assignment, seen by the next refresh
        noted(GROUP, None),  # rebalancing: no note
        noted(GROUP, FALLBACK, generation=2),  # the next rebalance fell back again
        noted(GROUP, ANSWERED, generation=3),
    ]:
        await watch.refreshed(Refresh(0.01, True, [snapshot]))
    assert watch.seen("g") == {("range", "unreachable"): 2, ("sidecar", ""): 1}
    assert watch.seen("other") == {}


async def test_a_static_member_restarting_under_a_new_member_id_is_not_a_new_assignment() -> None:
    watch = AssignmentWatch()
    first = noted(GROUP, FALLBACK)
    first = replace(
        first,
        members=tuple(replace(m, group_instance_id=f"web-{m.member_id}") for m in first.members),
    )
    restarted = replace(
        first, members=(replace(first.members[0], member_id="c-9"), first.members[1])
    )
    await watch.refreshed(Refresh(0.01, True, [first, restarted]))
    assert watch.seen("g") == {("range", "unreachable"): 1}


async def test_the_metrics_count_and_show_the_live_fallback() -> None:
    view = FakeLagView(
        {
            "g": noted(GROUP, FALLBACK),
            "ok": noted(replace(GROUP, group_id="ok"), ANSWERED),
            "other": noted(replace(GROUP, group_id="other"), None),
        }
    )
    watch = AssignmentWatch(view)
    await watch.refreshed(Refresh(0.01, True, list(view.snapshots().values())))
    registry = CollectorRegistry()
    registry.register(watch)
    text = generate_latest(registry).decode()
    assert 'lagassign_group_fallbacks_seen_total{group="g",reason="unreachable"} 1.0' in text
    assert 'lagassign_group_fallbacks_seen_total{group="ok"' not in text
    assert 'lagassign_group_live_fallback{group="g"} 1.0' in text
    assert 'lagassign_group_live_fallback{group="ok"} 0.0' in text
    assert 'group="other"' not in text


async def test_the_groups_kept_are_bounded() -> None:
    watch = AssignmentWatch(max_groups=2)
    for name in ("a", "b", "c"):
        await watch.refreshed(Refresh(0.01, True, [noted(replace(GROUP, group_id=name), FALLBACK)]))
    assert watch.seen("a") == {}
    assert watch.seen("c") == {("range", "unreachable"): 1}
