"""Benchmark: a full lag refresh of 100 groups over 100,000 group-partitions.

On the local broker (deploy/local-kafka; started here in var/bench-kafka unless
``--bootstrap`` names a running one) it creates ``--topics`` topics of
``--partitions`` partitions, writes a few records to every partition, and makes
``--groups`` groups, each reading one topic (so every topic is read by several
groups) with a committed offset on every partition; ``--live-groups`` of them
also have two live members (paused, so they only heartbeat). Everything is
derived from the group and partition numbers: no randomness.

Then a separate process (so that its memory is the view's alone) runs full
refreshes of a :class:`~lagassign.lagview.view.LagView` tracking the groups by
regex, three times side by side:

- ``plain``: the view alone, ``--refreshes`` refreshes;
- ``rates``: the view with the live rate window listening, as the service wires
  it (``lagassign.http.sidecar.rate_window`` from the default settings: 15
  minutes, 64 points, a 10 s refresh interval). To fill the window without
  waiting 15 minutes, the view's clock (the snapshots' ``as_of``, all the window
  reads) steps one refresh interval per refresh, so the run makes enough real
  refreshes to cover one full window and ``--refreshes`` more, which are timed;
- ``rates+history``: the same with the Parquet history sink as well.

Each reports p50/p95/max refresh time (wall clock, and the process's CPU time,
which other load on the machine does not inflate), the same with the listeners'
work after the refresh (the refresh loop waits for it), the 1-minute load average
when the measurement began, its peak resident memory, and the window's points
per partition. Kafka's own ``kafka-consumer-groups --describe --all-groups`` is
timed over the same groups.

Bars: p95 of a full refresh at most 2 s, peak memory (view and window) at most
500 MiB.

    .venv/bin/python -m bench.lag_refresh            # prints JSON lines
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaConsumer  # type: ignore[import-untyped]

from bench.percentiles import percentile
from harness import builders
from harness.broker import KAFKA_SCRIPT, REPO, local_broker
from lagassign.history.parquet import ParquetHistorySink
from lagassign.history.recorder import HistoryRecorder
from lagassign.http.sidecar import rate_window
from lagassign.lagview.listeners import RefreshListener
from lagassign.lagview.store import utc_now
from lagassign.lagview.view import LagView
from lagassign.settings import Settings

BENCH_DIR = REPO / "var" / "bench-kafka"
PREFIX = "bench"
BAR_P95_S = 2.0
BAR_PEAK_MIB = 500.0


def emit(**fields: Any) -> None:
    print(json.dumps({"bench": "lag_refresh", **fields}), flush=True)


def topic_name(t: int) -> str:
    return f"{PREFIX}-topic-{t:02d}"


def group_name(g: int) -> str:
    return f"{PREFIX}-group-{g:03d}"


def records_in(t: int, p: int) -> int:
    return 1 + (p * 31 + t * 7) % 5


def committed_at(g: int, t: int, p: int) -> int:
    return (p + g) % (records_in(t, p) + 1)


# --- setup ------------------------------------------------------------------------


async def create_topics(bootstrap: str, topics: int, partitions: int) -> None:
    # One topic per request: a KRaft controller refuses a request that makes more than
    # 10,000 records (POLICY_VIOLATION), and 10 topics of 1,000 partitions do.
    for t in range(topics):
        await builders.create_topics(
            bootstrap, {topic_name(t): partitions}, exist_ok=True, timeout_s=300
        )


async def produce(bootstrap: str, topics: int, partitions: int) -> int:
    counts = {topic_name(t): [records_in(t, p) for p in range(partitions)] for t in range(topics)}
    await builders.produce_many(bootstrap, counts)
    return sum(sum(c) for c in counts.values())


async def commit_groups(bootstrap: str, groups: int, topics: int, partitions: int) -> None:
    for g in range(groups):
        t = g % topics
        offsets = {(topic_name(t), p): committed_at(g, t, p) for p in range(partitions)}
        await builders.commit(bootstrap, group_name(g), offsets)


async def join_live_members(
    bootstrap: str, live_groups: int, topics: int
) -> list[AIOKafkaConsumer]:
    members: list[AIOKafkaConsumer] = []
    for g in range(live_groups):
        for i in range(2):
            consumer = AIOKafkaConsumer(
                topic_name(g % topics),
                bootstrap_servers=bootstrap,
                group_id=group_name(g),
                client_id=f"{group_name(g)}-member-{i}",
                enable_auto_commit=False,
                session_timeout_ms=60_000,
                heartbeat_interval_ms=3_000,
                # Paused, they never poll: they must stay for the whole bench (the runs
                # with the rate window take tens of minutes on a loaded machine).
                max_poll_interval_ms=7_200_000,
            )
            await consumer.start()
            members.append(consumer)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if all(m.assignment() for m in members):
            break
        await asyncio.sleep(0.5)
    for m in members:
        m.pause(*m.assignment())
    return members


# --- measurement (in its own process) ------------------------------------------------


class SteppedClock:
    """The view's clock: real time at the start, then one refresh interval per refresh."""

    def __init__(self, step_s: float) -> None:
        self.start = utc_now()
        self.step = timedelta(seconds=step_s)
        self.steps = 0

    def __call__(self) -> datetime:
        return self.start + self.steps * self.step


async def measure(
    bootstrap: str, refreshes: int, history: str | None, rates: bool
) -> dict[str, Any]:
    sink = ParquetHistorySink(history, "bench") if history else None
    listeners: list[RefreshListener] = [HistoryRecorder(sink)] if sink is not None else []
    settings = Settings.from_environ({})
    window = rate_window(settings) if rates else None
    if window is not None:
        listeners.append(window)
    clock = SteppedClock(settings.refresh_interval_s)
    view = LagView(
        bootstrap,
        group_pattern=f"{PREFIX}-group-.*",
        request_timeout_s=10,
        listeners=listeners,
        clock=clock,
    )
    # With the window: one full window of refreshes first (not timed), then the timed ones.
    filling = 0
    if window is not None:
        filling = round(window.window_s / settings.refresh_interval_s) + 2
    durations: list[float] = []
    with_listeners: list[float] = []
    cpu: list[float] = []
    try:
        for _ in range(2):  # warm-up: metadata, coordinators, connections
            assert await view.refresh(), view.last_refresh_error
            clock.steps += 1
        for _ in range(filling):
            assert await view.refresh(), view.last_refresh_error
            clock.steps += 1
        load = os.getloadavg()[0]
        for _ in range(refreshes):
            started, started_wall = time.process_time(), time.perf_counter()
            ok = await view.refresh()
            with_listeners.append(time.perf_counter() - started_wall)
            cpu.append(time.process_time() - started)
            clock.steps += 1
            assert ok, view.last_refresh_error
            assert view.last_refresh_seconds is not None
            durations.append(view.last_refresh_seconds)
        snapshots = view.snapshots()
        partitions = sum(len(s.partitions) for s in snapshots.values())
        unknown = sum(s.unknown_partitions for s in snapshots.values())
        members = sum(len(s.members) for s in snapshots.values())
        windows, points = window.sizes() if window is not None else (0, 0)
    finally:
        await view.stop()
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "measure": "lag_view_refresh",
        "rate_window": window is not None,
        "history": history is not None,
        "groups": len(snapshots),
        "group_partitions": partitions,
        "unknown_partitions": unknown,
        "live_members": members,
        "untimed_refreshes": 2 + filling,
        "refreshes": len(durations),
        "p50_s": round(statistics.median(durations), 4),
        "p95_s": round(percentile(durations, 0.95), 4),
        "max_s": round(max(durations), 4),
        "with_listeners_p50_s": round(statistics.median(with_listeners), 4),
        "with_listeners_p95_s": round(percentile(with_listeners, 0.95), 4),
        "cpu_p50_s": round(statistics.median(cpu), 4),
        "cpu_p95_s": round(percentile(cpu, 0.95), 4),
        "load_average_1m": round(load, 2),
        "peak_rss_mib": round(peak_kib / 1024, 1),
        "window_partitions": windows,
        "window_points_per_partition": round(points / windows, 1) if windows else 0,
        "history_rows": sink.rows_written if sink else 0,
    }


def time_kafka_tool(bootstrap: str, runs: int) -> dict[str, Any]:
    durations: list[float] = []
    rows = 0
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(
            [
                str(KAFKA_SCRIPT),
                "consumer-groups",
                "--bootstrap-server",
                bootstrap,
                "--describe",
                "--all-groups",
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=600,
        )
        durations.append(time.perf_counter() - started)
        rows = sum(1 for line in done.stdout.splitlines() if line.startswith(f"{PREFIX}-group-"))
    return {
        "measure": "kafka-consumer-groups --describe --all-groups",
        "group_partitions": rows,
        "runs": runs,
        "p50_s": round(statistics.median(durations), 4),
        "max_s": round(max(durations), 4),
    }


def run_measure_process(
    bootstrap: str, refreshes: int, history: str | None, rates: bool
) -> dict[str, Any]:
    command = [
        sys.executable,
        "-m",
        "bench.lag_refresh",
        "measure",
        "--bootstrap",
        bootstrap,
        "--refreshes",
        str(refreshes),
    ]
    if history:
        command += ["--history", history]
    if rates:
        command.append("--rate-window")
    done = subprocess.run(
        command, check=True, capture_output=True, text=True, timeout=3600, cwd=REPO
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# --- main -------------------------------------------------------------------------


async def setup(args: argparse.Namespace, bootstrap: str) -> list[AIOKafkaConsumer]:
    started = time.perf_counter()
    await create_topics(bootstrap, args.topics, args.partitions)
    records = await produce(bootstrap, args.topics, args.partitions)
    await commit_groups(bootstrap, args.groups, args.topics, args.partitions)
    members = await join_live_members(bootstrap, args.live_groups, args.topics)
    emit(
        setup={
            "topics": args.topics,
            "partitions_per_topic": args.partitions,
            "groups": args.groups,
            "group_partitions": args.groups * args.partitions,
            "live_groups": args.live_groups,
            "records": records,
            "seconds": round(time.perf_counter() - started, 1),
        }
    )
    return members


async def bench(args: argparse.Namespace, bootstrap: str) -> None:
    members = await setup(args, bootstrap)
    try:
        results = []
        for rates, history in ((False, False), (True, False), (True, True)):
            with tempfile.TemporaryDirectory() as tmp:
                where = str(Path(tmp) / "history") if history else None
                result = await asyncio.to_thread(
                    run_measure_process, bootstrap, args.refreshes, where, rates
                )
            emit(**result)
            results.append(result)
        tool = await asyncio.to_thread(time_kafka_tool, bootstrap, args.tool_runs)
        emit(**tool)
    finally:
        for m in members:
            await m.stop()
    plain, windowed = results[0], results[1]
    emit(
        summary={
            "lag_view_p95_s": plain["p95_s"],
            "lag_view_p50_s": plain["p50_s"],
            "lag_view_peak_rss_mib": plain["peak_rss_mib"],
            "with_rate_window_p95_s": windowed["p95_s"],
            "with_rate_window_listeners_p95_s": windowed["with_listeners_p95_s"],
            "with_rate_window_peak_rss_mib": windowed["peak_rss_mib"],
            "peak_rss_mib": max(r["peak_rss_mib"] for r in results),
            "kafka_consumer_groups_p50_s": tool["p50_s"],
            "bar_p95_s": BAR_P95_S,
            "bar_peak_rss_mib": BAR_PEAK_MIB,
            "p95_within_bar": max(r["p95_s"] for r in results) <= BAR_P95_S,
            "memory_within_bar": max(r["peak_rss_mib"] for r in results) <= BAR_PEAK_MIB,
        }
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("mode", nargs="?", default="run", choices=["run", "measure"])
    parser.add_argument(
        "--bootstrap", help="a running broker (default: start one in var/bench-kafka)"
    )
    parser.add_argument("--topics", type=int, default=10)
    parser.add_argument("--partitions", type=int, default=1000)
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--live-groups", type=int, default=10)
    parser.add_argument("--refreshes", type=int, default=20)
    parser.add_argument("--tool-runs", type=int, default=3)
    parser.add_argument("--history", help="(measure) history directory")
    parser.add_argument(
        "--rate-window", action="store_true", help="(measure) with the live rate window"
    )
    args = parser.parse_args(argv)
    if args.mode == "measure":
        emit(**asyncio.run(measure(args.bootstrap, args.refreshes, args.history, args.rate_window)))
        return 0
    heap = os.environ.get("KAFKA_HEAP_OPTS", "-Xms1g -Xmx1g")
    with local_broker(args.bootstrap, BENCH_DIR, heap_opts=heap) as bootstrap:
        asyncio.run(bench(args, bootstrap))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
