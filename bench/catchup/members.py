"""The members of a catch-up run: real consumers that process at a bounded rate.

Each member processes a record at a fixed cost (``1 / rate`` seconds, slept, so the
member's throughput and not the broker or the CPU is the limit), commits what it
processed after every batch, and notes when it first got records, how many it
processed, and when it waited for an assignment (holding nothing, from joining or
giving up its partitions until it is given new ones).

- :class:`GroupSpec`: the group a run forms (its id, topics, members and their rate).
- :class:`PythonGroup`: aiokafka consumers in this process, with any aiokafka
  assignor (its own ``RangePartitionAssignor``, or ``lagassign_client.LagAssignor``).
- Kafka's Java consumers, classic or on the consumer group protocol (KIP-848):
  :mod:`bench.catchup.java_groups`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiokafka import AIOKafkaConsumer  # type: ignore[import-untyped]
from aiokafka.abc import ConsumerRebalanceListener  # type: ignore[import-untyped]
from aiokafka.errors import KafkaError  # type: ignore[import-untyped]

from bench.catchup.figures import Stall
from lagassign_client.advice import RebalanceAdvisor

BATCH = 100
# How often a member with the rebalance advisor may ask the sidecar.
ADVISE_EVERY_S = 1.0


@dataclass(frozen=True)
class GroupSpec:
    """The group a run forms: ``members`` consumers of ``group`` on ``topics``, each at
    ``rate`` records a second, reading from ``reset`` where nothing is committed."""

    bootstrap: str
    group: str
    topics: Sequence[str]
    members: int
    rate: float
    reset: str = "earliest"


@dataclass
class MemberRecord:
    """What one member did: records processed, first record, stalls, generations."""

    name: str
    records: int = 0
    failed_commits: int = 0
    first_record_at: float | None = None
    generations: int = 0
    stalls: list[Stall] = field(default_factory=list)
    stalled_since: float | None = None

    def stall_begins(self, at: float) -> None:
        if self.stalled_since is None:
            self.stalled_since = at

    def assigned(self, at: float) -> None:
        self.generations += 1
        if self.stalled_since is not None:
            self.stalls.append(Stall(self.name, self.stalled_since, at))
            self.stalled_since = None


class _Listener(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, member: PacedMember) -> None:
        self.member = member

    async def on_partitions_revoked(self, revoked: Any) -> None:
        # aiokafka's rebalance is eager: the member gives up everything.
        self.member.record.stall_begins(time.time())

    async def on_partitions_assigned(self, assigned: Any) -> None:
        self.member.record.assigned(time.time())
        if self.member.held:
            self.member.consumer.pause(*assigned)


class PacedMember:
    """One aiokafka consumer of ``spec``'s group at its rate; a ``held`` one holds what it
    is given (paused, reading nothing) until :meth:`go`."""

    def __init__(
        self,
        name: str,
        spec: GroupSpec,
        assignor: Any,
        advise_url: str | None = None,
        held: bool = False,
    ) -> None:
        self.record = MemberRecord(name)
        self.held = held
        self.advise_url = advise_url
        self.advisor: RebalanceAdvisor | None = None
        self.rate = spec.rate
        self.assignor = assignor
        self.consumer = AIOKafkaConsumer(
            bootstrap_servers=spec.bootstrap,
            group_id=spec.group,
            client_id=name,
            enable_auto_commit=False,
            auto_offset_reset=spec.reset,
            partition_assignment_strategy=(assignor,),
            session_timeout_ms=10_000,
            heartbeat_interval_ms=500,
            max_poll_interval_ms=60_000,
        )
        self.consumer.subscribe(list(spec.topics), listener=_Listener(self))
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.record.stall_begins(time.time())
        await self.consumer.start()
        if self.advise_url is not None:
            self.advisor = RebalanceAdvisor.for_aiokafka(
                self.consumer, self.assignor, url=self.advise_url, every_s=ADVISE_EVERY_S
            )
        self._task = asyncio.create_task(self._consume(), name=f"consume-{self.record.name}")

    def go(self) -> None:
        """A ``held`` member reads what it holds from now on."""
        self.held = False
        self.consumer.resume(*self.consumer.assignment())

    async def _consume(self) -> None:
        due = time.monotonic()
        while True:
            batch = await self.consumer.getmany(timeout_ms=200, max_records=BATCH)
            if self.advisor is not None:
                self.advisor.maybe_rebalance()
            n = sum(len(records) for records in batch.values())
            if not n:
                continue
            if self.record.first_record_at is None:
                self.record.first_record_at = time.time()
            now = time.monotonic()
            due = max(due, now) + n / self.rate
            await asyncio.sleep(due - now)
            self.record.records += n
            offsets = {tp: records[-1].offset + 1 for tp, records in batch.items() if records}
            try:
                await self.consumer.commit(offsets)
            except KafkaError:
                # The group rebalanced under the batch; its next owner reads it again.
                self.record.failed_commits += 1

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            if not self._task.cancelled() and self._task.exception() is not None:
                raise RuntimeError(f"member {self.record.name} failed") from self._task.exception()
        await self.consumer.stop()
        close = getattr(self.assignor, "close", None)
        if callable(close):
            close()
        if self.advisor is not None:
            self.advisor.close()


class PythonGroup:
    """``spec``'s aiokafka consumers started together; ``assignor(i)`` makes each one's."""

    def __init__(
        self, spec: GroupSpec, assignor: Callable[[int], Any], advise_url: str | None = None
    ) -> None:
        self.members = [
            PacedMember(f"{spec.group}-m{i}", spec, assignor(i), advise_url)
            for i in range(spec.members)
        ]

    async def start(self) -> None:
        await asyncio.gather(*(m.start() for m in self.members))

    async def stop(self) -> None:
        for member in self.members:
            await member.stop()

    def records(self) -> list[MemberRecord]:
        return [m.record for m in self.members]

    def shim_decisions(self) -> dict[str, Any]:
        """Rebalances led on the sidecar's answer and on the range fallback (by reason)."""
        answers = 0
        fallbacks: dict[str, int] = {}
        sources: set[str] = set()
        for m in self.members:
            answers += int(getattr(m.assignor, "answers", 0))
            for reason, count in dict(getattr(m.assignor, "fallbacks", {})).items():
                fallbacks[reason] = fallbacks.get(reason, 0) + count
            source = getattr(getattr(m.assignor, "last_decision", None), "lag_source", None)
            if isinstance(source, str):
                sources.add(source)
        # The lag source of the leader's last answer (kafka-load under the load model).
        return {"sidecar_answers": answers, "fallbacks": fallbacks, "lag_sources": sorted(sources)}
