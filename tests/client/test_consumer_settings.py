"""One configuration for an aiokafka application: the assignor from the consumer's own
settings, the advisor from the assignor; and httpx's per-request INFO line left out for
the shim's own requests only."""

from __future__ import annotations

import logging

import httpx
import pytest

from lagassign_client import LagAssignor
from lagassign_client.advice import RebalanceAdvisor
from lagassign_client.kafka_python import KafkaPythonLagAssignor
from tests.client.mock_sidecar import answering
from tests.client.test_leader import MEMBERS, METADATA

SETTINGS = {
    "bootstrap_servers": "127.0.0.1:9092",
    "group_id": "orders",
    "auto_offset_reset": "earliest",
    "group_instance_id": "web-1",
    "client_rack": "rack-a",
}


@pytest.mark.parametrize("kind", [LagAssignor, KafkaPythonLagAssignor])
def test_the_assignor_takes_what_the_consumer_settings_already_say(
    kind: type[LagAssignor] | type[KafkaPythonLagAssignor],
) -> None:
    assignor = kind.for_consumer("http://127.0.0.1:8321", SETTINGS, timeout_s=1.0)
    assert assignor.leader.group_id == "orders"
    assert assignor.leader.reset_policy == "earliest"
    assert assignor.member.instance_id == "web-1"
    assert assignor.member.rack == "rack-a"
    assert assignor.leader.sidecar.timeout_s == 1.0
    assignor.close()


def test_settings_without_a_group_are_refused() -> None:
    with pytest.raises(ValueError, match="no group_id"):
        LagAssignor.for_consumer("http://127.0.0.1:8321", {"auto_offset_reset": "latest"})


def test_the_advisor_asks_the_assignors_sidecar_for_the_assignors_group(
    caplog: pytest.LogCaptureFixture,
) -> None:
    assignor = LagAssignor.for_consumer(
        "http://127.0.0.1:8321/", {"group_id": "orders/eu"}, token="s3cret"
    )
    # Not a started consumer: the advisor says it cannot act, and still shows its settings.
    with caplog.at_level(logging.WARNING, logger="lagassign_client"):
        advisor = RebalanceAdvisor.for_aiokafka(object(), assignor)
    assert advisor.advice_url == "http://127.0.0.1:8321/groups/orders%2Feu/advice"
    assert advisor.group_id == "orders/eu"
    assert advisor._client.headers["authorization"] == "Bearer s3cret"
    other = RebalanceAdvisor.for_aiokafka(object(), assignor, url="http://10.0.0.1:8321")
    assert other.advice_url.startswith("http://10.0.0.1:8321/")
    for closing in (advisor, other, assignor):
        closing.close()


def test_httpx_says_nothing_of_the_shims_requests_and_still_of_the_applications(
    caplog: pytest.LogCaptureFixture,
) -> None:
    assignor = LagAssignor(
        url="http://sidecar.test",
        group_id="orders",
        transport=httpx.MockTransport(answering()),
    )
    with caplog.at_level(logging.INFO):
        assignment, _ = assignor.leader.decide(MEMBERS, METADATA.get)
        assert assignment is not None
        with httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(204))) as own:
            own.get("http://application.test/ping")
    httpx_lines = [r.getMessage() for r in caplog.records if r.name == "httpx"]
    assert httpx_lines == [
        'HTTP Request: GET http://application.test/ping "HTTP/1.1 204 No Content"'
    ]
    assert logging.getLogger("httpx").level == logging.NOTSET  # its level is the application's
    assignor.close()
