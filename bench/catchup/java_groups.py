"""The catch-up run's groups of Kafka's Java consumers, in one JVM each.

- :class:`JavaGroup`: classic-protocol consumers (``bench/java/RateLimitedConsumer.java``,
  run as a single source file), e.g. with ``CooperativeStickyAssignor``; they report
  what the aiokafka members of :mod:`bench.catchup.members` note, as JSON lines.
- :class:`ConsumerProtocolGroup`: the same consumers on the consumer group protocol
  (KIP-848) with a broker-side assignor, formed through a paused scout member.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench.catchup.members import GroupSpec, MemberRecord
from harness.paused_member import PausedMember

HERE = Path(__file__).resolve().parent
# bench/java and the repository's deploy/: one and two levels above this package.
JAVA_SOURCE = HERE.parent / "java" / "RateLimitedConsumer.java"
CLASSPATH_FILE = HERE.parents[1] / "deploy" / "local-kafka" / "target" / "classpath.txt"
JAVA_STOP_S = 40.0


def java_available() -> str | None:
    """Why the Java group cannot run here, or None when it can."""
    if not CLASSPATH_FILE.exists():
        return f"no {CLASSPATH_FILE.relative_to(HERE.parents[1])} (run make kafka-dist)"
    if not any((Path(d) / "java").exists() for d in os.environ.get("PATH", "").split(":")):
        return "no java on PATH"
    return None


class JavaGroup:
    """``spec``'s consumers: Kafka's Java consumers, threads of one JVM, with ``assignor_class``."""

    def __init__(self, spec: GroupSpec, assignor_class: str, log: Path, held: bool = False) -> None:
        prefix = f"{spec.group}-m"
        self.command = [
            "java",
            "-Xmx256m",
            "-cp",
            CLASSPATH_FILE.read_text().strip(),
            str(JAVA_SOURCE),
            spec.bootstrap,
            spec.group,
            ",".join(spec.topics),
            str(spec.members),
            str(spec.rate),
            assignor_class,
            prefix,
            spec.reset,
            *(["held"] if held else []),
        ]
        self.log = log
        self._records = {f"{prefix}{i}": MemberRecord(f"{prefix}{i}") for i in range(spec.members)}
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
        spec: GroupSpec,
        assignor: str,
        logs: Path,
        describe: Callable[[], Awaitable[dict[str, Any] | None]],
    ) -> None:
        self._members = JavaGroup(
            spec, f"consumer:{assignor}", logs / f"{spec.group}.java.log", held=True
        )
        self._scout_args = (
            spec.bootstrap,
            spec.group,
            f"{spec.group}-scout",
            spec.topics,
            assignor,
        )
        self._scout: PausedMember | None = None
        self._count = spec.members
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
