"""The broker plugin's live state on a real broker: dynamic configuration, JMX, the breaker.

``kafka-configs --alter`` of a ``lagassign.*`` property (cluster default) reaches the
running plugin: Kafka builds a new broker configuration, configures a new instance of
the assignor with it, and every instance shares one state, so the one the coordinator
uses follows. A wrong value is refused by the command itself, naming the property. The
plugin's MBeans (``io.lagassign:*``) are read from the broker process over JMX; the
breaker's opening and closing are in the broker's log and in JMX; a sidecar that comes
back is asked again after one cool-off and a health check.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from confluent_kafka import Consumer, KafkaException
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin._config import AlterConfigOpType, ConfigEntry, ConfigResource
from confluent_kafka.admin._resource import ResourceType

from harness.broker import KAFKA_SCRIPT
from harness.poll import eventually
from tests.broker import jmx
from tests.broker.conftest import DEADLINE_MS, SETTLE_S, FreshTopic, PluginBroker
from tests.broker.consumers import consumers, create_topic, each_partition_once, poll_until, sizes

pytestmark = [pytest.mark.kafka, pytest.mark.java]

PARTITIONS = 6
# Longer than the broker's deadline (DEADLINE_MS), well within the raised one.
LATE_S = 0.6
RAISED_MS = 1000
JMX_S = 60


def kafka_configs(broker: PluginBroker, *args: str) -> subprocess.CompletedProcess[str]:
    """Kafka's own ``kafka-configs`` on the cluster-wide broker defaults."""
    return subprocess.run(
        [
            str(KAFKA_SCRIPT),
            "run",
            "kafka.admin.ConfigCommand",
            "--bootstrap-server",
            broker.kafka.bootstrap,
            "--entity-type",
            "brokers",
            "--entity-default",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def alter(broker: PluginBroker, *args: str) -> None:
    done = kafka_configs(broker, "--alter", *args)
    assert done.returncode == 0, done.stdout + done.stderr


def check_verdict(broker: PluginBroker, prefix: str) -> str | None:
    """The plugin's last sidecar check when it starts with ``prefix`` (a problem found)."""
    verdict = jmx.plugin(broker.kafka.pid)["SidecarCheck"]
    return verdict if verdict.startswith(prefix) else None


def plugin_when_open(broker: PluginBroker) -> dict[str, str] | None:
    plugin = jmx.plugin(broker.kafka.pid)
    return plugin if plugin["BreakerOpen"] == "1" else None


def plugin_value(broker: PluginBroker, attribute: str, wanted: str) -> bool:
    return jmx.plugin(broker.kafka.pid).get(attribute) == wanted


@contextmanager
def dynamic(broker: PluginBroker, **values: str) -> Iterator[None]:
    """``lagassign.*`` values set as cluster defaults for the block, deleted after it."""
    pairs = {f"lagassign.{key.replace('_', '.')}": value for key, value in values.items()}
    keys = list(pairs)
    alter(broker, "--add-config", ",".join(f"{k}={v}" for k, v in pairs.items()))
    try:
        yield
    finally:
        alter(broker, "--delete-config", ",".join(keys))


def settle(members: list[Consumer], topic: str, count: int) -> dict[str, set[tuple[str, int]]]:
    """Poll until ``count`` members hold every partition once, each at least one."""
    return poll_until(
        members,
        lambda s: len(s) == count and each_partition_once(s, topic, PARTITIONS),
        SETTLE_S,
        f"{count} members own every partition once",
    )


def test_altering_the_deadline_changes_the_plugins_behaviour(
    plugin_broker: PluginBroker, kafka_names: Callable[[str], str]
) -> None:
    bootstrap = plugin_broker.kafka.bootstrap
    answerer = plugin_broker.answerer
    answerer.late_s = LATE_S
    answerer.fault = "late"
    try:
        before, after = kafka_names("topic"), kafka_names("topic")
        create_topic(bootstrap, before, PARTITIONS)
        create_topic(bootstrap, after, PARTITIONS)
        log_start = len(plugin_broker.log())
        # The answer comes after the broker's deadline: uniform (2, 2, 2).
        with consumers(bootstrap, kafka_names("group"), before, 3, "lagassign") as members:
            poll_until(members, lambda s: sizes(s) == [2, 2, 2], SETTLE_S, "uniform's (2, 2, 2)")
        assert "gets 'uniform' (timeout)" in plugin_broker.log()[log_start:]

        with dynamic(plugin_broker, timeout_ms=str(RAISED_MS)):
            eventually(
                lambda: plugin_value(plugin_broker, "TimeoutMs", str(RAISED_MS)),
                JMX_S,
                "the plugin's deadline in JMX follows the change",
            )
            assert (
                f"lagassign.timeout.ms {DEADLINE_MS} -> {RAISED_MS}"
                in plugin_broker.log()[log_start:]
            )
            # The same late answer is now within the deadline: the plugin's lopsided answer.
            with consumers(bootstrap, kafka_names("group"), after, 3, "lagassign") as members:
                state = poll_until(
                    members,
                    lambda s: sizes(s) == [1, 2, 3] and each_partition_once(s, after, PARTITIONS),
                    SETTLE_S,
                    "the late answer's (1, 2, 3) live",
                )
                assert answerer.answer_for(set(state)) is not None
        # Deleting the dynamic value puts the broker's static one back.
        eventually(
            lambda: plugin_value(plugin_broker, "TimeoutMs", str(DEADLINE_MS)),
            JMX_S,
            "the static deadline back in force",
        )
    finally:
        answerer.fault = "none"


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("lagassign.timeout.ms", "5000"),
        ("lagassign.fallback", "roundrobin"),
        ("lagassign.url", "ftp://x"),
    ],
)
def test_a_wrong_value_is_refused_by_kafka_configs_naming_the_property(
    plugin_broker: PluginBroker, key: str, value: str
) -> None:
    done = kafka_configs(plugin_broker, "--alter", "--add-config", f"{key}={value}")
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "Completed" not in output, output
    assert key in output, output
    plugin = jmx.plugin(plugin_broker.kafka.pid)
    assert plugin["TimeoutMs"] == str(DEADLINE_MS), plugin
    assert plugin["Fallback"] == "uniform", plugin
    assert plugin["Url"] == plugin_broker.answerer.url, plugin
    described = kafka_configs(plugin_broker, "--describe")
    assert key not in described.stdout, described.stdout


def test_one_client_and_one_state_per_broker_counted_in_jmx(
    plugin_broker: PluginBroker, fresh_topic: FreshTopic
) -> None:
    pid = plugin_broker.kafka.pid
    calls_before = int(jmx.plugin(pid)["Calls"])
    with consumers(
        fresh_topic.bootstrap, fresh_topic.group, fresh_topic.topic, 3, "lagassign"
    ) as members:
        poll_until(members, lambda s: sizes(s) == [1, 2, 3], SETTLE_S, "the answer's (1, 2, 3)")
    plugin = jmx.plugin(pid)
    assert int(plugin["Calls"]) > calls_before, plugin
    assert int(plugin["Answered"]) >= 1, plugin
    assert int(plugin["Calls"]) == int(plugin["Answered"]) + int(plugin["Fallbacks"]), plugin
    assert float(plugin["CallTimeMsTotal"]) > 0, plugin
    assert plugin["BreakerState"] == "closed", plugin
    assert plugin["SidecarCheck"] == "ok", plugin
    # Kafka configured the assignor many times; every instance shares one state and one client.
    assert int(plugin["Configured"]) >= 8, plugin
    threads = subprocess.run(
        ["jcmd", str(pid), "Thread.print"], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    # One client: its checks' one thread (the calls' threads are the one state's pool).
    assert len(re.findall(r'"lagassign-check"', threads)) == 1, threads
    reasons = jmx.fallbacks(pid)
    assert {"timeout", "unreachable", "status", "breaker_open", "unknown_group", "error"} <= set(
        reasons
    ), reasons


def test_a_wrong_token_or_url_is_reported_when_it_is_set(plugin_broker: PluginBroker) -> None:
    answerer = plugin_broker.answerer
    pid = plugin_broker.kafka.pid
    answerer.token = "right"
    try:
        with dynamic(plugin_broker, token="wrong"):
            check = eventually(
                lambda: check_verdict(plugin_broker, "lagassign.token"),
                JMX_S,
                "the token check's verdict",
            )
            assert "lagassign.token is refused by the sidecar" in check, check
            assert "lagassign.token is refused by the sidecar" in plugin_broker.log()
            # Corrected in place (one kafka-configs run; the block deletes it after).
            alter(plugin_broker, "--add-config", "lagassign.token=right")
            eventually(
                lambda: "accepts the token" in plugin_broker.log(), JMX_S, "the token accepted"
            )
            assert jmx.plugin(pid)["SidecarCheck"] == "ok"
    finally:
        answerer.token = None
    dead = "http://127.0.0.1:9"
    with dynamic(plugin_broker, url=dead):
        check = eventually(
            lambda: check_verdict(plugin_broker, "lagassign.url"),
            JMX_S,
            "the URL check's verdict",
        )
        assert f"no answer from {dead}/livez" in check, check
    eventually(lambda: plugin_value(plugin_broker, "SidecarCheck", "ok"), JMX_S, "back to ok")


def test_the_breaker_opens_and_closes_visibly_and_a_restarted_sidecar_is_asked_again(
    plugin_broker: PluginBroker, fresh_topic: FreshTopic
) -> None:
    bootstrap, topic, group = fresh_topic.bootstrap, fresh_topic.topic, fresh_topic.group
    answerer = plugin_broker.answerer
    pid = plugin_broker.kafka.pid
    log_start = len(plugin_broker.log())
    opened_before = int(jmx.plugin(pid)["BreakerOpenedTotal"])
    with dynamic(plugin_broker, breaker_failures="1", breaker_cooloff_ms="2000"):
        eventually(
            lambda: plugin_value(plugin_broker, "BreakerFailures", "1"), JMX_S, "threshold 1"
        )
        answerer.stop()
        try:
            with consumers(bootstrap, group, topic, 1, "lagassign") as first:
                settle(first, topic, 1)
                plugin = eventually(
                    lambda: plugin_when_open(plugin_broker),
                    JMX_S,
                    "the breaker open in JMX",
                )
                assert int(plugin["BreakerOpenedTotal"]) == opened_before + 1, plugin
                assert "the breaker is open" in plugin_broker.log()[log_start:]
                answerer.start()

                def answered_when_one_joins() -> bool:
                    """A member joins (a new assignment): the plugin's answer live? It leaves."""
                    with consumers(bootstrap, group, topic, 1, "lagassign") as second:
                        state = settle([*first, *second], topic, 2)
                        if answerer.answer_for(set(state)) is not None and sizes(state) == [1, 5]:
                            return True
                    settle(first, topic, 1)
                    return False

                # Members join and leave until the plugin's answer is live again: after the
                # cool-off, one health check, then one probe.
                eventually(answered_when_one_joins, SETTLE_S, "the restarted sidecar asked again")
        finally:
            if not answerer.is_running():
                answerer.start()
    plugin = jmx.plugin(pid)
    assert plugin["BreakerState"] == "closed", plugin
    assert int(plugin["BreakerClosedTotal"]) >= 1, plugin
    assert jmx.fallbacks(pid)["breaker_open"] >= 1
    log = plugin_broker.log()[log_start:]
    assert "the breaker is closed" in log
    assert re.search(r"\((\d+) got the fallback without asking while it was open\)", log)


RULES = (
    Path(__file__).resolve().parents[2]
    / "deploy"
    / "prometheus"
    / ("jmx-exporter-lagassign-broker.yaml")
)


# The sum of the per-reason counter: left to PromQL (sum(lagassign_broker_plugin_fallbacks_total)).
DERIVED = {"io.lagassign<type=BrokerPlugin><>Fallbacks"}


def exporter_form(object_name: str, attribute: str) -> str:
    """An attribute as the JMX exporter matches it: ``domain<key=value, ...><>Attribute``."""
    domain, keys = object_name.split(":", 1)
    return f"{domain}<{', '.join(keys.split(','))}><>{attribute}"


def test_the_jmx_exporter_rules_cover_every_numeric_mbean_attribute(
    plugin_broker: PluginBroker,
) -> None:
    rules = yaml.safe_load(RULES.read_text())["rules"]
    names: dict[str, str] = {}
    for object_name, attributes in jmx.mbeans(plugin_broker.kafka.pid).items():
        for attribute, value in attributes.items():
            try:
                float(value)
            except ValueError:
                continue  # text (state, URL, fallback, check): not a metric
            form = exporter_form(object_name, attribute)
            if form in DERIVED:
                continue
            matched = [r for r in rules if re.fullmatch(r["pattern"], form)]
            assert len(matched) == 1, (form, matched)
            rule = matched[0]
            assert rule["name"].startswith("lagassign_broker_plugin_"), rule
            labels = re.fullmatch(rule["pattern"], form)
            assert labels is not None
            label_text = "".join(
                "{" + k + "=" + labels.expand(v.replace("$", "\\")) + "}"
                for k, v in rule.get("labels", {}).items()
            )
            names[form] = rule["name"] + label_text
    assert names["io.lagassign<type=BrokerPlugin><>Calls"] == "lagassign_broker_plugin_calls_total"
    assert (
        names["io.lagassign<type=BrokerPluginFallbacks, reason=timeout><>Count"]
        == "lagassign_broker_plugin_fallbacks_total{reason=timeout}"
    )
    # Every rule matches some attribute of the running plugin: none is stale.
    for rule in rules:
        assert any(re.fullmatch(rule["pattern"], form) for form in names), rule


def test_a_validate_only_change_checks_the_value_and_changes_nothing(
    plugin_broker: PluginBroker,
) -> None:
    admin = AdminClient({"bootstrap.servers": plugin_broker.kafka.bootstrap})

    def alter_validate_only(value: str) -> None:
        # Broker 1's own configuration (librdkafka names no cluster default).
        resource = ConfigResource(
            ResourceType.BROKER,
            "1",
            incremental_configs=[
                ConfigEntry(
                    "lagassign.timeout.ms",
                    value,
                    incremental_operation=AlterConfigOpType.SET,
                )
            ],
        )
        for future in admin.incremental_alter_configs([resource], validate_only=True).values():
            future.result(timeout=120)

    # Kafka validates on the receiving broker before it answers: had the validation put the
    # value in force, JMX would show it as soon as the call returns.
    alter_validate_only("700")
    assert jmx.plugin(plugin_broker.kafka.pid)["TimeoutMs"] == str(DEADLINE_MS)
    with pytest.raises(KafkaException, match=r"lagassign\.timeout\.ms"):
        alter_validate_only("5000")
