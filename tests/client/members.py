"""Real consumers with the shim, one kind per client library, behind one small interface.

- :class:`AiokafkaMember`: an ``AIOKafkaConsumer`` on the test's event loop.
- :class:`KafkaPythonMember`: a kafka-python ``KafkaConsumer`` polling on its own thread.
- :class:`JavaMember`: a Kafka Java ``KafkaConsumer`` in its own JVM
  (``io.lagassign.GroupMember``), reporting JSON lines on stdout.

Each consumes with commits after every batch (at least once), remembers every record
it saw as ``(topic, partition, offset)``, and shows its shim's note on its current
assignment and its counters. Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import IO, Any, Protocol

import kafka  # type: ignore[import-untyped]
import pytest
from aiokafka import AIOKafkaConsumer  # type: ignore[import-untyped]
from aiokafka.abc import ConsumerRebalanceListener  # type: ignore[import-untyped]
from aiokafka.errors import KafkaError  # type: ignore[import-untyped]
from kafka.errors import KafkaError as KafkaPythonError  # type: ignore[import-untyped]

from harness.sidecar import SidecarProcess
from lagassign_client import LagAssignor
from lagassign_client.advice import RebalanceAdvisor
from lagassign_client.aiokafka_commit import SafePoint
from lagassign_client.kafka_python import KafkaPythonLagAssignor

Partition = tuple[str, int]
Record = tuple[str, int, int]

SESSION_TIMEOUT_MS = 30_000
HEARTBEAT_INTERVAL_MS = 1_000
POLL_MS = 200
STOP_TIMEOUT_S = 30.0


class Member(Protocol):
    name: str

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def partitions(self) -> set[Partition]: ...

    def note(self) -> dict[str, Any] | None: ...

    def consumed(self) -> set[Record]: ...

    def fallbacks(self) -> dict[str, int]: ...

    def decision_seconds(self) -> float | None: ...


def note_json(by: str, strategy: str | None, reason: str | None) -> dict[str, Any]:
    return {"by": by, "strategy": strategy, "reason": reason}


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


class AiokafkaMember:
    def __init__(
        self,
        name: str,
        bootstrap: str,
        group: str,
        topics: Sequence[str],
        url: str,
        timeout_s: float,
        commit: bool = True,
        *,
        group_instance_id: str | None = None,
        shim_group: str | None = None,
        advise_every_s: float | None = None,
        max_records: int | None = None,
        work_s: float = 0.0,
    ) -> None:
        self.name = name
        self.commit = commit
        self._url = url
        self._advise_every_s = advise_every_s
        self._max_records = max_records
        self._work_s = work_s
        #: Commits the library refused (the error's text).
        self.commit_failures: list[str] = []
        #: Its RebalanceAdvisor (only with ``advise_every_s``), made once the consumer started.
        self.advisor: RebalanceAdvisor | None = None
        # The consumer reads from the earliest offset; the shim says so to the sidecar.
        # ``shim_group``: another group id for the shim than the consumer's (a mistake).
        self.assignor = LagAssignor(
            url=url,
            group_id=shim_group or group,
            timeout_s=timeout_s,
            reset_policy="earliest",
            instance_id=group_instance_id,
        )
        self.consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap,
            group_id=group,
            group_instance_id=group_instance_id,
            client_id=name,
            partition_assignment_strategy=(self.assignor,),
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            session_timeout_ms=SESSION_TIMEOUT_MS,
            heartbeat_interval_ms=HEARTBEAT_INTERVAL_MS,
        )
        self._consumed: set[Record] = set()
        self._owned = Ownership()
        # The batch in hand is committed before a rebalance revokes it (the documented loop).
        self.safe_point = SafePoint(self._owned)
        self.consumer.subscribe(list(topics), listener=self.safe_point)
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.consumer.start()
        if self._advise_every_s is not None:
            self.advisor = RebalanceAdvisor.for_aiokafka(
                self.consumer, self.assignor, url=self._url, every_s=self._advise_every_s
            )
        self._task = asyncio.create_task(self._consume(), name=f"consume-{self.name}")

    async def _consume(self) -> None:
        while True:
            batch = await self.consumer.getmany(timeout_ms=POLL_MS, max_records=self._max_records)
            for records in batch.values():
                self._consumed.update((r.topic, r.partition, r.offset) for r in records)
            async with self.safe_point.batch():
                if batch and self._work_s:
                    await asyncio.sleep(self._work_s)  # the application's work on the batch
                if batch and self.commit:
                    # A commit refused during a rebalance: the records come again; counted.
                    try:
                        await self.consumer.commit()
                    except KafkaError as exc:
                        self.commit_failures.append(repr(exc))
            # Last in the loop, after the batch's commit (the documented place).
            if self.advisor is not None:
                self.advisor.maybe_rebalance()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.consumer.stop()
        self.assignor.close()
        if self.advisor is not None:
            self.advisor.close()

    def partitions(self) -> set[Partition]:
        return self._owned.partitions()

    def note(self) -> dict[str, Any] | None:
        n = self.assignor.assigned_by
        return None if n is None else note_json(n.by, n.strategy, n.reason)

    def consumed(self) -> set[Record]:
        return set(self._consumed)

    def fallbacks(self) -> dict[str, int]:
        return self.assignor.fallbacks

    def decision_seconds(self) -> float | None:
        decision = self.assignor.last_decision
        return None if decision is None else decision.seconds

    def member_id(self) -> str:
        """The member id the coordinator gave this consumer."""
        return str(self.consumer._coordinator.member_id)


class KafkaPythonMember:
    def __init__(
        self,
        name: str,
        bootstrap: str,
        group: str,
        topics: Sequence[str],
        url: str,
        timeout_s: float,
        commit: bool = True,
        advise_every_s: float | None = None,
        max_records: int | None = None,
        work_s: float = 0.0,
    ) -> None:
        self.name = name
        self.commit = commit
        self._url = url
        self._advise_every_s = advise_every_s
        self._max_records = max_records
        self._work_s = work_s
        #: Commits the library refused (the error's text).
        self.commit_failures: list[str] = []
        #: Its RebalanceAdvisor (only with ``advise_every_s``), made on its polling thread.
        self.advisor: RebalanceAdvisor | None = None
        # kafka-python 3.0.12 loses the leader's join when assign() outlasts the poll's
        # remaining timeout, so each poll outlasts the shim's deadline (see the shim's docs).
        self._poll_ms = round(timeout_s * 1000) + 1000
        self._settings: dict[str, Any] = {
            "bootstrap_servers": bootstrap,
            "group_id": group,
            "client_id": name,
            "enable_auto_commit": False,
            "auto_offset_reset": "earliest",
            "session_timeout_ms": SESSION_TIMEOUT_MS,
            "heartbeat_interval_ms": HEARTBEAT_INTERVAL_MS,
        }
        # group_id and auto_offset_reset come from the consumer's own settings.
        self.assignor = KafkaPythonLagAssignor.for_consumer(
            url, self._settings, timeout_s=timeout_s
        )
        self._settings["partition_assignment_strategy"] = [self.assignor]
        self._topics = list(topics)
        self._lock = threading.Lock()
        self._owned = Ownership()
        self._consumed: set[Record] = set()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._consume, name=name, daemon=True)

    async def start(self) -> None:
        self._thread.start()

    def _consume(self) -> None:
        consumer = kafka.KafkaConsumer(**self._settings)
        consumer.subscribe(self._topics, listener=self._owned)
        if self._advise_every_s is not None:
            self.advisor = RebalanceAdvisor.for_kafka_python(
                consumer, self.assignor, url=self._url, every_s=self._advise_every_s
            )
        try:
            while not self._stopping.is_set():
                batch = consumer.poll(timeout_ms=self._poll_ms, max_records=self._max_records)
                seen = {(r.topic, r.partition, r.offset) for rs in batch.values() for r in rs}
                if batch and self._work_s:
                    self._stopping.wait(self._work_s)  # the application's work on the batch
                if batch and self.commit:
                    try:
                        consumer.commit()
                    except KafkaPythonError as exc:
                        with self._lock:
                            self.commit_failures.append(repr(exc))
                with self._lock:
                    self._consumed |= seen
                # Last in the loop, after the batch's commit (the documented place).
                if self.advisor is not None:
                    self.advisor.maybe_rebalance()
        finally:
            consumer.close()

    async def stop(self) -> None:
        self._stopping.set()
        if self._thread.is_alive():
            await asyncio.to_thread(self._thread.join, STOP_TIMEOUT_S)
        self.assignor.close()
        if self.advisor is not None:
            self.advisor.close()

    def partitions(self) -> set[Partition]:
        return self._owned.partitions()

    def note(self) -> dict[str, Any] | None:
        n = self.assignor.assigned_by
        return None if n is None else note_json(n.by, n.strategy, n.reason)

    def consumed(self) -> set[Record]:
        with self._lock:
            return set(self._consumed)

    def fallbacks(self) -> dict[str, int]:
        return self.assignor.fallbacks

    def decision_seconds(self) -> float | None:
        decision = self.assignor.last_decision
        return None if decision is None else decision.seconds


class ProcessMember:
    """A member in a process of its own that reports JSON lines on stdout (one event a
    line) and stops on ``stop`` through stdin, else by its pid. A subclass keeps what it
    needs of each event in :meth:`_on_event`, called under the lock."""

    def __init__(self, name: str, command: Sequence[str], log_dir: Path) -> None:
        self.name = name
        self._command = list(command)
        self._log_path = log_dir / f"{name}.log"
        self._log: IO[bytes] | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._lock = threading.Lock()
        self._partitions: set[Partition] = set()
        self._consumed: set[Record] = set()
        self._last: dict[str, Any] = {}

    async def start(self) -> None:
        self._log = self._log_path.open("wb")
        self._process = subprocess.Popen(
            self._command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log
        )
        self._reader = threading.Thread(target=self._read, name=f"read-{self.name}", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._process is not None
        assert self._process.stdout is not None
        for raw in self._process.stdout:
            event = json.loads(raw)
            with self._lock:
                if event["event"] == "consumed":
                    self._consumed.update((t, p, o) for t, p, o in event["records"])
                self._on_event(event)

    def _on_event(self, event: dict[str, Any]) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        process = self._process
        if process is None:
            return
        if process.poll() is None and process.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                process.stdin.write(b"stop\n")
                process.stdin.close()
            try:
                await asyncio.to_thread(process.wait, STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                await asyncio.to_thread(process.wait, STOP_TIMEOUT_S)
        if self._reader is not None:
            await asyncio.to_thread(self._reader.join, STOP_TIMEOUT_S)
        if process.stdout is not None:
            process.stdout.close()
        if self._log is not None:
            self._log.close()

    def partitions(self) -> set[Partition]:
        with self._lock:
            return set(self._partitions)

    def note(self) -> dict[str, Any] | None:
        with self._lock:
            note = self._last.get("note")
        return dict(note) if note else None

    def consumed(self) -> set[Record]:
        with self._lock:
            return set(self._consumed)

    def fallbacks(self) -> dict[str, int]:
        with self._lock:
            return dict(self._last.get("fallbacks") or {})


class JavaMember(ProcessMember):
    """``io.lagassign.GroupMember`` in its own JVM, stopped through stdin, else by its pid."""

    def __init__(
        self,
        name: str,
        bootstrap: str,
        group: str,
        topics: Sequence[str],
        url: str,
        timeout_s: float,
        classpath: str,
        log_dir: Path,
        commit: bool = True,
        advise_ms: int | None = None,
        cooperative: bool = False,
        *,
        max_poll_records: int | None = None,
        work_ms: int = 0,
        spring: bool = False,
    ) -> None:
        #: Rebalances its RebalanceAdvisor forced (only with ``advise_ms``).
        self.enforced = 0
        #: Commits Kafka refused (``commit_failed`` lines: the error's text).
        self.commit_failures: list[str] = []
        #: Commits its advisor left to the next one during a rebalance (``commit_deferred``).
        self.deferred_commits = 0
        command = [
            "java",
            "-Xmx256m",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            f"-Dlagassign.member.cooperative={'true' if cooperative else 'false'}",
            f"-Dlagassign.member.workMs={work_ms}",
            *(
                [f"-Dlagassign.member.maxPollRecords={max_poll_records}"]
                if max_poll_records is not None
                else []
            ),
            "-cp",
            classpath,
            # spring: the README's Spring Kafka recipe (a listener container) instead of a
            # hand-written poll loop; it commits after every batch and takes no advisor.
            *(["io.lagassign.SpringMember"] if spring else ["io.lagassign.GroupMember"]),
            bootstrap,
            group,
            ",".join(topics),
            url,
            str(round(timeout_s * 1000)),
            name,
            *(
                []
                if spring
                else [
                    "true" if commit else "false",
                    *([str(advise_ms)] if advise_ms is not None else []),
                ]
            ),
        ]
        super().__init__(name, command, log_dir)
        self._events: list[dict[str, Any]] = []

    def _on_event(self, event: dict[str, Any]) -> None:
        self._events.append(event)
        if event["event"] == "assigned":
            self._partitions = {(t, p) for t, p in event["partitions"]}
            self._last = event
        elif event["event"] == "revoked":
            # Eager: everything; cooperative: only the partitions listed.
            revoked = {(t, p) for t, p in event.get("partitions", [])}
            self._partitions = self._partitions - revoked if revoked else set()
        elif event["event"] == "enforced":
            self.enforced += 1
        elif event["event"] == "commit_failed":
            self.commit_failures.append(event["error"])
        elif event["event"] == "commit_deferred":
            self.deferred_commits += 1

    def events(self) -> list[dict[str, Any]]:
        """Every JSON line it printed so far, in order (a copy)."""
        with self._lock:
            return list(self._events)

    def generation(self) -> int | None:
        """The generation of its last assignment."""
        with self._lock:
            generation = self._last.get("generation")
        return int(generation) if generation is not None else None

    def decision_seconds(self) -> float | None:
        with self._lock:
            decision = self._last.get("decision")
        return None if decision is None else float(decision["seconds"])


async def settled(
    members: Sequence[Member], expected: set[Partition], timeout_s: float = 90.0
) -> dict[str, set[Partition]]:
    """Wait until every member holds partitions, together exactly ``expected`` once each,
    with the leader's note, the same in two samples a poll apart; return who holds what."""
    deadline = time.monotonic() + timeout_s
    previous: dict[str, set[Partition]] | None = None
    while time.monotonic() < deadline:
        held = {m.name: m.partitions() for m in members}
        union = set().union(*held.values())
        ready = (
            all(held.values())
            and sum(len(h) for h in held.values()) == len(union)
            and union == expected
            and all(m.note() is not None for m in members)
        )
        if ready and held == previous:
            return held
        previous = held if ready else None
        await asyncio.sleep(0.5)
    raise AssertionError(
        f"the group did not settle in {timeout_s} s: "
        + "; ".join(f"{m.name}: {sorted(m.partitions())} note={m.note()}" for m in members)
    )


async def seen_stable(
    members: Sequence[Member], sidecar: SidecarProcess, group: str, counts: list[int]
) -> bool:
    """The members hold ``counts`` partitions (in any order) and the sidecar's
    ``/groups/{group}`` sees the group Stable with the same counts."""
    if sorted(len(m.partitions()) for m in members) != counts:
        return False
    report = await asyncio.to_thread(sidecar.group, group)
    return (
        report is not None
        and report["header"]["state"] == "Stable"
        and sorted(m["partitions"] for m in report["members"]) == counts
    )


async def consumed_all(
    members: Sequence[Member], produced: set[Record], timeout_s: float = 90.0
) -> set[Record]:
    """Wait until the members together have seen every produced record; return the missing."""
    deadline = time.monotonic() + timeout_s
    missing = produced
    while time.monotonic() < deadline:
        seen: set[Record] = set().union(*(m.consumed() for m in members))
        missing = produced - seen
        if not missing:
            break
        await asyncio.sleep(0.25)
    return missing


def make_member(
    kind: str,
    name: str,
    *,
    bootstrap: str,
    group: str,
    topics: Sequence[str],
    url: str,
    timeout_s: float,
    commit: bool,
    classpath: str | None = None,
    log_dir: Path | None = None,
) -> Member:
    """A member of ``kind``: ``aiokafka``, ``kafka-python`` or ``java``."""
    if kind == "aiokafka":
        return AiokafkaMember(name, bootstrap, group, topics, url, timeout_s, commit=commit)
    if kind == "kafka-python":
        return KafkaPythonMember(name, bootstrap, group, topics, url, timeout_s, commit=commit)
    if kind == "java":
        assert classpath is not None, "java members need the java_classpath fixture"
        assert log_dir is not None
        return JavaMember(
            name, bootstrap, group, topics, url, timeout_s, classpath, log_dir, commit=commit
        )
    raise ValueError(f"unknown member kind {kind!r}")


def make_members(
    kinds: Sequence[str],
    request: pytest.FixtureRequest | None = None,
    *,
    bootstrap: str,
    group: str,
    topics: Sequence[str],
    url: str,
    timeout_s: float,
    commit: bool,
    log_dir: Path | None = None,
) -> list[Member]:
    """One :func:`make_member` of each kind, named ``{kind}-{i}``; Java members run on the
    ``java_classpath`` fixture's classpath (asked for only when one is Java)."""
    classpath = None
    if "java" in kinds:
        assert request is not None, "java members need the test's request for java_classpath"
        classpath = request.getfixturevalue("java_classpath")
    return [
        make_member(
            kind,
            f"{kind}-{i}",
            bootstrap=bootstrap,
            group=group,
            topics=topics,
            url=url,
            timeout_s=timeout_s,
            commit=commit,
            classpath=classpath,
            log_dir=log_dir,
        )
        for i, kind in enumerate(kinds)
    ]


@contextlib.asynccontextmanager
async def started(members: Sequence[Member]) -> AsyncIterator[Sequence[Member]]:
    """Start the members in turn; stop every one of them on the way out."""
    try:
        for member in members:
            await member.start()
        yield members
    finally:
        for member in members:
            await member.stop()
