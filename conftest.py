"""Session-wide test configuration of ``tests/`` and ``client/go/mixedtest/``: the seeded
Hypothesis profile, the broker, sidecar and Java member fixtures, and how pytest-xdist
groups the tests.

- ``kafka_broker`` (session): one single-node KRaft broker for the whole test
  session, on free ports, with a PLAINTEXT listener (``.bootstrap``) and a
  SASL_PLAINTEXT SCRAM listener (``.sasl_bootstrap``; users in ``.sasl_users``:
  ``admin``/``admin-secret`` and ``client``/``client-secret``, SCRAM-SHA-256 and
  SCRAM-SHA-512). Stopped by its pid at the end of the session.
- ``kafka_outage_broker`` (function): a broker of its own, for a test that stops
  and starts it (``.stop()``, ``.start()``: the same broker, same data and ports).
- ``kafka_names`` (function): names for topics and groups, unique in the session
  and derived from the test's name (no randomness).
- ``new_group`` (function): a new group on ``kafka_broker``, named in the session
  sidecar's pattern, with names for its topics and members of every kind
  (:class:`tests.client.members.NewGroup`).
- ``sidecar`` (session): ``lagassign serve`` on ``kafka_broker``, refreshing lag every
  second, tracking the shim tests' groups (``tests.client.backlog.GROUP_PATTERN``).
- ``advising_sidecar`` (function): a sidecar of the test's own on ``kafka_broker`` with
  short advice settings (``tests.client.advice_group``).
- ``java_classpath`` (session): the classpath of ``io.lagassign.GroupMember`` (the Java
  shim's test member, compiled by Maven once per session).

The brokers are :class:`harness.broker.LocalKafka`; tests that use them carry
``@pytest.mark.kafka``.

Under pytest-xdist's ``--dist loadgroup`` (``make test``), these run whole on one
worker: every module with a test marked ``kafka``, ``java`` or ``browser`` (its
module-scoped brokers start once); the tests of the plugin brokers of one
``PLUGIN_SETTINGS`` (``tests/broker/conftest.py``: modules with the same settings share
one broker, and brokers of different settings run on different workers at once); every
``spark`` test (one SparkSession, one Ivy resolution) but the standalone cluster's
module, which runs on a worker of its own beside them. The other tests are spread one
by one.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

from harness.broker import LocalKafka
from harness.sidecar import SidecarProcess, start_sidecar

if TYPE_CHECKING:
    from tests.client.members import NewGroup

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


@pytest.fixture(scope="session")
def sidecar(
    kafka_broker: LocalKafka, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SidecarProcess]:
    """``lagassign serve`` on the session's broker, refreshing lag every second."""
    from tests.client.backlog import GROUP_PATTERN

    with start_sidecar(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": kafka_broker.bootstrap,
            "LAGASSIGN_REFRESH_INTERVAL_S": "1",
            "LAGASSIGN_GROUP_PATTERN": GROUP_PATTERN,
        },
        tmp_path_factory.mktemp("sidecar") / "lagassign.log",
    ) as process:
        yield process


@pytest.fixture
def advising_sidecar(kafka_broker: LocalKafka, tmp_path: Path) -> Iterator[SidecarProcess]:
    """A sidecar started for this test with short advice settings (hold 2 s, cooldown
    10 s, share 30 %)."""
    from tests.client.advice_group import start_advising_sidecar

    with start_advising_sidecar(kafka_broker.bootstrap, tmp_path / "lagassign.log") as sidecar:
        yield sidecar


@pytest.fixture(scope="session")
def java_classpath() -> str:
    """The classpath of ``io.lagassign.GroupMember`` (compiled by Maven once per session)."""
    from tests.client.java_build import java_member_classpath

    return java_member_classpath()


WHOLE_MODULE_MARKS = ("kafka", "java", "browser")
# Its own master and worker; the shared SparkSession only writes its input history.
SPARK_STANDALONE = "test_spark_standalone.py"


def plugin_broker_group(item: pytest.Item) -> str:
    """One group per plugin-broker settings (the module's ``PLUGIN_SETTINGS``, equal
    settings in the same group: they share one broker)."""
    settings = getattr(getattr(item, "module", None), "PLUGIN_SETTINGS", None)
    return "plugin_broker-" + hashlib.sha256(repr(settings).encode()).hexdigest()[:12]


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``xdist_group`` of each test (see the module's docstring)."""
    whole = {
        item.path
        for item in items
        if any(item.get_closest_marker(mark) for mark in WHOLE_MODULE_MARKS)
    }
    for item in items:
        if item.path.name == SPARK_STANDALONE:
            item.add_marker(pytest.mark.xdist_group("spark-standalone"))
        elif item.get_closest_marker("spark"):
            item.add_marker(pytest.mark.xdist_group("spark"))
        elif "plugin_broker" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group(plugin_broker_group(item)))
        elif item.path in whole:
            item.add_marker(
                pytest.mark.xdist_group(str(item.path.relative_to(item.config.rootpath)))
            )


_sequence = itertools.count()


@pytest.fixture
def kafka_names(request: pytest.FixtureRequest) -> Callable[[str], str]:
    """``name(kind)`` -> a topic or group name unique in the session, from the test's name."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", request.node.name)[:80]

    def name(kind: str) -> str:
        return f"{stem}.{kind}.{next(_sequence)}"

    return name


@pytest.fixture
def new_group(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str], request: pytest.FixtureRequest
) -> NewGroup:
    """A new group on the session's broker, tracked by the session's sidecar (its name is
    in the pattern), with names for its topics and members of every kind."""
    from tests.client.backlog import GROUP_PREFIX
    from tests.client.members import NewGroup

    return NewGroup(kafka_broker, GROUP_PREFIX + kafka_names("group"), kafka_names, request)
