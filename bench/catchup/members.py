"""The members of a catch-up run: real consumers that process at a bounded rate.

Each member processes a record at a fixed cost (``1 / rate`` seconds, slept, so the
member's throughput and not the broker or the CPU is the limit), commits what it
processed after every batch, and notes when it first got records, how many it
processed, and when it waited for an assignment (holding nothing, from joining or
giving up its partitions until it is given new ones).

- :class:`PythonGroup`: aiokafka consumers in this process, with any aiokafka
  assignor (its own ``RangePartitionAssignor``, or ``lagassign_client.LagAssignor``).
- :class:`JavaGroup`: Kafka's Java consumers in one JVM (``bench/java/
  RateLimitedConsumer.java``, run as a single source file), e.g. with
  ``CooperativeStickyAssignor``.
- :class:`ConsumerProtocolGroup`: Kafka's Java consumers on the consumer group protocol
  (KIP-848) with a broker-side assignor, formed through a paused scout member.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaConsumer  # type: ignore[import-untyped]
from aiokafka.abc import ConsumerRebalanceListener  # type: ignore[import-untyped]
from aiokafka.errors import KafkaError  # type: ignore[import-untyped]

from bench.catchup.figures import Stall
from harness.paused_member import PausedMember
from lagassign_client.advice import RebalanceAdvisor

BATCH = 100
# How often a member with the rebalance advisor may ask the sidecar.
ADVISE_EVERY_S = 1.0
HERE = Path(__file__).resolve().parent
# bench/java and the repository's deploy/: one and two levels above this package.
JAVA_SOURCE = HERE.parent / "java" / "RateLimitedConsumer.java"
CLASSPATH_FILE = HERE.parents[1] / "deploy" / "local-kafka" / "target" / "classpath.txt"
JAVA_STOP_S = 40.0


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
    def __init__(self, record: MemberRecord) -> None:
        self.record = record

    async def on_partitions_revoked(self, revoked: Any) -> None:
        # aiokafka's rebalance is eager: the member gives up everything.
        self.record.stall_begins(time.time())

    async def on_partitions_assigned(self, assigned: Any) -> None:
        self.record.assigned(time.time())


class PacedMember:
    """One aiokafka consumer of the group at ``rate`` records a second."""

    def __init__(
        self,
        name: str,
        bootstrap: str,
        group: str,
        topics: Sequence[str],
        assignor: Any,
        rate: float,
        reset: str,
        advise_url: str | None = None,
    ) -> None:
        self.record = MemberRecord(name)
        self.advise_url = advise_url
        self.advisor: RebalanceAdvisor | None = None
        self.rate = rate
        self.assignor = assignor
        self.consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap,
            group_id=group,
            client_id=name,
            enable_auto_commit=False,
            auto_offset_reset=reset,
            partition_assignment_strategy=(assignor,),
            session_timeout_ms=10_000,
            heartbeat_interval_ms=500,
            max_poll_interval_ms=60_000,
        )
        self.consumer.subscribe(list(topics), listener=_Listener(self.record))
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.record.stall_begins(time.time())
        await self.consumer.start()
        if self.advise_url is not None:
            self.advisor = RebalanceAdvisor.for_aiokafka(
                self.consumer, self.assignor, url=self.advise_url, every_s=ADVISE_EVERY_S
            )
        self._task = asyncio.create_task(self._consume(), name=f"consume-{self.record.name}")

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
    """``members`` aiokafka consumers started together; ``assignor(i)`` makes each one's."""

    def __init__(
        self,
        bootstrap: str,
        group: str,
        topics: Sequence[str],
        members: int,
        rate: float,
        assignor: Callable[[int], Any],
        reset: str,
        advise_url: str | None = None,
    ) -> None:
        self.members = [
            PacedMember(
                f"{group}-m{i}", bootstrap, group, topics, assignor(i), rate, reset, advise_url
            )
            for i in range(members)
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


def java_available() -> str | None:
    """Why the Java group cannot run here, or None when it can."""
    if not CLASSPATH_FILE.exists():
        return f"no {CLASSPATH_FILE.relative_to(HERE.parents[1])} (run make kafka-dist)"
    if not any((Path(d) / "java").exists() for d in os.environ.get("PATH", "").split(":")):
        return "no java on PATH"
    return None


class JavaGroup:
    """Kafka's Java consumers, ``members`` threads of one JVM, with ``assignor_class``."""

    def __init__(
        self,
        bootstrap: str,
        group: str,
        topics: Sequence[str],
        members: int,
        rate: float,
        assignor_class: str,
        reset: str,
        log: Path,
        prefix: str | None = None,
        held: bool = False,
    ) -> None:
        prefix = f"{group}-m" if prefix is None else prefix
        self.command = [
            "java",
            "-Xmx256m",
            "-cp",
            CLASSPATH_FILE.read_text().strip(),
            str(JAVA_SOURCE),
            bootstrap,
            group,
            ",".join(topics),
            str(members),
            str(rate),
            assignor_class,
            prefix,
            reset,
            *(["held"] if held else []),
        ]
        self.log = log
        self._records = {f"{prefix}{i}": MemberRecord(f"{prefix}{i}") for i in range(members)}
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        for record in self._records.values():
            record.stall_begins(time.time())
        with self.log.open("wb") as log:
            self._process = await asyncio.create_subprocess_exec(
                *self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
            )
        self._reader = asyncio.create_task(self._read_events())

    async def _read_events(self) -> None:
        assert self._process is not None
        assert self._process.stdout is not None
        async for raw in self._process.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            record = self._records.get(str(event.get("m")))
            if record is None:
                continue
            at = float(event["t"])
            kind = event["e"]
            if kind == "joining":
                # The JVM has compiled and started the member: its join begins now.
                record.stalled_since = at
            elif kind == "assigned":
                record.assigned(at)
            elif kind == "revoked" and int(event["held"]) == 0:
                record.stall_begins(at)
            elif kind == "first":
                record.first_record_at = at
                record.records = 0
            elif kind == "done":
                record.records = int(event["records"])
                record.failed_commits = int(event["failed_commits"])

    async def go(self) -> None:
        """Let the members of a ``held`` JVM join (it is started, and compiled, already)."""
        process = self._process
        assert process is not None
        assert process.stdin is not None
        process.stdin.write(b"go\n")
        await process.stdin.drain()

    def first_record_at(self) -> float | None:
        seen = [r.first_record_at for r in self._records.values() if r.first_record_at]
        return min(seen) if seen else None

    async def stop(self) -> None:
        process = self._process
        if process is None:
            return
        if process.returncode is None and process.stdin is not None:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                process.stdin.write(b"stop\n")
                await process.stdin.drain()
                process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), JAVA_STOP_S)
        except TimeoutError:
            os.kill(process.pid, signal.SIGKILL)
            await process.wait()
        if self._reader is not None:
            await self._reader

    def records(self) -> list[MemberRecord]:
        return list(self._records.values())

    def shim_decisions(self) -> dict[str, Any]:
        return {}


class ConsumerProtocolGroup:
    """Java consumers on the consumer group protocol (KIP-848) with the broker's ``assignor``.

    The broker computes the assignment. lagassign's broker plugin can only answer for a
    group the sidecar already knows (it resolves the group from its member ids), so,
    whichever the assignor, a paused scout (a ``harness.paused_member.PausedMember``,
    reading nothing) forms
    the group first while the members' JVM starts ``held``; once ``describe()`` (the
    sidecar's ``/groups/{id}``) lists the scout, all members join together (the epoch the
    plugin answers), and once it lists them too, the scout leaves (at most
    ``KNOWN_TIMEOUT_S`` for each wait). Its figures: ``staggered_s``, the wait before the
    members joined; ``scout_s``, how long the scout stayed once they had (its partitions
    wait meanwhile); ``sidecar_answers``, the answers the sidecar recorded for the group;
    ``live_vs_last_answer``, whether the live assignment was the sidecar's last answer
    just before the members stopped.
    """

    KNOWN_TIMEOUT_S = 60.0

    def __init__(
        self,
        bootstrap: str,
        group: str,
        topics: Sequence[str],
        members: int,
        rate: float,
        assignor: str,
        reset: str,
        logs: Path,
        describe: Callable[[], Awaitable[dict[str, Any] | None]],
    ) -> None:
        self._members = JavaGroup(
            bootstrap,
            group,
            topics,
            members,
            rate,
            f"consumer:{assignor}",
            reset,
            logs / f"{group}.java.log",
            held=True,
        )
        self._scout_args = (bootstrap, group, f"{group}-scout", topics, assignor)
        self._scout: PausedMember | None = None
        self._count = members
        self._describe = describe
        self._figures: dict[str, Any] = {"staggered_s": None, "scout_s": None}

    async def _wait_for_members(self, count: int) -> float:
        began = time.monotonic()
        while time.monotonic() < began + self.KNOWN_TIMEOUT_S:
            body = await self._describe()
            if body is not None and len(body["members"]) >= count:
                break
            await asyncio.sleep(0.2)
        return round(time.monotonic() - began, 2)

    async def start(self) -> None:
        await self._members.start()
        self._scout = await asyncio.to_thread(PausedMember, *self._scout_args)
        self._figures["staggered_s"] = await self._wait_for_members(1)
        await self._members.go()
        self._figures["scout_s"] = await self._wait_for_members(1 + self._count)
        await asyncio.to_thread(self._scout.close)

    async def stop(self) -> None:
        body = await self._describe()
        if body is not None:
            self._figures["sidecar_answers"] = len(body["last_answers"])
            self._figures["live_vs_last_answer"] = body["live_vs_last_answer"]["status"]
            # The sidecar's nudges of the group (--nudge, LAGASSIGN_NUDGE_CONSUMER_GROUPS).
            self._figures["nudges"] = (body.get("advice") or {}).get("nudges", 0)
        if self._scout is not None:
            await asyncio.to_thread(self._scout.close)
        await self._members.stop()

    def records(self) -> list[MemberRecord]:
        return self._members.records()

    def shim_decisions(self) -> dict[str, Any]:
        return dict(self._figures)
