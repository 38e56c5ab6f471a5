"""A real local Kafka broker for tests: started by ``deploy/local-kafka/kafka``.

- ``kafka_broker`` (session): one single-node KRaft broker for the whole test
  session, on free ports, with a PLAINTEXT listener (``.bootstrap``) and a
  SASL_PLAINTEXT SCRAM listener (``.sasl_bootstrap``; users in ``.sasl_users``:
  ``admin``/``admin-secret`` and ``client``/``client-secret``, SCRAM-SHA-256 and
  SCRAM-SHA-512). Stopped by its pid at the end of the session.
- ``kafka_outage_broker`` (function): a broker of its own, for a test that stops
  and starts it (``.stop()``, ``.start()``: the same broker, same data and ports).
- ``kafka_names`` (function): names for topics and groups, unique in the session
  and derived from the test's name (no randomness).

Tests that use them carry ``@pytest.mark.kafka``.
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
KAFKA_SCRIPT = REPO / "deploy" / "local-kafka" / "kafka"
START_TIMEOUT_S = 120
STOP_TIMEOUT_S = 60


@dataclass
class LocalKafka:
    """One broker started by the project's script in ``directory``."""

    directory: Path
    sasl: bool = False
    state: dict[str, object] = field(default_factory=dict)

    @property
    def bootstrap(self) -> str:
        return str(self.state["bootstrap"])

    @property
    def sasl_bootstrap(self) -> str | None:
        value = self.state.get("sasl_bootstrap")
        return None if value is None else str(value)

    @property
    def sasl_users(self) -> dict[str, str]:
        users = self.state.get("sasl_users") or {}
        assert isinstance(users, dict)
        return {str(k): str(v) for k, v in users.items()}

    @property
    def pid(self) -> int:
        return int(str(self.state["pid"]))

    def start(self) -> None:
        """Start (or start again) this broker and wait until it answers."""
        command = [str(KAFKA_SCRIPT), "start", "--dir", str(self.directory)]
        if not self.state:
            command += ["--port", "0"]
        if self.sasl:
            command.append("--sasl")
        subprocess.run(command, check=True, timeout=START_TIMEOUT_S, capture_output=True)
        self.state = json.loads((self.directory / "broker.json").read_text())

    def stop(self) -> None:
        """Stop this broker (its own pid only) and wait until it has exited."""
        subprocess.run(
            [str(KAFKA_SCRIPT), "stop", "--dir", str(self.directory)],
            check=True,
            timeout=STOP_TIMEOUT_S + 15,
            capture_output=True,
        )

    def is_running(self) -> bool:
        done = subprocess.run(
            [str(KAFKA_SCRIPT), "status", "--dir", str(self.directory)],
            check=False,
            timeout=30,
            capture_output=True,
        )
        return done.returncode == 0

    def consumer_groups(self, *args: str) -> str:
        """Kafka's own ``kafka-consumer-groups`` against this broker; its stdout."""
        done = subprocess.run(
            [str(KAFKA_SCRIPT), "consumer-groups", "--bootstrap-server", self.bootstrap, *args],
            check=True,
            timeout=120,
            capture_output=True,
            text=True,
        )
        return done.stdout


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalKafka]:
    """The session's broker (PLAINTEXT and SASL_PLAINTEXT listeners)."""
    broker = LocalKafka(tmp_path_factory.mktemp("kafka"), sasl=True)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def kafka_outage_broker(tmp_path: Path) -> Iterator[LocalKafka]:
    """A broker of the test's own, which the test may stop and start again."""
    broker = LocalKafka(tmp_path / "kafka")
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


_sequence = itertools.count()


@pytest.fixture
def kafka_names(request: pytest.FixtureRequest) -> Callable[[str], str]:
    """``name(kind)`` -> a topic or group name unique in the session, from the test's name."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", request.node.name)[:80]

    def name(kind: str) -> str:
        return f"{stem}.{kind}.{next(_sequence)}"

    return name
