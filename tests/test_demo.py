"""``make run``'s demo, once, on the session's broker: skewed lag, the sidecar, one answer."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from deploy.demo.answers import compact_json
from deploy.demo.group import PARTITIONS, TARGET_LAG, TOTAL_LAG
from harness.broker import REPO, LocalKafka
from harness.sidecar import free_port

DEMO_TIMEOUT_S = 300


def run_once(
    kafka_dir: Path, port: int, work_dir: Path, *more: str
) -> subprocess.CompletedProcess[str]:
    """``make run``'s demo with ``--once``, without the user's ``LAGASSIGN_*`` settings."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("LAGASSIGN_")}
    command = [sys.executable, "-m", "deploy.demo.run", "--kafka-dir", str(kafka_dir)]
    command += ["--port", str(port), "--work-dir", str(work_dir), "--once", *more]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=DEMO_TIMEOUT_S,
        env=environ,
        cwd=REPO,
        check=False,
    )


@pytest.mark.kafka
def test_the_demo_answers_once_and_stops_what_it_started(
    kafka_broker: LocalKafka, tmp_path: Path
) -> None:
    port = free_port()
    done = run_once(kafka_broker.directory, port, tmp_path)
    out = done.stdout
    assert done.returncode == 0, done.stderr + out
    assert f"http://127.0.0.1:{port}/groups" in out
    assert f"http://127.0.0.1:{port}/metrics" in out
    assert f"curl -s -X POST http://127.0.0.1:{port}/assign" in out

    # The range and balanced summaries: balanced cuts the most loaded member's lag.
    summary = dict(re.findall(r"^  (range|balanced): max member lag (\d+)", out, re.MULTILINE))
    hot = max(max(lags) for lags in TARGET_LAG.values())
    assert int(summary["range"]) > int(summary["balanced"]) >= hot
    request = json.loads((tmp_path / "assign-request.json").read_text())
    assert request["strategy"] == "balanced"
    assert len(request["members"]) == 3
    assert request["partitions"] == {t: len(lags) for t, lags in TARGET_LAG.items()}
    # Every lag is the target exactly: the answer's member lags add up to it.
    member_lags = [int(v) for v in re.findall(r'"demo-consumer-\d-[^"]+": (\d+)', out)]
    assert sum(member_lags) == TOTAL_LAG

    # The sidecar is gone (its pid no longer runs it), and the session's broker still runs.
    (pid,) = re.findall(r"\(pid (\d+)\)", out)
    cmdline = Path(f"/proc/{pid}/cmdline")
    assert not cmdline.exists() or b"lagassign.cli" not in cmdline.read_bytes()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0
    assert kafka_broker.is_running()
    # The session's broker runs without the plugin: the consumer-protocol group is left out.
    assert "the consumer-protocol group is left out" in out


@pytest.mark.kafka
@pytest.mark.java
def test_the_demo_balances_a_consumer_protocol_group_through_the_plugin(tmp_path: Path) -> None:
    """A cold start of everything: the demo starts its own broker with the plugin."""
    port = free_port()
    kafka_dir = tmp_path / "kafka"
    done = run_once(kafka_dir, port, tmp_path / "work", "--kafka-port", "0")
    out = done.stdout
    assert done.returncode == 0, done.stderr[-3000:] + out
    assert "the group now holds the sidecar's balanced answer" in out
    assert f"http://127.0.0.1:{port}/groups/demo-orders-kip848" in out
    worst = re.search(
        r"worst member lag: (\d+) \(classic, range\) vs (\d+) \(consumer protocol, lagassign\)", out
    )
    assert worst is not None, out
    hot = max(max(lags) for lags in TARGET_LAG.values())
    assert int(worst[1]) > int(worst[2]) >= hot
    rows = re.findall(r"^  member \d .* (\d+) lag, +(\d+) p$", out, re.MULTILINE)
    assert sum(int(lag) for lag, _ in rows) == TOTAL_LAG
    assert sum(int(n) for _, n in rows) == PARTITIONS
    # It stopped the broker it started.
    assert not LocalKafka(kafka_dir).is_running()


def test_compact_json_keeps_partition_lists_on_one_line() -> None:
    text = compact_json({"assignment": {"c-1": {"t0": [0, 2], "t1": []}}, "ids": ["a", "b"]})
    assert '"t0": [0, 2]' in text
    assert '"t1": []' in text
    assert json.loads(text) == {"assignment": {"c-1": {"t0": [0, 2], "t1": []}}, "ids": ["a", "b"]}
