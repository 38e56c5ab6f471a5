"""``make pipeline`` on a real Spark standalone cluster: a master and a worker from pip's
pyspark, and the target's variables passed through.

Both are started here (``spark-class ...Master`` and ``...Worker``, bound to
127.0.0.1, stopped by their pids); the test waits on the master's JSON status until
the worker is ALIVE, then runs the documented ``make pipeline
SPARK_MASTER=spark://127.0.0.1:<port>`` for real (``make -o install``: the venv is taken
as built) on a small recorded history, once. The weights file must come out where it
was asked (a directory that did not exist), readable by the sidecar's user (0644), with
the target's default horizon (900 s), which must be longer than the run took; and the
master must have run the job's application on its worker (``completedapps``), so the
job really ran on the cluster, not in local mode. That ``PIPELINE_HORIZON_S`` reaches
the job as ``--horizon-seconds`` is read from the target's command (``make -n``); the
job's own use of it is ``test_job.py``'s.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import pyspark
import pytest
from pyspark.sql import SparkSession

from harness.poll import eventually
from lagassign_pipeline.synthetic import synthetic_history, write_history
from tests.pipeline.test_job import SPEC

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
SPARK_HOME = Path(pyspark.__file__).resolve().parent
START_S = 120.0
STOP_S = 30.0
RUN_TIMEOUT_S = 900
PIPELINE_ARGS = (
    "--window-seconds 60 --max-gap-seconds 30 --backtest-every 10 --strategies range"
    " --driver-memory 1g"
)


def make_pipeline(*variables: str, dry_run: bool = False) -> subprocess.CompletedProcess[str]:
    """``make pipeline`` with these variables (``-n``: only print its command)."""
    done = subprocess.run(
        [
            "make",
            "--no-print-directory",
            *(["-n"] if dry_run else []),
            "-o",
            "install",
            "pipeline",
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
    return done


def started_port(log: Path, service: str) -> int | None:
    """The port Spark's log says ``service`` started on: the one asked for, or the next
    free one when another process took it meanwhile (Spark moves on by itself)."""
    found = re.search(
        rf"started service '{service}' on port (\d+)", log.read_text(errors="replace")
    )
    return int(found.group(1)) if found else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Standalone:
    master_url: str
    status_url: str
    processes: list[subprocess.Popen[bytes]]

    def status(self) -> dict[str, Any]:
        """The master's JSON status (an error while its web UI still starts: 404 in HTML)."""
        response = httpx.get(self.status_url, timeout=5)
        response.raise_for_status()
        return dict(response.json())


def spark_class(
    cls: str, args: list[str], log: Path, env: dict[str, str]
) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            [str(SPARK_HOME / "bin" / "spark-class"), cls, *args],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(STOP_S)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(STOP_S)


@pytest.fixture
def standalone(tmp_path: Path) -> Iterator[Standalone]:
    env = {
        **os.environ,
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_LOG_DIR": str(tmp_path / "spark-logs"),
        "SPARK_WORKER_DIR": str(tmp_path / "spark-work"),
        "PYSPARK_PYTHON": sys.executable,
    }
    processes: list[subprocess.Popen[bytes]] = []
    try:
        master = spark_class(
            "org.apache.spark.deploy.master.Master",
            ["--host", "127.0.0.1", "--port", str(free_port()), "--webui-port", str(free_port())],
            tmp_path / "master.log",
            env,
        )
        processes.append(master)
        log = tmp_path / "master.log"

        def ports() -> tuple[int, int] | None:
            assert master.poll() is None, log.read_text()[-3000:]
            rpc, web = started_port(log, "sparkMaster"), started_port(log, "MasterUI")
            return None if rpc is None or web is None else (rpc, web)

        # The ports the master took, from its log: a port picked here may be taken by
        # another process before the master binds it (seen with four test workers).
        port, ui = eventually(ports, START_S, "the Spark master's ports in its log")
        master_url = f"spark://127.0.0.1:{port}"
        cluster = Standalone(master_url, f"http://127.0.0.1:{ui}/json/", processes)

        def answering() -> bool:
            assert master.poll() is None, log.read_text()[-3000:]
            try:
                return bool(cluster.status()["status"] == "ALIVE")
            except httpx.HTTPError:
                return False

        eventually(answering, START_S, "the Spark master's status")
        worker = spark_class(
            "org.apache.spark.deploy.worker.Worker",
            [
                "--host", "127.0.0.1", "--cores", "1", "--memory", "2g",
                "--webui-port", str(free_port()), "--work-dir", str(tmp_path / "spark-work"),
                master_url,
            ],
            tmp_path / "worker.log",
            env,
        )  # fmt: skip
        processes.append(worker)

        def worker_alive() -> bool:
            assert worker.poll() is None, (tmp_path / "worker.log").read_text()[-3000:]
            return any(w["state"] == "ALIVE" for w in cluster.status()["workers"])

        eventually(worker_alive, START_S, "a worker ALIVE on the master")
        yield cluster
    finally:
        for process in reversed(processes):
            stop(process)


def test_make_pipeline_runs_on_a_standalone_master_and_worker(
    spark: SparkSession, standalone: Standalone, tmp_path: Path
) -> None:
    history = tmp_path / "history"
    write_history(synthetic_history(spark, replace(SPEC, members_per_group=1)), history)
    weights = tmp_path / "out" / "weights.json"
    started = time.monotonic()
    make_pipeline(
        f"PIPELINE_HISTORY={history}",
        f"PIPELINE_WEIGHTS={weights}",
        f"PIPELINE_ARGS=--report {tmp_path / 'report'} {PIPELINE_ARGS}",
        f"SPARK_MASTER={standalone.master_url}",
    )
    took_s = time.monotonic() - started
    document = json.loads(weights.read_text())
    assert stat.S_IMODE(weights.stat().st_mode) == 0o644
    assert len(document["groups"]) == SPEC.groups
    assert document["horizon_seconds"] == 900
    assert document["horizon_seconds"] > took_s, "the default horizon is shorter than a run"
    apps = standalone.status()["completedapps"]
    assert len(apps) == 1, apps
    assert apps[0]["state"] == "FINISHED"


def test_make_pipeline_passes_the_horizon_on() -> None:
    printed = make_pipeline("PIPELINE_HORIZON_S=1234", dry_run=True).stdout
    command = shlex.split(printed.strip().splitlines()[-1])
    assert command[command.index("--horizon-seconds") + 1] == "1234", printed
