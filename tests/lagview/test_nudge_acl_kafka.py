"""The nudge's ACLs on a real broker with an authorizer: READ on the group, DESCRIBE on its topic.

A broker with Kafka's ``StandardAuthorizer`` (the PLAINTEXT listener's ``ANONYMOUS``
is a super user: the test's own members and admin; the sidecar's principal is the
SCRAM user ``client`` on the SASL listener, allowed only what each step grants).
Two confluent-kafka members form a consumer-protocol group on ``uniform``. The
sidecar's nudge (:func:`lagassign.lagview.kafka.nudge.nudge`, through the lag view's own
clients) is refused while the principal lacks READ on the group, then while it
lacks DESCRIBE on the nudge topic, and moves the group epoch twice once both are
granted, leaving the members' assignment as it was (``uniform`` computes the same).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import (  # type: ignore[attr-defined]  # re-exported, not declared
    AclBinding,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
)

from harness.broker import LocalKafka
from harness.poll import eventually
from lagassign.lagview.kafka.clients import KafkaClients
from lagassign.lagview.kafka.nudge import NUDGE_TOPIC, NudgeResult, nudge
from tests.broker.consumers import consumers, create_topic, each_partition_once, poll_until, pump

pytestmark = [pytest.mark.kafka]

PRINCIPAL = "User:client"
SETTLE_S = 120.0


@pytest.fixture(scope="module")
def acl_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalKafka]:
    directory: Path = tmp_path_factory.mktemp("kafka-acl")
    kafka = LocalKafka(
        directory,
        sasl=True,
        start_args=(
            "--set",
            "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "--set",
            "super.users=User:ANONYMOUS",
            "--set",
            "group.consumer.min.heartbeat.interval.ms=500",
            "--set",
            "group.consumer.heartbeat.interval.ms=500",
        ),
    )
    kafka.start(timeout_s=240)
    try:
        yield kafka
    finally:
        kafka.stop()


def allow(bootstrap: str, kind: ResourceType, name: str, operation: AclOperation) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    binding = AclBinding(
        kind,
        name,
        ResourcePatternType.LITERAL,
        PRINCIPAL,
        "*",
        operation,
        AclPermissionType.ALLOW,
    )
    for future in admin.create_acls([binding]).values():
        future.result(timeout=60)


def nudge_as_client(kafka: LocalKafka, group: str) -> tuple[NudgeResult, int | None]:
    """One nudge by the SCRAM user ``client``; its result and the group epoch after it."""
    sasl = kafka.sasl_bootstrap
    assert sasl is not None
    clients = KafkaClients(
        sasl,
        client_kwargs={
            "security_protocol": "SASL_PLAINTEXT",
            "sasl_mechanism": "SCRAM-SHA-256",
            "sasl_plain_username": "client",
            "sasl_plain_password": kafka.sasl_users["client"],
        },
        request_timeout_s=5.0,
    )

    async def go() -> tuple[NudgeResult, int | None]:
        try:
            opened = await clients.ensure()
            result = await nudge(opened.groups, group, wait_s=10.0, timeout_s=5.0)
            epoch = None
            if result.outcome == "nudged":
                epoch = (await opened.groups.describe_consumer_group(group)).group_epoch
            return result, epoch
        finally:
            await clients.drop()

    return asyncio.run(go())


def test_the_nudge_needs_read_on_the_group_and_describe_on_its_topic(
    acl_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    topic, group = kafka_names("topic"), kafka_names("group")
    bootstrap = acl_broker.bootstrap
    create_topic(bootstrap, topic, 4)
    # What the lag view reads with already: DESCRIBE on the group and its topic.
    allow(bootstrap, ResourceType.GROUP, group, AclOperation.DESCRIBE)
    allow(bootstrap, ResourceType.TOPIC, topic, AclOperation.DESCRIBE)
    with consumers(bootstrap, group, topic, 2, "uniform") as members:

        def settled(state: dict[str, set[tuple[str, int]]]) -> bool:
            return len(state) == 2 and each_partition_once(state, topic, 4)

        state = poll_until(members, settled, SETTLE_S)
        assert settled(state), state

        # The members heartbeat in librdkafka's own threads while each nudge runs.
        refused, _ = nudge_as_client(acl_broker, group)
        assert refused.outcome == "refused", refused
        assert "GroupAuthorizationFailed" in refused.detail

        allow(bootstrap, ResourceType.GROUP, group, AclOperation.READ)
        no_topic, _ = nudge_as_client(acl_broker, group)
        assert no_topic.outcome == "refused", no_topic
        assert "TopicAuthorizationFailed" in no_topic.detail
        print(f"\nrefused: {refused.detail}\nrefused: {no_topic.detail}")

        allow(bootstrap, ResourceType.TOPIC, NUDGE_TOPIC, AclOperation.DESCRIBE)
        done, epoch_after = nudge_as_client(acl_broker, group)
        assert done.outcome == "nudged", done
        assert done.epoch_before is not None
        assert done.epoch_joined == done.epoch_before + 1
        assert epoch_after is not None
        assert epoch_after == done.epoch_before + 2  # the leave moved it once more

        # The members go on: the leave's epoch is reconciled and they keep their partitions.
        def reconciled() -> bool:
            now = pump(members)
            return settled(now) and now == state

        eventually(reconciled, SETTLE_S, "the members hold the same partitions after the nudge")
