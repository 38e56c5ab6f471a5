"""Session-wide test configuration: the seeded Hypothesis profile and the broker fixtures.

- ``kafka_broker`` (session): one single-node KRaft broker for the whole test
  session, on free ports, with a PLAINTEXT listener (``.bootstrap``) and a
  SASL_PLAINTEXT SCRAM listener (``.sasl_bootstrap``; users in ``.sasl_users``:
  ``admin``/``admin-secret`` and ``client``/``client-secret``, SCRAM-SHA-256 and
  SCRAM-SHA-512). Stopped by its pid at the end of the session.
- ``kafka_outage_broker`` (function): a broker of its own, for a test that stops
  and starts it (``.stop()``, ``.start()``: the same broker, same data and ports).
- ``kafka_names`` (function): names for topics and groups, unique in the session
  and derived from the test's name (no randomness).

The brokers are :class:`harness.broker.LocalKafka`; tests that use them carry
``@pytest.mark.kafka``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from harness.broker import LocalKafka

# Every random case is reproducible: Hypothesis runs derandomized (seeded).
settings.register_profile(
    "seeded",
    derandomize=True,
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("seeded")


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
