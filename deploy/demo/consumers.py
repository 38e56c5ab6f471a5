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

import asyncio
import logging
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx
from aiokafka import AIOKafkaConsumer, TopicPartition  # type: ignore[import-untyped]
from aiokafka.admin import AIOKafkaAdminClient  # type: ignore[import-untyped]
from aiokafka.coordinator.assignors.range import (  # type: ignore[import-untyped]
    RangePartitionAssignor,
)

from bench.catchup.members import GroupSpec, PacedMember
from bench.catchup.scenarios import lower_bound_s
from deploy.demo.cli import arguments, quiet_logs, run_on, say
from deploy.demo.group import (
    DEADLINE_S,
    DEMO_DIR,
    GROUP,
    MEMBERS,
    PARTITIONS,
    TARGET_LAG,
    TOTAL_LAG,
    commit_target_lag,
    skewed_backlog,
)
from deploy.demo.sidecar import group_once, start_sidecar
from harness.broker import LocalKafka, start_broker
from harness.poll import eventually_async
from harness.sidecar import SidecarProcess, free_port
from lagassign_client import LagAssignor

TIMEOUT_S = 1.5
RATE = 1_000  # records a second one member processes
CAUGHT_UP = 0.01  # caught up: the group's lag under 1% of the backlog
SAMPLE_S = 0.25


def held_members(
    bootstrap: str, assignor: Callable[[], Any], rate: float, count: int, first: int = 0
) -> list[PacedMember]:
    """``count`` real consumers of the demo group, each with its own ``assignor()``: they
    hold what they are given (paused) until told to go, then process ``rate`` records a
    second, committing after each batch."""
    spec = GroupSpec(bootstrap, GROUP, list(TARGET_LAG), MEMBERS, rate)
    return [
        PacedMember(f"demo-consumer-{first + i}", spec, assignor(), held=True) for i in range(count)
    ]


def note(member: PacedMember) -> str:
    """Who assigned the member's partitions, as its shim says (``-`` under range)."""
    assignor = member.assignor
    if not isinstance(assignor, LagAssignor) or assignor.assigned_by is None:
        return "-"
    n = assignor.assigned_by
    return f"by the sidecar ({n.strategy})" if n.by == "sidecar" else f"by range ({n.reason})"


async def group_lag(admin: AIOKafkaAdminClient, ends: AIOKafkaConsumer) -> int:
    """The group's lag from the broker: log end minus committed offset, every partition."""
    tps = [TopicPartition(t, p) for t, lags in TARGET_LAG.items() for p in range(len(lags))]
    committed = await admin.list_consumer_group_offsets(GROUP)
    end = await ends.end_offsets(tps)
    return sum(max(0, end[tp] - committed[tp].offset) for tp in tps if tp in committed)


async def catch_up(bootstrap: str, members: Sequence[PacedMember]) -> float:
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


def backlog_again(report: Mapping[str, Any]) -> bool:
    """The sidecar's cached lag of the group is the whole backlog again, so the next
    rebalance is assigned on today's lag, not on the lag before it was put back."""
    return sum(row["lag"] or 0 for row in report["partitions"]) == TOTAL_LAG


def formed(answered: bool) -> Callable[[Mapping[str, Any]], bool]:
    """Every member holds partitions (and, when ``answered``, the sidecar says the live
    assignment is its last answer)."""

    def holds(report: Mapping[str, Any]) -> bool:
        live = report["members"]
        settled = (
            len(live) == MEMBERS
            and all(m["partitions"] for m in live)
            and sum(m["partitions"] for m in live) == PARTITIONS
        )
        matches = report["live_vs_last_answer"]["status"] == "matches"
        return settled and (matches or not answered)

    return holds


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


async def fallen_back(members: Sequence[PacedMember]) -> None:
    """Every member assigned by the range fallback, every partition owned by one of them."""

    def settled() -> bool:
        held = [m.consumer.assignment() for m in members]
        if not all(note(m).startswith("by range") for m in members) or not all(held):
            return False
        return len(set().union(*held)) == PARTITIONS == sum(len(h) for h in held)

    try:
        await eventually_async(settled, DEADLINE_S, "the group settles on the fallback", 0.5)
    except TimeoutError as late:
        raise SystemExit(str(late)) from None


async def demo(broker: LocalKafka, work_dir: Path, rate: float) -> None:
    bootstrap = broker.bootstrap
    say(f"Kafka at {bootstrap}. The demo topics with skewed lag for the group {GROUP} ...")
    await skewed_backlog(bootstrap, GROUP)
    sidecar: SidecarProcess = start_sidecar(bootstrap, free_port(), work_dir)
    members: list[PacedMember] = []

    def shim() -> LagAssignor:
        return LagAssignor(url=sidecar.url, group_id=GROUP, timeout_s=TIMEOUT_S)

    try:
        async with httpx.AsyncClient(
            base_url=sidecar.url, headers=sidecar.headers, timeout=10
        ) as client:
            say(f"lagassign serves on {sidecar.url} (pid {sidecar.process.pid}).")
            say()
            say(f"{MEMBERS} aiokafka consumers with Kafka's range assignor join {GROUP} ...")
            members = held_members(bootstrap, lambda: RangePartitionAssignor, rate, MEMBERS)
            for m in members:
                await m.start()
            report = await group_once(client, GROUP, formed(False), f"{GROUP} settles")
            ranged = member_rows(report)
            say(f"... they consume, {rate:,.0f} records/s each, until {GROUP} catches up ...")
            range_s = await catch_up(bootstrap, members)
            say(f"  caught up in {range_s:.1f} s under range.")
            for m in members:
                await m.stop()
            members = []

            say(f"... they leave; the backlog is put back ({TOTAL_LAG:,} records behind).")
            await commit_target_lag(bootstrap)
            await group_once(client, GROUP, backlog_again, "the sidecar sees the backlog again")
            say(f"{MEMBERS} consumers with lagassign_client.LagAssignor join {GROUP} ...")
            members = held_members(bootstrap, shim, rate, MEMBERS)
            for m in members:
                await m.start()
            report = await group_once(client, GROUP, formed(True), f"{GROUP} holds the answer")
            notes = {m.record.name: note(m) for m in members}
            verdict = report["live_vs_last_answer"]["status"]
            say(f"... they consume, {rate:,.0f} records/s each, until {GROUP} catches up ...")
            lagassign_s = await catch_up(bootstrap, members)
            say(f"  caught up in {lagassign_s:.1f} s under lagassign.")
        say()
        say(f"The sidecar stops (pid {sidecar.process.pid}); a fourth consumer joins ...")
        sidecar.stop()
        members += held_members(bootstrap, shim, rate, 1, first=MEMBERS)
        await members[-1].start()
        await fallen_back(members)
        for m in members:
            decision = m.assignor.last_decision
            if decision is not None and decision.by == "range":
                say(
                    f"  the leader ({m.record.name}) fell back to aiokafka's range assignor "
                    f"({decision.reason}) after {decision.seconds * 1000:.0f} ms"
                    f" (deadline {TIMEOUT_S * 1000:.0f} ms): {decision.message}"
                )
        for m in members:
            held = sorted((tp.topic, tp.partition) for tp in m.consumer.assignment())
            shown = " ".join(f"{t.removeprefix('demo.')}-{p}" for t, p in held)
            say(f"  {m.record.name}: {note(m)}: {shown}")
        say(f"  every one of the {PARTITIONS} partitions is owned, each by one member.")
        say()
        say(
            f"Per-member lag of {GROUP} ({PARTITIONS} partitions, {TOTAL_LAG:,} records "
            "behind) when each group formed, as the sidecar reads it from Kafka:"
        )
        for line in table(ranged, member_rows(report), notes):
            say(line)
        say(f"  the sidecar: the live assignment {verdict} its last answer.")
        backlog = {(t, p): lag for t, lags in TARGET_LAG.items() for p, lag in enumerate(lags)}
        bound = lower_bound_s(backlog, MEMBERS, rate)
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
    parser = arguments(
        "python -m deploy.demo.consumers",
        "Real consumers with the lagassign shim on the demo group, next to range.",
        DEMO_DIR / "consumers",
        "the sidecar's log and lag history (default var/demo/consumers)",
    )
    parser.add_argument(
        "--rate", type=float, default=RATE, help="records a second each consumer processes"
    )
    args = parser.parse_args(argv)
    # The shim's fallback warning is shown by the demo itself.
    quiet_logs(logging.ERROR)
    broker = start_broker(args.kafka_dir, None)
    return run_on(broker, lambda: demo(broker, args.work_dir.resolve(), args.rate))


if __name__ == "__main__":
    sys.exit(main())
