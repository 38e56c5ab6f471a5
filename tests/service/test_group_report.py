"""The group report: shares, skew, what ``balanced`` would give, live vs last answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from lagassign.assign.answer_log import AnswerRecord
from lagassign.groups.header import consumer_protocol_note
from lagassign.groups.live_assignment import live_assignment
from lagassign.groups.report import GroupReport, group_report, group_summary
from lagassign.http.schemas_group import GroupOut, LiveMatchOut
from lagassign.http.schemas_groups import GroupSummaryOut
from lagassign.lagview.snapshot import GroupSnapshot
from tests.service.group_builders import AS_OF, answer_record, lag_row, snapshot_of

NOW = AS_OF + timedelta(seconds=2)

# The worked example of the docstrings of lagassign.groups.live_assignment and .strategy_now.
EXAMPLE = snapshot_of("orders", {"c-1": {"t0": [0]}, "c-2": {"t0": [1, 2]}}, {"t0": [900, 50, 50]})

# Range put both heavy partitions on c-1.
SKEWED = snapshot_of(
    "orders", {"c-1": {"t0": [0, 1]}, "c-2": {"t0": [2, 3]}}, {"t0": [1000, 1000, 10, 10]}
)


def wire(report: GroupReport) -> dict[str, Any]:
    """The JSON body ``GET /groups/{group_id}`` answers for ``report``."""
    return GroupOut.of(report, None).model_dump(mode="json")


def report_of(
    snapshot: GroupSnapshot,
    answers: Sequence[AnswerRecord] = (),
    *,
    stale_after_s: float | None = None,
    refresh_error: str | None = None,
) -> GroupReport:
    return group_report(
        snapshot.group_id,
        snapshot,
        answers,
        default_strategy="balanced",
        now=NOW,
        stale_after_s=stale_after_s,
        refresh_error=refresh_error,
    )


def test_the_worked_example() -> None:
    report = report_of(EXAMPLE)
    assert [(m.member_id, m.partitions, m.lag) for m in report.members] == [
        ("c-1", 1, 900),
        ("c-2", 2, 100),
    ]
    assert [m.share for m in report.members] == [pytest.approx(0.9), pytest.approx(0.1)]
    assert report.header.total_lag == 1000
    assert report.skew.imbalance == pytest.approx(1.8)
    assert report.skew.mean_member_lag == pytest.approx(500)
    assert report.skew.hot_partitions[0].partition == 0
    assert report.skew.hot_partitions[0].consumer_id == "c-1"
    now = report.skew.default_now
    assert now is not None
    assert now.strategy == "balanced"
    assert now.imbalance == pytest.approx(1.8)  # one partition holds 900: nothing beats it
    assert now.moved == 0  # nothing changed, so nothing moves


def test_skew_now_against_what_balanced_would_give() -> None:
    report = report_of(SKEWED)
    assert report.skew.max_member_lag == 2000
    assert report.skew.imbalance == pytest.approx(2000 / 1010)
    now = report.skew.default_now
    assert now is not None
    assert dict(now.member_lag) == {"c-1": 1010, "c-2": 1010}
    assert now.imbalance == pytest.approx(1.0)
    assert now.moved == 2  # one heavy and one light partition change hands
    assert sum(now.member_lag.values()) == report.header.total_lag


def test_partition_rows_use_the_describe_field_names_and_null_for_unknowns() -> None:
    rows = (
        lag_row("t0", 0, 7, "c-1", committed=3),
        lag_row("t0", 1, None, None, committed=None, end=None, start=None),
    )
    snapshot = replace(EXAMPLE, partitions=rows, members=EXAMPLE.members[:1])
    body = wire(report_of(snapshot))
    assert list(body["partitions"][0])[:9] == [
        "topic",
        "partition",
        "current_offset",
        "log_end_offset",
        "log_start_offset",
        "lag",
        "consumer_id",
        "host",
        "client_id",
    ]
    assert body["partitions"][0]["current_offset"] == 3
    assert body["partitions"][0]["log_end_offset"] == 10
    unknown = body["partitions"][1]
    for name in ("current_offset", "log_end_offset", "log_start_offset", "lag", "consumer_id"):
        assert unknown[name] is None, name
    assert body["header"]["unknown_partitions"] == 1
    assert body["header"]["total_lag"] == 7


def test_a_member_with_an_unknown_lag_counts_it_apart() -> None:
    rows = (lag_row("t0", 0, 7, "c-1"), lag_row("t0", 1, None, "c-1", end=None))
    snapshot = replace(EXAMPLE, partitions=rows, members=EXAMPLE.members[:1])
    (only,) = report_of(snapshot).members
    assert (only.partitions, only.lag, only.unknown_partitions) == (2, 7, 1)


def test_consumer_protocol_groups_are_in_reach_with_a_note_on_their_assignor() -> None:
    uniform = replace(
        EXAMPLE,
        protocol_type="consumer",
        assignment_strategy="uniform",
        group_epoch=7,
        assignment_epoch=7,
    )
    header = wire(report_of(uniform))["header"]
    assert header["protocol_note"] == consumer_protocol_note("uniform")
    assert "group.remote.assignor=lagassign" in header["protocol_note"]
    assert "'uniform'" in header["protocol_note"]
    assert (header["group_epoch"], header["assignment_epoch"]) == (7, 7)
    # What balanced would do is shown for it as for a classic group.
    now, classic_now = report_of(uniform).skew.default_now, report_of(EXAMPLE).skew.default_now
    assert now is not None
    assert classic_now is not None
    assert (now.max_lag, now.member_lag) == (classic_now.max_lag, classic_now.member_lag)
    on_plugin = report_of(replace(uniform, assignment_strategy="lagassign")).header
    assert on_plugin.protocol_note == consumer_protocol_note("lagassign")
    assert "broker plugin" in (on_plugin.protocol_note or "")
    assert report_of(EXAMPLE).header.protocol_note is None


def test_freshness_age_and_staleness() -> None:
    fresh = report_of(EXAMPLE, stale_after_s=30).freshness
    assert fresh.age_seconds == pytest.approx(2.0)
    assert fresh.stale is False
    assert report_of(EXAMPLE, stale_after_s=1).freshness.stale is True
    assert report_of(replace(EXAMPLE, stale=True)).freshness.stale is True
    failed = report_of(replace(EXAMPLE, error="group 'orders': coordinator not available"))
    assert failed.freshness.stale is True
    assert failed.freshness.last_refresh_error == "group 'orders': coordinator not available"
    view_error = report_of(EXAMPLE, refresh_error="Kafka unreachable").freshness
    assert view_error.last_refresh_error == "Kafka unreachable"
    body = wire(report_of(EXAMPLE))["freshness"]
    assert body["as_of"] == "2026-11-20T22:19:03.120Z"


def test_live_assignment_matches_the_last_answer() -> None:
    answer = answer_record({"c-1": {"t0": [0]}, "c-2": {"t0": [1, 2]}})
    match = report_of(EXAMPLE, [answer]).live_vs_last_answer
    assert (match.status, match.differing_partitions) == ("matches", 0)
    assert LiveMatchOut.of(match).model_dump()["matches"] is True


def test_live_assignment_that_differs_suggests_a_fallback() -> None:
    answer = answer_record({"c-1": {"t0": [0, 2]}, "c-2": {"t0": [1]}})
    match = report_of(EXAMPLE, [answer]).live_vs_last_answer
    assert (match.status, match.differing_partitions) == ("differs", 1)
    assert "fell back" in match.reason
    assert LiveMatchOut.of(match).model_dump()["matches"] is False


def test_an_answer_newer_than_the_snapshot_is_pending() -> None:
    answer = answer_record({"c-1": {"t0": [0, 2]}}, at=AS_OF + timedelta(seconds=1))
    assert report_of(EXAMPLE, [answer]).live_vs_last_answer.status == "pending"


def test_only_the_newest_answer_is_compared() -> None:
    newest = answer_record({"c-1": {"t0": [0]}, "c-2": {"t0": [1, 2]}})
    older = answer_record({"c-1": {"t0": [0, 1, 2]}}, at=AS_OF - timedelta(minutes=5))
    report = report_of(EXAMPLE, [newest, older])
    assert report.live_vs_last_answer.status == "matches"
    assert [a["computed_at"] for a in wire(report)["last_answers"]] == [
        "2026-11-20T22:18:33.120Z",
        "2026-11-20T22:14:03.120Z",
    ]


def test_without_an_answer_or_live_members_the_match_is_unknown() -> None:
    assert report_of(EXAMPLE).live_vs_last_answer.status == "unknown"
    empty = replace(EXAMPLE, members=(), state="Empty")
    answer = answer_record({"c-1": {"t0": [0, 1, 2]}})
    match = report_of(empty, [answer]).live_vs_last_answer
    assert match.status == "unknown"
    assert "Empty" in match.reason


def test_an_empty_group_has_no_skew_and_every_partition_unassigned() -> None:
    empty = snapshot_of("orders", {}, {"t0": [5, 6, 7]}, state="Empty")
    report = report_of(empty)
    assert report.members == ()
    assert (report.unassigned_partitions, report.unassigned_lag) == (3, 18)
    assert report.skew.imbalance is None
    assert report.skew.default_now is None
    assert report.skew.default_now_unavailable == "the group has no live members"


def test_a_group_known_only_from_answers() -> None:
    answer = answer_record({"c-1": {"t0": [0]}})
    report = group_report(
        "fresh", None, [answer], default_strategy="balanced", now=NOW, stale_after_s=30
    )
    body = wire(report)
    assert body["freshness"] == {
        "as_of": None,
        "age_seconds": None,
        "stale": True,
        "last_refresh_error": None,
    }
    assert body["partitions"] == []
    assert body["skew"]["default_strategy_now"] is None
    assert body["last_answers"][0]["strategy"] == "balanced"


def test_no_lag_at_all_gives_perfect_balance_and_no_shares() -> None:
    idle = snapshot_of("idle", {"c-1": {"t0": [0]}, "c-2": {"t0": [1]}}, {"t0": [0, 0]})
    report = report_of(idle)
    assert report.skew.imbalance == 1.0
    assert [m.share for m in report.members] == [None, None]
    assert report.skew.hot_partitions == ()


def test_hot_partitions_are_the_top_few_by_lag() -> None:
    lags = {"a": [5, 90, 1, 60], "b": [70, 0, 80]}
    snapshot = snapshot_of("g", {"c-1": {"a": [0, 1, 2, 3], "b": [0, 1, 2]}}, lags)
    hot = report_of(snapshot).skew.hot_partitions
    assert [(h.topic, h.partition, h.lag) for h in hot] == [
        ("a", 1, 90),
        ("b", 2, 80),
        ("b", 0, 70),
        ("a", 3, 60),
        ("a", 0, 5),
    ]


def test_live_assignment_is_completed_from_the_partition_rows() -> None:
    # The member's assignment bytes were not decoded, but the rows name it.
    snapshot = replace(EXAMPLE, members=tuple(replace(m, assignment={}) for m in EXAMPLE.members))
    assert live_assignment(snapshot) == {"c-1": {"t0": [0]}, "c-2": {"t0": [1, 2]}}


def test_the_summary_runs_no_strategy_and_carries_the_headline() -> None:
    summary = group_summary("orders", SKEWED, None, now=NOW, stale_after_s=30)
    body = GroupSummaryOut.of(summary).model_dump()
    assert body["header"]["members"] == 2
    assert body["header"]["partitions"] == 4
    assert body["imbalance"] == pytest.approx(1.9802, abs=1e-4)
    assert body["last_answer"] is None
    assert body["live_vs_last_answer"]["status"] == "unknown"
    assert "skew" not in body
