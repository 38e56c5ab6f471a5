"""The cached snapshot value: per-topic lags for the strategies, counts for the reports."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from lagassign.lagview.rules import ResetPolicy
from lagassign.lagview.snapshot import GroupSnapshot, PartitionLag, new_row

AS_OF = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def row(
    topic: str,
    partition: int,
    lag: int | None,
    start: int | None = 0,
    end: int | None = 100,
    stale: bool = False,
) -> PartitionLag:
    return PartitionLag(topic, partition, 5, end, start, lag, None, None, None, stale=stale)


def snapshot(rows: list[PartitionLag], reset: ResetPolicy = "latest") -> GroupSnapshot:
    return GroupSnapshot(
        "g", AS_OF, "Stable", "classic", "range", (), tuple(rows), reset_policy=reset
    )


def test_lags_by_topic_indexes_by_partition() -> None:
    s = snapshot([row("b", 1, 7), row("a", 0, 3), row("b", 0, 2)])
    assert s.lags_by_topic() == {"a": [3], "b": [2, 7]}
    assert list(s.lags_by_topic()) == ["a", "b"]


def test_unknown_and_missing_partitions_follow_the_reset_policy() -> None:
    rows = [row("t", 0, 4), row("t", 2, None, start=10, end=60), row("t", 3, None, None, None)]
    assert snapshot(rows, "latest").lags_by_topic() == {"t": [4, 0, 0, 0]}
    # earliest: the whole retained log where both ends are known, 0 where nothing is.
    assert snapshot(rows, "earliest").lags_by_topic() == {"t": [4, 0, 50, 0]}


def test_counts() -> None:
    s = snapshot([row("t", 0, 4), row("t", 1, None), row("t", 2, 6, stale=True)])
    assert s.unknown_partitions == 1
    assert s.stale_partitions == 1
    assert s.total_lag() == 10
    assert snapshot([]).lags_by_topic() == {}


def test_new_row_is_an_ordinary_equal_partition_lag() -> None:
    values = ("t", 3, 5, 9, 1, 4, "m-1", "/h", "c-1", True, False)
    fast = new_row(*values)
    plain = PartitionLag(*values)
    assert fast == plain
    assert hash(fast) == hash(plain)
    assert repr(fast) == repr(plain)
    assert replace(fast, lag=0).lag == 0
