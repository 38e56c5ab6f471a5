"""``kafka start --stop-with PID``: a killed owner does not leave its broker running."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from harness.broker import KAFKA_SCRIPT, LocalKafka
from harness.poll import eventually

pytestmark = pytest.mark.kafka

OWNER = "import sys, time; sys.stdout.write('ready\\n'); sys.stdout.flush(); time.sleep(600)"


def test_a_broker_stops_when_the_process_that_started_it_is_killed(tmp_path: Path) -> None:
    directory = tmp_path / "kafka"
    with subprocess.Popen(
        [sys.executable, "-c", OWNER], stdout=subprocess.PIPE, text=True
    ) as owner:
        try:
            assert owner.stdout is not None
            assert owner.stdout.readline() == "ready\n"
            stop_with = ("--stop-with", str(owner.pid))
            started = subprocess.run(
                [str(KAFKA_SCRIPT), "start", "--port", "0", "--dir", str(directory), *stop_with],
                capture_output=True,
                text=True,
                timeout=300,
                check=True,
            )
            assert started.stdout.strip().startswith("127.0.0.1:")
            broker = LocalKafka(directory)
            assert broker.is_running()
            owner.send_signal(signal.SIGKILL)
            owner.wait(timeout=30)
            eventually(lambda: not broker.is_running(), 60, "the broker stops with its owner")
        finally:
            owner.kill()
            if (directory / "broker.json").exists():
                LocalKafka(directory).stop()
