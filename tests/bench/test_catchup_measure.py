"""The catch-up benchmark's own measuring parts: the lower bound, catch-up detection,
the worst member's lag and the stall time, and one tiny run on the real broker."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiokafka.coordinator.assignors.range import (  # type: ignore[import-untyped]
    RangePartitionAssignor,
)

from bench.catchup.figures import Stall, catch_up_at, stalled_s, worst_member
from bench.catchup.members import PythonGroup
from bench.catchup.run import backlog_topics, epoch_moves, held, run_one
from bench.catchup.sampler import Sample
from bench.catchup.scenarios import Production, all_scenarios, lower_bound_s
from harness.broker import LocalKafka
from tests.bench.tiny_backlog import TINY


def test_lower_bound_is_the_larger_of_group_rate_and_largest_partition() -> None:
    backlog = {("a", 0): 600, ("a", 1): 100, ("b", 0): 100, ("b", 1): 100}
    # total 900 over 3 x 100/s = 3 s; the largest partition alone needs 6 s
    assert lower_bound_s(backlog, members=3, rate=100) == pytest.approx(6.0)
    assert lower_bound_s(backlog, members=1, rate=100) == pytest.approx(9.0)


def test_lower_bound_with_production_counts_what_arrives_while_draining() -> None:
    backlog = {("a", 0): 1_000, ("a", 1): 0}
    # the group: 1,000 + 50 T <= 2 x 100 T -> T >= 6.67; partition 0: 1,000 + 40 T <= 100 T
    # -> T >= 16.67; partition 1: 10 T <= 100 T
    production = Production({("a", 0): 40.0, ("a", 1): 10.0})
    assert lower_bound_s(backlog, 2, 100, production) == pytest.approx(1_000 / 60, rel=1e-6)
    # the hot partition moves at 5 s: partition 0 then gets nothing
    moving = Production({("a", 0): 40.0}, switch_s=5.0, after={("a", 1): 40.0})
    assert lower_bound_s(backlog, 2, 100, moving) == pytest.approx(12.0, rel=1e-6)
    # production above what one member drains on one partition: never
    assert lower_bound_s(backlog, 2, 100, Production({("a", 0): 150.0})) == float("inf")


def sample(at: float, lags: list[int], owners: dict[int, str] | None = None) -> Sample:
    return Sample(
        at=at,
        lag={("t", p): n for p, n in enumerate(lags)},
        owners={("t", p): m for p, m in (owners or {}).items()},
        state="Stable",
    )


def test_a_held_scenario_says_whether_the_lag_stayed_bounded() -> None:
    production = Production({("a", 0): 300.0, ("a", 1): 100.0})  # 400 records/s
    steady = [Sample(10.0 + t, {("a", 0): 500, ("a", 1): 200}, {}, "Stable") for t in range(9)]
    line = held(steady, 10.0, production)
    assert line["lag_end"] == 700
    assert line["lag_end_s_of_production"] == pytest.approx(1.75)
    assert line["lag_growth_per_s"] == 0.0
    assert line["bounded"] is True
    # a member given more than it reads: 100 records/s more every second
    growing = [Sample(10.0 + t, {("a", 0): 500 + 100 * t}, {}, "Stable") for t in range(9)]
    line = held(growing, 10.0, production)
    assert line["lag_end"] == 1_300
    assert line["lag_growth_per_s"] == pytest.approx(100.0)
    assert line["bounded"] is False
    # samples before the first record do not count
    assert held(growing, 17.5, production)["held_s"] == pytest.approx(0.5)


def test_a_consumer_protocol_groups_epoch_moves_are_timed_from_the_first_record() -> None:
    # epoch 3 before the first record (t0 = 10), 4 at it, a nudge's join and leave at 14 and 15
    epochs = [3, 3, 4, 4, 4, 4, 5, 6, 6]
    samples = [Sample(8.0 + t, {}, {}, "Stable", group_epoch=e) for t, e in enumerate(epochs)]
    assert epoch_moves(samples, 10.0) == [(0.0, 4), (4.0, 5), (5.0, 6)]
    # a classic group has no group epoch: nothing moves
    assert epoch_moves([Sample(8.0, {}, {}, "Stable")], 10.0) == []


def test_hot_keys_puts_more_than_one_member_reads_on_two_partitions() -> None:
    (hot_keys,) = [s for s in all_scenarios(7) if s.name == "hot-keys"]
    assert hot_keys.hold_s is not None
    assert hot_keys.caught_up_at_start
    assert hot_keys.production is not None
    hot = [key for key, rate in hot_keys.production.rates.items() if rate > hot_keys.rate / 2]
    assert len(hot) == 2
    # together they exceed one member, not the group
    assert sum(hot_keys.production.rates[key] for key in hot) > hot_keys.rate
    assert hot_keys.production.total_rate() < hot_keys.members * hot_keys.rate


def test_catch_up_is_interpolated_between_the_samples_around_the_crossing() -> None:
    samples = [sample(0.0, [1_000]), sample(1.0, [500]), sample(2.0, [0])]
    # 1% of 1,000 = 10 is crossed between 1 s (500) and 2 s (0): at 1 + 490/500
    assert catch_up_at(samples, 0.0, 10.0) == pytest.approx(1.98)
    assert catch_up_at(samples[:2], 0.0, 10.0) is None
    # a sample before t0 is the left end; nothing is counted before t0
    assert catch_up_at([sample(0.0, [100]), sample(1.0, [0])], 0.5, 10.0) == pytest.approx(0.9)


def test_worst_member_lag_is_the_max_and_time_weighted_mean_over_the_window() -> None:
    owners = {0: "m0", 1: "m1", 2: "m1"}
    samples = [
        sample(-1.0, [300, 100, 100]),  # no assignment known yet: left out
        sample(0.0, [300, 100, 100], owners),  # worst m0: 300
        sample(1.0, [100, 200, 200], owners),  # worst m1: 400
        sample(3.0, [0, 0, 0], owners),
    ]
    peak, mean = worst_member(samples, -1.0, 4.0)
    assert peak == 400
    assert mean == pytest.approx((300 * 1 + 400 * 2 + 0 * 1) / 4)
    assert worst_member(samples[:1], -1.0, 4.0) == (0, 0.0)


def test_stalls_are_counted_once_when_members_wait_together() -> None:
    stalls = [Stall("m0", 0.0, 2.0), Stall("m1", 1.0, 3.0), Stall("m0", 10.0, 11.0)]
    assert stalled_s(stalls, 100.0) == pytest.approx(4.0)
    assert stalled_s(stalls, 10.5) == pytest.approx(3.5)


@pytest.mark.kafka
def test_a_tiny_backlog_is_caught_up_no_faster_than_its_lower_bound(
    kafka_broker: LocalKafka, kafka_names: object
) -> None:
    """Two range members at 200 records/s on a backlog whose largest partition needs
    3 s: the run is detected as caught up, not before the bound, and every record of
    the backlog was processed."""
    bootstrap = kafka_broker.bootstrap

    async def run() -> dict[str, Any]:
        result = await run_one(
            bootstrap=bootstrap,
            scenario=TINY,
            topics=await backlog_topics(bootstrap, TINY, "bench-catchup-tiny."),
            group_id="bench-catchup-tiny",
            assignor="range",
            start="existing-group",
            make_group=lambda spec: PythonGroup(spec, lambda _: RangePartitionAssignor),
            cap_s=60.0,
        )
        return result.line

    line = asyncio.run(run())
    assert line["lower_bound_s"] == pytest.approx(3.0)
    assert line["backlog"] == 900
    assert line["catch_up_s"] is not None
    assert line["catch_up_s"] >= 0.9 * line["lower_bound_s"]
    records = line["records_per_member"]
    assert isinstance(records, list)
    assert len(records) == 2
    assert sum(records) >= 0.99 * 900
    # range gives one member partition 0 of both topics: 700 records behind at the start
    assert line["worst_member_lag_max"] >= 600
