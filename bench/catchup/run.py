"""One catch-up run: a fresh group on a scenario's backlog, one assignor, until caught up.

The backlog is copied by offsets, not by records: the group's start offset on each
partition is ``log end - backlog``. With the ``existing-group`` start those offsets
are committed before the members join (a group that has been consuming, now far
behind); with the ``new-group`` start nothing is committed and the members begin
at the log start (``auto_offset_reset=earliest``, the topics holding exactly the
backlog).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition  # type: ignore[import-untyped]

from bench.catchup.figures import (
    THRESHOLD,
    catch_up_at,
    initial_backlog,
    stalled_s,
    worst_member,
)
from bench.catchup.members import GroupSpec, MemberRecord
from bench.catchup.sampler import LagSampler, Sample
from bench.catchup.scenarios import Partition, Production, Scenario, lower_bound_s
from harness.builders import commit, create_topic

#: A held scenario's lag is bounded when it ends at most this many seconds of production.
BOUNDED_PRODUCTION_S = 2.0

Start = Literal["existing-group", "new-group"]
SAMPLE_INTERVAL_S = 0.5
TAIL_S = 1.0
TICK_S = 0.1


class Group(Protocol):
    async def start(self) -> None: ...
    async def stop(self) -> None: ...
    def records(self) -> list[MemberRecord]: ...
    def shim_decisions(self) -> dict[str, Any]: ...


@dataclass
class RunResult:
    line: dict[str, Any]
    samples: list[Sample]
    t0: float | None


async def end_offsets(bootstrap: str, partitions: list[Partition]) -> dict[Partition, int]:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        ends = await consumer.end_offsets([TopicPartition(t, p) for t, p in partitions])
        return {(tp.topic, tp.partition): int(o) for tp, o in ends.items()}
    finally:
        await consumer.stop()


async def produce_counts(bootstrap: str, counts: Mapping[Partition, int]) -> None:
    """Write ``counts[(topic, p)]`` small records to each partition."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks=1, linger_ms=20)
    await producer.start()
    try:
        pending = []
        for (topic, p), count in counts.items():
            for i in range(count):
                pending.append(await producer.send(topic, b"%d" % i, partition=p))
                if len(pending) >= 5_000:
                    await asyncio.gather(*pending)
                    pending.clear()
        await asyncio.gather(*pending)
    finally:
        await producer.stop()


async def backlog_topics(bootstrap: str, scenario: Scenario, prefix: str) -> dict[str, str]:
    """``scenario``'s topics, each created as ``prefix`` + its name and holding its backlog:
    the scenario's topic -> the created topic."""
    topics = {t: f"{prefix}{t}" for t in scenario.topics}
    for name in topics.values():
        await create_topic(bootstrap, name, scenario.partitions)
    await produce_counts(
        bootstrap, {(topics[t], p): n for (t, p), n in scenario.backlog.items() if n}
    )
    return topics


async def keep_producing(bootstrap: str, production: Production, stop: asyncio.Event) -> int:
    """Write at ``production``'s rates (on its clock, from now) until ``stop``; the count."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks=1, linger_ms=20)
    await producer.start()
    began = time.monotonic()
    credit: dict[Partition, float] = {}
    sent = 0
    last = began
    try:
        while not stop.is_set():
            now = time.monotonic()
            at = now - began
            pending = []
            for partition in set(production.rates) | set(production.after):
                credit[partition] = credit.get(partition, 0.0) + production.produced(
                    partition, last - began, at
                )
                whole = int(credit[partition])
                credit[partition] -= whole
                topic, p = partition
                for _ in range(whole):
                    pending.append(await producer.send(topic, b"x", partition=p))
            last = now
            await asyncio.gather(*pending)
            sent += len(pending)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), TICK_S)
    finally:
        await producer.stop()
    return sent


async def run_one(
    *,
    bootstrap: str,
    scenario: Scenario,
    topics: Mapping[str, str],
    group_id: str,
    assignor: str,
    start: Start,
    make_group: Callable[[GroupSpec], Group],
    cap_s: float,
    consumer_protocol: bool = False,
) -> RunResult:
    """Drain ``scenario``'s backlog with the group ``make_group`` makes of its spec."""
    partitions = [(topics[t], p) for t, p in scenario.backlog]
    backlog = {(topics[t], p): n for (t, p), n in scenario.backlog.items()}
    ends = await end_offsets(bootstrap, partitions)
    begin = {key: ends[key] - backlog[key] for key in partitions}
    if start == "existing-group":
        await commit(bootstrap, group_id, begin)
    elif any(begin.values()):
        raise ValueError(
            "a new group starts at the log start: the topics must hold the backlog only"
        )
    production = None
    if scenario.production is not None:
        production = Production(
            {(topics[t], p): r for (t, p), r in scenario.production.rates.items()},
            scenario.production.switch_s,
            {(topics[t], p): r for (t, p), r in scenario.production.after.items()},
            scenario.production.lead_s,
        )

    stop_sampling = asyncio.Event()
    sampler = LagSampler(
        bootstrap, group_id, partitions, begin, SAMPLE_INTERVAL_S, consumer_protocol
    )
    sampling = asyncio.create_task(sampler.run(stop_sampling))
    deadline = time.monotonic() + 60
    while not sampler.samples and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    stop_producing = asyncio.Event()
    producing: asyncio.Task[int] | None = None
    if production is not None and production.lead_s > 0:
        # Production under way before the group forms: its first rebalance sees it.
        producing_from = time.time()
        producing = asyncio.create_task(keep_producing(bootstrap, production, stop_producing))
        try:
            await asyncio.sleep(production.lead_s)
        except BaseException:
            stop_producing.set()
            await producing
            raise
        if scenario.caught_up_at_start and start == "existing-group":
            # The group had kept up with the lead's production: only the backlog is left.
            ends = await end_offsets(bootstrap, partitions)
            await commit(bootstrap, group_id, {key: ends[key] - backlog[key] for key in partitions})
    names = [topics[t] for t in scenario.topics]
    group = make_group(GroupSpec(bootstrap, group_id, names, scenario.members, scenario.rate))
    launched = time.time()
    if producing is None:
        producing_from = launched
    caught_at: float | None = None
    try:
        await group.start()
        end_by = time.monotonic() + cap_s
        while time.monotonic() < end_by:
            await asyncio.sleep(SAMPLE_INTERVAL_S / 2)
            if production is not None and producing is None and joined(group):
                # Production starts once the group has formed, so a slow start (a JVM
                # compiling) does not face a bigger backlog than the others.
                producing_from = time.time()
                producing = asyncio.create_task(
                    keep_producing(bootstrap, production, stop_producing)
                )
            t0 = first_record(group)
            if t0 is None or not sampler.samples:
                continue
            if scenario.hold_s is not None:
                if time.time() >= t0 + scenario.hold_s:
                    break
                continue
            target = THRESHOLD * initial_backlog(sampler.samples, t0).group_lag
            caught_at = catch_up_at(sampler.samples, t0, target)
            if caught_at is not None:
                await asyncio.sleep(TAIL_S)
                break
    finally:
        stop_producing.set()
        if producing is not None:
            await producing
        await group.stop()
        stop_sampling.set()
        await sampling
    t0 = first_record(group)
    return RunResult(
        line=figures(
            scenario,
            assignor,
            start,
            group,
            sampler,
            production,
            (launched, producing_from),
            t0,
            caught_at,
        ),
        samples=sampler.samples,
        t0=t0,
    )


def joined(group: Group) -> bool:
    """Whether some member has been given its first assignment."""
    return any(r.generations for r in group.records())


def first_record(group: Group) -> float | None:
    seen = [r.first_record_at for r in group.records() if r.first_record_at is not None]
    return min(seen) if seen else None


def figures(
    scenario: Scenario,
    assignor: str,
    start: Start,
    group: Group,
    sampler: LagSampler,
    production: Production | None,
    clocks: tuple[float, float],
    t0: float | None,
    caught_at: float | None,
) -> dict[str, Any]:
    launched, producing_from = clocks
    records = group.records()
    line: dict[str, Any] = {
        "scenario": scenario.name,
        "assignor": assignor,
        "start": start,
        "members": scenario.members,
        "rate_per_member": scenario.rate,
        "partitions": len(scenario.backlog),
    }
    if t0 is None or not sampler.samples:
        line.update(
            catch_up_s=None,
            lower_bound_s=None,
            worst_member_lag_max=None,
            error="no member processed a record",
        )
        return line
    at_start = initial_backlog(sampler.samples, t0)
    initial = dict(at_start.lag)
    if production is not None:
        for key in initial:
            initial[key] += round(
                production.produced(key, at_start.at - producing_from, t0 - producing_from)
            )
    bound = lower_bound_s(initial, scenario.members, scenario.rate, production, t0 - producing_from)
    end = caught_at if caught_at is not None else sampler.samples[-1].at
    peak, mean = worst_member(sampler.samples, t0, end)
    catch_up = None if caught_at is None else round(caught_at - t0, 2)
    line.update(
        catch_up_s=catch_up,
        lower_bound_s=round(bound, 2) if math.isfinite(bound) else None,
        ratio_to_lower_bound=(
            round(catch_up / bound, 3) if catch_up is not None and math.isfinite(bound) else None
        ),
        worst_member_lag_max=peak,
        worst_member_lag_mean=round(mean),
        backlog=sum(initial.values()),
        backlog_largest_partition=max(initial.values()),
        records_per_member=sorted((r.records for r in records), reverse=True),
        rebalances=max((r.generations for r in records), default=0),
        rebalance_s=round(stalled_s([s for r in records for s in r.stalls], end), 2),
        join_s=round(t0 - launched, 2),
        failed_commits=sum(r.failed_commits for r in records),
        **group.shim_decisions(),
        samples=len(sampler.samples),
        sample_errors=sampler.errors,
        load_avg=[round(x, 2) for x in os.getloadavg()],
    )
    if sampler.consumer_protocol:
        line["epoch_moves_s"] = epoch_moves(sampler.samples, t0)
    if scenario.hold_s is not None and production is not None:
        line.update(held(sampler.samples, t0, production))
    return line


def epoch_moves(samples: Sequence[Sample], t0: float) -> list[tuple[float, int]]:
    """When a consumer-protocol group's epoch was first seen to move, in seconds since
    ``t0``, with the epoch seen (a nudge shows as a join's and a leave's epoch close
    together)."""
    moves: list[tuple[float, int]] = []
    last: int | None = None
    for sample in samples:
        epoch = sample.group_epoch
        if epoch is not None and epoch != last:
            if last is not None:
                moves.append((round(sample.at - t0, 1), epoch))
            last = epoch
    return moves


def held(samples: Sequence[Sample], t0: float, production: Production) -> dict[str, Any]:
    """A held scenario's figures: the group's lag at the end, in records and in seconds of
    production, and whether it stayed bounded (at most two seconds of production at the
    end, and not growing over the second half of the hold)."""
    after = [s for s in samples if s.at >= t0]
    rate = production.total_rate()
    end_lag = after[-1].group_lag if after else None
    half = after[len(after) // 2 :]
    growth = (
        (half[-1].group_lag - half[0].group_lag) / (half[-1].at - half[0].at)
        if len(half) >= 2 and half[-1].at > half[0].at
        else None
    )
    bounded = end_lag is not None and end_lag <= BOUNDED_PRODUCTION_S * rate
    return {
        "held_s": round(after[-1].at - t0, 2) if after else None,
        "lag_end": end_lag,
        "lag_end_s_of_production": round(end_lag / rate, 2) if end_lag is not None else None,
        "lag_growth_per_s": round(growth, 1) if growth is not None else None,
        "bounded": bounded,
    }


def timeline(result: RunResult) -> dict[str, list[float | None]]:
    """Seconds since t0, group lag and worst member lag of every sample (for the plot)."""
    t0 = result.t0 or (result.samples[0].at if result.samples else 0.0)
    return {
        "t": [round(s.at - t0, 3) for s in result.samples],
        "group_lag": [s.group_lag for s in result.samples],
        "worst_member_lag": [s.worst_member_lag for s in result.samples],
    }
