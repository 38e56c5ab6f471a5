"""Putting a group's snapshot together from what one refresh read."""

from __future__ import annotations

from datetime import UTC, datetime

from lagassign.lagview.describe import describe_lag, kept_stale, unread
from lagassign.lagview.kafka.groups import GroupDescription, ListedGroup
from lagassign.lagview.kafka.offsets import PartitionOffsets, TopicOffsets
from lagassign.lagview.snapshot import MemberDescription

AS_OF = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
M1 = MemberDescription("m-1", None, "c-1", "/h1", {"t": (0,)})
M2 = MemberDescription("m-2", "s-2", "c-2", "/h2", {"t": (1,), "u": (0,)})


def described(*members: MemberDescription, state: str = "Stable") -> GroupDescription:
    return GroupDescription("g", state, "consumer", "range", members)


def offsets(
    topic: str, *rows: tuple[int, int, int, int | None], stale: bool = False
) -> TopicOffsets:
    return TopicOffsets(
        topic, {p: PartitionOffsets(start, high, lso, stale) for p, start, high, lso in rows}
    )


def test_rows_have_owner_offsets_and_lag() -> None:
    snapshot = describe_lag(
        described(M1, M2),
        ListedGroup("g", "consumer", "Stable", "classic"),
        {"t": {0: 5, 2: 1}},
        {
            "t": offsets("t", (0, 0, 10, 10), (1, 0, 20, 20), (2, 3, 9, 9)),
            "u": offsets("u", (0, 0, 4, 4)),
        },
        "latest",
        "read_uncommitted",
        AS_OF,
    )
    rows = {(p.topic, p.partition): p for p in snapshot.partitions}
    assert list(rows) == [("t", 0), ("t", 1), ("t", 2), ("u", 0)]
    assert (rows[("t", 0)].lag, rows[("t", 0)].consumer_id, rows[("t", 0)].host) == (
        5,
        "m-1",
        "/h1",
    )
    assert (rows[("t", 1)].current_offset, rows[("t", 1)].lag, rows[("t", 1)].client_id) == (
        None,
        0,
        "c-2",
    )
    # committed 1 below log start 3: end - log start, flagged; nobody holds it.
    assert (rows[("t", 2)].lag, rows[("t", 2)].out_of_range, rows[("t", 2)].consumer_id) == (
        6,
        True,
        None,
    )
    assert rows[("u", 0)].lag == 0
    assert snapshot.protocol_type == "classic"
    assert snapshot.state == "Stable"
    assert snapshot.members == (M1, M2)
    assert not snapshot.stale
    assert snapshot.as_of == AS_OF


def test_read_committed_measures_against_the_last_stable_offset() -> None:
    snapshot = describe_lag(
        described(),
        None,
        {"t": {0: 4}},
        {"t": offsets("t", (0, 0, 15, 10))},
        "latest",
        "read_committed",
        AS_OF,
    )
    assert (snapshot.partitions[0].log_end_offset, snapshot.partitions[0].lag) == (10, 6)


def test_stale_topic_offsets_make_stale_rows() -> None:
    snapshot = describe_lag(
        described(),
        None,
        {"t": {0: 4}, "v": {0: 1}},
        {"t": offsets("t", (0, 0, 15, 15), stale=True)},
        "latest",
        "read_uncommitted",
        AS_OF,
    )
    t0, v0 = snapshot.partitions
    assert (t0.lag, t0.stale) == (11, True)
    # No offsets ever read for topic v: lag unknown, counted.
    assert (v0.lag, v0.log_end_offset, v0.stale) == (None, None, False)
    assert snapshot.stale
    assert snapshot.unknown_partitions == 1


def test_consumer_protocol_group_takes_state_and_type_from_the_listing() -> None:
    snapshot = describe_lag(
        described(state="Dead"),
        ListedGroup("g", "consumer", "Reconciling", "consumer"),
        {},
        {},
        "latest",
        "read_uncommitted",
        AS_OF,
    )
    assert (snapshot.state, snapshot.protocol_type) == ("Reconciling", "consumer")
    unknown = describe_lag(
        described(state="Dead"), None, {}, {}, "latest", "read_uncommitted", AS_OF
    )
    assert unknown.protocol_type is None


def test_kept_stale_and_unread() -> None:
    fresh = describe_lag(
        described(M1),
        None,
        {"t": {0: 5}},
        {"t": offsets("t", (0, 0, 10, 10))},
        "latest",
        "read_uncommitted",
        AS_OF,
    )
    kept = kept_stale(fresh, "Kafka unreachable")
    assert kept.stale
    assert kept.error == "Kafka unreachable"
    assert kept.as_of == fresh.as_of
    assert [(p.lag, p.stale) for p in kept.partitions] == [(5, True)]
    never = unread("h", "boom", AS_OF, "earliest", "read_committed")
    assert (never.partitions, never.error, never.stale, never.reset_policy) == (
        (),
        "boom",
        True,
        "earliest",
    )
