"""Pipeline benchmark: rates, forecast weights and the backtest on a 10,000,000-row history.

Generates a seeded synthetic history (1,000 partitions x 10,000 refreshes: 10 groups
of 2 topics x 50 partitions, 8 members each, a refresh every 10 s), writes it as the
service does (Parquet under ``date=``), then runs the pipeline job on it on
``local[2]``, exactly as ``make pipeline`` would. Prints JSON lines:

- ``step`` lines: seconds of each job step (``history``, ``rates``, ``weights``,
  ``backtest``, ``report``) and of the generation (not part of the job);
- one ``run`` line per history size: ``rates_and_weights_seconds``,
  ``backtest_seconds`` (the backtest replays every 10th refresh, 1,000 refreshes of
  every group at full size, with 6 strategies, each on the lags of the instant and
  on forecast lags), ``peak_rss_bytes`` (the largest resident memory of the job's
  process tree: this process, the Spark JVM and its Python workers, sampled every
  0.5 s);
- one ``growth`` line: each figure at full size over the same at half the history
  (5,000 refreshes, 500 replayed), with the bars.

Each size runs in a child process of its own, so memory peaks do not mix. The
history is kept under ``--work`` and reused when its spec is unchanged.

    .venv/bin/python -m bench.pipeline            # half and full size
    .venv/bin/python -m bench.pipeline --quick    # a small smoke run
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from lagassign_pipeline.backtest import BacktestSpec
from lagassign_pipeline.job import STEPS, JobSettings, run
from lagassign_pipeline.progress import Progress
from lagassign_pipeline.rates import RateSpec
from lagassign_pipeline.session import local_session
from lagassign_pipeline.synthetic import SyntheticSpec, synthetic_history, write_history

ROOT = Path(__file__).resolve().parents[1]

BARS = {"rates_and_weights_seconds": 60.0, "backtest_seconds": 120.0, "growth": 2.0}
REPLAY_EVERY = 10


def history_spec(snapshots: int, groups: int, partitions_per_topic: int) -> SyntheticSpec:
    return SyntheticSpec(
        groups=groups,
        topics_per_group=2,
        partitions_per_topic=partitions_per_topic,
        members_per_group=8,
        snapshots=snapshots,
        interval_s=10.0,
        seed=2026,
        cluster="bench",
    )


class PeakMemory:
    """Samples the resident memory of this process and all its descendants."""

    def __init__(self, interval_s: float = 0.5) -> None:
        self.interval_s = interval_s
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="peak-memory", daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while True:
            self.peak = max(self.peak, tree_rss(os.getpid()))
            if self._stop.wait(self.interval_s):
                return


def tree_rss(root: int) -> int:
    """Resident bytes of ``root`` and its descendants, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        children = [p for p, parent in parents.items() if parent == pid and p not in tree]
        tree.update(children)
        frontier.extend(children)
    total = 0
    for pid in tree:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


def one_size(arguments: argparse.Namespace) -> dict[str, Any]:
    """Generate (or reuse) one history and run the job on it; returns the ``run`` line."""
    spec = history_spec(arguments.snapshots, arguments.groups, arguments.partitions_per_topic)
    work = Path(arguments.work) / f"snapshots-{spec.snapshots}"
    history = work / "history"
    marker = work / "spec.json"
    described = json.dumps(asdict(spec), default=str, sort_keys=True)
    with PeakMemory() as memory:
        spark = local_session(driver_memory=arguments.driver_memory, log_level="ERROR")
        try:
            if not marker.exists() or marker.read_text() != described:
                started = time.monotonic()
                write_history(synthetic_history(spark, spec), history)
                marker.write_text(described)
                emit({"step": "generate", "rows": spec.rows, "seconds": time.monotonic() - started})
            settings = JobSettings(
                history=history,
                report=work / "report",
                weights=work / "forecast-weights.json",
                rates=RateSpec(window_s=300, max_gap_s=60, horizon_s=60),
                backtest=BacktestSpec(horizon_s=60, every=REPLAY_EVERY),
            )
            result = run(spark, settings, Progress(len(STEPS), stream=sys.stderr))
        finally:
            spark.stop()
    for step, seconds in result.seconds.items():
        emit({"step": step, "rows": result.facts.rows, "seconds": round(seconds, 2)})
    return {
        "run": "pipeline",
        "rows": result.facts.rows,
        "partitions": result.facts.partitions,
        "snapshots": spec.snapshots,
        "replayed_snapshots": -(-spec.snapshots // REPLAY_EVERY),
        "groups": result.facts.groups,
        "strategies": len(settings.backtest.strategy_names),
        "rates_and_weights_seconds": round(result.seconds["rates"] + result.seconds["weights"], 2),
        "backtest_seconds": round(result.seconds["backtest"], 2),
        "job_seconds": round(sum(result.seconds.values()), 2),
        "peak_rss_bytes": memory.peak,
        "master": "local[2]",
        "driver_memory": arguments.driver_memory,
    }


def emit(line: dict[str, Any]) -> None:
    print(json.dumps({"bench": "pipeline", **line}), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshots", type=int, default=10_000, help="refreshes at full size")
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--partitions-per-topic", type=int, default=50)
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument("--work", default=str(ROOT / "var" / "bench-pipeline"))
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke run")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.one:
        emit(one_size(arguments))
        return 0
    if arguments.quick:
        arguments.snapshots, arguments.groups, arguments.partitions_per_topic = 400, 2, 5
    runs: list[dict[str, Any]] = []
    for snapshots in (arguments.snapshots // 2, arguments.snapshots):
        command = [
            sys.executable,
            "-m",
            "bench.pipeline",
            "--one",
            "--snapshots",
            str(snapshots),
            "--groups",
            str(arguments.groups),
            "--partitions-per-topic",
            str(arguments.partitions_per_topic),
            "--driver-memory",
            arguments.driver_memory,
            "--work",
            arguments.work,
        ]
        done = subprocess.run(
            command, check=True, stdout=subprocess.PIPE, text=True, timeout=3600, cwd=ROOT
        )
        for line in done.stdout.splitlines():
            print(line, flush=True)
            parsed = json.loads(line)
            if parsed.get("run") == "pipeline":
                runs.append(parsed)
    half, full = runs
    growth = {
        key: round(full[key] / half[key], 3) if half[key] else None
        for key in (
            "rates_and_weights_seconds",
            "backtest_seconds",
            "job_seconds",
            "peak_rss_bytes",
        )
    }
    emit(
        {
            "growth": growth,
            "rows": [half["rows"], full["rows"]],
            "bars": BARS,
            "within_bars": {
                "rates_and_weights_seconds": full["rates_and_weights_seconds"]
                <= BARS["rates_and_weights_seconds"],
                "backtest_seconds": full["backtest_seconds"] <= BARS["backtest_seconds"],
                "growth": all(g is not None and g <= BARS["growth"] for g in growth.values()),
            },
        }
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
