"""A real broker with lagassign's plugin, calling an in-test answerer (see answerer.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.broker import LocalKafka
from tests.broker.answerer import Answerer

# Generous for a loaded test machine; the slow answerer waits far longer (SLOW_S).
DEADLINE_MS = 300
SLOW_S = 5.0

ASSIGNMENT_LINE = re.compile(
    r"\[GroupId (?P<group>[^\]]+)\] Computed a new target assignment for epoch (?P<epoch>\d+)"
    r" with '(?P<assignor>[^']+)' assignor in (?P<ms>\d+)ms"
)


@dataclass
class PluginBroker:
    kafka: LocalKafka
    answerer: Answerer

    def log(self) -> str:
        return (self.kafka.directory / "kafka.log").read_text(errors="replace")

    def assignor_times_ms(self, group: str) -> list[tuple[str, int]]:
        """(assignor, milliseconds) of every target assignment the coordinator computed for it."""
        return [
            (m["assignor"], int(m["ms"]))
            for m in ASSIGNMENT_LINE.finditer(self.log())
            if m["group"] == group
        ]


@pytest.fixture(scope="module")
def plugin_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PluginBroker]:
    answerer = Answerer(slow_s=SLOW_S).start()
    directory: Path = tmp_path_factory.mktemp("kafka-plugin")
    kafka = LocalKafka(
        directory,
        start_args=(
            "--lagassign-url",
            answerer.url,
            "--lagassign-timeout-ms",
            str(DEADLINE_MS),
            # Every fault is counted, never skipped by an open breaker (unit tests cover it).
            "--set",
            "lagassign.breaker.failures=1000",
            # Members learn their assignment on the next heartbeat: make it quick.
            "--set",
            "group.consumer.min.heartbeat.interval.ms=500",
            "--set",
            "group.consumer.heartbeat.interval.ms=500",
        ),
    )
    kafka.start(timeout_s=240)
    try:
        yield PluginBroker(kafka, answerer)
    finally:
        kafka.stop()
        answerer.stop()
