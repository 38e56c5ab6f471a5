"""The compact wire form of ``POST /assign``: ``subscriptions``, ``subscription``, ``answer_form``.

A compact request gets the answer of the same request with each member's topics
written out, and the packed answer is the topics answer renumbered; all on
seeded requests (every strategy, both protocols, shared and mixed subscriptions,
owned partitions), in-process, through the CLI, through a real ``lagassign serve``
(no Kafka: lags in the request), and in the topic-id form. Refusals name the field.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from harness.lone_sidecar import start_lone_sidecar
from lagassign.core.strategies import STRATEGIES
from lagassign.http.app import create_app
from lagassign.settings import Settings
from tests.hostile import check_valid_answer
from tests.service.contract_reader import read_packed
from tests.service.serving import served
from tests.service.test_assign_topic_ids import T0, T1, plugin_request, view_with
from tests.service.test_contract import check, openapi

pytestmark = pytest.mark.anyio


def app_with() -> FastAPI:
    return create_app(Settings.from_environ({}))


def seeded_request(seed: int) -> dict[str, Any]:
    """A plain request: 2-4 topic lists shared by 3-12 members, some owning partitions."""
    rng = random.Random(seed)
    topics = [f"t{i}" for i in range(rng.randint(2, 6))]
    counts = {t: rng.randint(0, 9) for t in topics}
    rng.shuffle(topics)  # the request's partitions in no particular order
    lists = [rng.sample(topics, rng.randint(1, len(topics))) for _ in range(rng.randint(2, 4))]
    owned_by: dict[tuple[str, int], str] = {}
    members = []
    for i in range(rng.randint(3, 12)):
        member_id = f"m{rng.randrange(10_000):04d}-{i}"
        subscribed = rng.choice(lists)
        owned: dict[str, list[int]] = {}
        for t in subscribed:
            for p in range(counts[t]):
                if (t, p) not in owned_by and rng.random() < 0.3:
                    owned_by[(t, p)] = member_id
                    owned.setdefault(t, []).append(p)
        members.append({"member_id": member_id, "topics": list(subscribed), "owned": owned})
    return {
        "group_id": f"compact-{seed}",
        "members": members,
        "partitions": {t: counts[t] for t in topics},
        "lags": {t: [rng.randrange(100_000) for _ in range(counts[t])] for t in topics},
        "strategy": rng.choice(list(STRATEGIES)),
        "protocol": rng.choice(["eager", "cooperative"]),
    }


def compacted(plain: dict[str, Any], *, keep_topics_every: int = 0) -> dict[str, Any]:
    """``plain`` with each distinct topic list given once; every ``keep_topics_every``-th
    member keeps its own ``topics`` (the two may be mixed)."""
    lists: dict[tuple[str, ...], int] = {}
    members = []
    for i, m in enumerate(plain["members"]):
        member = {k: v for k, v in m.items() if k != "topics"}
        if keep_topics_every and i % keep_topics_every == 0:
            member["topics"] = m["topics"]
        else:
            member["subscription"] = lists.setdefault(tuple(m["topics"]), len(lists))
        members.append(member)
    return {**plain, "members": members, "subscriptions": [list(t) for t in lists]}


def packed_to_topics(request: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """A packed answer in the topics form, read (and checked) by the contract's reader."""
    assignment, revoked = read_packed(request, answer)
    out = {k: v for k, v in answer.items() if k != "topics"}
    return {**out, "assignment": assignment, "revoked": revoked}


def without_empty(by_member: dict[str, dict[str, list[int]]]) -> dict[str, dict[str, list[int]]]:
    return {m: {t: ps for t, ps in topics.items() if ps} for m, topics in by_member.items()}


def same_answer(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Equal but for the compute time and the lag's age (and topics with no partition,
    absent when packed)."""
    assert a["group_id"] == b["group_id"]
    assert without_empty(a["assignment"]) == without_empty(b["assignment"])
    assert without_empty(a["revoked"]) == without_empty(b["revoked"])
    assert {**a["lag"], "age_seconds": 0} == {**b["lag"], "age_seconds": 0}
    assert {**a["stats"], "compute_ms": 0} == {**b["stats"], "compute_ms": 0}


SEEDS = range(40)


async def test_compact_requests_and_packed_answers_equal_the_plain_ones() -> None:
    async with served(app_with()) as client:
        spec = await openapi(client)
        for seed in SEEDS:
            plain = seeded_request(seed)
            answers = []
            for body in (
                plain,
                compacted(plain),
                compacted(plain, keep_topics_every=2),
                {**plain, "answer_form": "topics"},
                {**compacted(plain), "answer_form": "packed"},
                {**plain, "answer_form": "packed"},
            ):
                response = await client.post("/assign", json=body)
                answer = check(spec, "/assign", "post", response)
                if body.get("answer_form") == "packed":
                    assert list(answer) == [
                        "group_id",
                        "strategy",
                        "topics",
                        "assignment",
                        "revoked",
                        "lag",
                        "stats",
                    ]
                    assert answer["topics"] == list(plain["partitions"])
                    answer = packed_to_topics(body, answer)
                answers.append(answer)
            check_valid_answer(json.dumps(plain).encode(), answers[0])
            assert set(answers[0]["assignment"]) == {m["member_id"] for m in plain["members"]}
            for answer in answers[1:]:
                same_answer(answer, answers[0])


async def test_a_member_with_nothing_is_listed_empty() -> None:
    nothing = {"topic_indices": "", "partitions": ""}
    body = {
        "group_id": "g",
        "subscriptions": [["b", "a"]],
        "members": [{"member_id": f"m{i}", "subscription": 0} for i in range(4)],
        "partitions": {"b": 1, "a": 2, "unread": 5},
        "lags": {"a": [5, 7], "b": [9]},
        "answer_form": "packed",
    }
    async with served(app_with()) as client:
        response = await client.post("/assign", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["topics"] == ["b", "a", "unread"]
    assert [given for given in answer["assignment"].values() if given == nothing] == [nothing]
    by_name = packed_to_topics(body, answer)
    assigned = sorted(
        (t, p) for topics in by_name["assignment"].values() for t, ps in topics.items() for p in ps
    )
    assert assigned == [("a", 0), ("a", 1), ("b", 0)]
    assert sorted(map(len, by_name["assignment"].values())) == [0, 1, 1, 1]
    assert answer["revoked"] == {}


def member_of(**fields: Any) -> dict[str, Any]:
    return {"member_id": "c-1", **fields}


REFUSALS = [
    ("both", [member_of(topics=["t0"], subscription=0)], "members[0].subscription"),
    ("neither", [member_of()], "members[0].topics"),
    (
        "past the end",
        [member_of(subscription=0), member_of(subscription=1)],
        "members[1].subscription",
    ),
    ("negative", [member_of(subscription=-1)], "members[0].subscription"),
    ("true", [member_of(subscription=True)], "members[0].subscription"),
    ("a string", [member_of(subscription="0")], "members[0].subscription"),
    ("a float", [member_of(subscription=0.0)], "members[0].subscription"),
    ("null and no topics", [member_of(subscription=None)], "members[0].topics"),
]


@pytest.mark.parametrize(("name", "members", "field"), REFUSALS, ids=[r[0] for r in REFUSALS])
async def test_a_bad_subscription_is_400_naming_the_field(
    name: str, members: list[dict[str, Any]], field: str
) -> None:
    body = {
        "group_id": "g",
        "subscriptions": [["t0"]],
        "members": members,
        "partitions": {"t0": 3},
    }
    async with served(app_with()) as client:
        response = await client.post("/assign", json=body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    assert error["message"].startswith(field), error
    assert error["details"][0]["field"].startswith(field)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"answer_form": "nested"}, "answer_form"),
        ({"answer_form": "indexed"}, "answer_form"),
        ({"answer_form": None}, "answer_form"),
        ({"subscriptions": [["t0", 7]]}, "subscriptions[0][1]"),
        ({"subscriptions": {"0": ["t0"]}}, "subscriptions"),
    ],
)
async def test_bad_compact_fields_are_400_naming_the_field(
    changes: dict[str, Any], field: str
) -> None:
    body = {
        "group_id": "g",
        "members": [{"member_id": "a", "subscription": 0}],
        "subscriptions": [["t0"]],
        "partitions": {"t0": 3},
        **changes,
    }
    async with served(app_with()) as client:
        response = await client.post("/assign", json=body)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["message"].startswith(f"{field}:")


async def test_a_subscription_index_without_subscriptions_is_out_of_range() -> None:
    body = {"group_id": "g", "members": [member_of(subscription=0)], "partitions": {"t0": 1}}
    async with served(app_with()) as client:
        response = await client.post("/assign", json=body)
    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "members[0].subscription: 0 is out of range: `subscriptions` has 0 lists"
    )


async def test_the_topic_id_form_compact_and_packed() -> None:
    view = view_with({"orders": ["m-1", "m-2"]})
    plain = plugin_request("m-1", "m-2")
    compact = {
        **plain,
        "subscriptions": [[T0, T1]],
        "members": [
            {k: v for k, v in m.items() if k != "topics"} | {"subscription": 0}
            for m in plain["members"]
        ],
        "answer_form": "packed",
    }
    app = create_app(Settings.from_environ({}), lag_view=view)
    async with served(app) as client:
        first = (await client.post("/assign", json=plain)).json()
        second = (await client.post("/assign", json=compact)).json()
    assert second["topics"] == [T0, T1]
    same_answer(packed_to_topics(compact, second), first)


def run_cli(body: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lagassign.cli", "assign"],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_cli_answers_both_forms_and_refuses_a_bad_subscription() -> None:
    plain = seeded_request(7)
    topics_form = json.loads(run_cli(plain).stdout)
    compact = {**compacted(plain), "answer_form": "packed"}
    done = run_cli(compact)
    assert done.returncode == 0, done.stderr
    same_answer(packed_to_topics(compact, json.loads(done.stdout)), topics_form)
    bad = run_cli({**compacted(plain), "members": [member_of(subscription=99)]})
    assert bad.returncode == 2
    assert json.loads(bad.stderr)["error"]["message"].startswith("members[0].subscription: 99")


def test_a_real_sidecar_answers_the_compact_form(tmp_path: Path) -> None:
    sidecar = start_lone_sidecar({}, tmp_path / "sidecar.log")
    try:
        with httpx.Client(base_url=sidecar.url, timeout=30.0) as client:
            for seed in range(5):
                plain = seeded_request(100 + seed)
                topics_form = client.post("/assign", json=plain)
                compact = {**compacted(plain), "answer_form": "packed"}
                packed = client.post("/assign", json=compact)
                assert topics_form.status_code == packed.status_code == 200, packed.text
                assert packed.headers["content-type"] == "application/json"
                same_answer(packed_to_topics(compact, packed.json()), topics_form.json())
    finally:
        sidecar.stop()
