"""The sidecar on the real broker: cached and on-demand lag in ``/assign``, and ``/metrics``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.broker import LocalKafka, local_broker
from harness.builders import commit, create_topic, produce
from harness.poll import eventually_async
from lagassign.http.app import create_app
from lagassign.http.parts import sidecar_of
from lagassign.lagview.view import LagView
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
            # Room for a loaded machine: an on-demand read that misses its budget answers
            # with what it has (incomplete), which these tests would take for a defect
            # (seen at load 16: 6 partitions unknown after 5 s).
            "LAGASSIGN_KAFKA_TIMEOUT_MS": "20000",
            "LAGASSIGN_ON_DEMAND_BUDGET_MS": "20000",
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
        assert answer["lag"]["source"] == "kafka-drain"
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
        assert answer["lag"]["source"] == "kafka-drain"
        assert answer["stats"]["member_lag"] == member_lags(answer, topic, LAGS)
        await eventually_async(
            lambda: group in lag_view_of(app).snapshots(),
            DEADLINE_S,
            "the group tracked by the refresh loop",
        )

        # A group without any commit: the topic the request names is read for it, and by
        # the sidecar's default policy (latest) a consumer without a commit starts at the end.
        latest = (await client.post("/assign", json=assign_body(never, topic))).json()
        assert latest["lag"]["source"] == "kafka-drain"
        assert (latest["lag"]["complete"], latest["lag"]["unknown_partitions"]) == (True, 0)
        assert latest["stats"]["member_lag"] == {"m0": 0, "m1": 0}
        assert sorted(len(a[topic]) for a in latest["assignment"].values()) == [3, 3]


# The backlog of a group that has never committed: every record, from the log start.
BACKLOG = RECORDS


@pytest.mark.parametrize(
    ("sidecar_policy", "request_policy", "lags", "unknown"),
    [
        pytest.param("earliest", None, BACKLOG, 0, id="sidecar-earliest"),
        pytest.param("latest", "earliest", BACKLOG, 0, id="request-earliest-wins"),
        pytest.param("earliest", "latest", [0] * 6, 0, id="request-latest-wins"),
        pytest.param("earliest", "none", [0] * 6, 6, id="request-none-is-unknown"),
    ],
)
async def test_a_new_groups_first_assign_reads_its_topics_by_the_consumers_reset_policy(
    sidecar_policy: str,
    request_policy: str | None,
    lags: list[int],
    unknown: int,
    kafka_broker: LocalKafka,
    kafka_names: Callable[[str], str],
) -> None:
    """Cold: a sidecar just started, a group with no committed offset the sidecar has never
    seen, and no refresh between (the interval is long): the first ``/assign`` reads the
    topics it names, and the refresh tracks them for the group from then on."""
    topic, group = kafka_names("t"), kafka_names("g")
    await create_topic(kafka_broker.bootstrap, topic, len(BACKLOG))
    await produce(kafka_broker.bootstrap, topic, BACKLOG)
    settings = settings_for(
        kafka_broker.bootstrap, reset_policy=sidecar_policy, refresh_interval_s="60"
    )
    body = assign_body(group, topic, members=3)
    if request_policy is not None:
        body["reset_policy"] = request_policy
    app = create_app(settings, kafka=True)
    async with served(app) as client:
        await eventually_async(lambda: ready(client), DEADLINE_S, "/readyz 200")
        assert lag_view_of(app).snapshot(group) is None
        answer = (await client.post("/assign", json=body)).json()
        assert answer["lag"]["source"] == "kafka-drain"
        assert answer["lag"]["unknown_partitions"] == unknown
        assert answer["lag"]["complete"] is (unknown == 0)
        assert answer["stats"]["member_lag"] == member_lags(answer, topic, lags)
        assert sum(answer["stats"]["member_lag"].values()) == sum(lags)
        # The same rebalance asks again: the snapshot read for the first answer serves it.
        again = (await client.post("/assign", json=body)).json()
        assert again["lag"] == {**answer["lag"], "age_seconds": again["lag"]["age_seconds"]}
        assert again["assignment"] == answer["assignment"]

        # The refresh reads the topic for the group now, though it has still no commit.
        view = lag_view_of(app)
        assert isinstance(view, LagView)
        assert await view.refresh(), view.last_refresh_error
        snapshot = view.snapshot(group)
        assert snapshot is not None
        assert [(p.topic, p.current_offset) for p in snapshot.partitions] == [
            (topic, None) for _ in BACKLOG
        ]


async def test_a_new_clusters_first_group_is_answered_with_its_lag(tmp_path: Path) -> None:
    """Cold as it gets: a broker just started that has never seen a group, so it has no
    offsets topic yet and answers the sidecar's first coordinator lookups with "not
    available" (and then "not the coordinator") while it creates one. The first
    ``/assign`` still reads the group's lag instead of answering lag-blind."""
    with local_broker(None, tmp_path / "kafka", prefix="lagassign-first-group-") as bootstrap:
        topic, group = "first-topic", "first-group"
        await create_topic(bootstrap, topic, len(BACKLOG))
        await produce(bootstrap, topic, BACKLOG)
        settings = settings_for(bootstrap, reset_policy="earliest", refresh_interval_s="60")
        app = create_app(settings, kafka=True)
        async with served(app) as client:
            await eventually_async(lambda: ready(client), DEADLINE_S, "/readyz 200")
            response = await client.post("/assign", json=assign_body(group, topic, members=3))
            answer = response.json()
            assert answer["lag"]["source"] == "kafka-drain", answer["lag"]
            assert answer["lag"]["complete"] is True
            assert answer["stats"]["member_lag"] == member_lags(answer, topic, BACKLOG)
