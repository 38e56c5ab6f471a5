"""``make pipeline`` passes the weights path, the horizon and the Spark master through.

Run for real (``make -o install``: the venv is taken as built) on a small recorded
history; the weights file it writes has the horizon asked for, sits where it was
asked, and is readable by the sidecar's user (0644). Without a horizon the target's
default (900 s) is longer than the job's own run time, measured here.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from lagassign_pipeline.synthetic import synthetic_history, write_history
from tests.pipeline.test_job import SPEC

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
RUN_TIMEOUT_S = 900


def make_pipeline(history: Path, weights: Path, report: Path, *variables: str) -> float:
    """Run the target; its wall time in seconds."""
    args = (
        f"--report {report} --window-seconds 60 --max-gap-seconds 30 "
        "--backtest-every 10 --strategies range --driver-memory 1g"
    )
    started = time.monotonic()
    done = subprocess.run(
        [
            "make",
            "--no-print-directory",
            "-o",
            "install",
            "pipeline",
            f"PIPELINE_HISTORY={history}",
            f"PIPELINE_WEIGHTS={weights}",
            f"PIPELINE_ARGS={args}",
            *variables,
        ],
        cwd=ROOT,
        env={**os.environ, "MAKEFLAGS": ""},
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return time.monotonic() - started


def test_make_pipeline_takes_the_horizon_and_the_weights_path(
    spark: SparkSession, tmp_path: Path
) -> None:
    history = tmp_path / "history"
    write_history(synthetic_history(spark, replace(SPEC, members_per_group=1)), history)
    weights = tmp_path / "out" / "weights.json"
    make_pipeline(history, weights, tmp_path / "report", "PIPELINE_HORIZON_S=1234")
    assert json.loads(weights.read_text())["horizon_seconds"] == 1234
    assert stat.S_IMODE(weights.stat().st_mode) == 0o644

    by_default = tmp_path / "default" / "weights.json"
    took_s = make_pipeline(history, by_default, tmp_path / "report-2")
    horizon_s = json.loads(by_default.read_text())["horizon_seconds"]
    assert horizon_s == 900
    assert horizon_s > took_s, f"the default horizon {horizon_s} s is shorter than a run"
