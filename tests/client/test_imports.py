"""The shim needs only httpx: importing it pulls in no Kafka library, not the service, and
not prometheus-client (only ``lagassign_client.metrics`` needs that)."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
import lagassign_client
from lagassign_client import LagAssignor
LagAssignor(url="http://127.0.0.1:8321", group_id="g")
print(json.dumps(sorted(sys.modules)))
"""


def test_importing_the_shim_loads_no_kafka_client_and_not_the_service() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = json.loads(done.stdout)
    unwanted = [
        m
        for m in loaded
        if m.split(".")[0] in {"aiokafka", "kafka", "lagassign", "fastapi", "prometheus_client"}
    ]
    assert unwanted == []
    assert "httpx" in loaded
