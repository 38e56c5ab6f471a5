"""The real brokers of the plugin's tests: one fixture, ``plugin_broker``, whose settings
each test module gives as its ``PLUGIN_SETTINGS`` (a :class:`PluginSettings`; the
default when it has none), and ``fresh_topic``: a topic of the module's ``PARTITIONS``
created on it (on the module's ``REPLICAS`` when it names them) and a group name.

The broker runs lagassign's plugin (``deploy/local-kafka/kafka start --lagassign-url``)
and calls either the in-test answerer (``answerer.py``), or a real ``lagassign serve`` on
the same broker, directly or through the answerer as a recording proxy. Every fault is
counted (the breaker never opens) and members heartbeat every 500 ms, so they learn
their assignment quickly. A worker keeps one plugin broker at a time: modules with the
same settings share it (the repository's conftest.py runs the tests of one settings on
one worker; here they are ordered so that modules with the same settings run in a row).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from harness.broker import LocalKafka
from harness.sidecar import SidecarProcess, free_port, start_sidecar
from tests.broker.answerer import Answerer
from tests.broker.consumers import create_topic

# Generous for a loaded test machine; the slow answerer waits far longer (SLOW_S).
DEADLINE_MS = 300
SLOW_S = 5.0
START_S = 240.0
# The bound on a group settling on an assignment (a loaded machine's JVMs start slowly).
SETTLE_S = 120
# Every fault counted (the breaker never opens); members learn their assignment quickly.
BROKER_SETTINGS = {
    "lagassign.breaker.failures": "1000",
    "group.consumer.min.heartbeat.interval.ms": "500",
    "group.consumer.heartbeat.interval.ms": "500",
}

ASSIGNMENT_LINE = re.compile(
    r"\[GroupId (?P<group>[^\]]+)\] Computed a new target assignment for epoch (?P<epoch>\d+)"
    r" with '(?P<assignor>[^']+)' assignor in (?P<ms>\d+)ms"
)


@dataclass(frozen=True)
class PluginSettings:
    """How a module's plugin broker starts.

    ``sidecar``: None, the plugin calls the in-test answerer; else the settings of a real
    sidecar it calls (beyond its broker, a refresh every second and the ``earliest``
    reset policy), through the answerer as a recording proxy when ``proxy``.
    ``racks``: one node per rack (see :class:`harness.broker.LocalKafka`).
    """

    timeout_ms: int = DEADLINE_MS
    sidecar: tuple[tuple[str, str], ...] | None = None
    proxy: bool = False
    racks: tuple[str, ...] = ()


@dataclass
class PluginBroker:
    kafka: LocalKafka
    proxy: Answerer | None = None
    real_sidecar: SidecarProcess | None = None
    stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)

    @property
    def answerer(self) -> Answerer:
        """The answerer the plugin calls (the in-test one, or the recording proxy)."""
        assert self.proxy is not None, "this broker's plugin calls the sidecar directly"
        return self.proxy

    @property
    def sidecar(self) -> SidecarProcess:
        assert self.real_sidecar is not None, "this broker's plugin calls the in-test answerer"
        return self.real_sidecar

    def get(self, path: str) -> httpx.Response:
        """``GET`` ``path`` of the sidecar, as JSON."""
        return httpx.get(
            f"{self.sidecar.url}{path}", timeout=10.0, headers={"accept": "application/json"}
        )

    def group(self, group_id: str) -> dict[str, Any] | None:
        return self.sidecar.group(group_id)

    def metrics(self) -> str:
        return httpx.get(f"{self.sidecar.url}/metrics", timeout=10.0).text

    def log(self) -> str:
        return (self.kafka.directory / "kafka.log").read_text(errors="replace")

    def assignor_times_ms(self, group: str) -> list[tuple[str, int]]:
        """(assignor, milliseconds) of every target assignment the coordinator computed for it."""
        return [
            (m["assignor"], int(m["ms"]))
            for m in ASSIGNMENT_LINE.finditer(self.log())
            if m["group"] == group
        ]

    def assignments(self, group: str) -> list[tuple[int, str]]:
        """(epoch, assignor) of every target assignment the coordinator computed for it."""
        return [
            (int(m["epoch"]), m["assignor"])
            for m in ASSIGNMENT_LINE.finditer(self.log())
            if m["group"] == group
        ]


def start_plugin_broker(settings: PluginSettings, directory: Any) -> PluginBroker:
    """A plugin broker in ``directory`` as ``settings`` say; stop it with ``.stack.close()``."""
    stack = contextlib.ExitStack()
    with stack:
        proxy = None
        if settings.sidecar is None or settings.proxy:
            proxy = Answerer(slow_s=SLOW_S).start()
            stack.callback(proxy.stop)
        port = None if proxy is not None else free_port()
        kafka = LocalKafka(
            directory,
            racks=settings.racks,
            start_args=(
                "--lagassign-url",
                proxy.url if proxy is not None else f"http://127.0.0.1:{port}",
                "--lagassign-timeout-ms",
                str(settings.timeout_ms),
                *(arg for k, v in BROKER_SETTINGS.items() for arg in ("--set", f"{k}={v}")),
            ),
        )
        kafka.start(timeout_s=START_S)
        stack.callback(kafka.stop)
        broker = PluginBroker(kafka, proxy)
        if settings.sidecar is not None:
            # Started once the broker runs (it reads the broker), on the plugin's URL.
            broker.real_sidecar = stack.enter_context(
                start_sidecar(
                    {
                        "LAGASSIGN_BOOTSTRAP_SERVERS": kafka.bootstrap,
                        "LAGASSIGN_REFRESH_INTERVAL_S": "1",
                        "LAGASSIGN_RESET_POLICY": "earliest",
                        **dict(settings.sidecar),
                    },
                    directory / "sidecar.log",
                    port=port,
                )
            )
            if proxy is not None:
                proxy.forward = broker.real_sidecar.url
        broker.stack = stack.pop_all()
    return broker


class PluginBrokers:
    """The worker's plugin broker: one at a time, kept while modules ask for its settings."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self._tmp = tmp_path_factory
        self._current: tuple[PluginSettings, PluginBroker] | None = None

    def get(self, settings: PluginSettings) -> PluginBroker:
        if self._current is not None and self._current[0] == settings:
            return self._current[1]
        self.close()
        broker = start_plugin_broker(settings, self._tmp.mktemp("kafka-plugin"))
        self._current = (settings, broker)
        return broker

    def close(self) -> None:
        if self._current is not None:
            current, self._current = self._current, None
            current[1].stack.close()


def settings_of(module: object) -> PluginSettings:
    settings = getattr(module, "PLUGIN_SETTINGS", PluginSettings())
    assert isinstance(settings, PluginSettings)
    return settings


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The plugin brokers' tests in their places, reordered by settings (stable)."""
    slots = [
        i for i, item in enumerate(items) if "plugin_broker" in getattr(item, "fixturenames", ())
    ]
    ordered = sorted(
        (items[i] for i in slots),
        key=lambda item: repr(settings_of(getattr(item, "module", None))),
    )
    for slot, item in zip(slots, ordered, strict=True):
        items[slot] = item


@pytest.fixture(scope="session")
def plugin_brokers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PluginBrokers]:
    brokers = PluginBrokers(tmp_path_factory)
    try:
        yield brokers
    finally:
        brokers.close()


@pytest.fixture(scope="module")
def plugin_broker(plugin_brokers: PluginBrokers, request: pytest.FixtureRequest) -> PluginBroker:
    """A real broker with the plugin, started as the module's ``PLUGIN_SETTINGS`` say."""
    return plugin_brokers.get(settings_of(request.module))


@dataclass(frozen=True)
class FreshTopic:
    """A topic just created on the plugin broker, and a group name of its own."""

    bootstrap: str
    topic: str
    topic_id: str
    group: str


@pytest.fixture
def fresh_topic(
    plugin_broker: PluginBroker,
    kafka_names: Callable[[str], str],
    request: pytest.FixtureRequest,
) -> FreshTopic:
    """A topic of the module's ``PARTITIONS`` (on its ``REPLICAS``, if any) and a group name."""
    topic = kafka_names("topic")
    bootstrap = plugin_broker.kafka.bootstrap
    topic_id = create_topic(
        bootstrap, topic, request.module.PARTITIONS, getattr(request.module, "REPLICAS", None)
    )
    return FreshTopic(bootstrap, topic, topic_id, kafka_names("group"))
