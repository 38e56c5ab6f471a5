"""The Python members: an ``AIOKafkaConsumer`` on the test's event loop
(:class:`AiokafkaMember`) and a kafka-python ``KafkaConsumer`` polling on its own
thread (:class:`KafkaPythonMember`), each with the shim and, when asked, its
``RebalanceAdvisor`` (the :class:`~tests.client.member.Member` interface).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

import kafka  # type: ignore[import-untyped]
from aiokafka import AIOKafkaConsumer  # type: ignore[import-untyped]
from aiokafka.abc import ConsumerRebalanceListener  # type: ignore[import-untyped]
from aiokafka.errors import KafkaError  # type: ignore[import-untyped]
from kafka.errors import KafkaError as KafkaPythonError  # type: ignore[import-untyped]

from lagassign_client import LagAssignor
from lagassign_client.advice import RebalanceAdvisor
from lagassign_client.aiokafka_commit import SafePoint
from lagassign_client.kafka_python import KafkaPythonLagAssignor
from tests.client.member import (
    COMMIT_EACH_BATCH,
    HEARTBEAT_INTERVAL_MS,
    SESSION_TIMEOUT_MS,
    STOP_TIMEOUT_S,
    Membership,
    Partition,
    PollLoop,
    Record,
)

POLL_MS = 200
# How much longer than the shim's deadline a kafka-python member's poll runs.
POLL_SPARE_MS = 4000


class Ownership:
    """What a member owns, as its rebalance listener is told: nothing from the moment its
    partitions are revoked until the next assignment (the client's own ``assignment()``
    still lists the old partitions while the group rebalances).

    aiokafka and kafka-python call the same two methods (aiokafka awaits them when they
    are coroutines; plain methods serve both).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owned: set[Partition] = set()

    def on_partitions_revoked(self, revoked: Any) -> None:
        with self._lock:
            self._owned = set()

    def on_partitions_assigned(self, assigned: Any) -> None:
        with self._lock:
            self._owned = {(tp.topic, tp.partition) for tp in assigned}

    def partitions(self) -> set[Partition]:
        with self._lock:
            return set(self._owned)


# Both libraries check the listener against their own ABC; Ownership implements both.
ConsumerRebalanceListener.register(Ownership)
kafka.ConsumerRebalanceListener.register(Ownership)


class PythonMember:
    """What the two Python members share: the consumer's settings, what it owned and
    consumed, its commit failures, and the note and counters of its shim
    (``self.assignor``, made by the subclass's :meth:`_shim`)."""

    def __init__(
        self, name: str, membership: Membership, loop: PollLoop = COMMIT_EACH_BATCH
    ) -> None:
        self.name = name
        self.membership = membership
        self.loop = loop
        #: Commits the library refused (the error's text).
        self.commit_failures: list[str] = []
        #: Its RebalanceAdvisor (only with ``loop.advise_every_s``), made once its consumer
        #: runs.
        self.advisor: RebalanceAdvisor | None = None
        self._lock = threading.Lock()
        self._owned = Ownership()
        self._consumed: set[Record] = set()
        self.assignor = self._shim()

    def _shim(self) -> LagAssignor | KafkaPythonLagAssignor:
        raise NotImplementedError

    def _saw(self, batch: dict[Any, list[Any]]) -> None:
        with self._lock:
            self._consumed.update(
                (r.topic, r.partition, r.offset) for rs in batch.values() for r in rs
            )

    def _commit_failed(self, exc: Exception) -> None:
        """A commit refused during a rebalance: the records come again; counted."""
        with self._lock:
            self.commit_failures.append(repr(exc))

    def _close_shim(self) -> None:
        self.assignor.close()
        if self.advisor is not None:
            self.advisor.close()

    def partitions(self) -> set[Partition]:
        return self._owned.partitions()

    def note(self) -> dict[str, Any] | None:
        n = self.assignor.assigned_by
        return None if n is None else {"by": n.by, "strategy": n.strategy, "reason": n.reason}

    def consumed(self) -> set[Record]:
        with self._lock:
            return set(self._consumed)

    def fallbacks(self) -> dict[str, int]:
        return self.assignor.fallbacks

    def decision_seconds(self) -> float | None:
        decision = self.assignor.last_decision
        return None if decision is None else decision.seconds


class AiokafkaMember(PythonMember):
    def __init__(
        self,
        name: str,
        membership: Membership,
        loop: PollLoop = COMMIT_EACH_BATCH,
        *,
        group_instance_id: str | None = None,
        shim_group: str | None = None,
    ) -> None:
        """``group_instance_id``: a static member; ``shim_group``: another group id for the
        shim than the consumer's (a mistake)."""
        self._instance_id = group_instance_id
        self._shim_group = shim_group
        super().__init__(name, membership, loop)
        self.consumer = AIOKafkaConsumer(
            bootstrap_servers=membership.bootstrap,
            group_id=membership.group,
            group_instance_id=group_instance_id,
            client_id=name,
            partition_assignment_strategy=(self.assignor,),
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            session_timeout_ms=SESSION_TIMEOUT_MS,
            heartbeat_interval_ms=HEARTBEAT_INTERVAL_MS,
        )
        # The batch in hand is committed before a rebalance revokes it (the documented loop).
        self.safe_point = SafePoint(self._owned)
        self.consumer.subscribe(list(membership.topics), listener=self.safe_point)
        self._task: asyncio.Task[None] | None = None

    def _shim(self) -> LagAssignor:
        # The consumer reads from the earliest offset; the shim says so to the sidecar.
        return LagAssignor(
            url=self.membership.url,
            group_id=self._shim_group or self.membership.group,
            timeout_s=self.membership.timeout_s,
            reset_policy="earliest",
            instance_id=self._instance_id,
        )

    async def start(self) -> None:
        await self.consumer.start()
        if self.loop.advise_every_s is not None:
            self.advisor = RebalanceAdvisor.for_aiokafka(
                self.consumer,
                self.assignor,
                url=self.membership.url,
                every_s=self.loop.advise_every_s,
            )
        self._task = asyncio.create_task(self._consume(), name=f"consume-{self.name}")

    async def _consume(self) -> None:
        while True:
            batch = await self.consumer.getmany(
                timeout_ms=POLL_MS, max_records=self.loop.max_records
            )
            self._saw(batch)
            async with self.safe_point.batch():
                if batch and self.loop.work_s:
                    await asyncio.sleep(self.loop.work_s)  # the application's work on the batch
                if batch and self.loop.commit:
                    try:
                        await self.consumer.commit()
                    except KafkaError as exc:
                        self._commit_failed(exc)
            # Last in the loop, after the batch's commit (the documented place).
            if self.advisor is not None:
                self.advisor.maybe_rebalance()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.consumer.stop()
        self._close_shim()

    def member_id(self) -> str:
        """The member id the coordinator gave this consumer."""
        return str(self.consumer._coordinator.member_id)


class KafkaPythonMember(PythonMember):
    _thread: threading.Thread | None = None

    def _shim(self) -> KafkaPythonLagAssignor:
        self._settings: dict[str, Any] = {
            "bootstrap_servers": self.membership.bootstrap,
            "group_id": self.membership.group,
            "client_id": self.name,
            "enable_auto_commit": False,
            "auto_offset_reset": "earliest",
            "session_timeout_ms": SESSION_TIMEOUT_MS,
            "heartbeat_interval_ms": HEARTBEAT_INTERVAL_MS,
        }
        # group_id and auto_offset_reset come from the consumer's own settings.
        assignor = KafkaPythonLagAssignor.for_consumer(
            self.membership.url, self._settings, timeout_s=self.membership.timeout_s
        )
        self._settings["partition_assignment_strategy"] = [assignor]
        return assignor

    async def start(self) -> None:
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._consume, name=self.name, daemon=True)
        self._thread.start()

    def _consume(self) -> None:
        # kafka-python 3.0.12 loses the leader's join when assign() outlasts the poll's
        # remaining timeout, so the shim's budget is what is left of the poll (see the shim's
        # docs): each poll outlasts the shim's deadline by more than a join takes on a loaded
        # machine (with 1 s to spare, a join that took the whole poll at load 20 left the
        # leader no time and it fell back to range).
        poll_ms = round(self.membership.timeout_s * 1000) + POLL_SPARE_MS
        consumer = kafka.KafkaConsumer(**self._settings)
        consumer.subscribe(list(self.membership.topics), listener=self._owned)
        if self.loop.advise_every_s is not None:
            self.advisor = RebalanceAdvisor.for_kafka_python(
                consumer, self.assignor, url=self.membership.url, every_s=self.loop.advise_every_s
            )
        try:
            while not self._stopping.is_set():
                batch = consumer.poll(timeout_ms=poll_ms, max_records=self.loop.max_records)
                if batch and self.loop.work_s:
                    self._stopping.wait(self.loop.work_s)  # the application's work on the batch
                if batch and self.loop.commit:
                    try:
                        consumer.commit()
                    except KafkaPythonError as exc:
                        self._commit_failed(exc)
                self._saw(batch)
                # Last in the loop, after the batch's commit (the documented place).
                if self.advisor is not None:
                    self.advisor.maybe_rebalance()
        finally:
            consumer.close()

    async def stop(self) -> None:
        if self._thread is not None:
            self._stopping.set()
            await asyncio.to_thread(self._thread.join, STOP_TIMEOUT_S)
        self._close_shim()
