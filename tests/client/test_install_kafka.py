"""The Python shim as a user installs it: its wheel in a clean virtualenv, a real consumer.

The wheel is built from ``client/python`` the way ``make dist-python`` builds it,
installed with pip into a new virtualenv together with aiokafka (nothing of the
repository on its path), and an aiokafka consumer using it reads a backlog on the
real broker through the real sidecar.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.broker import REPO, LocalKafka
from harness.sidecar import SidecarProcess
from tests.client.backlog import GROUP_PREFIX, sidecar_sees, skewed_backlog

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

STEP_TIMEOUT_S = 600


def run(command: list[str], cwd: Path) -> str:
    done = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=STEP_TIMEOUT_S, check=False
    )
    assert done.returncode == 0, (
        f"{command[:4]} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    )
    return done.stdout


async def test_the_wheel_installs_into_a_clean_virtualenv_and_assigns(
    kafka_broker: LocalKafka,
    sidecar: SidecarProcess,
    kafka_names: Callable[[str], str],
    tmp_path: Path,
) -> None:
    dist = tmp_path / "dist"
    run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--outdir",
            str(dist),
            str(REPO / "client/python"),
        ],
        tmp_path,
    )
    (wheel,) = dist.glob("lagassign_client-*.whl")

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    python = venv / "bin" / "python"
    run([str(python), "-m", "pip", "install", "-q", str(wheel), "aiokafka"], tmp_path)

    group = GROUP_PREFIX + kafka_names("group")
    topic = kafka_names("topic")
    lags = await skewed_backlog(kafka_broker.bootstrap, group, [topic])
    await sidecar_sees(sidecar, group, sum(lags.values()))
    consumer = REPO / "tests" / "client" / "installed_consumer.py"
    out = run(
        [
            str(python),
            str(consumer),
            kafka_broker.bootstrap,
            group,
            topic,
            sidecar.url,
            str(sum(lags.values())),
        ],
        tmp_path,
    )
    report = json.loads(out.strip().splitlines()[-1])
    assert Path(report["module"]).is_relative_to(venv), report["module"]
    assert report["note"] == {"by": "sidecar", "strategy": "balanced", "reason": None}
    assert report["answers"] == 1
    assert report["fallbacks"] == {}
    assert report["consumed"] == sum(lags.values())
