"""A real sidecar through a broker outage: few client lines, one line on recovery.

Cold start: a new group with no committed offsets, a sidecar just started. Its counters
start at 0 for the tracked group, then the broker is stopped and started again.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from harness.broker import LocalKafka
from harness.builders import create_topic, produce
from harness.sidecar import start_sidecar
from lagassign.core.strategies import STRATEGIES

pytestmark = pytest.mark.kafka

DEADLINE_S = 90.0
OUTAGE_S = 25.0
CLIENT_LINE = re.compile(r" (ERROR|WARNING) aiokafka[.\w]*: ")


def wait_for(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not check():
        assert time.monotonic() < deadline, f"not within {DEADLINE_S} s: {what}"
        time.sleep(0.25)


def samples(url: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    text = httpx.get(f"{url}/metrics", timeout=10).text
    return {
        tuple(sorted(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == name
    }


def test_an_outage_logs_few_client_lines_and_one_recovery_line(
    kafka_outage_broker: LocalKafka, kafka_names: Callable[[str], str], tmp_path: Path
) -> None:
    broker = kafka_outage_broker
    topic, group = kafka_names("t"), kafka_names("g")
    asyncio.run(create_topic(broker.bootstrap, topic, 2))
    asyncio.run(produce(broker.bootstrap, topic, [5, 5]))
    log_path = tmp_path / "sidecar.log"
    sidecar = start_sidecar(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": broker.bootstrap,
            "LAGASSIGN_GROUPS": group,
            "LAGASSIGN_REFRESH_INTERVAL_S": "0.5",
            "LAGASSIGN_KAFKA_TIMEOUT_MS": "1000",
        },
        log_path,
    )
    try:
        requests = samples(sidecar.url, "lagassign_assign_requests_total")
        # The tracked group's counters exist at 0 before its first answer.
        assert {
            dict(labels)["strategy"]: value
            for labels, value in requests.items()
            if dict(labels)["group"] == group
        } == dict.fromkeys(STRATEGIES, 0.0)

        broker.stop()
        wait_for(lambda: samples(sidecar.url, "lagassign_kafka_up") == {(): 0.0}, "outage noticed")
        errors_at_start = samples(sidecar.url, "lagassign_lag_refresh_errors_total")[()]
        time.sleep(OUTAGE_S)
        failed = samples(sidecar.url, "lagassign_lag_refresh_errors_total")[()] - errors_at_start
        broker.start()
        wait_for(lambda: "Kafka answers again after" in log_path.read_text(), "recovery line")
        # A restarted broker may refuse a refresh or two while it loads its groups.
        wait_for(lambda: samples(sidecar.url, "lagassign_kafka_up") == {(): 1.0}, "Kafka up")
    finally:
        sidecar.stop()

    text = log_path.read_text()
    lines = text.splitlines()
    client_lines = [line for line in lines if CLIENT_LINE.search(line)]
    # Refreshes kept failing all along, but the client library's lines were held back
    # to one per kind (within one minute, nothing repeats).
    assert failed >= 5
    assert 1 <= len(client_lines) < failed / 5, client_lines
    # One WARNING when an outage starts, one INFO line when it ends.
    outages = [line for line in lines if "lag refresh failed, keeping the last snapshots" in line]
    recoveries = [line for line in lines if "Kafka answers again after" in line]
    assert len(outages) == len(recoveries) >= 1, outages + recoveries
    assert re.search(r"after \d+ s: \d+ lag refresh(es)? failed", recoveries[0])
