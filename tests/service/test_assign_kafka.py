"""The sidecar on the real broker: cached and on-demand lag in ``/assign``, and ``/metrics``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from harness.broker import LocalKafka
from harness.builders import commit, create_topic, produce
from harness.poll import eventually_async
from lagassign.http.app import create_app
from lagassign.http.parts import sidecar_of
from lagassign.settings import Settings
from tests.service.serving import lag_view_of, served

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

DEADLINE_S = 60.0

# Records per partition and the group's committed offsets; partition 5 has no commit, so
# with the default reset policy (latest) its lag is 0.
RECORDS = [100, 10, 40, 7, 12, 3]
COMMITTED = [10, 5, 0, 7, 0, None]
LAGS = [90, 5, 40, 0, 12, 0]


async def group_with_known_lag(bootstrap: str, topic: str, groups: list[str]) -> None:
    await create_topic(bootstrap, topic, len(RECORDS))
    await produce(bootstrap, topic, RECORDS)
    offsets = {(topic, p): o for p, o in enumerate(COMMITTED) if o is not None}
    for group in groups:
        await commit(bootstrap, group, offsets)


def assign_body(group: str, topic: str, members: int = 2, partitions: int = 6) -> dict[str, Any]:
    return {
        "group_id": group,
        "members": [{"member_id": f"m{i}", "topics": [topic]} for i in range(members)],
        "partitions": {topic: partitions},
    }


def member_lags(answer: dict[str, Any], topic: str, lags: list[int]) -> dict[str, int]:
    return {
        member: sum(lags[p] for p in topics.get(topic, []))
        for member, topics in answer["assignment"].items()
    }


def settings_for(bootstrap: str, **environ: str) -> Settings:
    return Settings.from_environ(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": bootstrap,
            "LAGASSIGN_REFRESH_INTERVAL_S": "0.5",
            "LAGASSIGN_KAFKA_TIMEOUT_MS": "5000",
            "LAGASSIGN_ON_DEMAND_BUDGET_MS": "5000",
            **{f"LAGASSIGN_{k.upper()}": v for k, v in environ.items()},
        }
    )


async def ready(client: httpx.AsyncClient) -> bool:
    return (await client.get("/readyz")).status_code == 200


async def test_assign_without_lags_answers_from_the_cached_kafka_lag(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    topic, group = kafka_names("t"), kafka_names("g")
    await group_with_known_lag(kafka_broker.bootstrap, topic, [group])
    app = create_app(settings_for(kafka_broker.bootstrap, groups=group), kafka=True)
    async with served(app) as client:
        await eventually_async(lambda: ready(client), DEADLINE_S, "/readyz 200")
        await eventually_async(
            lambda: lag_view_of(app).snapshot(group) is not None,
            DEADLINE_S,
            "the group's first snapshot",
        )
        response = await client.post("/assign", json=assign_body(group, topic))
        assert response.status_code == 200
        answer = response.json()
        assert answer["lag"]["source"] == "kafka"
        assert answer["lag"]["complete"] is True
        assert answer["lag"]["unknown_partitions"] == 0
        assert answer["lag"]["age_seconds"] >= 0
        assert answer["stats"]["member_lag"] == member_lags(answer, topic, LAGS)
        assert sum(answer["stats"]["member_lag"].values()) == sum(LAGS)
        assert answer["stats"]["lower_bound"] == max(LAGS)

        # The leader's metadata is authoritative: two partitions more than the view knows.
        wider = (await client.post("/assign", json=assign_body(group, topic, partitions=8))).json()
        assert wider["lag"]["unknown_partitions"] == 2
        assert wider["lag"]["complete"] is False
        assert wider["stats"]["member_lag"] == member_lags(wider, topic, [*LAGS, 0, 0])

        text = (await client.get("/metrics")).text
    registry = sidecar_of(app).metrics.registry

    def value(name: str, **labels: str) -> float | None:
        found: float | None = registry.get_sample_value(name, labels)
        return found

    assert value("lagassign_group_lag_sum", group=group) == sum(LAGS)
    assert value("lagassign_group_lag_max", group=group) == max(LAGS)
    for p, lag in enumerate(LAGS):
        assert value("lagassign_partition_lag", group=group, topic=topic, partition=str(p)) == lag
    assert value("lagassign_kafka_up") == 1
    assert (value("lagassign_lag_refresh_duration_seconds_count") or 0) >= 1
    assert value("lagassign_lag_snapshot_timestamp_seconds", group=group) is not None
    assert value("lagassign_assign_requests_total", group=group, strategy="balanced") == 2
    assert f'lagassign_group_lag_sum{{group="{group}"}} {float(sum(LAGS))}' in text


async def test_an_unknown_group_is_fetched_on_demand_then_tracked(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    topic, group, never = kafka_names("t"), kafka_names("g"), kafka_names("never")
    await group_with_known_lag(kafka_broker.bootstrap, topic, [group])
    app = create_app(settings_for(kafka_broker.bootstrap), kafka=True)
    async with served(app) as client:
        await eventually_async(lambda: ready(client), DEADLINE_S, "/readyz 200")
        assert lag_view_of(app).snapshot(group) is None
        answer = (await client.post("/assign", json=assign_body(group, topic, members=3))).json()
        assert answer["lag"]["source"] == "kafka"
        assert answer["stats"]["member_lag"] == member_lags(answer, topic, LAGS)
        await eventually_async(
            lambda: group in lag_view_of(app).snapshots(),
            DEADLINE_S,
            "the group tracked by the refresh loop",
        )

        # A group without any commit: the view knows none of its partitions.
        unknown = (await client.post("/assign", json=assign_body(never, topic))).json()
        assert unknown["lag"]["source"] in {"kafka", "none"}
        assert unknown["lag"]["complete"] is False
        assert sorted(len(a[topic]) for a in unknown["assignment"].values()) == [3, 3]
