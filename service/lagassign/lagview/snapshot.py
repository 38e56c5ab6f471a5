"""Cached lag values of one consumer group, as the lag view last read them.

A :class:`GroupSnapshot` is what the HTTP service, the metrics collector and the
history sink read: a frozen value, never a live connection. Field names follow
``kafka-consumer-groups --describe``; a value the view does not know is ``None``,
never 0 or -1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from lagassign.lagview.assignment_note import AssignmentNote
from lagassign.lagview.rules import Isolation, ResetPolicy, lag_by_reset


@dataclass(frozen=True, slots=True)
class PartitionLag:
    """One row of ``kafka-consumer-groups --describe``: a partition the group reads.

    - ``current_offset``: the group's committed offset (``None``: no commit).
    - ``log_end_offset``: the end the lag is measured against (high watermark,
      or last stable offset for a ``read_committed`` group).
    - ``lag``: by the lag rules (:mod:`lagassign.lagview.rules`); ``None`` only
      when it is truly unknown.
    - ``consumer_id``/``host``/``client_id``: the member that holds the
      partition in the live assignment, ``None`` when nobody does.
    - ``out_of_range``: the committed offset is below the log start.
    - ``stale``: the offsets were kept from an earlier refresh because the
      latest one could not read them.
    """

    topic: str
    partition: int
    current_offset: int | None
    log_end_offset: int | None
    log_start_offset: int | None
    lag: int | None
    consumer_id: str | None
    host: str | None
    client_id: str | None
    out_of_range: bool = False
    stale: bool = False


@dataclass(frozen=True, slots=True)
class MemberDescription:
    """One member of a group as ``DescribeGroups`` reports it.

    ``assignment`` is the member's live assignment (topic -> sorted partition
    ids), decoded from its assignment bytes; empty when the group is not
    stable or uses a protocol whose assignment cannot be decoded.

    A member of a consumer-protocol group (``ConsumerGroupDescribe``) also has
    its ``rack``, its ``subscribed_topics`` and its ``member_epoch``; its ``owned`` is
    its target assignment (what the coordinator gives the assignor as owned).

    A classic member's ``subscribed_topics``, ``owned``, ``generation`` and
    ``rack`` come from its subscription bytes (the consumer protocol's member
    metadata, :mod:`lagassign.lagview.member_metadata`): ``owned`` is what it
    said it held when it joined, ``generation`` the generation those partitions
    came from. ``note`` is how the leader made the live assignment, read from the
    assignment's user data when lagassign's shims wrote it
    (:mod:`lagassign.lagview.assignment_note`), else ``None``.
    """

    member_id: str
    group_instance_id: str | None
    client_id: str
    host: str
    assignment: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    rack: str | None = None
    subscribed_topics: tuple[str, ...] = ()
    member_epoch: int | None = None
    owned: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    generation: int | None = None
    note: AssignmentNote | None = None


@dataclass(frozen=True, slots=True)
class GroupSnapshot:
    """The lag of one consumer group at ``as_of`` (UTC).

    - ``state``: the group state (``Stable``, ``Empty``, ``PreparingRebalance``,
      ...), ``None`` when not known.
    - ``protocol_type``: ``classic`` or ``consumer`` (the new group protocol,
      where client-side assignors do not apply), ``None`` when not known.
    - ``assignment_strategy``: the protocol name the group agreed on (e.g.
      ``range`` or ``lagassign``).
    - ``partitions``: one :class:`PartitionLag` per committed or assigned
      partition, sorted by topic then partition.
    - ``error``: why the last refresh of this group failed, ``None`` when it
      succeeded.
    - ``stale``: the snapshot (or part of it) is older than the last refresh.
    - ``reset_policy``/``isolation``: the group's settings the lags were
      computed with.
    - ``group_epoch``/``assignment_epoch``: a consumer-protocol group's epochs
      (``None`` for a classic group); ``assignment_strategy`` is then the
      broker-side assignor (``uniform``, ``range``, ``lagassign``).
    - ``topic_ids``: topic id -> name for the topics its members are assigned
      (consumer-protocol groups only).
    """

    group_id: str
    as_of: datetime
    state: str | None
    protocol_type: str | None
    assignment_strategy: str | None
    members: tuple[MemberDescription, ...]
    partitions: tuple[PartitionLag, ...]
    error: str | None = None
    stale: bool = False
    reset_policy: ResetPolicy = "latest"
    isolation: Isolation = "read_uncommitted"
    group_epoch: int | None = None
    assignment_epoch: int | None = None
    topic_ids: Mapping[str, str] = field(default_factory=dict)

    def lags_by_topic(self) -> dict[str, list[int]]:
        """Topic -> lag per partition id (index = partition), topics sorted.

        A partition whose lag is unknown, or that the snapshot does not list
        below the highest listed one, gets the lag its reset policy implies
        (see :func:`lagassign.lagview.rules.lag_by_reset`).
        """
        highest: dict[str, int] = {}
        for p in self.partitions:
            highest[p.topic] = max(highest.get(p.topic, -1), p.partition)
        fallback = lag_by_reset(self.reset_policy, None, None)
        out = {t: [fallback] * (highest[t] + 1) for t in sorted(highest)}
        for p in self.partitions:
            out[p.topic][p.partition] = (
                p.lag
                if p.lag is not None
                else lag_by_reset(self.reset_policy, p.log_start_offset, p.log_end_offset)
            )
        return out

    def topics(self) -> frozenset[str]:
        """The topics the snapshot lists at least one partition of."""
        return frozenset(p.topic for p in self.partitions)

    @property
    def unknown_partitions(self) -> int:
        """How many listed partitions have an unknown lag."""
        return sum(1 for p in self.partitions if p.lag is None)

    @property
    def stale_partitions(self) -> int:
        """How many listed partitions carry values kept from an earlier refresh."""
        return sum(1 for p in self.partitions if p.stale)

    def total_lag(self) -> int:
        """The sum of the known lags."""
        return sum(p.lag for p in self.partitions if p.lag is not None)


# PartitionLag's slot setters, in field order (see new_row).
_ROW_SETTERS = tuple(
    PartitionLag.__dict__[name].__set__ for name in PartitionLag.__dataclass_fields__
)
(
    _set_topic,
    _set_partition,
    _set_current_offset,
    _set_log_end_offset,
    _set_log_start_offset,
    _set_lag,
    _set_consumer_id,
    _set_host,
    _set_client_id,
    _set_out_of_range,
    _set_stale,
) = _ROW_SETTERS


def new_row(
    topic: str,
    partition: int,
    current_offset: int | None,
    log_end_offset: int | None,
    log_start_offset: int | None,
    lag: int | None,
    consumer_id: str | None,
    host: str | None,
    client_id: str | None,
    out_of_range: bool,
    stale: bool,
) -> PartitionLag:
    """``PartitionLag(...)`` with every field given, built about three times faster.

    A frozen dataclass's ``__init__`` sets each field through
    ``object.__setattr__``; this fills the slots directly. A refresh of a large
    fleet builds 100,000 rows, where the difference is a third of a second.
    The result is an ordinary, equal ``PartitionLag``.
    """
    row: PartitionLag = object.__new__(PartitionLag)
    _set_topic(row, topic)
    _set_partition(row, partition)
    _set_current_offset(row, current_offset)
    _set_log_end_offset(row, log_end_offset)
    _set_log_start_offset(row, log_start_offset)
    _set_lag(row, lag)
    _set_consumer_id(row, consumer_id)
    _set_host(row, host)
    _set_client_id(row, client_id)
    _set_out_of_range(row, out_of_range)
    _set_stale(row, stale)
    return row
