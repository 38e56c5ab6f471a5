"""Benchmark: the live rate window holding 100,000 group-partitions with a full window.

Synthetic snapshots (no broker): ``--groups`` groups of ``--partitions`` partitions
each, refreshed every ``--interval`` seconds of simulated time until the window
(``--window`` seconds, ``--points`` points per partition) is full and then one
window more, with production and commits at rates derived from the partition
numbers (no randomness). Reports, as JSON lines:

- the window's size: partition windows, points, and the resident memory it adds
  (RSS after filling minus RSS with one refresh's snapshots built; the process
  holds nothing else that grows), and the peak RSS of the process;
- the time the window takes per refresh as a listener (p50/p95/max, wall and CPU),
  which the refresh loop waits for after each refresh;
- the time to read every partition's figures once (what a ``/metrics`` scrape
  with per-partition metrics costs).

Bar (with the lag view's own peak, measured by ``bench/lag_refresh.py``): the
lag view with its window under 500 MiB.

    .venv/bin/python -m bench.rate_window            # prints JSON lines
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.percentiles import percentile
from bench.stable_group import stable_group
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.snapshot import GroupSnapshot, new_row
from lagassign.rates.window import RateWindow

T0 = datetime(2026, 11, 23, tzinfo=UTC)
PAGE = os.sysconf("SC_PAGE_SIZE")


def emit(**fields: Any) -> None:
    print(json.dumps({"bench": "rate_window", **fields}), flush=True)


def rss_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE / 2**20


def snapshots(groups: int, partitions: int, at_s: float) -> list[GroupSnapshot]:
    out = []
    for g in range(groups):
        rows = []
        for p in range(partitions):
            produce = 1 + (p * 7 + g) % 50
            end = 1_000_000 + round(produce * at_s)
            committed = end - 100 * (1 + (p + g) % 20)
            rows.append(
                new_row(
                    "topic", p, committed, end, 0, end - committed, None, None, None, False, False
                )
            )
        out.append(stable_group(f"group-{g:05d}", T0 + timedelta(seconds=at_s), rows))
    return out


async def run(args: argparse.Namespace) -> None:
    window = RateWindow(
        window_s=args.window, max_points=args.points, refresh_interval_s=args.interval
    )
    refreshes = 2 * round(args.window / args.interval) + 2
    shots = snapshots(args.groups, args.partitions, 0.0)
    baseline = rss_mib()
    wall: list[float] = []
    cpu: list[float] = []
    for i in range(refreshes):
        if i:
            shots = snapshots(args.groups, args.partitions, i * args.interval)
        started, started_cpu = time.perf_counter(), time.process_time()
        await window.refreshed(Refresh(0.0, True, shots))
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    filled = rss_mib()
    windows, points = window.sizes()
    started = time.perf_counter()
    figures = sum(len(window.rates_of(s)) for s in shots)
    read_s = time.perf_counter() - started
    emit(
        groups=args.groups,
        partitions_per_group=args.partitions,
        group_partitions=windows,
        window_seconds=args.window,
        max_points=args.points,
        refresh_interval_seconds=args.interval,
        refreshes=refreshes,
        points=points,
        points_per_partition=round(points / max(1, windows), 2),
        window_rss_mib=round(filled - baseline, 1),
        bytes_per_partition=round((filled - baseline) * 2**20 / max(1, windows)),
        peak_rss_mib=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        listener_p50_s=round(statistics.median(wall), 3),
        listener_p95_s=round(percentile(wall, 0.95), 3),
        listener_max_s=round(max(wall), 3),
        listener_cpu_p95_s=round(percentile(cpu, 0.95), 3),
        read_all_figures_s=round(read_s, 3),
        figures=figures,
        load_average_1m=round(os.getloadavg()[0], 2),
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--partitions", type=int, default=1_000)
    parser.add_argument("--window", type=float, default=900.0)
    parser.add_argument("--points", type=int, default=64)
    parser.add_argument("--interval", type=float, default=10.0)
    args = parser.parse_args(argv)
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
