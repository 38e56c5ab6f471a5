"""The progress line on the console while the job runs.

On a terminal, one line is redrawn twice a second: the job's step, the Spark stage
running and its finished tasks, and the seconds spent. When the output is not a
terminal (a CI log), each step prints one line when it starts and one when it ends.
The seconds of every step are kept for the summary and the benchmark.

Example line: ``[pipeline 2/5] rates | spark stage 7: 3/4 tasks | 12.4 s``
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from pyspark import SparkContext


class Progress:
    """Reports the job's steps on ``stream``; ``spark`` adds the running stage's tasks."""

    def __init__(
        self,
        steps: int,
        stream: TextIO | None = None,
        spark: SparkContext | None = None,
        interval_s: float = 0.5,
    ) -> None:
        self.steps = steps
        self.stream = stream if stream is not None else sys.stderr
        self.spark = spark
        self.interval_s = interval_s
        self.seconds: dict[str, float] = {}
        self._done = 0
        self._live = self.stream.isatty()

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Time one step and show it while it runs."""
        self._done += 1
        label = f"[pipeline {self._done}/{self.steps}] {name}"
        started = time.monotonic()
        stop = threading.Event()
        ticker: threading.Thread | None = None
        if self._live:
            ticker = threading.Thread(
                target=self._tick, args=(label, started, stop), name="progress", daemon=True
            )
            ticker.start()
        else:
            self._write(f"{label} ...\n")
        try:
            yield
        finally:
            stop.set()
            if ticker is not None:
                ticker.join()
            elapsed = time.monotonic() - started
            self.seconds[name] = elapsed
            end = "\r\x1b[2K" if self._live else ""
            self._write(f"{end}{label} done in {elapsed:.1f} s\n")

    def note(self, text: str) -> None:
        """A line of its own (a path written, a count)."""
        self._write(f"{text}\n")

    def _tick(self, label: str, started: float, stop: threading.Event) -> None:
        while not stop.wait(self.interval_s):
            stage = self._stage()
            elapsed = time.monotonic() - started
            self._write(f"\r\x1b[2K{label}{stage} | {elapsed:.1f} s")

    def _stage(self) -> str:
        if self.spark is None:
            return ""
        tracker = self.spark.statusTracker()
        for stage_id in sorted(tracker.getActiveStageIds()):
            info = tracker.getStageInfo(stage_id)
            if info is not None:
                return f" | spark stage {stage_id}: {info.numCompletedTasks}/{info.numTasks} tasks"
        return ""

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()
