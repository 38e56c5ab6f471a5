"""The group's lag, read from the broker at a fixed interval while it catches up.

Each sample holds, per partition, ``log end - committed`` (a partition without a
commit counts from the offset the group starts from, given up front), each
member's live assignment from ``DescribeGroups``, and a consumer-protocol group's
group epoch (``ConsumerGroupDescribe``: it moves at every recomputation, a nudge's
join and leave included). While the group rebalances the
broker reports no assignment; the sample then carries the last one seen, so a
member's lag stays the lag of what it was last given.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from aiokafka import AIOKafkaConsumer, TopicPartition  # type: ignore[import-untyped]
from aiokafka.admin import AIOKafkaAdminClient  # type: ignore[import-untyped]
from aiokafka.errors import KafkaError  # type: ignore[import-untyped]

from bench.catchup.scenarios import Partition
from lagassign.lagview.errors import GroupReadError
from lagassign.lagview.kafka.groups import GroupDescription, GroupReader

REQUEST_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Sample:
    """One reading: ``at`` is ``time.time()`` when the offsets came back."""

    at: float
    lag: Mapping[Partition, int]
    owners: Mapping[Partition, str]
    state: str | None
    #: A consumer-protocol group's group epoch (``None`` for a classic group).
    group_epoch: int | None = None

    @property
    def group_lag(self) -> int:
        return sum(self.lag.values())

    def member_lags(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for partition, member in self.owners.items():
            out[member] = out.get(member, 0) + self.lag.get(partition, 0)
        return out

    @property
    def worst_member_lag(self) -> int | None:
        """The largest lag one member holds; None before any assignment is known."""
        return max(self.member_lags().values(), default=None)


@dataclass
class LagSampler:
    """Samples ``group`` every ``interval_s`` until stopped; ``start`` is the offset a
    partition without a commit is read from (the group's reset position)."""

    bootstrap: str
    group: str
    partitions: Sequence[Partition]
    start: Mapping[Partition, int]
    interval_s: float = 0.5
    #: A consumer-protocol group (KIP-848): members read with ``ConsumerGroupDescribe``.
    consumer_protocol: bool = False
    samples: list[Sample] = field(default_factory=list)
    errors: int = 0

    async def run(self, stop: asyncio.Event) -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap)
        ends = AIOKafkaConsumer(bootstrap_servers=self.bootstrap, enable_auto_commit=False)
        await admin.start()
        await ends.start()
        reader = GroupReader(admin, REQUEST_TIMEOUT_S)
        tps = [TopicPartition(t, p) for t, p in self.partitions]
        owners: dict[Partition, str] = {}
        try:
            while not stop.is_set():
                began = time.monotonic()
                try:
                    sample = await self._read(reader, ends, tps, owners)
                except (GroupReadError, KafkaError, TimeoutError):
                    self.errors += 1
                else:
                    owners = dict(sample.owners)
                    self.samples.append(sample)
                wait = self.interval_s - (time.monotonic() - began)
                if wait > 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), wait)
        finally:
            await ends.stop()
            await admin.close()

    async def _describe(self, reader: GroupReader) -> GroupDescription:
        """The group's members; a consumer-protocol group before its first member joins
        is still a classic group (its committed offsets), described as such."""
        if self.consumer_protocol:
            with contextlib.suppress(GroupReadError):
                return await reader.describe_consumer_group(self.group)
        return await reader.describe(self.group)

    async def _read(
        self,
        reader: GroupReader,
        ends: AIOKafkaConsumer,
        tps: list[TopicPartition],
        previous: Mapping[Partition, str],
    ) -> Sample:
        description = await self._describe(reader)
        async with asyncio.timeout(REQUEST_TIMEOUT_S):
            end = await ends.end_offsets(tps)
        committed = await reader.committed(self.group)
        at = time.time()
        lag: dict[Partition, int] = {}
        for tp in tps:
            key = (tp.topic, tp.partition)
            position = committed.get(tp.topic, {}).get(tp.partition, self.start.get(key, 0))
            lag[key] = max(0, int(end[tp]) - position)
        owners: dict[Partition, str] = {}
        for member in description.members:
            for topic, partitions in member.assignment.items():
                for p in partitions:
                    owners[(topic, p)] = member.client_id
        if not owners:
            owners = dict(previous)
        return Sample(
            at=at,
            lag=lag,
            owners=owners,
            state=description.state,
            group_epoch=description.group_epoch,
        )
