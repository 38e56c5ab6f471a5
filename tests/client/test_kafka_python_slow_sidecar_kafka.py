"""kafka-python with a sidecar that never answers and ``poll(timeout_ms=1000)``.

The shim's deadline (1.5 s) is longer than the poll. kafka-python 3.0.12 drops a
rebalance that outlasts the poll running it, and before the shim fitted its
deadline to that poll the leader held no partitions while the broker counted
them as its, and was evicted once its session timed out (10 s here). Now every
partition stays owned and every member stays in the group past the session
timeout, through the group's start and a rolling subscription change (a topic
added), and no member counts a ``metadata`` fallback on start.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import IO, Any

import pytest

from harness.broker import REPO, LocalKafka
from harness.builders import create_topic
from harness.poll import eventually_async
from tests.client.backlog import GROUP_PREFIX
from tests.client.black_hole import BlackHole

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

PARTITIONS = 6
MEMBERS = 3
POLL_MS = 1000
SETTLE_S = 90.0
# Longer than the members' 10 s session timeout: an evicted leader shows by then.
HOLD_S = 15.0
STOP_TIMEOUT_S = 30.0


class MemberProcess:
    """``tests.client.kafka_python_process`` in its own interpreter; its last report."""

    def __init__(self, args: list[str], log: IO[bytes]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.client.kafka_python_process", *args],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
        )
        self.last: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            with self._lock:
                self.last = json.loads(raw)

    def report(self) -> dict[str, Any]:
        with self._lock:
            return dict(self.last)

    def command(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def stop(self) -> None:
        if self.process.poll() is None and self.process.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                self.process.stdin.write(b"stop\n")
                self.process.stdin.close()
        try:
            self.process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(STOP_TIMEOUT_S)
        self._reader.join(STOP_TIMEOUT_S)
        if self.process.stdout is not None:
            self.process.stdout.close()


@pytest.fixture
def black_hole() -> Iterator[BlackHole]:
    hole = BlackHole()
    try:
        yield hole
    finally:
        hole.stop()


def owners(members: list[MemberProcess]) -> list[set[tuple[str, int]]]:
    return [{(t, p) for t, p in m.report().get("partitions", [])} for m in members]


def every_partition_owned_once(members: list[MemberProcess], expected: set[Any]) -> bool:
    held = owners(members)
    return all(held) and sum(map(len, held)) == len(expected) and set().union(*held) == expected


async def owned_once(members: list[MemberProcess], expected: set[Any]) -> None:
    """Every partition owned once by the members, within SETTLE_S."""
    await eventually_async(
        lambda: every_partition_owned_once(members, expected),
        SETTLE_S,
        f"every partition owned once by {len(members)} members",
        0.5,
    )


async def owned_and_held(members: list[MemberProcess], expected: set[Any]) -> None:
    """Every partition owned once within SETTLE_S, then in every sample for HOLD_S."""
    await owned_once(members, expected)
    # Sampled all along (a bounded watch): a leader that loses its partitions shows
    # within the session.
    held_until = time.monotonic() + HOLD_S
    while time.monotonic() < held_until:
        assert every_partition_owned_once(members, expected), f"later: {owners(members)}"
        await asyncio.sleep(0.5)


async def test_every_partition_stays_owned_and_every_member_stays(
    kafka_broker: LocalKafka,
    black_hole: BlackHole,
    kafka_names: Callable[[str], str],
    tmp_path: Any,
) -> None:
    group = GROUP_PREFIX + kafka_names("group")
    topic = kafka_names("topic")
    await create_topic(kafka_broker.bootstrap, topic, PARTITIONS)
    expected = {(topic, p) for p in range(PARTITIONS)}
    members: list[MemberProcess] = []
    logs = [(tmp_path / f"member-{i}.log").open("wb") for i in range(MEMBERS)]
    try:
        for i in range(MEMBERS):
            args = [kafka_broker.bootstrap, group, topic, black_hole.url, str(POLL_MS), f"m{i}"]
            members.append(MemberProcess(args, logs[i]))
            # Each member joins once the group has rebalanced without it.
            await owned_once(members, expected)
        await owned_and_held(members, expected)
        # A rolling subscription change: each member's own rejoin starts a rebalance
        # (kafka-python does not rejoin a dropped one of those by itself).
        extra = kafka_names("topic")
        await create_topic(kafka_broker.bootstrap, extra, PARTITIONS)
        for member in members:
            member.command(f"subscribe {topic},{extra}")
        await owned_and_held(members, expected | {(extra, p) for p in range(PARTITIONS)})
        described = await asyncio.to_thread(
            kafka_broker.consumer_groups, "--describe", "--group", group, "--members"
        )
        rows = [line for line in described.splitlines() if line.startswith(group)]
        assert len(rows) == MEMBERS, described
        reports = [m.report() for m in members]
        fallbacks = [r["fallbacks"] for r in reports]
        assert any(f.get("timeout") for f in fallbacks), fallbacks
        # No member counts a "metadata" fallback for joining before its metadata came.
        assert all(set(f) <= {"timeout"} for f in fallbacks), f"other fallbacks: {fallbacks}"
        assert black_hole.connections >= 1
    finally:
        for member in members:
            member.stop()
        for log in logs:
            log.close()
