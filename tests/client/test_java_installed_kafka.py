"""The Java shim installed from dist/ into an empty Maven repository, used by an
application that brings its own Jackson, on the real broker with a real sidecar.

- the install: ``make install-java`` fills an empty local repository with the jar, its
  sources and a POM that depends on nothing but what the application provides; the jar
  carries no ``com.fasterxml`` class, and the application builds and runs beside its own,
  older Jackson;
- the counters: each consumer's ``io.lagassign:type=LagAssignor,client-id=<client.id>``
  MBean, read back through JMX inside the running consumer, counts the leader's decisions
  by outcome, and is gone after ``close()``;
- honesty: an answer the sidecar made without knowing every partition's lag is used, but
  logged at WARNING and counted as ``lag_partial``/``lag_blind``, not as a success;
- the fallback reasons of an unknown host and of a refused connection differ.
"""

from __future__ import annotations

import asyncio
import contextlib
import zipfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.broker import LocalKafka
from harness.builders import create_topic, produce
from harness.poll import eventually_async
from harness.sidecar import SidecarProcess, free_port
from tests.client.backlog import GROUP_PREFIX, SKEW, sidecar_sees, skewed_backlog
from tests.client.installed_java import (
    InstalledConsumer,
    build_consumer,
    install_shim,
    mirror_settings,
)
from tests.client.member import Partition

pytestmark = [pytest.mark.kafka, pytest.mark.java, pytest.mark.anyio]

SETTLE_DEADLINE_S = 90.0
SHIM = Path("io/lagassign/lagassign-client/0.1.0")


@dataclass(frozen=True)
class Installed:
    local_repo: Path
    classpath: str


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The shim installed into an empty local repository and the application built on it."""
    workdir = tmp_path_factory.mktemp("installed-java")
    local_repo = workdir / "m2-repository"
    local_repo.mkdir()
    settings = mirror_settings(workdir / "settings.xml")
    install_shim(local_repo, settings)
    return Installed(local_repo, build_consumer(workdir, local_repo, settings))


LAGASSIGN = "io.lagassign.LagAssignor"


@dataclass(frozen=True)
class Launcher:
    """Starts the installed application on the session's broker and sidecar (``url``),
    each consumer's log in ``log_dir``."""

    installed: Installed
    bootstrap: str
    url: str
    log_dir: Path

    def start(
        self,
        group: str,
        topics: list[str],
        name: str,
        reset: str = "earliest",
        strategies: str = LAGASSIGN,
    ) -> InstalledConsumer:
        return InstalledConsumer(
            self.installed.classpath,
            self.bootstrap,
            group,
            topics,
            self.url,
            name,
            reset,
            self.log_dir / f"{name}.log",
            strategies,
        )

    @contextlib.asynccontextmanager
    async def running(
        self, group: str, topics: list[str], names: list[str], reset: str = "earliest"
    ) -> AsyncIterator[list[InstalledConsumer]]:
        """A consumer of each name, started now and stopped on the way out."""
        consumers = [self.start(group, topics, name, reset) for name in names]
        try:
            yield consumers
        finally:
            for consumer in consumers:
                await asyncio.to_thread(consumer.stop)


@pytest.fixture
def launcher(
    installed: Installed, kafka_broker: LocalKafka, sidecar: SidecarProcess, tmp_path: Path
) -> Launcher:
    return Launcher(installed, kafka_broker.bootstrap, sidecar.url, tmp_path)


async def settled(
    consumers: list[InstalledConsumer], expected: set[Partition]
) -> dict[str, dict[str, Any]]:
    """Each consumer's last ``assigned`` event once together they hold ``expected`` once each."""

    def held_once() -> dict[str, dict[str, Any]] | None:
        last = {c.client_id: e for c in consumers if (e := c.last_assigned()) is not None}
        held = [(t, p) for e in last.values() for t, p in e["partitions"]]
        done = len(last) == len(consumers) and len(held) == len(set(held)) and set(held) == expected
        return last if done else None

    return await eventually_async(
        held_once, SETTLE_DEADLINE_S, f"the group settles on {sorted(expected)}", 0.25
    )


def leader_counters(last: dict[str, dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The consumer whose MBean counted a decision in its latest assignment, and its attributes."""
    leaders = [(name, e["mbean"]) for name, e in last.items() if e["mbean"].get("decisions", 0) > 0]
    assert len(leaders) >= 1, f"no consumer counted a decision: {last}"
    return max(leaders, key=lambda pair: pair[1]["decisions"])


async def test_the_installed_jar_runs_beside_the_applications_own_jackson(
    installed: Installed,
    kafka_broker: LocalKafka,
    sidecar: SidecarProcess,
    kafka_names: Callable[[str], str],
    launcher: Launcher,
) -> None:
    shim = installed.local_repo / SHIM
    assert sorted(p.name for p in shim.glob("lagassign-client-*")) == [
        "lagassign-client-0.1.0-sources.jar",
        "lagassign-client-0.1.0.jar",
        "lagassign-client-0.1.0.pom",
    ]
    with zipfile.ZipFile(shim / "lagassign-client-0.1.0.jar") as jar:
        names = jar.namelist()
    assert not [n for n in names if "com/fasterxml" in n]
    assert "io/lagassign/shaded/jackson/databind/ObjectMapper.class" in names
    with zipfile.ZipFile(shim / "lagassign-client-0.1.0-sources.jar") as sources:
        assert "io/lagassign/LagAssignor.java" in sources.namelist()
    pom = (shim / "lagassign-client-0.1.0.pom").read_text()
    assert "<artifactId>jackson-databind</artifactId>\n" not in pom.split("<build>")[0]
    # The application resolved the shim from the repository that started empty, and only
    # its own Jackson.
    entries = installed.classpath.split(":")
    assert str(installed.local_repo / SHIM / "lagassign-client-0.1.0.jar") in entries
    assert [Path(e).name for e in entries if "jackson-databind" in e] == [
        "jackson-databind-2.21.2.jar"
    ]

    group = GROUP_PREFIX + kafka_names("group")
    topics = [kafka_names("topic") for _ in range(2)]
    lags = await skewed_backlog(kafka_broker.bootstrap, group, topics)
    await sidecar_sees(sidecar, group, sum(lags.values()))
    async with launcher.running(group, topics, ["orders-0", "orders-1"]) as consumers:
        last = await settled(consumers, set(lags))
        _, counters = leader_counters(last)
        assert counters["last-decision"] == "sidecar", counters
        assert counters["decisions-sidecar"] >= 1
        # A leader that assigns before its metadata has the topics counts a "metadata" fallback.
        assert counters["fallbacks"] == counters["decisions-metadata"], counters
        assert all(e["jackson"] == "2.21.2" for e in last.values())
        # Range would give one member partitions 0 and 1 of both topics.
        range_worst = (SKEW[0] + SKEW[1] + SKEW[2]) * len(topics)
        worst = max(sum(lags[(t, p)] for t, p in e["partitions"]) for e in last.values())
        assert worst < range_worst
        leader_log = "".join(c.log() for c in consumers)
        assert "assigned by the sidecar (" in leader_log
        assert "lag source kafka" in leader_log
    for consumer in consumers:
        assert consumer.events("closed") == [{"event": "closed", "mbean_registered": False}]


async def test_an_answer_without_the_lag_of_every_partition_is_logged_and_counted(
    kafka_broker: LocalKafka,
    kafka_names: Callable[[str], str],
    launcher: Launcher,
) -> None:
    """A new group with ``auto.offset.reset=none`` and nothing committed: the sidecar cannot
    know where the consumers would start, says so, and the leader does not hide it."""
    group = GROUP_PREFIX + kafka_names("group")
    topic = kafka_names("topic")
    await create_topic(kafka_broker.bootstrap, topic, len(SKEW))
    await produce(kafka_broker.bootstrap, topic, SKEW)
    async with launcher.running(group, [topic], ["blind-0", "blind-1"], "none") as consumers:
        last = await settled(consumers, {(topic, p) for p in range(len(SKEW))})
        leader, counters = leader_counters(last)
        assert counters["last-decision"] == "lag_partial", counters
        assert counters["decisions-lag_partial"] >= 1
        assert counters["fallbacks"] == counters["decisions-metadata"], counters
        assert counters["decisions-sidecar"] == 0
        log = next(c for c in consumers if c.client_id == leader).log()
        warnings = [line for line in log.splitlines() if "without full lag (lag_partial)" in line]
        assert warnings, log[-3000:]
        assert all("WARN" in line for line in warnings), warnings


@pytest.mark.parametrize(
    ("where", "reason"),
    [("stopped", "connection_refused"), ("unknown-host", "unknown_host")],
)
async def test_an_unknown_host_and_a_refused_connection_read_differently(
    where: str,
    reason: str,
    kafka_broker: LocalKafka,
    kafka_names: Callable[[str], str],
    launcher: Launcher,
) -> None:
    url = (
        f"http://127.0.0.1:{free_port()}" if where == "stopped" else "http://lagassign.invalid:8321"
    )
    group = GROUP_PREFIX + kafka_names("group")
    topic = kafka_names("topic")
    await create_topic(kafka_broker.bootstrap, topic, 3)
    async with replace(launcher, url=url).running(group, [topic], ["alone"]) as [consumer]:
        last = await settled([consumer], {(topic, p) for p in range(3)})
        counters = last["alone"]["mbean"]
        assert counters["last-decision"] == reason, counters
        assert counters[f"decisions-{reason}"] >= 1
        assert (
            counters["fallbacks"]
            == counters[f"decisions-{reason}"] + counters["decisions-metadata"]
        )
        assert counters["answers"] == 0
        assert f"falls back to the range assignor ({reason})" in consumer.log()


def balanced_worst(url: str, group: str, topics: list[str], lags: dict[Partition, int]) -> int:
    """The worst member lag the sidecar's default strategy gives two members on ``lags``."""
    body = {
        "group_id": group,
        "members": [{"member_id": f"m-{i}", "topics": topics} for i in range(2)],
        "partitions": {t: len(SKEW) for t in topics},
        "lags": {t: [lags[(t, p)] for p in range(len(SKEW))] for t in topics},
    }
    answer = httpx.post(f"{url}/assign", json=body, timeout=10.0)
    answer.raise_for_status()
    return int(answer.json()["stats"]["max_lag"])


async def test_a_new_group_on_a_backlog_gets_the_balanced_lag(
    kafka_broker: LocalKafka,
    sidecar: SidecarProcess,
    kafka_names: Callable[[str], str],
    launcher: Launcher,
) -> None:
    """Nothing committed, ``auto.offset.reset=earliest`` sent as ``reset_policy``: the whole
    backlog is the lag, and the group's first assignment balances it."""
    group = GROUP_PREFIX + kafka_names("group")
    topics = [kafka_names("topic") for _ in range(2)]
    for topic in topics:
        await create_topic(kafka_broker.bootstrap, topic, len(SKEW))
        await produce(kafka_broker.bootstrap, topic, SKEW)
    lags = {(t, p): n for t in topics for p, n in enumerate(SKEW)}
    expected_worst = await asyncio.to_thread(balanced_worst, sidecar.url, group, topics, lags)
    async with launcher.running(group, topics, ["new-0", "new-1"]) as consumers:
        last = await settled(consumers, set(lags))
        _, counters = leader_counters(last)
        worst = max(sum(lags[(t, p)] for t, p in e["partitions"]) for e in last.values())
        assert counters["last-decision"] == "sidecar", counters
        assert worst == expected_worst


RANGE = "org.apache.kafka.clients.consumer.RangeAssignor"
LAGASSIGN_FIRST = f"{LAGASSIGN},{RANGE}"


async def test_a_rolling_change_moves_a_running_group_onto_lagassign(
    kafka_broker: LocalKafka,
    sidecar: SidecarProcess,
    kafka_names: Callable[[str], str],
    launcher: Launcher,
) -> None:
    """The README's migration: members restarted one by one with ``LagAssignor`` listed
    before ``RangeAssignor`` share the group with range-only members (on range), and the
    group is on lagassign once the last range-only member is gone."""
    group = GROUP_PREFIX + kafka_names("group")
    topics = [kafka_names("topic") for _ in range(2)]
    lags = await skewed_backlog(kafka_broker.bootstrap, group, topics)
    await sidecar_sees(sidecar, group, sum(lags.values()))

    def member(name: str, strategies: str) -> InstalledConsumer:
        return launcher.start(group, topics, name, strategies=strategies)

    old, rolled = member("old", RANGE), member("rolled", LAGASSIGN_FIRST)
    consumers = [old, rolled]
    try:
        last = await settled(consumers, set(lags))
        assert last["rolled"]["mbean"]["decisions"] == 0, "the group must still be on range"
        await asyncio.to_thread(old.stop)
        consumers = [rolled, member("restarted", LAGASSIGN_FIRST)]
        last = await settled(consumers, set(lags))
        _, counters = leader_counters(last)
        assert counters["last-decision"] == "sidecar", counters
    finally:
        for consumer in consumers:
            await asyncio.to_thread(consumer.stop)
