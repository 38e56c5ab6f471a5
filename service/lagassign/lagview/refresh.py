"""The refresh loop: every ``interval_s``, read the tracked groups and publish their snapshots.

Each refresh lists the cluster's groups (one ``ListGroups``), reads each tracked
group (``DescribeGroups`` and ``OffsetFetch``, one group per call, a bounded
number at a time), then reads the log start and end offsets of every topic those
groups read (assigned, committed, or named by their last ``/assign``), once per
topic whatever the number of groups (a read of a topic already under way for an
on-demand read is joined, not repeated), and publishes one
:class:`~lagassign.lagview.snapshot.GroupSnapshot` per group into the
:class:`~lagassign.lagview.store.SnapshotStore`. Then it tells its listeners
(:mod:`lagassign.lagview.listeners`).

Consumer-protocol groups (KIP-848) are described with ``ConsumerGroupDescribe``;
after each refresh the loop rebuilds the
:class:`~lagassign.lagview.consumer_index.ConsumerGroupIndex` (member id ->
group, topic id -> name) that resolves the broker plugin's requests; the
cluster's topic ids (one ``Metadata`` request) are asked only when a topic
without a known id appears. With ``track_consumer_groups`` every consumer-protocol group
of the cluster is tracked, so a group that opts in to the plugin is known
without being named in the settings.

When Kafka is down the loop keeps the last snapshots, marks them stale, records
the error, drops the clients and builds new ones on the next refresh, so it
recovers by itself when the broker returns.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from datetime import datetime

from lagassign.lagview.consumer_index import ConsumerGroupIndex
from lagassign.lagview.errors import InvalidLagViewSettings
from lagassign.lagview.kafka.clients import (
    KAFKA_FAILURES,
    GroupRead,
    KafkaClients,
    OpenClients,
    failure_text,
)
from lagassign.lagview.kafka.groups import CONSUMER
from lagassign.lagview.listeners import Refresh, RefreshListener
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.lagview.store import SnapshotStore

log = logging.getLogger(__name__)


class RefreshLoop:
    """Schedules the refreshes, keeps the health of the last one, handles outages.

    Health, for ``/readyz`` and ``/metrics``: :attr:`first_snapshot_loaded`,
    :attr:`kafka_up`, :attr:`last_refresh_ok`, :attr:`last_refresh_error`,
    :attr:`last_refresh_seconds`, :attr:`refresh_errors_total`.
    """

    def __init__(
        self,
        store: SnapshotStore,
        clients: KafkaClients,
        *,
        interval_s: float = 5.0,
        listeners: Sequence[RefreshListener] = (),
        concurrency: int = 32,
        track_consumer_groups: bool = False,
    ) -> None:
        if interval_s <= 0:
            raise InvalidLagViewSettings("interval_s and request_timeout_s must be positive")
        if concurrency < 1:
            raise InvalidLagViewSettings("concurrency must be at least 1")
        self.store = store
        self.clients = clients
        self.interval_s = interval_s
        self.listeners = list(listeners)
        self._concurrency = concurrency
        self._refresh_lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._track_consumer_groups = track_consumer_groups
        #: Member id -> consumer-protocol group, topic id -> name (the broker plugin's requests).
        self.consumer_index = ConsumerGroupIndex()
        self._topic_names: dict[str, str] = {}
        self._topic_ids_wanted = False

        #: True once a refresh has reached Kafka (even if it found no groups).
        self.first_snapshot_loaded = False
        #: True when the last refresh reached Kafka.
        self.kafka_up = False
        #: When the last refresh that reached Kafka finished (partial errors allowed).
        self.last_refresh_ok: datetime | None = None
        #: Why the last refresh was not complete (``None`` when it read everything).
        self.last_refresh_error: str | None = None
        #: How long the last refresh took.
        self.last_refresh_seconds: float | None = None
        #: Refreshes that failed or were incomplete.
        self.refresh_errors_total = 0
        #: Every refresh so far.
        self.refreshes_total = 0

    # --- lifecycle ----------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True while the refresh loop runs (it only ends through :meth:`stop`)."""
        return self._task is not None and not self._task.done()

    async def start(self) -> None:
        """Start the refresh loop; returns at once (the first refresh runs in the background)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._loop(), name="lagassign-lag-refresh")

    async def stop(self) -> None:
        """Stop the refresh loop, close the Kafka clients, then close every listener."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                if not task.cancelled():
                    raise
        await self.clients.drop()
        for listener in self.listeners:
            await listener.close()

    async def _loop(self) -> None:
        while True:
            started = time.monotonic()
            await self.refresh()
            await asyncio.sleep(max(0.0, self.interval_s - (time.monotonic() - started)))

    # --- refreshing ---------------------------------------------------------------

    async def refresh(self) -> bool:
        """Refresh every tracked group now; True if everything was read.

        Never raises for a Kafka failure: the failure is recorded on the loop
        and on the snapshots it left stale.
        """
        async with self._refresh_lock:
            started = time.perf_counter()
            errors, fresh = await self._refresh()
            duration = time.perf_counter() - started
            ok = not errors
            self.refreshes_total += 1
            self.last_refresh_seconds = duration
            self.last_refresh_error = None if ok else "; ".join(errors[:5])
            if not ok:
                self.refresh_errors_total += 1
            done = Refresh(duration_s=duration, ok=ok, fresh=fresh, kafka_up=self.kafka_up)
            for listener in self.listeners:
                await listener.refreshed(done)
        return ok

    async def _refresh(self) -> tuple[list[str], list[GroupSnapshot]]:
        store, clients = self.store, self.clients
        as_of = store.clock()
        try:
            opened = await clients.ensure()
            listed = await opened.groups.list_groups()
        except KAFKA_FAILURES as exc:
            reason = f"Kafka unreachable: {failure_text(exc)}"
            self._mark_outage(reason)
            await clients.drop()
            return [reason], []
        group_ids = store.list_groups(listed)
        if self._track_consumer_groups:
            consumer = {g.group_id for g in listed if g.group_type == CONSUMER}
            group_ids = sorted(consumer.union(group_ids))
        # The offsets of the topics these groups read last time are read while
        # the groups are; a topic new to this refresh is read once they are done.
        expected = store.topics_of(group_ids)
        early = asyncio.create_task(clients.read_offsets(opened, *expected))
        try:
            reads = await self._read_groups(opened, group_ids)
        except BaseException:
            early.cancel()
            raise
        offsets = await early
        store.remember_topics(reads)
        topics, stable = store.topics_of(group_ids)
        late = (topics - expected[0]) | (stable - expected[1])
        if late:
            offsets.update(await clients.read_offsets(opened, late, stable & late))
        errors = [r.error for r in reads if r.error is not None]
        # A topic that does not exist is a fact about the cluster, not a failed read.
        errors += [
            f"topic {t!r}: {offsets[t].error}"
            for t in sorted(topics)
            if t in offsets and offsets[t].error and offsets[t].exists
        ]
        fresh = await store.publish(reads, offsets, as_of)
        store.forget_untracked(set(group_ids))
        errors += await self._index_consumer_groups(opened)
        self.kafka_up = True
        self.first_snapshot_loaded = True
        self.last_refresh_ok = store.clock()
        return errors, fresh

    async def _index_consumer_groups(self, opened: OpenClients) -> list[str]:
        """Rebuild the member index and topic names; the error, if the topic ids failed.

        The cluster's topic ids (one ``Metadata`` of every topic) are asked only when a
        group subscribes to a topic without a known id, or a request asked for an id the
        index lacked: a topic's id never changes while it exists.
        """
        members: dict[str, list[str]] = {}
        described: dict[str, str] = {}
        subscribed: set[str] = set()
        for group_id, snapshot in self.store.snapshots().items():
            if snapshot.protocol_type == CONSUMER:
                members[group_id] = [m.member_id for m in snapshot.members]
                described.update(snapshot.topic_ids)
                for member in snapshot.members:
                    subscribed.update(member.subscribed_topics)
        errors: list[str] = []
        unnamed = subscribed - set(described.values()) - set(self._topic_names.values())
        asked = self.consumer_index.unknown_id_asked()
        self._topic_ids_wanted |= asked or bool(members and unnamed)
        if self._topic_ids_wanted:
            try:
                self._topic_names = await opened.groups.topic_ids()
                self._topic_ids_wanted = False
            except KAFKA_FAILURES as exc:
                # Keep the last names; ask again at the next refresh.
                errors.append(f"topic ids: {failure_text(exc)}")
        self.consumer_index.rebuild(members, {**described, **self._topic_names})
        return errors

    async def _read_groups(self, opened: OpenClients, group_ids: list[str]) -> list[GroupRead]:
        gate = asyncio.Semaphore(self._concurrency)

        async def read(group_id: str) -> GroupRead:
            async with gate:
                return await self.clients.read_group(opened, group_id)

        return list(await asyncio.gather(*(read(g) for g in group_ids)))

    def _mark_outage(self, reason: str) -> None:
        if self.kafka_up or self.refreshes_total == 0:
            log.warning("lag refresh failed, keeping the last snapshots: %s", reason)
        self.kafka_up = False
        self.store.mark_stale(reason)
