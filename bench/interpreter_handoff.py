"""How long the event loop waits for the interpreter while another thread computes.

The sidecar's lag view refreshes on a thread of its own, CPU-bound for hundreds of
milliseconds a refresh at 10,000 partitions, while the event loop answers ``POST
/assign`` and hands its heavy steps to a worker thread. Each hand-over waits for the
interpreter lock, up to the switch interval. One JSON line per switch interval (Python's
default 5 ms, and ``lagassign serve``'s :data:`lagassign.serve.SWITCH_INTERVAL_S`), with
one CPU-bound thread running throughout: how late a 5 ms sleep on the loop wakes, and how
long a call of about 1 ms in a worker thread takes, seen from the loop.

    .venv/bin/python -m bench.interpreter_handoff [--runs 300]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from bench.percentiles import percentile
from lagassign.serve import SWITCH_INTERVAL_S

SLEEP_S = 0.005


def busy(stop: threading.Event) -> None:
    """Pure Python arithmetic until ``stop``: a refresh's shape, never waiting on I/O."""
    total = 0
    while not stop.is_set():
        for i in range(1000):
            total += i * i


def step() -> int:
    """About a millisecond of Python, as one step of an answer."""
    return sum(range(20_000))


async def measured(interval_s: float, runs: int) -> dict[str, float]:
    sys.setswitchinterval(interval_s)
    stop = threading.Event()
    thread = threading.Thread(target=busy, args=(stop,), daemon=True)
    thread.start()
    loop = asyncio.get_running_loop()
    late: list[float] = []
    calls: list[float] = []
    try:
        with ThreadPoolExecutor(1) as pool:
            for _ in range(runs):
                started = time.perf_counter()
                await asyncio.sleep(SLEEP_S)
                late.append((time.perf_counter() - started - SLEEP_S) * 1000)
                started = time.perf_counter()
                await loop.run_in_executor(pool, step)
                calls.append((time.perf_counter() - started) * 1000)
    finally:
        stop.set()
        thread.join()
    return {
        "switch_interval_ms": interval_s * 1000,
        "sleep_late_ms_p50": round(percentile(late, 0.5), 2),
        "sleep_late_ms_p99": round(percentile(late, 0.99), 2),
        "worker_call_ms_p50": round(percentile(calls, 0.5), 2),
        "worker_call_ms_p99": round(percentile(calls, 0.99), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.interpreter_handoff")
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args(argv)
    default = sys.getswitchinterval()
    for interval_s in (default, SWITCH_INTERVAL_S):
        line = asyncio.run(measured(interval_s, args.runs))
        print(json.dumps({"bench": "interpreter_handoff", "runs": args.runs, **line}), flush=True)
    sys.setswitchinterval(default)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
