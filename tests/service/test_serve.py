"""``lagassign serve`` as a real process: refused settings exit 2; a real sidecar serves."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from harness.broker import LocalKafka
from harness.sidecar import start_sidecar
from lagassign.serve import history_line, weights_line
from lagassign.settings import Settings
from tests.service.test_assign_kafka import LAGS, assign_body, group_with_known_lag, member_lags

DEADLINE_S = 60.0
TOKEN = "serve-test-token-0123456789"


def base_environ() -> dict[str, str]:
    """The process environment without any LAGASSIGN_* variable of the caller."""
    return {k: v for k, v in os.environ.items() if not k.upper().startswith("LAGASSIGN_")}


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"LAGASSIGN_HOST": "0.0.0.0"}, "LAGASSIGN_HOST: binding 0.0.0.0"),
        ({"LAGASSIGN_BOOTSTRAP_SERVERS": "kafka"}, "LAGASSIGN_BOOTSTRAP_SERVERS: 'kafka'"),
        ({"LAGASSIGN_REFRESH_INTERVAL_S": "-1"}, "LAGASSIGN_REFRESH_INTERVAL_S"),
        ({"LAGASSIGN_DEFAULT_STRATEGY": "best"}, "LAGASSIGN_DEFAULT_STRATEGY: 'best' is unknown"),
        ({"LAGASSIGN_GROUP_PATTERN": "(("}, "LAGASSIGN_GROUP_PATTERN: '((' is not a valid"),
    ],
)
def test_refused_settings_print_a_clear_message_and_exit_2(
    environ: dict[str, str], message: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lagassign.cli", "serve"],
        env={**base_environ(), **environ},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("lagassign serve: invalid settings:")
    assert message in done.stderr


@pytest.mark.kafka
def test_a_real_sidecar_serves_and_stops_cleanly_on_sigterm(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str], tmp_path: Path
) -> None:
    topic, group = kafka_names("t"), kafka_names("g")
    asyncio.run(group_with_known_lag(kafka_broker.bootstrap, topic, [group]))
    environ = {
        "LAGASSIGN_BOOTSTRAP_SERVERS": kafka_broker.bootstrap,
        "LAGASSIGN_GROUPS": group,
        "LAGASSIGN_REFRESH_INTERVAL_S": "0.5",
        "LAGASSIGN_TOKEN": TOKEN,
        "LAGASSIGN_HISTORY_DIR": str(tmp_path / "history"),
        "LAGASSIGN_WEIGHTS_PATH": str(tmp_path / "weights.json"),
    }
    # Ready means /readyz answered 200 (the token does not guard the probes).
    sidecar = start_sidecar(environ, tmp_path / "sidecar.log")
    process, log = sidecar.process, sidecar.log_path
    try:
        with httpx.Client(base_url=sidecar.url, timeout=10) as client:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            assert client.post("/assign", json=assign_body(group, topic)).status_code == 401
            response = client.post("/assign", json=assign_body(group, topic), headers=headers)
            assert response.status_code == 200
            answer = response.json()
            assert answer["lag"]["source"] == "kafka-drain"
            assert answer["stats"]["member_lag"] == member_lags(answer, topic, LAGS)
            metrics = client.get("/metrics")
            assert metrics.status_code == 200
            assert "lagassign_kafka_up 1.0" in metrics.text
            assert "_created" not in metrics.text
            process.send_signal(signal.SIGTERM)
            # uvicorn shuts down gracefully, then re-raises the signal it caught.
            assert process.wait(timeout=30) in (0, -signal.SIGTERM)
    finally:
        sidecar.stop()
    text = log.read_text()
    assert "lagassign serving on 127.0.0.1:" in text
    assert f"lag history in {tmp_path / 'history'} (files finished every 300 s)" in text
    assert f"forecast weights from {tmp_path / 'weights.json'}, not there yet" in text
    assert "Application shutdown complete" in text
    assert "Traceback" not in text
    assert TOKEN not in text


def test_the_start_up_log_names_the_history_and_the_weights(tmp_path: Path) -> None:
    off = Settings.from_environ({})
    assert history_line(off) == "lag history off (LAGASSIGN_HISTORY_DIR unset)"
    assert weights_line(off) == "forecast weights off (LAGASSIGN_WEIGHTS_PATH unset)"
    weights = tmp_path / "w.json"
    weights.write_text("{}")
    on = Settings.from_environ(
        {
            "LAGASSIGN_HISTORY_DIR": str(tmp_path / "h"),
            "LAGASSIGN_HISTORY_ROLL_INTERVAL_S": "60",
            "LAGASSIGN_WEIGHTS_PATH": str(weights),
        }
    )
    assert history_line(on) == f"lag history in {tmp_path / 'h'} (files finished every 60 s)"
    assert weights_line(on) == f"forecast weights from {weights}"
