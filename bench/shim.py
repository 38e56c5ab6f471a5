"""Benchmark of the consumer-side shim (``lagassign_client``): JSON lines on stdout.

- ``assign``: the time the group leader spends in ``LagAssignor.assign()`` with a
  healthy sidecar (a real ``lagassign serve`` on the local broker), for 10, 1,000 and
  10,000 partitions, next to the time of the bare ``POST /assign`` of the same body on
  a kept-alive connection; ``overhead_ms`` is the difference of the medians: what the
  shim adds beyond the sidecar's answer (building the request, the deadline thread,
  reading and checking the answer, aiokafka's structs). Bar: <= 10 ms at 1,000.
- ``fallback``: the time ``assign()`` takes to decide on the range fallback when the
  sidecar is down (nothing listens) and when it is slow (answers 5 s late). Bar:
  within the deadline (1.5 s) plus 50 ms.
- ``soak``: 50 real rebalances of aiokafka consumers with the shim on the local
  broker, a member joining or leaving each time, with a fault of the sidecar injected
  at random (seeded) before each: stopped, slow, 500, malformed JSON, a partition
  missing, a partition twice, or none. Counts partitions left unowned and owned twice
  (in the settled group, and in every sample taken while it rebalanced). Bar: 0.

The broker is started with ``deploy/local-kafka/kafka`` in a temporary directory and
stopped at the end, unless ``--bootstrap`` names a running one; the sidecar is a
subprocess stopped by its pid.

    .venv/bin/python -m bench.shim [--seed 7] [--rebalances 50] [--bootstrap HOST:PORT]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench.percentiles import percentile
from harness.broker import local_broker
from harness.sidecar import SidecarProcess, free_port, start_sidecar
from lagassign_client import LagAssignor
from lagassign_client.wire.group import GroupView, Subscriber, partition_counts
from lagassign_client.wire.userdata import decode_subscription
from tests.client.backlog import skewed_backlog
from tests.client.cluster_stub import PartitionsByTopic
from tests.client.faulty_sidecar import FAULTS, Fault, FaultySidecar
from tests.client.member import Membership, Partition
from tests.client.python_members import AiokafkaMember
from tests.client.test_faults_kafka import REASONS

DEADLINE_S = 1.5
FALLBACK_BAR_MS = 50.0
OVERHEAD_BAR_MS = 10.0
GROUP_PREFIX = "bench-shim."
# partitions -> (topics, members) of the healthy-sidecar measurements
SIZES: Mapping[int, tuple[int, int]] = {10: (1, 3), 1_000: (10, 20), 10_000: (20, 100)}
RUNS: Mapping[int, int] = {10: 50, 1_000: 30, 10_000: 10}
WARMUP = 3
SOAK_FAULTS = (
    "none",
    "none",
    "stopped",
    "slow",
    "status-500",
    "malformed-json",
    "missing-partition",
    "partition-twice",
)
INJECTED: dict[str, Fault] = {"none": "none", **{f: f for f in FAULTS}}
SOAK_DEADLINE_S = 1.0
SOAK_TOPICS = 2
SOAK_BACKLOG = (200, 120, 40, 20, 10, 10, 5, 5)
SOAK_MIN_MEMBERS, SOAK_MAX_MEMBERS = 2, 5
SOAK_SETTLE_S = 60.0


def emit(line: dict[str, Any]) -> None:
    print(json.dumps(line), flush=True)


def ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


@contextmanager
def running_sidecar(bootstrap: str, log: Path) -> Iterator[SidecarProcess]:
    sidecar = start_sidecar(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": bootstrap,
            "LAGASSIGN_REFRESH_INTERVAL_S": "1",
            "LAGASSIGN_GROUP_PATTERN": r"bench-shim\..*",
            "LAGASSIGN_LOG_LEVEL": "warning",
        },
        log,
    )
    try:
        yield sidecar
    finally:
        sidecar.stop()


# --- one leader's assign() ----------------------------------------------------------


def synthetic_group(partitions: int) -> tuple[PartitionsByTopic, list[str], list[str]]:
    topics_n, members_n = SIZES[partitions]
    per_topic = partitions // topics_n
    topics = [f"bench.t{i}" for i in range(topics_n)]
    members = [f"member-{i:04d}" for i in range(members_n)]
    return PartitionsByTopic(dict.fromkeys(topics, per_topic)), topics, members


def leader_and_members(
    url: str, group: str, topics: Sequence[str], member_ids: Sequence[str], timeout_s: float
) -> tuple[LagAssignor, dict[str, Any]]:
    """The leader's shim and what it decodes from JoinGroup: each member's own metadata."""
    from aiokafka.coordinator.protocol import ConsumerProtocol  # type: ignore[import-untyped]

    leader = LagAssignor(url=url, group_id=group, timeout_s=timeout_s)
    joined = {
        member_id: ConsumerProtocol.METADATA.decode(leader.metadata(topics).encode())
        for member_id in member_ids
    }
    return leader, joined


def request_body(group: str, cluster: PartitionsByTopic, joined: Mapping[str, Any]) -> bytes:
    """The body the shim sends for this group (for the bare-POST comparison)."""
    subscribers = tuple(
        Subscriber(m, tuple(md.subscription), decode_subscription(md.user_data))
        for m, md in joined.items()
    )
    counts = partition_counts(
        {t for s in subscribers for t in s.topics}, cluster.partitions_for_topic
    )
    view = GroupView(group, subscribers, counts)
    return json.dumps(view.request_body(None), separators=(",", ":")).encode()


def bench_assign(sidecar_url: str) -> None:
    for partitions in SIZES:
        cluster, topics, member_ids = synthetic_group(partitions)
        group = f"{GROUP_PREFIX}p{partitions}"
        leader, joined = leader_and_members(sidecar_url, group, topics, member_ids, DEADLINE_S)
        body = request_body(group, cluster, joined)
        assign_s: list[float] = []
        for i in range(WARMUP + RUNS[partitions]):
            started = time.perf_counter()
            leader.assign(cluster, joined)
            if i >= WARMUP:
                assign_s.append(time.perf_counter() - started)
        post_s: list[float] = []
        with httpx.Client(timeout=httpx.Timeout(10.0)) as client:
            for i in range(WARMUP + RUNS[partitions]):
                started = time.perf_counter()
                response = client.post(
                    f"{sidecar_url}/assign",
                    content=body,
                    headers={"content-type": "application/json"},
                )
                response.read()
                if i >= WARMUP:
                    post_s.append(time.perf_counter() - started)
                response.raise_for_status()
        leader.close()
        overhead = statistics.median(assign_s) - statistics.median(post_s)
        line: dict[str, Any] = {
            "bench": "shim.assign",
            "partitions": partitions,
            "topics": len(topics),
            "members": len(member_ids),
            "runs": len(assign_s),
            "answers_used": leader.answers,
            "fallbacks": leader.fallbacks,
            "assign_ms_p50": ms(statistics.median(assign_s)),
            "assign_ms_p95": ms(percentile(assign_s, 0.95)),
            "sidecar_post_ms_p50": ms(statistics.median(post_s)),
            "overhead_ms_p50": ms(overhead),
        }
        if partitions == 1_000:
            line["bar_overhead_ms"] = OVERHEAD_BAR_MS
            line["ok"] = ms(overhead) <= OVERHEAD_BAR_MS and leader.fallbacks == {}
        emit(line)


def bench_fallback(cause: str, runs: int) -> None:
    cluster, topics, member_ids = synthetic_group(1_000)
    slow = FaultySidecar(slow_s=5.0) if cause == "slow" else None
    if slow is not None:
        slow.start()
        slow.fault = "slow"
    url = slow.url if slow is not None else f"http://127.0.0.1:{free_port()}"
    took: list[float] = []
    decided: list[float] = []
    try:
        leader, joined = leader_and_members(
            url, f"{GROUP_PREFIX}{cause}", topics, member_ids, DEADLINE_S
        )
        for _ in range(runs):
            started = time.perf_counter()
            leader.assign(cluster, joined)
            took.append(time.perf_counter() - started)
            decision = leader.last_decision
            assert decision is not None
            decided.append(decision.seconds)
        leader.close()
    finally:
        if slow is not None:
            slow.stop()
    bar_ms = DEADLINE_S * 1000 + FALLBACK_BAR_MS
    emit(
        {
            "bench": "shim.fallback",
            "cause": cause,
            "partitions": 1_000,
            "runs": runs,
            "deadline_ms": DEADLINE_S * 1000,
            "fallbacks": leader.fallbacks,
            "decided_ms_max": ms(max(decided)),
            "assign_ms_p50": ms(statistics.median(took)),
            "assign_ms_max": ms(max(took)),
            "bar_ms": bar_ms,
            "ok": ms(max(took)) <= bar_ms and sum(leader.fallbacks.values()) == runs,
        }
    )


# --- the soak ------------------------------------------------------------------------


async def watch_rebalance(
    members: Sequence[AiokafkaMember], expected: set[Partition], timeout_s: float
) -> tuple[dict[str, set[Partition]], int, bool]:
    """Sample who holds what until the group settles (every member holds partitions,
    together each partition once, the same twice in a row); the most partitions seen
    owned twice in any sample, and whether it settled."""
    deadline = time.monotonic() + timeout_s
    previous: dict[str, set[Partition]] | None = None
    worst_doubled = 0
    held: dict[str, set[Partition]] = {}
    while time.monotonic() < deadline:
        held = {m.name: m.partitions() for m in members}
        owned = [p for ps in held.values() for p in ps]
        worst_doubled = max(worst_doubled, len(owned) - len(set(owned)))
        ready = (
            all(held.values())
            and len(owned) == len(set(owned))
            and set(owned) == expected
            and all(m.note() is not None for m in members)
        )
        if ready and held == previous:
            return held, worst_doubled, True
        previous = held if ready else None
        await asyncio.sleep(0.2)
    return held, worst_doubled, False


async def soak(bootstrap: str, sidecar: SidecarProcess, rebalances: int, seed: int) -> None:
    rng = random.Random(seed)
    group = f"{GROUP_PREFIX}soak.{seed}"
    topics = [f"bench-shim.soak.{seed}.t{i}" for i in range(SOAK_TOPICS)]
    lags = await skewed_backlog(bootstrap, group, topics, SOAK_BACKLOG)
    expected = set(lags)
    front = FaultySidecar(upstream=sidecar.url, slow_s=10.0).start()
    serial = 0

    def new_member() -> AiokafkaMember:
        nonlocal serial
        serial += 1
        return AiokafkaMember(
            f"soak-{serial}", Membership(bootstrap, group, topics, front.url, SOAK_DEADLINE_S)
        )

    members: list[AiokafkaMember] = []
    for _ in range(SOAK_MIN_MEMBERS):
        members.append(new_member())
        await members[-1].start()
    _, _, ok = await watch_rebalance(members, expected, SOAK_SETTLE_S)
    if not ok:
        raise RuntimeError("the soak group did not settle before the first rebalance")

    started = time.monotonic()
    faults: dict[str, int] = {}
    lost = doubled = doubled_seen = not_settled = wrong_note = 0
    by_sidecar = by_range = 0
    try:
        for _ in range(rebalances):
            fault = rng.choice(SOAK_FAULTS)
            faults[fault] = faults.get(fault, 0) + 1
            if fault == "stopped":
                front.stop()
            else:
                front.fault = INJECTED[fault]
            grow = len(members) <= SOAK_MIN_MEMBERS or (
                len(members) < SOAK_MAX_MEMBERS and rng.random() < 0.5
            )
            if grow:
                members.append(new_member())
                await members[-1].start()
            else:
                leaving = members.pop(rng.randrange(len(members)))
                await leaving.stop()
            held, worst, settled = await watch_rebalance(members, expected, SOAK_SETTLE_S)
            owned = [p for ps in held.values() for p in ps]
            lost += len(expected - set(owned))
            doubled += len(owned) - len(set(owned))
            doubled_seen = max(doubled_seen, worst)
            not_settled += not settled
            want = (
                {"by": "sidecar", "strategy": "balanced", "reason": None}
                if fault == "none"
                else {"by": "range", "strategy": None, "reason": REASONS[fault]}
            )
            notes = [m.note() for m in members]
            wrong_note += sum(n != want for n in notes)
            by_sidecar += fault == "none"
            by_range += fault != "none"
            if fault == "stopped":
                front.start()
            front.fault = "none"
    finally:
        for m in members:
            await m.stop()
        front.stop()
    emit(
        {
            "bench": "shim.soak",
            "rebalances": rebalances,
            "seed": seed,
            "partitions": len(expected),
            "deadline_ms": SOAK_DEADLINE_S * 1000,
            "faults": dict(sorted(faults.items())),
            "assigned_by_sidecar": by_sidecar,
            "assigned_by_range": by_range,
            "notes_not_as_expected": wrong_note,
            "not_settled": not_settled,
            "lost": lost,
            "doubled": doubled,
            "doubled_seen_while_rebalancing": doubled_seen,
            "seconds": round(time.monotonic() - started, 1),
            "ok": lost == 0 and doubled == 0 and doubled_seen == 0 and not_settled == 0,
        }
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7, help="seed of the soak's faults")
    parser.add_argument("--rebalances", type=int, default=50, help="rebalances in the soak")
    parser.add_argument("--bootstrap", help="a running broker (default: start one)")
    args = parser.parse_args(argv)
    # The fallbacks are the point here; their warnings and aiokafka's notes are noise.
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
    with (
        local_broker(args.bootstrap) as bootstrap,
        tempfile.TemporaryDirectory(prefix="lagassign-bench-shim-") as work,
        running_sidecar(bootstrap, Path(work) / "lagassign.log") as sidecar,
    ):
        bench_assign(sidecar.url)
        bench_fallback("down", runs=20)
        bench_fallback("slow", runs=5)
        asyncio.run(soak(bootstrap, sidecar, args.rebalances, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
