"""The sidecar's side of a broker plugin call, in-process: ``answer_rebalance`` timed.

The plugin's request exactly (topic ids, the compact form with one subscription,
``owned``, ``answer_form: packed``), decoded from its bytes and answered over a warm
lag view of ten topics (ten hot partitions each) with the drain model over a real rate
window, as ``lagassign serve`` answers it but without HTTP. Two requests:

- ``join``: ``--members`` - 1 members own ``balanced``'s answer for them, one more joins;
- ``unchanged``: every member owns ``balanced``'s answer for all of them.

Each is timed three ways, interleaved run by run (``kept``): ``none`` (no cache: the
lag fitted and weighed at every call), ``lag`` (the group's lag kept, as it is between
two refreshes or once the lag warmer made it ready after one) and, for ``unchanged``,
``answer`` (the same body over the same lag: the last answer's bytes). One JSON line per
request and way: ``ms_p50``, ``ms_p99``, ``ms_max``.

    .venv/bin/python -m bench.broker_plugin --sidecar [--members 50 --partitions 10000 --runs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from base64 import urlsafe_b64encode
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from bench.percentiles import percentile
from lagassign.assign.answer import Answer, compute_answer
from lagassign.assign.answer_log import AnswerLog
from lagassign.assign.answer_reuse import AnswerReuse
from lagassign.assign.lag_cache import LagCache
from lagassign.assign.lag_sources import request_lag_source
from lagassign.assign.rebalance import AssignParts, answer_rebalance
from lagassign.assign.request import parse_assign_request
from lagassign.rates.lag_models import DrainModel
from lagassign.rates.window import RateWindow
from lagassign.settings import Settings
from tests.service.fake_lag_view import FakeLagView, snapshot_of

T = TypeVar("T")
TOPICS = 10
HOT_PER_TOPIC = 10
GROUP = "bench-plugin"


def kafka_id() -> str:
    """An id as Kafka writes member and topic ids: 16 random bytes, base64 unpadded."""
    return urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")


class Here:
    """Work runs where it is called (no HTTP, no worker thread); the client stays."""

    async def run(self, step: str, function: Callable[..., T], *args: Any) -> T:
        return function(*args)

    async def check_client(self) -> None:
        return None


class Unobserved:
    def observe_answer(self, answer: Answer, seconds: float) -> None:
        return None


class Group:
    """One consumer-protocol group as the lag view and the rate window hold it."""

    def __init__(self, members: int, partitions: int) -> None:
        self.per_topic = partitions // TOPICS
        self.names = [f"bench-plugin-{t}" for t in range(TOPICS)]
        self.ids = {name: kafka_id() for name in self.names}
        self.members = [kafka_id() for _ in range(members)]
        self.lags = {
            t: [10_000 if p < HOT_PER_TOPIC else 100 for p in range(self.per_topic)]
            for t in self.names
        }
        now = datetime.now(UTC)
        self.view = FakeLagView({GROUP: snapshot_of(GROUP, self.lags, as_of=now)})
        self.view.consumer_index.rebuild(
            {GROUP: self.members}, {i: name for name, i in self.ids.items()}
        )
        self.rates = RateWindow(refresh_interval_s=2)
        self.rates.record(snapshot_of(GROUP, self.lags, as_of=now - timedelta(seconds=20)))
        self.rates.record(self.view.cached[GROUP])
        self.model = DrainModel(self.rates, self.view, None)

    def balanced(self, members: list[str], owned: dict[str, Any]) -> dict[str, Any]:
        """``balanced``'s assignment of the named topics to ``members``."""
        body = {
            "group_id": GROUP,
            "members": [
                {"member_id": m, "topics": self.names, "owned": owned.get(m, {})} for m in members
            ],
            "partitions": {t: self.per_topic for t in self.names},
            "lags": self.lags,
        }
        request = parse_assign_request(json.dumps(body))
        result = compute_answer(request, request_lag_source(request), "balanced").result
        return dict(result.assignment)

    def plugin_body(self, owned: dict[str, Any]) -> bytes:
        """The plugin's request: topic ids, one shared subscription, owned, packed."""
        ids = [self.ids[t] for t in self.names]
        return json.dumps(
            {
                "topic_ids": True,
                "answer_form": "packed",
                "subscriptions": [ids],
                "members": [
                    {
                        "member_id": m,
                        "group_instance_id": None,
                        "rack": None,
                        "subscription": 0,
                        "owned": {self.ids[t]: ps for t, ps in owned.get(m, {}).items()},
                    }
                    for m in self.members
                ],
                "partitions": dict.fromkeys(ids, self.per_topic),
            }
        ).encode()


def sidecar(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.broker_plugin --sidecar")
    parser.add_argument("--sidecar", action="store_true")
    parser.add_argument("--members", type=int, default=50)
    parser.add_argument("--partitions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args(argv)
    group = Group(args.members, args.partitions)
    before = group.balanced(group.members[:-1], {})
    after = group.balanced(group.members, before)
    bodies = {"join": group.plugin_body(before), "unchanged": group.plugin_body(after)}
    ways = {"join": ("none", "lag"), "unchanged": ("none", "lag", "answer")}
    limits = Settings.from_environ({}).request_limits  # the sidecar's defaults
    cache, reuse = LagCache(), AnswerReuse()

    async def once(raw: bytes, kept: str) -> float:
        parts = AssignParts(
            default_strategy="balanced",
            on_demand_budget_s=0.0,
            lag_view=group.view,
            forecast=None,
            answers=AnswerLog(),
            observer=Unobserved(),
            lag_model=group.model,
            lag_cache=None if kept == "none" else cache,
            answer_reuse=reuse if kept == "answer" else None,
        )
        started = time.perf_counter()
        request = parse_assign_request(bytearray(raw), limits)
        await answer_rebalance(request, parts, Here(), started=started, raw=raw)
        return (time.perf_counter() - started) * 1000

    async def measure() -> dict[tuple[str, str], list[float]]:
        for name, raw in bodies.items():  # the first call of each keeps its lag and answer
            for kept in ways[name]:
                await once(raw, kept)
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.runs):
            for name, raw in bodies.items():
                for kept in ways[name]:
                    times.setdefault((name, kept), []).append(await once(raw, kept))
        return times

    for (name, kept), ms in asyncio.run(measure()).items():
        print(
            json.dumps(
                {
                    "bench": "broker_plugin_sidecar",
                    "members": args.members,
                    "partitions": group.per_topic * TOPICS,
                    "request": name,
                    "kept": kept,
                    "runs": len(ms),
                    "ms_p50": round(percentile(ms, 0.5), 2),
                    "ms_p99": round(percentile(ms, 0.99), 2),
                    "ms_max": round(max(ms), 2),
                }
            ),
            flush=True,
        )
    return 0
