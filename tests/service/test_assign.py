"""``POST /assign`` through the app: lag sources, limits, bad input, failures, records."""

from __future__ import annotations

import json
import logging
import random
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from fastapi import FastAPI

from lagassign.assign import rebalance
from lagassign.assign.answer import compute_answer
from lagassign.assign.lag_sources import request_lag_source
from lagassign.assign.request import parse_assign_request
from lagassign.http.app import create_app
from lagassign.http.heavy import LIGHT_COST
from lagassign.http.parts import sidecar_of
from lagassign.settings import Settings
from tests import test_cli
from tests.service.fake_lag_view import FakeLagView, snapshot_of
from tests.service.serving import served

pytestmark = pytest.mark.anyio

KIP_REQUEST = test_cli.KIP_REQUEST


def app_with(environ: dict[str, str] | None = None, lag_view: Any = None) -> FastAPI:
    return create_app(Settings.from_environ(environ or {}), lag_view=lag_view)


def without_lags(**changes: Any) -> dict[str, Any]:
    body = {k: v for k, v in KIP_REQUEST.items() if k != "lags"}
    return {**body, **changes}


def sample(app: FastAPI, name: str, **labels: str) -> float | None:
    value = sidecar_of(app).metrics.registry.get_sample_value(name, labels)
    return None if value is None else float(value)


async def test_explicit_lags_answer_as_the_cli_does() -> None:
    app = app_with()
    async with served(app) as client:
        response = await client.post("/assign", content=json.dumps(KIP_REQUEST))
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    answer = response.json()
    assert answer["assignment"] == {"C0": {"t0": [0]}, "C1": {"t0": [1, 2]}}
    assert answer["stats"]["member_lag"] == {"C0": 100_000, "C1": 110_000}
    assert answer["lag"] == {
        "source": "request",
        "as_of": None,
        "age_seconds": None,
        "complete": True,
        "unknown_partitions": 0,
        "flow": None,
    }
    request = parse_assign_request(json.dumps(KIP_REQUEST))
    expected = compute_answer(request, request_lag_source(request), "balanced").to_json()
    for answer_ in (answer, expected):
        answer_["stats"].pop("compute_ms")
    assert answer == expected


async def test_the_answer_does_not_depend_on_member_or_topic_order() -> None:
    body: dict[str, Any] = {
        "group_id": "g",
        "members": [
            {"member_id": f"m{i}", "topics": ["a", "b"] if i % 2 else ["b", "a"]} for i in range(5)
        ],
        "partitions": {"a": 7, "b": 4},
        "lags": {"a": [5, 1, 9, 3, 3, 0, 8], "b": [2, 2, 7, 1]},
    }
    reordered = {
        **body,
        "members": list(reversed(body["members"])),
        "partitions": {"b": 4, "a": 7},
    }
    async with served(app_with()) as client:
        first = (await client.post("/assign", json=body)).json()
        second = (await client.post("/assign", json=reordered)).json()
    assert first["assignment"] == second["assignment"]


async def test_cached_lags_are_fitted_and_the_group_is_tracked_and_recorded() -> None:
    view = FakeLagView({"orders": snapshot_of("orders", {"t0": [100_000, 60_000, 50_000, 7]})})
    app = app_with(lag_view=view)
    async with served(app) as client:
        answer = (await client.post("/assign", json=without_lags())).json()
    assert view.started == view.stopped == 1
    assert answer["lag"]["source"] == "kafka"
    assert answer["lag"]["complete"] is True
    assert answer["lag"]["unknown_partitions"] == 0
    assert answer["lag"]["as_of"].endswith("Z")
    assert answer["stats"]["member_lag"] == {"C0": 100_000, "C1": 110_000}
    assert view.tracked == ["orders"]
    assert view.tracked_topics == {"orders": frozenset({"t0"})}
    record = sidecar_of(app).answers.last("orders")
    assert record is not None
    assert (record.lag_source, record.max_lag) == ("kafka", 110_000)
    assert record.assignment == answer["assignment"]


async def test_partitions_the_view_has_not_seen_are_unknown() -> None:
    view = FakeLagView({"orders": snapshot_of("orders", {"t0": [100_000]})})
    async with served(app_with(lag_view=view)) as client:
        answer = (await client.post("/assign", json=without_lags())).json()
    assert answer["lag"]["source"] == "kafka"
    assert answer["lag"]["complete"] is False
    assert answer["lag"]["unknown_partitions"] == 2
    assert sum(answer["stats"]["member_lag"].values()) == 100_000


async def test_an_unknown_group_is_fetched_on_demand_within_the_budget() -> None:
    view = FakeLagView()
    view.on_demand["orders"] = snapshot_of("orders", {"t0": [3, 2, 1]})
    app = app_with({"LAGASSIGN_ON_DEMAND_BUDGET_MS": "300"}, lag_view=view)
    async with served(app) as client:
        answer = (await client.post("/assign", json=without_lags())).json()
    assert view.fetches == [("orders", 0.3)]
    assert answer["lag"]["source"] == "kafka"
    assert sum(answer["stats"]["member_lag"].values()) == 6


async def test_a_fetch_past_the_budget_answers_by_count_with_source_none() -> None:
    view = FakeLagView()
    view.on_demand["orders"] = snapshot_of("orders", {"t0": [3, 2, 1]})
    view.fetch_delay_s = 60.0
    app = app_with({"LAGASSIGN_ON_DEMAND_BUDGET_MS": "50"}, lag_view=view)
    async with served(app) as client:
        response = await client.post("/assign", json=without_lags())
    assert response.status_code == 200
    answer = response.json()
    assert view.fetches_abandoned == 1
    assert answer["lag"] == {
        "source": "none",
        "as_of": None,
        "age_seconds": None,
        "complete": False,
        "unknown_partitions": 3,
        "flow": None,
    }
    assert sorted(len(a["t0"]) for a in answer["assignment"].values()) == [1, 2]


async def test_without_a_lag_view_the_answer_balances_counts() -> None:
    async with served(app_with()) as client:
        answer = (await client.post("/assign", json=without_lags())).json()
    assert answer["lag"]["source"] == "none"
    assert answer["stats"]["member_lag"] == {"C0": 0, "C1": 0}


@pytest.mark.parametrize(
    ("environ", "body", "message"),
    [
        (
            {"LAGASSIGN_MAX_MEMBERS": "1"},
            without_lags(),
            "members: 2 members exceed the limit of 1 (LAGASSIGN_MAX_MEMBERS)",
        ),
        (
            {"LAGASSIGN_MAX_PARTITIONS": "2"},
            without_lags(),
            "partitions: 3 partitions exceed the limit of 2 (LAGASSIGN_MAX_PARTITIONS)",
        ),
        (
            {},
            without_lags(partitions={"t0": 3, "other": 2**31 - 1}),
            "exceed the limit of 2000000",
        ),
        (
            {"LAGASSIGN_MAX_BODY_BYTES": "1024"},
            without_lags(group_id="g" * 2_000),
            "the limit is 1024 (LAGASSIGN_MAX_BODY_BYTES)",
        ),
    ],
)
async def test_requests_over_the_limits_get_413(
    environ: dict[str, str], body: dict[str, Any], message: str
) -> None:
    app = app_with(environ)
    async with served(app) as client:
        response = await client.post("/assign", json=body)
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "too_large"
    assert message in error["message"]
    assert sample(app, "lagassign_assign_failures_total", reason="too_large") == 1


async def test_a_chunked_body_over_the_limit_gets_413() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"group_id": "'
        for _ in range(100):
            yield b"g" * 100
        yield b'"}'

    async with served(app_with({"LAGASSIGN_MAX_BODY_BYTES": "4096"})) as client:
        response = await client.post("/assign", content=chunks())
    assert response.status_code == 413
    assert "exceeds the limit of 4096 bytes" in response.json()["error"]["message"]


def cli_bad_inputs() -> list[tuple[str, str, str]]:
    """Every bad input of the CLI's tests (tests/test_cli.py), read from its parametrize mark."""
    marks = test_cli.test_bad_requests_print_the_error_json_and_exit_2.pytestmark  # type: ignore[attr-defined]
    (parametrize,) = [m for m in marks if m.name == "parametrize"]
    cases: list[tuple[str, str, str]] = list(parametrize.args[1])
    assert len(cases) >= 10
    return cases


async def test_every_bad_input_the_cli_refuses_gets_a_4xx_with_the_same_error() -> None:
    app = app_with()
    async with served(app) as client:
        for body, code, message in cli_bad_inputs():
            response = await client.post("/assign", content=body)
            assert response.status_code == 400, body
            error = response.json()["error"]
            assert error["code"] == code, body
            assert message in error["message"], body
    assert (
        sample(app, "lagassign_assign_requests_total", group="orders", strategy="lag-aware") is None
    )


def mutated_bodies(seed: int, count: int) -> Iterator[bytes]:
    """Seeded malformed variants of a valid request: cut, spliced, retyped, flipped."""
    rng = random.Random(seed)
    valid = json.dumps(KIP_REQUEST).encode()
    oddities: list[Any] = [
        None,
        -1,
        0,
        2**70,
        -(2**70),
        1.5,
        1e308,
        "",
        "x",
        [],
        {},
        [[]],
        {"": None},
        [-1],
        ["t0"],
        True,
        "\u0000",
        "\ud800",
        "é" * 50,
    ]
    fields = [
        "group_id",
        "members",
        "partitions",
        "strategy",
        "protocol",
        "lags",
        "partition_racks",
    ]
    member_fields = ["member_id", "topics", "owned", "generation", "rack", "group_instance_id"]
    for _ in range(count):
        kind = rng.randrange(6)
        if kind == 0:
            yield valid[: rng.randrange(len(valid))]
        elif kind == 1:
            data = bytearray(valid)
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            yield bytes(data)
        elif kind == 2:
            body = json.loads(valid)
            body[rng.choice(fields)] = rng.choice(oddities)
            yield json.dumps(body).encode()
        elif kind == 3:
            body = json.loads(valid)
            member = body["members"][rng.randrange(2)]
            member[rng.choice(member_fields)] = rng.choice(oddities)
            yield json.dumps(body).encode()
        elif kind == 4:
            body = json.loads(valid)
            body["lags"] = {"t0": [rng.choice([0, 1, -1, 2**63, 2**80]) for _ in range(3)]}
            body["partitions"] = {"t0": rng.choice([0, 3, -3, 2**40])}
            yield json.dumps(body).encode()
        else:
            depth = rng.randint(1, 5_000)
            yield b"[" * depth + b"]" * rng.randint(0, depth)


async def test_seeded_malformed_bodies_never_get_a_5xx() -> None:
    app = app_with({"LAGASSIGN_MAX_PARTITIONS": "10000"})
    statuses: dict[int, int] = {}
    async with served(app) as client:
        for body in mutated_bodies(seed=20_261_120, count=400):
            response = await client.post("/assign", content=body)
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            assert response.status_code < 500, (body[:200], response.text)
            if response.status_code != 200:
                assert set(response.json()["error"]) == {"code", "message", "details"}
    assert statuses.get(400, 0) > 100


async def test_answers_are_counted_timed_and_summarised_in_metrics() -> None:
    view = FakeLagView({"orders": snapshot_of("orders", {"t0": [90, 5, 5]})})
    app = app_with(lag_view=view)
    owned = without_lags(
        strategy="range",
        members=[
            {"member_id": "C0", "topics": ["t0"], "owned": {"t0": [1, 2]}},
            {"member_id": "C1", "topics": ["t0"], "owned": {"t0": [0]}},
        ],
    )
    async with served(app) as client:
        first = (await client.post("/assign", json=owned)).json()
        await client.post("/assign", json=owned)
        await client.post("/assign", content=b"{")
    assert sample(app, "lagassign_assign_requests_total", group="orders", strategy="range") == 2
    assert sample(app, "lagassign_assign_failures_total", reason="invalid_json") == 1
    assert sample(app, "lagassign_assign_duration_seconds_count") == 2
    assert sample(app, "lagassign_assignment_imbalance_ratio", group="orders") == pytest.approx(
        first["stats"]["imbalance"], rel=1e-3
    )
    before = {0: "C1", 1: "C0", 2: "C0"}
    after = {p: m for m, topics in first["assignment"].items() for p in topics.get("t0", [])}
    moved = sum(1 for p, owner in before.items() if after[p] != owner)
    assert moved > 0
    assert first["stats"]["moved"] == moved
    assert sample(app, "lagassign_assignment_moved_partitions_total", group="orders") == 2 * moved


async def test_large_requests_are_computed_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    threads: list[int] = []
    real = rebalance.answer_and_body

    def recording(*args: Any) -> Any:
        threads.append(threading.get_ident())
        return real(*args)

    monkeypatch.setattr(rebalance, "answer_and_body", recording)
    members = [{"member_id": f"m{i}", "topics": ["big"]} for i in range(4)]
    small = {"group_id": "g", "members": members, "partitions": {"big": 8}}
    large = {**small, "partitions": {"big": LIGHT_COST + 1}}
    # Few partitions, many (member, topic) pairs: heavy by its cost, not its partition count.
    topics = [f"t{i}" for i in range(100)]
    wide = {
        "group_id": "g",
        "subscriptions": [topics],
        "members": [{"member_id": f"m{i}", "subscription": 0} for i in range(LIGHT_COST // 50)],
        "partitions": {t: 1 for t in topics},
    }
    async with served(app_with()) as client:
        for body in (small, large, wide):
            assert (await client.post("/assign", json=body)).status_code == 200
    loop_thread = threading.get_ident()
    assert threads[0] == loop_thread
    assert threads[1] != loop_thread
    assert threads[2] != loop_thread


async def test_an_unexpected_failure_is_a_logged_503_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    view = FakeLagView()
    view.snapshot_error = ZeroDivisionError("internal detail")
    app = app_with(lag_view=view)
    with caplog.at_level(logging.ERROR, logger="lagassign.http.app"):
        async with served(app) as client:
            response = await client.post("/assign", json=without_lags())
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "unavailable"
    assert "internal detail" not in response.text
    assert "Traceback" not in response.text
    assert "ZeroDivisionError: internal detail" in caplog.text
    assert sample(app, "lagassign_assign_failures_total", reason="unavailable") == 1


async def test_an_answer_for_many_members_is_the_json_of_the_answer_values() -> None:
    members = 150
    body = {
        "group_id": "wide",
        "members": [{"member_id": f"m{i:03d}", "topics": ["a", "b"]} for i in range(members)],
        "partitions": {"a": 300, "b": 7},
        "lags": {"a": list(range(300)), "b": [5] * 7},
    }
    async with served(app_with()) as client:
        response = await client.post("/assign", json=body)
    assert response.status_code == 200
    answer = response.json()
    assert list(answer) == ["group_id", "strategy", "assignment", "revoked", "lag", "stats"]
    request = parse_assign_request(json.dumps(body))
    expected = compute_answer(request, request_lag_source(request), "balanced").to_json()
    for part in ("assignment", "revoked", "lag"):
        assert answer[part] == expected[part]
    assert {**answer["stats"], "compute_ms": 0} == {**expected["stats"], "compute_ms": 0}
