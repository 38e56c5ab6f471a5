"""How late the sidecar's HTTP event loop wakes while its lag view refreshes (in-process).

The sidecar's parts are built as ``lagassign serve`` builds them
(:func:`lagassign.http.sidecar.build_sidecar` over the cluster at ``bootstrap``, the
collector then set as :func:`lagassign.serve.settle_collector` sets it), its lag view
is started, and on this process's event loop, the one the routes would run
on, a probe sleeps :data:`PROBE_SLEEP_S` again and again for ``seconds``: how much
later than asked it wakes is how long a call arriving then (the broker plugin's)
would wait before its route even starts. One JSON line: ``probes``, ``late_ms_p50``,
``late_ms_p99``, ``late_ms_max``, the refreshes meanwhile and their mean seconds,
``gc_ms_max``, ``gc_full`` and ``gc_all`` (the longest garbage collection meanwhile,
which holds every thread, how many collected the oldest generation, and how many in
all), ``gc_full_now_ms`` (one full collection forced at the end: what each costs with
the lag view loaded), and ``stop_s``, how long
the lag view took to stop (a refresh may be under way then).
"""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any

from bench.percentiles import percentile

PROBE_SLEEP_S = 0.005
#: The longest the first refresh may take to load.
FIRST_REFRESH_S = 120.0


def probe(bootstrap: str, interval_s: float, seconds: float) -> dict[str, Any]:
    """The probe's JSON line (see the module docstring)."""
    return asyncio.run(_probe(bootstrap, interval_s, seconds))


async def _probe(bootstrap: str, interval_s: float, seconds: float) -> dict[str, Any]:
    from lagassign.http.sidecar import build_sidecar
    from lagassign.serve import settle_collector
    from lagassign.settings import Settings

    settings = Settings.from_environ(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": bootstrap,
            "LAGASSIGN_REFRESH_INTERVAL_S": str(interval_s),
            "LAGASSIGN_RESET_POLICY": "earliest",
        }
    )
    sidecar = build_sidecar(settings, lag_view=None, kafka=True)
    settle_collector()
    view = sidecar.lag_view
    assert view is not None
    refreshes = sidecar.metrics.refresh.duration
    late_ms: list[float] = []
    collections: list[tuple[int, float]] = []  # generation, milliseconds
    started: list[float] = []

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(time.perf_counter())
        elif started:
            collections.append((info["generation"], (time.perf_counter() - started.pop()) * 1000))

    await view.start()
    try:
        async with asyncio.timeout(FIRST_REFRESH_S):
            while not view.first_snapshot_loaded:
                await asyncio.sleep(0.1)
        before = refreshed(refreshes)
        gc.callbacks.append(timed)
        end = time.monotonic() + seconds
        try:
            while time.monotonic() < end:
                asked = time.perf_counter()
                await asyncio.sleep(PROBE_SLEEP_S)
                late_ms.append((time.perf_counter() - asked - PROBE_SLEEP_S) * 1000)
        finally:
            gc.callbacks.remove(timed)
        after = refreshed(refreshes)
        # What a full collection costs now, whenever the thresholds let one run.
        collecting = time.perf_counter()
        gc.collect()
        full_ms = (time.perf_counter() - collecting) * 1000
    finally:
        stopping = time.perf_counter()
        await view.stop()
        stop_s = time.perf_counter() - stopping
    count = after[0] - before[0]
    return {
        "bench": "broker_plugin_loop_probe",
        "sleep_ms": PROBE_SLEEP_S * 1000,
        "probes": len(late_ms),
        "late_ms_p50": round(percentile(late_ms, 0.5), 1),
        "late_ms_p99": round(percentile(late_ms, 0.99), 1),
        "late_ms_max": round(max(late_ms), 1),
        "refreshes": round(count),
        "refresh_s_mean": round((after[1] - before[1]) / max(1.0, count), 3),
        "gc_ms_max": round(max((ms for _, ms in collections), default=0.0), 1),
        "gc_full": sum(1 for generation, _ in collections if generation == 2),
        "gc_all": len(collections),
        "gc_full_now_ms": round(full_ms, 1),
        "stop_s": round(stop_s, 3),
    }


def refreshed(histogram: Any) -> tuple[float, float]:
    """How many refreshes the refresh-duration histogram counted, and their seconds."""
    samples = {s.name: s.value for m in histogram.collect() for s in m.samples}
    return samples["lagassign_lag_refresh_duration_seconds_count"], samples[
        "lagassign_lag_refresh_duration_seconds_sum"
    ]
