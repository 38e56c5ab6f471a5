"""Bearer token, secrets kept out of logs and answers, and SASL/SCRAM on the real broker."""

from __future__ import annotations

import logging
import ssl
import sys
from collections.abc import Callable

import httpx
import pytest

from harness.broker import LocalKafka
from harness.poll import eventually_async
from lagassign.http.app import create_app
from lagassign.http.parts import sidecar_of
from lagassign.http.sidecar import kafka_client_kwargs
from lagassign.redaction import RedactingFormatter
from lagassign.settings import Settings
from tests.service.fake_lag_view import FakeLagView, snapshot_of
from tests.service.serving import lag_view_of, served
from tests.service.test_assign_kafka import (
    DEADLINE_S,
    LAGS,
    assign_body,
    group_with_known_lag,
    member_lags,
    ready,
)

pytestmark = pytest.mark.anyio

TOKEN = "t0ken-that-must-stay-secret-42"
PASSWORD = "sasl-password-that-must-stay-secret"
BODY = {
    "group_id": "orders",
    "members": [{"member_id": "c-1", "topics": ["t0"]}],
    "partitions": {"t0": 2},
}


def secured(**environ: str) -> Settings:
    return Settings.from_environ(
        {
            "LAGASSIGN_HOST": "0.0.0.0",
            "LAGASSIGN_TOKEN": TOKEN,
            "LAGASSIGN_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
            "LAGASSIGN_SASL_MECHANISM": "SCRAM-SHA-256",
            "LAGASSIGN_SASL_USERNAME": "client",
            "LAGASSIGN_SASL_PASSWORD": PASSWORD,
            **environ,
        }
    )


async def test_the_token_guards_assign_and_groups_but_not_probes_or_metrics() -> None:
    app = create_app(
        secured(), lag_view=FakeLagView({"orders": snapshot_of("orders", {"t0": [1, 2]})})
    )
    good = {"Authorization": f"Bearer {TOKEN}"}
    async with served(app) as client:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            for method, path in (
                ("POST", "/assign"),
                ("GET", "/groups"),
                ("GET", "/groups/orders"),
            ):
                response = await client.request(method, path, json=BODY, headers=headers)
                assert response.status_code == 401, (path, headers)
                assert response.json()["error"]["code"] == "unauthorized"
                assert response.headers["www-authenticate"] == "Bearer"
        assert (await client.post("/assign", json=BODY, headers=good)).status_code == 200
        assert (await client.get("/groups", headers=good)).status_code == 200
        for path in ("/livez", "/readyz", "/metrics", "/openapi.json"):
            assert (await client.get(path)).status_code == 200, path
    failures = sidecar_of(app).metrics.registry.get_sample_value(
        "lagassign_assign_failures_total", {"reason": "unauthorized"}
    )
    assert failures == 3


async def test_secrets_never_reach_logs_errors_or_any_page(
    caplog: pytest.LogCaptureFixture,
) -> None:
    view = FakeLagView({"orders": snapshot_of("orders", {"t0": [1, 2]})})
    view.first_snapshot_loaded = False
    view.last_refresh_error = "KafkaConnectionError: SASL authentication failed"
    app = create_app(secured(), lag_view=view)
    good = {"Authorization": f"Bearer {TOKEN}"}
    texts: list[str] = []
    with caplog.at_level(logging.DEBUG):
        async with served(app) as client:
            for method, path, headers in [
                ("POST", "/assign", good),
                ("POST", "/assign", {}),
                ("GET", "/groups", good),
                ("GET", "/groups/orders", good),
                ("GET", "/groups/orders", {**good, "Accept": "text/html"}),
                ("GET", "/readyz", {}),
                ("GET", "/metrics", {}),
                ("GET", "/openapi.json", {}),
            ]:
                response = await client.request(method, path, json=BODY, headers=headers)
                texts.append(response.text)
            view.snapshot_error = RuntimeError("unexpected")
            crashed = await client.post("/assign", json=BODY, headers=good)
            texts.append(crashed.text)
    assert crashed.status_code == 503
    texts.append(caplog.text)
    texts.append(repr(sidecar_of(app).settings))
    for text in texts:
        assert TOKEN not in text
        assert PASSWORD not in text


def test_the_log_formatter_scrubs_secrets_from_messages_and_tracebacks() -> None:
    formatter = RedactingFormatter([TOKEN, PASSWORD])
    try:
        raise ValueError(f"bad credentials {PASSWORD}")
    except ValueError:
        record = logging.LogRecord(
            "lagassign", logging.ERROR, __file__, 1, "token %s", (TOKEN,), sys.exc_info()
        )
    line = formatter.format(record)
    assert TOKEN not in line
    assert PASSWORD not in line
    assert "token ***" in line
    assert "bad credentials ***" in line


def test_kafka_client_arguments_carry_sasl_and_tls() -> None:
    kwargs = kafka_client_kwargs(secured(LAGASSIGN_SECURITY_PROTOCOL="SASL_SSL"))
    assert kwargs["security_protocol"] == "SASL_SSL"
    assert kwargs["sasl_mechanism"] == "SCRAM-SHA-256"
    assert kwargs["sasl_plain_username"] == "client"
    assert kwargs["sasl_plain_password"] == PASSWORD
    assert isinstance(kwargs["ssl_context"], ssl.SSLContext)
    plain = kafka_client_kwargs(Settings.from_environ({}))
    assert plain == {"client_id": "lagassign", "security_protocol": "PLAINTEXT"}


@pytest.mark.kafka
async def test_scram_against_the_local_broker(
    kafka_broker: LocalKafka,
    kafka_names: Callable[[str], str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert kafka_broker.sasl_bootstrap is not None
    password = kafka_broker.sasl_users["client"]
    topic, group = kafka_names("t"), kafka_names("g")
    await group_with_known_lag(kafka_broker.bootstrap, topic, [group])
    good = {"Authorization": f"Bearer {TOKEN}"}
    environ = {
        "LAGASSIGN_BOOTSTRAP_SERVERS": kafka_broker.sasl_bootstrap,
        "LAGASSIGN_SASL_MECHANISM": "SCRAM-SHA-512",
        "LAGASSIGN_SASL_PASSWORD": password,
        "LAGASSIGN_GROUPS": group,
        "LAGASSIGN_REFRESH_INTERVAL_S": "0.5",
    }
    with caplog.at_level(logging.DEBUG):
        app = create_app(secured(**environ), kafka=True)
        async with served(app) as client:
            await eventually_async(lambda: ready(client), DEADLINE_S, "/readyz 200 over SCRAM")
            response = await client.post("/assign", json=assign_body(group, topic), headers=good)
            answer = response.json()
            assert answer["lag"]["source"] == "kafka-drain"
            assert answer["stats"]["member_lag"] == member_lags(answer, topic, LAGS)

        wrong = create_app(
            secured(**{**environ, "LAGASSIGN_SASL_PASSWORD": "not-the-password"}), kafka=True
        )
        async with served(wrong) as client:

            async def refused() -> bool:
                errors: int = lag_view_of(wrong).refresh_errors_total
                return errors > 0

            await eventually_async(refused, DEADLINE_S, "a refused refresh")
            not_ready: httpx.Response = await client.get("/readyz")
    assert not_ready.status_code == 503
    assert "not-the-password" not in not_ready.text
    assert password not in caplog.text
    assert "not-the-password" not in caplog.text
