"""Heavy requests among ordinary ones: does the sidecar keep its latency and its memory?

A real ``lagassign serve`` on 127.0.0.1 (no broker: every request carries its lags).
For ``--seconds`` (default 60) a client sends small ``POST /assign`` requests one after
another and asks ``/livez`` between them, while a second client sends, one after the
other with ``--heavy-gap-s`` (default 1 s) between them, the heavy cases of
:mod:`bench.loop_stall` in turn (the 0.2 MB compact request, the 16 MiB ``owned`` list,
64 MiB of tiny members, 64 MiB of empty rack lists). One JSON line per 10 s window: the
small requests answered and their p50 / p99 / max seconds, the worst ``/livez``, the
heavy requests by status, and the sidecar's RSS at the window's end; then a summary line.

    .venv/bin/python -m bench.heavy_mix [--seconds 60] [--heavy-gap-s 1]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from bench.loop_stall import CASES, MIB, SMALL, peak_rss_bytes
from bench.percentiles import percentile
from harness.sidecar import start_sidecar

WINDOW_S = 10.0
HEAVY = ["compact_2000", "owned_16mib", "tiny_members_64mib", "racks_64mib"]
JSON = {"content-type": "application/json"}


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--heavy-gap-s", type=float, default=1.0)
    args = parser.parse_args()
    bodies = {name: CASES[name]() for name in HEAVY}
    with tempfile.TemporaryDirectory(prefix="heavy-mix-") as tmp:
        sidecar = start_sidecar(
            {"LAGASSIGN_BOOTSTRAP_SERVERS": "127.0.0.1:9", "LAGASSIGN_LOG_LEVEL": "warning"},
            Path(tmp) / "sidecar.log",
            wait_until_ready=False,
        )
        end = time.monotonic() + args.seconds
        lock = threading.Lock()
        heavy_done: Counter[str] = Counter()
        stop = threading.Event()

        def heavy_client() -> None:
            with httpx.Client(base_url=sidecar.url, timeout=120) as client:
                turn = 0
                while time.monotonic() < end and not stop.is_set():
                    name = HEAVY[turn % len(HEAVY)]
                    turn += 1
                    try:
                        status = str(
                            client.post("/assign", content=bodies[name], headers=JSON).status_code
                        )
                    except httpx.HTTPError as exc:
                        status = type(exc).__name__
                    with lock:
                        heavy_done[f"{name}:{status}"] += 1
                    stop.wait(args.heavy_gap_s)

        worker = threading.Thread(target=heavy_client, name="heavy-client")
        totals: dict[str, Any] = {
            "small": 0,
            "small_errors": 0,
            "worst_small_s": 0.0,
            "worst_livez_s": 0.0,
        }
        try:
            worker.start()
            with httpx.Client(base_url=sidecar.url, timeout=60) as client:
                window = 0
                while time.monotonic() < end:
                    window_end = min(end, time.monotonic() + WINDOW_S)
                    small: list[float] = []
                    errors = 0
                    worst_live = 0.0
                    while time.monotonic() < window_end:
                        started = time.perf_counter()
                        client.get("/livez")
                        worst_live = max(worst_live, time.perf_counter() - started)
                        started = time.perf_counter()
                        if client.post("/assign", content=SMALL, headers=JSON).status_code == 200:
                            small.append(time.perf_counter() - started)
                        else:
                            errors += 1
                    with lock:
                        heavy = dict(heavy_done)
                        heavy_done.clear()
                    print(
                        json.dumps(
                            {
                                "window": window,
                                "small": len(small),
                                "small_errors": errors,
                                "small_p50_s": round(percentile(small, 0.5), 4) if small else None,
                                "small_p99_s": round(percentile(small, 0.99), 4) if small else None,
                                "small_max_s": round(max(small), 4) if small else None,
                                "worst_livez_s": round(worst_live, 4),
                                "heavy": heavy,
                                "rss_mib": round(rss_bytes(sidecar.pid) / MIB, 1),
                            }
                        ),
                        flush=True,
                    )
                    totals["small"] += len(small)
                    totals["small_errors"] += errors
                    totals["worst_small_s"] = max(totals["worst_small_s"], max(small, default=0.0))
                    totals["worst_livez_s"] = max(totals["worst_livez_s"], worst_live)
                    window += 1
        finally:
            stop.set()
            worker.join(180)
            peak = peak_rss_bytes(sidecar.pid)
            sidecar.stop()
        print(
            json.dumps(
                {
                    "summary": True,
                    "seconds": args.seconds,
                    **{k: round(v, 4) if isinstance(v, float) else v for k, v in totals.items()},
                    "peak_rss_mib": round(peak / MIB, 1),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
