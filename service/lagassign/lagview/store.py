"""The snapshot store: the cached snapshot of every tracked group, and the on-demand read.

Readers (``/assign``, ``/groups``, ``/metrics``) only read the cache and never
wait on Kafka; the refresh loop (:mod:`lagassign.lagview.refresh`) publishes
into it. The cache is a mapping replaced whole on every change, never changed in
place, so a reader on another thread than the refresh loop's
(:mod:`lagassign.lagview.own_loop`) reads it without a lock. The store also
knows which groups are tracked, the reset policy and isolation level each
group's lags are computed with, and which topics each group read last time.
:meth:`SnapshotStore.fetch_group` reads one group that is not cached yet, within
a time budget.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection, Iterable, Mapping
from datetime import UTC, datetime
from types import MappingProxyType

from lagassign.lagview.describe import describe_lag, kept_stale, unread
from lagassign.lagview.errors import InvalidLagViewSettings
from lagassign.lagview.kafka.clients import KAFKA_FAILURES, GroupRead, KafkaClients, failure_text
from lagassign.lagview.kafka.groups import ListedGroup
from lagassign.lagview.kafka.offsets import TopicOffsets
from lagassign.lagview.kafka.record_times import MAX_PARTITIONS_PER_READ
from lagassign.lagview.rules import ISOLATION_LEVELS, RESET_POLICIES, Isolation, ResetPolicy
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.lagview.time_lag import StallClock, stamp, unstamped
from lagassign.lagview.tracking import GroupTracking

log = logging.getLogger(__name__)


def utc_now() -> datetime:
    return datetime.now(UTC)


class SnapshotStore:
    """Cached snapshots by group id, the tracked groups, and how each group's lag is read."""

    def __init__(
        self,
        clients: KafkaClients,
        *,
        groups: Iterable[str] = (),
        group_pattern: str | None = None,
        reset_policy: Mapping[str, ResetPolicy] | None = None,
        default_reset_policy: ResetPolicy = "latest",
        isolation: Mapping[str, Isolation] | None = None,
        default_isolation: Isolation = "read_uncommitted",
        offsets_max_age_s: float = 5.0,
        clock: Callable[[], datetime] = utc_now,
        max_on_demand_groups: int = 1_000,
        on_demand_idle_s: float = 3_600.0,
    ) -> None:
        self._reset = dict(reset_policy or {})
        self._isolation = dict(isolation or {})
        for policy in [default_reset_policy, *self._reset.values()]:
            if policy not in RESET_POLICIES:
                raise InvalidLagViewSettings(
                    f"reset policy {policy!r} is not one of {', '.join(RESET_POLICIES)}"
                )
        for level in [default_isolation, *self._isolation.values()]:
            if level not in ISOLATION_LEVELS:
                raise InvalidLagViewSettings(
                    f"isolation {level!r} is not one of {', '.join(ISOLATION_LEVELS)}"
                )
        self._default_reset: ResetPolicy = default_reset_policy
        self._default_isolation: Isolation = default_isolation
        self.tracking = GroupTracking(
            groups, group_pattern, max_on_demand=max_on_demand_groups, idle_s=on_demand_idle_s
        )
        self.clock = clock
        self._clients = clients
        # Replaced whole on every change (see the module docstring).
        self._snapshots: Mapping[str, GroupSnapshot] = MappingProxyType({})
        self._listed: dict[str, ListedGroup] = {}
        self._group_topics: dict[str, frozenset[str]] = {}
        self._named_topics: dict[str, frozenset[str]] = {}
        # An on-demand read takes topic offsets read this recently instead of reading them again.
        self._offsets_max_age_s = offsets_max_age_s
        #: Since when each behind partition's committed offset has not moved (time lag floor).
        self.stalls = StallClock()

    # --- configuration ------------------------------------------------------------

    def reset_policy_of(self, group_id: str) -> ResetPolicy:
        """The reset policy the lags of ``group_id`` are computed with."""
        return self._reset.get(group_id, self._default_reset)

    def isolation_of(self, group_id: str) -> Isolation:
        """The isolation level (which end offset) the lags of ``group_id`` use."""
        return self._isolation.get(group_id, self._default_isolation)

    # --- reading the cache ----------------------------------------------------------

    def snapshot(self, group_id: str) -> GroupSnapshot | None:
        """The cached snapshot of ``group_id`` (never waits on Kafka)."""
        return self._snapshots.get(group_id)

    def snapshots(self) -> Mapping[str, GroupSnapshot]:
        """Every cached snapshot, by group id (read-only; a change replaces it whole)."""
        return self._snapshots

    def _replace(self, changed: Mapping[str, GroupSnapshot], dropped: Collection[str] = ()) -> None:
        """Publish the cache with ``changed`` in and ``dropped`` out, as a new mapping."""
        if not changed and not any(g in self._snapshots for g in dropped):
            return
        gone = set(dropped)
        snapshots = {g: s for g, s in self._snapshots.items() if g not in gone}
        snapshots.update(changed)
        self._snapshots = MappingProxyType(snapshots)

    def track(self, group_id: str, topics: Collection[str] = ()) -> None:
        """Track ``group_id`` from the next refresh on, with the ``topics`` its rebalance named.

        The topics replace those of the group's previous rebalance; the refresh
        reads them for the group whether or not it has committed offsets on them.
        Any group this evicts (idle, or past the cap) is forgotten.
        """
        evicted = self.tracking.register(group_id)
        self._replace({}, evicted)
        for dropped in evicted:
            self._group_topics.pop(dropped, None)
            self._named_topics.pop(dropped, None)
        if topics:
            self._named_topics[group_id] = frozenset(topics)

    def topics_read_for(self, group_id: str) -> frozenset[str]:
        """The topics the group is read for: assigned, committed, or named by its rebalance."""
        return self._group_topics.get(group_id, frozenset()) | self._named_topics.get(
            group_id, frozenset()
        )

    # --- what the refresh loop publishes ----------------------------------------------

    def list_groups(self, listed: Iterable[ListedGroup]) -> list[str]:
        """Remember the cluster's groups; the ids of those tracked now."""
        self._listed = {g.group_id: g for g in listed}
        return self.tracking.select(self._listed)

    def topics_of(self, group_ids: list[str]) -> tuple[frozenset[str], frozenset[str]]:
        """The topics ``group_ids`` read when last read, and those read by a read_committed one."""
        topics: set[str] = set()
        stable: set[str] = set()
        for group_id in group_ids:
            read = self.topics_read_for(group_id)
            topics |= read
            if self.isolation_of(group_id) == "read_committed":
                stable |= read
        return frozenset(topics), frozenset(stable)

    def remember_topics(self, reads: Iterable[GroupRead]) -> None:
        """The topics each well-read group reads, for the next refresh."""
        for read in reads:
            if read.error is None:
                self._group_topics[read.group_id] = frozenset(read.topics())

    async def publish(
        self, reads: Iterable[GroupRead], offsets: Mapping[str, TopicOffsets], as_of: datetime
    ) -> list[GroupSnapshot]:
        """Store one snapshot per read group, all at once; the fresh ones (read without error).

        The stalls the fresh ones show are stamped with their records' time first
        (:mod:`lagassign.lagview.time_lag`), so a reader never sees a backlog's floor
        start from 0 while its records say how old it is. A snapshot read on demand
        after this refresh started is newer, and kept.
        """
        built = {read.group_id: self.snapshot_of(read, offsets, as_of) for read in reads}
        staged = {g: self.stalls.observed(s) for g, s in built.items() if s.error is None}
        wanted = unstamped(staged, MAX_PARTITIONS_PER_READ)
        if wanted:
            stamp(staged, wanted, await self._clients.record_timestamps(wanted))
        published = {g: s for g, s in built.items() if not self._newer(g, as_of)}
        self._replace(published)
        self.stalls.keep({g: staged[g] for g in published if g in staged})
        return [s for s in published.values() if s.error is None]

    def _newer(self, group_id: str, as_of: datetime) -> bool:
        previous = self._snapshots.get(group_id)
        return previous is not None and previous.error is None and previous.as_of > as_of

    def snapshot_of(
        self, read: GroupRead, offsets: Mapping[str, TopicOffsets], as_of: datetime
    ) -> GroupSnapshot:
        reset = self.reset_policy_of(read.group_id)
        isolation = self.isolation_of(read.group_id)
        if read.description is None or read.committed is None:
            error = read.error or "not read"
            previous = self._snapshots.get(read.group_id)
            if previous is not None and previous.partitions:
                return kept_stale(previous, error)
            return unread(read.group_id, error, as_of, reset, isolation)
        named = self._named_topics.get(read.group_id, frozenset())
        # A topic named after this refresh chose what to read: its last known values.
        known = {t: o for t in named - offsets.keys() if (o := self._clients.known_offsets(t))}
        return describe_lag(
            read.description,
            self._listed.get(read.group_id),
            read.committed,
            {**known, **offsets} if known else offsets,
            reset,
            isolation,
            as_of,
            named,
        )

    def mark_stale(self, reason: str) -> None:
        """Keep every snapshot, marked stale with ``reason`` (Kafka is unreachable)."""
        self._replace(
            {
                group_id: kept_stale(previous, reason)
                for group_id, previous in self._snapshots.items()
                if previous.error != reason
            }
        )

    def forget_untracked(self, tracked: set[str]) -> None:
        self._replace({}, [g for g in self._snapshots if g not in tracked])
        for group_id in [g for g in self._group_topics if g not in tracked]:
            del self._group_topics[group_id]
        for group_id in [g for g in self._named_topics if g not in tracked]:
            del self._named_topics[group_id]
        self.stalls.forget_all_but(tracked)

    # --- on demand ----------------------------------------------------------------

    async def fetch_group(
        self, group_id: str, budget_s: float, topics: Collection[str] = ()
    ) -> GroupSnapshot | None:
        """The snapshot of ``group_id`` now, read from Kafka unless the cached one will do.

        The cached snapshot will do when it was read without error and lists
        every one of ``topics`` (the topics the rebalance names). Otherwise the
        group's committed offsets are read, and the log start and end offsets
        of every topic it reads that the view did not read recently. The group
        is tracked, with ``topics``, from now on. Returns ``None`` when Kafka
        does not answer within ``budget_s`` seconds (the caller then goes on
        without lag); an offsets read cut short by the budget still finishes and
        serves the next reader.
        """
        self.track(group_id, topics)
        cached = self._snapshots.get(group_id)
        if cached is not None and cached.error is None and cached.topics() >= set(topics):
            return cached
        try:
            async with asyncio.timeout(budget_s):
                clients = await self._clients.ensure()
                read = await self._clients.read_group(clients, group_id)
                if read.error is not None:
                    log.info("on-demand read of group %r failed: %s", group_id, read.error)
                    return None
                self._group_topics[group_id] = frozenset(read.topics())
                wanted = self.topics_read_for(group_id)
                committed = self.isolation_of(group_id) == "read_committed"
                offsets = await self._clients.read_offsets(
                    clients,
                    wanted,
                    wanted if committed else frozenset(),
                    self._offsets_max_age_s,
                )
        except KAFKA_FAILURES as exc:
            log.info("on-demand read of group %r failed: %s", group_id, failure_text(exc))
            return None
        snapshot = self.snapshot_of(read, offsets, self.clock())
        self._replace({group_id: snapshot})
        if snapshot.error is None:
            self.stalls.observe(snapshot)
        return snapshot
