"""``make demo``: real consumers with the lagassign shim on the demo group, next to Kafka's range.

    .venv/bin/python deploy/demo/consumers.py [--kafka-dir DIR] [--work-dir DIR]

1. starts the local broker (or uses the one ``make run`` left running in the same
   directory), creates the demo topics with their skewed lag for the group
   ``demo-orders`` (the same setup as ``make run``), and starts ``lagassign serve``
   on a free port;
2. three aiokafka consumers with Kafka's range assignor join the group and hold
   their partitions (paused, so the lag stays); the sidecar's ``/groups`` view gives
   each member's lag;
3. they leave, and three aiokafka consumers with ``lagassign_client.LagAssignor``
   join instead: the group leader asks the sidecar, the members take its answer,
   and the sidecar confirms the live assignment is its answer; the screen shows the
   per-member lag under range and under lagassign side by side;
4. the sidecar is stopped and a fourth consumer joins: the leader falls back to
   aiokafka's range assignor within the deadline and the group carries on;
5. everything it started stops, each by its pid.

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
from aiokafka import AIOKafkaConsumer  # type: ignore[import-untyped]
from aiokafka.coordinator.assignors.range import (  # type: ignore[import-untyped]
    RangePartitionAssignor,
)

from lagassign.demo import (
    CONSUMED,
    DEMO_DIR,
    GROUP,
    REPO,
    TARGET_LAG,
    Broker,
    HoldPaused,
    Sidecar,
    commit_target_lag,
    create_topics,
    produce,
    start_broker,
    start_sidecar,
    stop_broker,
    stop_sidecar,
)
from lagassign_client import LagAssignor

MEMBERS = 3
TIMEOUT_S = 1.5
DEADLINE_S = 90.0
PARTITIONS = sum(len(lags) for lags in TARGET_LAG.values())
TOTAL_LAG = sum(sum(lags) for lags in TARGET_LAG.values())


def say(text: str = "") -> None:
    print(text, flush=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Member:
    """One real consumer of the demo group that holds what it is given (paused)."""

    def __init__(self, bootstrap: str, name: str, assignor: Any) -> None:
        self.name = name
        self.assignor = assignor
        self.consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap,
            group_id=GROUP,
            client_id=name,
            enable_auto_commit=False,
            partition_assignment_strategy=(assignor,),
            session_timeout_ms=30_000,
            heartbeat_interval_ms=1_000,
        )
        self.consumer.subscribe(list(TARGET_LAG), listener=HoldPaused(self.consumer))
        self._poll: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.consumer.start()
        self._poll = asyncio.create_task(self._keep_polling(), name=f"poll-{self.name}")

    async def _keep_polling(self) -> None:
        while True:
            await self.consumer.getmany(timeout_ms=500)

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


async def demo(broker: Broker, work_dir: Path) -> None:
    bootstrap = broker.bootstrap
    say(f"Kafka at {bootstrap}. The demo topics with skewed lag for the group {GROUP} ...")
    await create_topics(bootstrap)
    await produce(
        bootstrap, {t: [lag + CONSUMED for lag in lags] for t, lags in TARGET_LAG.items()}
    )
    await commit_target_lag(bootstrap)
    sidecar: Sidecar = start_sidecar(bootstrap, free_port(), work_dir)
    members: list[Member] = []
    try:
        async with httpx.AsyncClient(
            base_url=sidecar.url, headers=sidecar.headers, timeout=10
        ) as client:
            say(f"lagassign serves on {sidecar.url} (pid {sidecar.process.pid}).")
            say()
            say(f"{MEMBERS} aiokafka consumers with Kafka's range assignor join {GROUP} ...")
            members = [
                Member(bootstrap, f"demo-consumer-{i}", RangePartitionAssignor)
                for i in range(MEMBERS)
            ]
            for m in members:
                await m.start()
            ranged = member_rows(await group_report(client, members=MEMBERS, answered=False))
            for m in members:
                await m.stop()
            members = []

            say(f"... they leave; {MEMBERS} consumers with lagassign_client.LagAssignor join.")
            members = [
                Member(
                    bootstrap,
                    f"demo-consumer-{i}",
                    LagAssignor(url=sidecar.url, group_id=GROUP, timeout_s=TIMEOUT_S),
                )
                for i in range(MEMBERS)
            ]
            for m in members:
                await m.start()
            report = await group_report(client, members=MEMBERS, answered=True)
            say()
            say(
                f"Per-member lag of {GROUP} ({PARTITIONS} partitions, {TOTAL_LAG:,} records "
                "behind), as the sidecar reads it from Kafka:"
            )
            for line in table(ranged, member_rows(report), {m.name: m.note() for m in members}):
                say(line)
            verdict = report["live_vs_last_answer"]
            say(f"  the sidecar: the live assignment {verdict['status']} its last answer.")
        say()
        say(f"The sidecar stops (pid {sidecar.process.pid}); a fourth consumer joins ...")
        stop_sidecar(sidecar)
        members.append(
            Member(
                bootstrap,
                f"demo-consumer-{MEMBERS}",
                LagAssignor(url=sidecar.url, group_id=GROUP, timeout_s=TIMEOUT_S),
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
    finally:
        say()
        also = " and the broker" if broker.started_here else ""
        say(f"Stopping the consumers, the sidecar{also} ...")
        for m in members:
            await m.stop()
        stop_sidecar(sidecar)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="deploy/demo/consumers.py",
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
    args = parser.parse_args(argv)
    # The shim's fallback warning is shown by the demo itself; aiokafka's notes are noise.
    logging.basicConfig(level=logging.ERROR, format="%(name)s: %(message)s")
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
    broker = start_broker(args.kafka_dir, None)
    try:
        asyncio.run(demo(broker, args.work_dir.resolve()))
    finally:
        stop_broker(broker)
    return 0


if __name__ == "__main__":
    sys.exit(main())
