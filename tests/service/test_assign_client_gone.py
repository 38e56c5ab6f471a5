"""No work for a client that has gone: its wait for a turn ends, its answer is not recorded.

A real server (uvicorn on 127.0.0.1) and real HTTP clients: one heavy request holds
the only turn (its on-demand lag read waits on an event), a second waits for the
turn and its client closes the connection.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Collection
from typing import Any, TypeVar

import httpx
import pytest
from fastapi import FastAPI
from starlette.requests import ClientDisconnect

from lagassign.assign.answer import Answer
from lagassign.assign.answer_log import AnswerLog
from lagassign.assign.rebalance import AssignParts, answer_rebalance
from lagassign.assign.request import parse_assign_request
from lagassign.http.app import create_app
from lagassign.http.heavy import LIGHT_BODY_BYTES, LIGHT_COST, HeavyWork
from lagassign.http.parts import sidecar_of
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.settings import Settings
from tests.service.fake_lag_view import FakeLagView, snapshot_of
from tests.service.serving import served_on_a_port

pytestmark = pytest.mark.anyio

T = TypeVar("T")
WAIT_S = 30.0
PARTITIONS = 6_000


class HeldView(FakeLagView):
    """A lag view whose on-demand read waits until the test releases it."""

    def __init__(self) -> None:
        super().__init__({"orders": snapshot_of("orders", {"t0": [5] * PARTITIONS})})
        self.reading = asyncio.Event()
        self.release = asyncio.Event()

    async def fetch_group(
        self, group_id: str, budget_s: float, topics: Collection[str] = ()
    ) -> GroupSnapshot | None:
        self.reading.set()
        await self.release.wait()
        return None


class Turns:
    """Each request's call for a heavy turn, in order: asked, then taken or given up."""

    def __init__(self, heavy: HeavyWork) -> None:
        self.turn = heavy.turn
        self.asked: list[asyncio.Event] = [asyncio.Event() for _ in range(4)]
        self.given_up: list[asyncio.Event] = [asyncio.Event() for _ in range(4)]
        self.calls = 0

    async def __call__(self) -> None:
        i = self.calls
        self.calls += 1
        self.asked[i].set()
        try:
            await self.turn()
        except asyncio.CancelledError:
            self.given_up[i].set()
            raise


def holder() -> bytes:
    """A heavy request past LIGHT_BODY_BYTES: it takes the turn before its body is read,
    and its group has no cached lag (its on-demand read holds the turn)."""
    body = json.dumps(
        {
            "group_id": "held",
            "subscriptions": [["t0"]],
            "members": [{"member_id": f"member-{i:06d}", "subscription": 0} for i in range(3_000)],
            "partitions": {"t0": PARTITIONS},
        }
    ).encode()
    assert len(body) > LIGHT_BODY_BYTES
    return body


def waiter() -> bytes:
    """A small body with a heavy cost: it waits for the turn after its body is read."""
    body = json.dumps(
        {
            "group_id": "orders",
            "members": [
                {"member_id": "m-1", "topics": ["t0"]},
                {"member_id": "m-2", "topics": ["t0"]},
            ],
            "partitions": {"t0": PARTITIONS},
        }
    ).encode()
    assert len(body) < LIGHT_BODY_BYTES
    assert PARTITIONS > LIGHT_COST
    return body


def app_of(view: HeldView) -> FastAPI:
    """The sidecar over ``view``: one heavy turn, a long wait for it and for the lag read."""
    settings = Settings.from_environ(
        {
            "LAGASSIGN_MAX_HEAVY_REQUESTS": "1",
            "LAGASSIGN_HEAVY_WAIT_S": "60",
            "LAGASSIGN_ON_DEMAND_BUDGET_MS": "60000",
        }
    )
    return create_app(settings, lag_view=view)


async def post(base: str, body: bytes) -> httpx.Response:
    headers = {"content-type": "application/json"}
    async with httpx.AsyncClient(base_url=base, timeout=WAIT_S, headers=headers) as client:
        return await client.post("/assign", content=body)


async def test_a_client_gone_while_waiting_for_its_turn_is_not_worked_for() -> None:
    view = HeldView()
    app = app_of(view)
    async with served_on_a_port(app, WAIT_S) as base:
        sidecar = sidecar_of(app)
        assert sidecar.heavy is not None
        turns = Turns(sidecar.heavy)
        sidecar.heavy.turn = turns  # type: ignore[method-assign]
        held = asyncio.create_task(post(base, holder()))
        await asyncio.wait_for(view.reading.wait(), WAIT_S)
        gone = asyncio.create_task(post(base, waiter()))
        await asyncio.wait_for(turns.asked[1].wait(), WAIT_S)
        gone.cancel()  # the client closes its connection while the request waits
        with pytest.raises(asyncio.CancelledError):
            await gone
        # The wait ends while the holder still holds the turn.
        await asyncio.wait_for(turns.given_up[1].wait(), WAIT_S)
        assert not view.release.is_set()
        view.release.set()
        assert (await asyncio.wait_for(held, WAIT_S)).status_code == 200
        assert sidecar.answers.recent("orders") == []
        # The same request from a client that stays is answered and recorded: the turn
        # was given back.
        stayed = await post(base, waiter())
        assert stayed.status_code == 200, stayed.text
        assert len(sidecar.answers.recent("orders")) == 1
        assert len(sidecar.answers.recent("held")) == 1


class LeavesAfterCompute:
    """Work runs here; the client goes once the answer has been computed."""

    def __init__(self) -> None:
        self.left = False

    async def run(self, step: str, function: Callable[..., T], *args: Any) -> T:
        result = function(*args)
        self.left = True
        return result

    async def check_client(self) -> None:
        if self.left:
            raise ClientDisconnect()


class Observed:
    def __init__(self) -> None:
        self.answers: list[Answer] = []

    def observe_answer(self, answer: Answer, seconds: float) -> None:
        self.answers.append(answer)


async def test_an_answer_computed_for_a_client_that_has_gone_is_not_recorded() -> None:
    answers, observed = AnswerLog(), Observed()
    parts = AssignParts(
        default_strategy="balanced",
        on_demand_budget_s=0.0,
        lag_view=None,
        forecast=None,
        answers=answers,
        observer=observed,
    )
    request = parse_assign_request(waiter())
    worker = LeavesAfterCompute()
    with pytest.raises(ClientDisconnect):
        await answer_rebalance(request, parts, worker, started=time.perf_counter())
    assert worker.left
    assert answers.recent("orders") == []
    assert observed.answers == []
