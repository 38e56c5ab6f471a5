"""``make demo``: real consumers with the lagassign shim on the demo group, next to Kafka's range.

    .venv/bin/python -m deploy.demo.consumers [--kafka-dir DIR] [--work-dir DIR] [--rate N]

1. starts the local broker (or uses the one ``make run`` left running in the same
   directory), creates the demo topics with their skewed lag for the group
   ``demo-orders`` (the same setup as ``make run``), and starts ``lagassign serve``
   on a free port;
2. three aiokafka consumers with Kafka's range assignor join the group and hold
   their partitions (paused) until the sidecar's ``/groups`` view shows each
   member's lag; then they consume, each at most ``--rate`` records a second (a
   fixed cost per record) and committing as they go, until the group's lag is
   under 1% of the backlog: the catch-up time under range;
3. they leave, the backlog is put back (the same committed offsets), and three
   aiokafka consumers with ``lagassign_client.LagAssignor`` join instead: the group
   leader asks the sidecar, the members take its answer, and the sidecar confirms
   the live assignment is its answer; they consume the same way: the catch-up time
   under lagassign;
4. the sidecar is stopped and a fourth consumer joins: the leader falls back to
   aiokafka's range assignor within the deadline and the group carries on;
5. the per-member lag under range and under lagassign, side by side, and the two
   catch-up times next to the lower bound; everything it started stops, each by
   its pid.

Stop ``make run`` first: its members hold the same group with the range assignor.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import socket
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx
from aiokafka import AIOKafkaConsumer, TopicPartition  # type: ignore[import-untyped]
from aiokafka.abc import ConsumerRebalanceListener  # type: ignore[import-untyped]
from aiokafka.admin import AIOKafkaAdminClient  # type: ignore[import-untyped]
from aiokafka.coordinator.assignors.range import (  # type: ignore[import-untyped]
    RangePartitionAssignor,
)
from aiokafka.errors import KafkaError  # type: ignore[import-untyped]

from deploy.demo.run import (
    CONSUMED,
    DEMO_DIR,
    GROUP,
    TARGET_LAG,
    commit_target_lag,
    create_topics,
    produce,
    start_sidecar,
)
from harness.broker import REPO, LocalKafka, start_broker, stop_broker
from harness.sidecar import SidecarProcess
from lagassign_client import LagAssignor

MEMBERS = 3
TIMEOUT_S = 1.5
DEADLINE_S = 90.0
PARTITIONS = sum(len(lags) for lags in TARGET_LAG.values())
TOTAL_LAG = sum(sum(lags) for lags in TARGET_LAG.values())
RATE = 1_000  # records a second one member processes
BATCH = 100
CAUGHT_UP = 0.01  # caught up: the group's lag under 1% of the backlog
SAMPLE_S = 0.25


def say(text: str = "") -> None:
    print(text, flush=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class HoldUntilGo(ConsumerRebalanceListener):  # type: ignore[misc]
    """Pause whatever the member is given until it is told to go."""

    def __init__(self, member: Member) -> None:
        self.member = member

    async def on_partitions_revoked(self, revoked: Any) -> None:
        return None

    async def on_partitions_assigned(self, assigned: Any) -> None:
        if not self.member.going:
            self.member.consumer.pause(*assigned)


class Member:
    """One real consumer of the demo group: holds what it is given (paused) until
    :meth:`go`, then processes ``rate`` records a second, committing after each batch."""

    def __init__(self, bootstrap: str, name: str, assignor: Any, rate: float) -> None:
        self.name = name
        self.assignor = assignor
        self.rate = rate
        self.going = False
        self.records = 0
        self.consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap,
            group_id=GROUP,
            client_id=name,
            enable_auto_commit=False,
            partition_assignment_strategy=(assignor,),
            session_timeout_ms=30_000,
            heartbeat_interval_ms=1_000,
        )
        self.consumer.subscribe(list(TARGET_LAG), listener=HoldUntilGo(self))
        self._poll: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.consumer.start()
        self._poll = asyncio.create_task(self._keep_polling(), name=f"poll-{self.name}")

    def go(self) -> None:
        self.going = True
        self.consumer.resume(*self.consumer.assignment())

    async def _keep_polling(self) -> None:
        due = time.monotonic()
        while True:
            batch = await self.consumer.getmany(timeout_ms=500, max_records=BATCH)
            n = sum(len(records) for records in batch.values())
            if not n:
                continue
            now = time.monotonic()
            due = max(due, now) + n / self.rate  # the fixed cost of each record
            await asyncio.sleep(due - now)
            self.records += n
            offsets = {tp: records[-1].offset + 1 for tp, records in batch.items() if records}
            with contextlib.suppress(KafkaError):  # rebalanced under the batch: read again
                await self.consumer.commit(offsets)

    async def stop(self) -> None:
        if self._poll is not None:
            self._poll.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poll
        await self.consumer.stop()
        if isinstance(self.assignor, LagAssignor):
            self.assignor.close()

    def note(self) -> str:
        if not isinstance(self.assignor, LagAssignor) or self.assignor.assigned_by is None:
            return "-"
        n = self.assignor.assigned_by
        return f"by the sidecar ({n.strategy})" if n.by == "sidecar" else f"by range ({n.reason})"


async def group_lag(admin: AIOKafkaAdminClient, ends: AIOKafkaConsumer) -> int:
    """The group's lag from the broker: log end minus committed offset, every partition."""
    tps = [TopicPartition(t, p) for t, lags in TARGET_LAG.items() for p in range(len(lags))]
    committed = await admin.list_consumer_group_offsets(GROUP)
    end = await ends.end_offsets(tps)
    return sum(max(0, end[tp] - committed[tp].offset) for tp in tps if tp in committed)


async def catch_up(bootstrap: str, members: Sequence[Member]) -> float:
    """Let ``members`` go and time them until the group's lag is under 1% of what it was."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    ends = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await admin.start()
    await ends.start()
    try:
        target = CAUGHT_UP * await group_lag(admin, ends)
        started = time.monotonic()
        for m in members:
            m.go()
        deadline = started + DEADLINE_S
        while time.monotonic() < deadline:
            await asyncio.sleep(SAMPLE_S)
            if await group_lag(admin, ends) < target:
                return time.monotonic() - started
    finally:
        await ends.stop()
        await admin.close()
    raise SystemExit(f"the group did not catch up within {DEADLINE_S:.0f} s")


def lower_bound_s(rate: float) -> float:
    """No assignment drains the backlog faster: the group's rate, or the largest partition."""
    largest = max(max(lags) for lags in TARGET_LAG.values())
    return max(TOTAL_LAG / (MEMBERS * rate), largest / rate)


async def sidecar_sees_backlog(client: httpx.AsyncClient) -> None:
    """Wait until the sidecar's cached lag of the group is the whole backlog again, so the
    next rebalance is assigned on today's lag, not on the lag before it was put back."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            response = await client.get(f"/groups/{GROUP}")
            if response.status_code == 200:
                lags = [row["lag"] or 0 for row in response.json()["partitions"]]
                if sum(lags) == TOTAL_LAG:
                    return
        await asyncio.sleep(0.5)
    raise SystemExit(f"the sidecar did not see the backlog again within {DEADLINE_S:.0f} s")


async def group_report(client: httpx.AsyncClient, *, members: int, answered: bool) -> Any:
    """``GET /groups/demo-orders`` once every member holds partitions (and, when
    ``answered``, once the sidecar says the live assignment is its last answer)."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            response = await client.get(f"/groups/{GROUP}")
            if response.status_code == 200:
                report = response.json()
                live = report["members"]
                settled = (
                    len(live) == members
                    and all(m["partitions"] for m in live)
                    and sum(m["partitions"] for m in live) == PARTITIONS
                )
                matches = report["live_vs_last_answer"]["status"] == "matches"
                if settled and (matches or not answered):
                    return report
        await asyncio.sleep(0.5)
    raise SystemExit(f"the group did not settle within {DEADLINE_S:.0f} s")


def member_rows(report: Mapping[str, Any]) -> dict[str, tuple[int, int, str]]:
    """client id -> (lag, partitions, "t0:0,1 t1:2") from the sidecar's view of the group."""
    rows = {}
    for m in report["members"]:
        held = " ".join(
            f"{topic.removeprefix('demo.')}:{','.join(map(str, ps))}"
            for topic, ps in sorted(m["assignment"].items())
        )
        rows[m["client_id"]] = (m["lag"], m["partitions"], held)
    return rows


def table(
    ranged: Mapping[str, tuple[int, int, str]],
    shimmed: Mapping[str, tuple[int, int, str]],
    notes: Mapping[str, str],
) -> list[str]:
    names = sorted(set(ranged) | set(shimmed))
    width = max(len(n) for n in [*names, "max member lag"])
    lines = [f"  {'member':<{width}}  {'range':>21}  {'lagassign':>21}  assigned"]
    for name in names:
        r_lag, r_n, _ = ranged.get(name, (0, 0, ""))
        s_lag, s_n, held = shimmed.get(name, (0, 0, ""))
        lines.append(
            f"  {name:<{width}}  {r_lag:>12,} lag, {r_n:>2} p  {s_lag:>12,} lag, {s_n:>2} p"
            f"  {notes.get(name, '-')}: {held}"
        )
    r_max = max(lag for lag, _, _ in ranged.values())
    s_max = max(lag for lag, _, _ in shimmed.values())
    lines.append(
        f"  {'max member lag':<{width}}  {r_max:>12,} lag{'':6}  {s_max:>12,} lag{'':6}"
        f"  mean {TOTAL_LAG / len(names):,.0f}: range's worst member is {r_max / s_max:.1f}x"
        " lagassign's"
    )
    return lines


async def wait_for_fallback(members: Sequence[Member]) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        held = [m.consumer.assignment() for m in members]
        notes = [m.note() for m in members]
        if all(n.startswith("by range") for n in notes) and all(held):
            union = set().union(*held)
            if len(union) == PARTITIONS and sum(len(h) for h in held) == PARTITIONS:
                return
        await asyncio.sleep(0.5)
    raise SystemExit(f"the group did not settle on the fallback within {DEADLINE_S:.0f} s")


async def demo(broker: LocalKafka, work_dir: Path, rate: float) -> None:
    bootstrap = broker.bootstrap
    say(f"Kafka at {bootstrap}. The demo topics with skewed lag for the group {GROUP} ...")
    await create_topics(bootstrap)
    await produce(
        bootstrap, {t: [lag + CONSUMED for lag in lags] for t, lags in TARGET_LAG.items()}
    )
    await commit_target_lag(bootstrap)
    sidecar: SidecarProcess = start_sidecar(bootstrap, free_port(), work_dir)
    members: list[Member] = []
    try:
        async with httpx.AsyncClient(
            base_url=sidecar.url, headers=sidecar.headers, timeout=10
        ) as client:
            say(f"lagassign serves on {sidecar.url} (pid {sidecar.process.pid}).")
            say()
            say(f"{MEMBERS} aiokafka consumers with Kafka's range assignor join {GROUP} ...")
            members = [
                Member(bootstrap, f"demo-consumer-{i}", RangePartitionAssignor, rate)
                for i in range(MEMBERS)
            ]
            for m in members:
                await m.start()
            ranged = member_rows(await group_report(client, members=MEMBERS, answered=False))
            say(f"... they consume, {rate:,.0f} records/s each, until {GROUP} catches up ...")
            range_s = await catch_up(bootstrap, members)
            say(f"  caught up in {range_s:.1f} s under range.")
            for m in members:
                await m.stop()
            members = []

            say(f"... they leave; the backlog is put back ({TOTAL_LAG:,} records behind).")
            await commit_target_lag(bootstrap)
            await sidecar_sees_backlog(client)
            say(f"{MEMBERS} consumers with lagassign_client.LagAssignor join {GROUP} ...")
            members = [
                Member(
                    bootstrap,
                    f"demo-consumer-{i}",
                    LagAssignor(url=sidecar.url, group_id=GROUP, timeout_s=TIMEOUT_S),
                    rate,
                )
                for i in range(MEMBERS)
            ]
            for m in members:
                await m.start()
            report = await group_report(client, members=MEMBERS, answered=True)
            notes = {m.name: m.note() for m in members}
            verdict = report["live_vs_last_answer"]["status"]
            say(f"... they consume, {rate:,.0f} records/s each, until {GROUP} catches up ...")
            lagassign_s = await catch_up(bootstrap, members)
            say(f"  caught up in {lagassign_s:.1f} s under lagassign.")
        say()
        say(f"The sidecar stops (pid {sidecar.process.pid}); a fourth consumer joins ...")
        sidecar.stop()
        members.append(
            Member(
                bootstrap,
                f"demo-consumer-{MEMBERS}",
                LagAssignor(url=sidecar.url, group_id=GROUP, timeout_s=TIMEOUT_S),
                rate,
            )
        )
        await members[-1].start()
        await wait_for_fallback(members)
        for m in members:
            decision = m.assignor.last_decision
            if decision is not None and decision.by == "range":
                say(
                    f"  the leader ({m.name}) fell back to aiokafka's range assignor "
                    f"({decision.reason}) after {decision.seconds * 1000:.0f} ms"
                    f" (deadline {TIMEOUT_S * 1000:.0f} ms): {decision.message}"
                )
        for m in members:
            held = sorted((tp.topic, tp.partition) for tp in m.consumer.assignment())
            shown = " ".join(f"{t.removeprefix('demo.')}-{p}" for t, p in held)
            say(f"  {m.name}: {m.note()}: {shown}")
        say(f"  every one of the {PARTITIONS} partitions is owned, each by one member.")
        say()
        say(
            f"Per-member lag of {GROUP} ({PARTITIONS} partitions, {TOTAL_LAG:,} records "
            "behind) when each group formed, as the sidecar reads it from Kafka:"
        )
        for line in table(ranged, member_rows(report), notes):
            say(line)
        say(f"  the sidecar: the live assignment {verdict} its last answer.")
        bound = lower_bound_s(rate)
        say(
            f"Catch-up time ({MEMBERS} members x {rate:,.0f} records/s, until the lag is under"
            f" {CAUGHT_UP:.0%} of the backlog; no assignment beats {bound:.1f} s):"
        )
        say(f"  range      {range_s:6.1f} s  ({range_s / bound:.2f}x the lower bound)")
        say(
            f"  lagassign  {lagassign_s:6.1f} s  ({lagassign_s / bound:.2f}x the lower bound,"
            f" {lagassign_s / range_s:.2f}x range's)"
        )
    finally:
        say()
        also = " and the broker" if broker.started_here else ""
        say(f"Stopping the consumers, the sidecar{also} ...")
        for m in members:
            await m.stop()
        sidecar.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deploy.demo.consumers",
        description="Real consumers with the lagassign shim on the demo group, next to range.",
    )
    parser.add_argument(
        "--kafka-dir", type=Path, default=REPO / "var" / "kafka", help="broker directory"
    )
    parser.add_argument(
        "--work-dir",
        type=Path,
        default=DEMO_DIR / "consumers",
        help="the sidecar's log and lag history (default var/demo/consumers)",
    )
    parser.add_argument(
        "--rate", type=float, default=RATE, help="records a second each consumer processes"
    )
    args = parser.parse_args(argv)
    # The shim's fallback warning is shown by the demo itself; aiokafka's notes are noise.
    logging.basicConfig(level=logging.ERROR, format="%(name)s: %(message)s")
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
    broker = start_broker(args.kafka_dir, None)
    try:
        asyncio.run(demo(broker, args.work_dir.resolve(), args.rate))
    finally:
        stop_broker(broker)
    return 0


if __name__ == "__main__":
    sys.exit(main())
