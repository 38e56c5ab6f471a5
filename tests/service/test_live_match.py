"""Live vs last answer: static members matched by instance id, the metric, the shims' notes."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from prometheus_client import CollectorRegistry, generate_latest

from lagassign.assign.answer_log import AnswerRecord
from lagassign.groups.live_assignment import live_assignment
from lagassign.groups.live_match import compare_live, live_status
from lagassign.groups.report import group_report
from lagassign.http.schemas_group import GroupOut
from lagassign.lagview.assignment_note import AssignmentNote
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.metrics.live_match import LiveMatchCollector
from tests.service.fake_lag_view import FakeLagView
from tests.service.group_builders import AS_OF, answer_record, snapshot_of

LAGS = {"t0": [900, 50, 50]}


def static(snapshot: GroupSnapshot, instance_of: dict[str, str]) -> GroupSnapshot:
    members = tuple(
        replace(m, group_instance_id=instance_of.get(m.member_id)) for m in snapshot.members
    )
    return replace(snapshot, members=members)


def test_a_static_member_restarted_under_a_new_member_id_still_matches() -> None:
    answered = answer_record({"c-1": {"t0": [0]}, "c-2": {"t0": [1, 2]}})
    answered = replace(answered, instance_ids={"c-1": "web-1", "c-2": "web-2"})
    # web-1 restarted: the broker gave it member id c-9 and the same partitions.
    now = static(
        snapshot_of("g", {"c-9": {"t0": [0]}, "c-2": {"t0": [1, 2]}}, LAGS),
        {"c-9": "web-1", "c-2": "web-2"},
    )
    match = compare_live(now, live_assignment(now), answered)
    assert (match.status, match.differing_partitions) == ("matches", 0)


def test_a_static_member_holding_another_ones_partitions_differs() -> None:
    answered = answer_record({"c-1": {"t0": [0]}, "c-2": {"t0": [1, 2]}})
    answered = replace(answered, instance_ids={"c-1": "web-1", "c-2": "web-2"})
    swapped = static(
        snapshot_of("g", {"c-9": {"t0": [1, 2]}, "c-2": {"t0": [0]}}, LAGS),
        {"c-9": "web-1", "c-2": "web-2"},
    )
    match = compare_live(swapped, live_assignment(swapped), answered)
    assert (match.status, match.differing_partitions) == ("differs", 3)


def test_a_dynamic_member_with_a_new_member_id_differs() -> None:
    answered = answer_record({"c-1": {"t0": [0]}, "c-2": {"t0": [1, 2]}})
    now = snapshot_of("g", {"c-9": {"t0": [0]}, "c-2": {"t0": [1, 2]}}, LAGS)
    assert compare_live(now, live_assignment(now), answered).status == "differs"


def test_differs_says_the_fallback_reason_the_user_data_carries() -> None:
    answered = answer_record({"c-1": {"t0": [0, 1]}, "c-2": {"t0": [2]}})
    now = snapshot_of("g", {"c-1": {"t0": [0]}, "c-2": {"t0": [1, 2]}}, LAGS)
    note = AssignmentNote("range", "timeout")
    now = replace(now, members=tuple(replace(m, note=note) for m in now.members))
    match = compare_live(now, live_assignment(now), answered)
    assert match.status == "differs"
    assert "the leader fell back to the range assignor (timeout)" in match.reason
    built = group_report(
        "g",
        now,
        [answered],
        default_strategy="balanced",
        now=AS_OF,
        assignments_seen={("range", "timeout"): 2, ("sidecar", ""): 1},
    )
    report = GroupOut.of(built, None).model_dump()
    assert report["assigned_by"] == {"by": "range", "reason": "timeout", "strategy": None}
    assert report["assignments_seen"] == [
        {"by": "range", "reason": "timeout", "count": 2},
        {"by": "sidecar", "reason": None, "count": 1},
    ]


def test_the_what_if_uses_each_members_described_subscription() -> None:
    # c-1 reads t0 and t1, c-2 only t1; t0-0 is the hot partition.
    lags = {"t0": [1000, 500], "t1": [10, 10]}
    now = snapshot_of("g", {"c-1": {"t0": [0, 1]}, "c-2": {"t1": [0, 1]}}, lags)
    topics = {"c-1": ("t0", "t1"), "c-2": ("t1",)}
    described = replace(
        now, members=tuple(replace(m, subscribed_topics=topics[m.member_id]) for m in now.members)
    )
    report = group_report("g", described, [], default_strategy="balanced", now=AS_OF)
    what_if = report.skew.default_now
    assert what_if is not None
    # c-2 cannot take t0-1: c-1 keeps both t0 partitions whatever it does.
    assert what_if.member_lag["c-1"] >= 1500
    assert what_if.member_lag["c-2"] <= 20
    assert what_if.assumes == "each member's subscription as the group's description reports it"
    guessed = group_report("g", now, [], default_strategy="balanced", now=AS_OF).skew.default_now
    assert guessed is not None
    # Guessing every member reads every topic moves t0-1 to c-2: a promise it cannot keep.
    assert guessed.max_lag < 1500 < what_if.max_lag + 1
    assert "not known" in guessed.assumes


def test_the_metric_is_1_when_matching_0_when_differing_and_absent_when_unknown() -> None:
    view = FakeLagView(
        {
            "same": snapshot_of("same", {"c-1": {"t0": [0, 1, 2]}}, LAGS),
            "moved": snapshot_of("moved", {"c-1": {"t0": [0]}, "c-2": {"t0": [1, 2]}}, LAGS),
            "newer": snapshot_of("newer", {"c-1": {"t0": [0, 1, 2]}}, LAGS),
            "unanswered": snapshot_of("unanswered", {"c-1": {"t0": [0, 1, 2]}}, LAGS),
        }
    )
    recorded = {
        "same": answer_record({"c-1": {"t0": [0, 1, 2]}}),
        "moved": answer_record({"c-1": {"t0": [0, 1]}, "c-2": {"t0": [2]}}),
        "newer": answer_record({"c-1": {"t0": [0, 1, 2]}}, at=AS_OF + timedelta(seconds=5)),
        "gone": answer_record({"c-1": {"t0": [0, 1, 2]}}),
    }
    registry = CollectorRegistry()
    registry.register(LiveMatchCollector(view, Answers(recorded), live_status))
    text = generate_latest(registry).decode()
    assert 'lagassign_live_assignment_matches{group="same"} 1.0' in text
    assert 'lagassign_live_assignment_matches{group="moved"} 0.0' in text
    for absent in ("newer", "unanswered", "gone"):
        assert f'group="{absent}"' not in text


class Answers:
    """The answer log's reading side over a dict: group -> its last answer."""

    def __init__(self, last: dict[str, AnswerRecord]) -> None:
        self._last = last

    def groups(self) -> list[str]:
        return sorted(self._last)

    def last(self, group_id: str) -> AnswerRecord | None:
        return self._last.get(group_id)
