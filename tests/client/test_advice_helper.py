"""The Python rebalance advisor's own rules, with the sidecar's answer injected.

Real HTTP is replaced by ``httpx.MockTransport`` (to answer advised, not advised,
or fail on demand) and the consumer by a recorded membership; the real-broker proof
is ``test_advice_python_kafka.py``.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable

import httpx
import pytest

from harness.poll import eventually
from lagassign_client.advice import RebalanceAdvisor
from lagassign_client.advice.leadership import Leadership
from lagassign_client.advice.libraries import TESTED_VERSIONS, aiokafka_group
from lagassign_client.assignor.assignment_digest import assignment_digest

WAIT_S = 5.0
DIGEST = "72ad50af9b0c62e8"


class Membership:
    """A consumer's generation, and the rejoins asked of it."""

    def __init__(self, generation: int | None = 7) -> None:
        self.current = generation
        self.rejoins: list[str] = []

    def generation(self) -> int | None:
        return self.current

    def request_rejoin(self, reason: str) -> None:
        self.rejoins.append(reason)


class Sidecar:
    """Answers GET /groups/{group}/advice as told; counts the requests."""

    def __init__(self) -> None:
        self.advised = True
        self.fail = False
        self.digest = DIGEST
        self.paths: list[str] = []
        #: Called while a request is answered (the group may move on meanwhile).
        self.answering: Callable[[], object] = lambda: None

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.raw_path.decode())
        self.answering()
        if self.fail:
            raise httpx.ConnectError("connection refused", request=request)
        body = {
            "advised": self.advised,
            "reason": "worst lag 1700 -> 910 (46%)",
            "assignment_digest": self.digest,
        }
        return httpx.Response(200, content=json.dumps(body).encode())


def led(digest: str = DIGEST) -> Leadership:
    leadership = Leadership()
    leadership.joining()
    leadership.leading(digest)
    leadership.assigned()
    return leadership


def advisor(
    sidecar: Sidecar, membership: Membership, leadership: Leadership, every_s: float = 0.05
) -> RebalanceAdvisor:
    return RebalanceAdvisor(
        membership,
        leadership,
        url="http://127.0.0.1:1/",
        group_id="orders/eu",
        every_s=every_s,
        transport=httpx.MockTransport(sidecar.handle),
    )


def run_until(a: RebalanceAdvisor, done: Callable[[], object], what: str) -> None:
    """Ask the advisor every 10 ms, as a poll loop would, until ``done()`` holds."""

    def step() -> object:
        a.maybe_rebalance()
        return done()

    eventually(step, WAIT_S, what, interval_s=0.01)


def run_for(a: RebalanceAdvisor, seconds: float, pause_s: float = 0.01) -> list[bool]:
    """Ask the advisor every ``pause_s`` for ``seconds`` (a poll loop running a while,
    for what must not happen); what it answered each time."""
    answers = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        answers.append(a.maybe_rebalance())
        time.sleep(pause_s)
    return answers


def test_the_leader_asks_for_one_rebalance_per_generation() -> None:
    sidecar, membership = Sidecar(), Membership()
    a = advisor(sidecar, membership, led())
    run_until(a, lambda: membership.rejoins, "the leader asks for a rebalance")
    assert membership.rejoins == ["lagassign advice: worst lag 1700 -> 910 (46%)"]
    assert sidecar.paths[0] == "/groups/orders%2Feu/advice"
    run_for(a, 0.4)
    assert len(membership.rejoins) == 1, "the same generation is never rebalanced twice"
    membership.current = 8
    run_until(a, lambda: len(membership.rejoins) == 2, "a rebalance in the next generation")
    assert a.enforced == 2


def test_a_member_that_did_not_lead_never_asks() -> None:
    sidecar, membership = Sidecar(), Membership()
    follower = Leadership()
    follower.joining()
    follower.assigned()
    a = advisor(sidecar, membership, follower)
    assert not any(run_for(a, 0.3))
    assert sidecar.paths == []
    assert a.requests == 0


def test_nothing_while_the_group_rebalances_or_when_not_advised() -> None:
    sidecar, membership = Sidecar(), Membership(generation=None)
    a = advisor(sidecar, membership, led())
    run_for(a, 0.2)
    assert sidecar.paths == []
    membership.current = 3
    sidecar.advised = False
    run_until(a, lambda: len(sidecar.paths) >= 3, "three requests for advice")
    assert membership.rejoins == []


def test_at_most_one_request_per_interval() -> None:
    sidecar, membership = Sidecar(), Membership()
    sidecar.advised = False
    a = advisor(sidecar, membership, led(), every_s=0.5)
    run_for(a, 1.2, pause_s=0.005)
    assert 2 <= len(sidecar.paths) <= 3, sidecar.paths


def test_an_answer_from_the_previous_generation_is_not_acted_on() -> None:
    sidecar, membership = Sidecar(), Membership()
    # The group rebalances while the sidecar answers: the advice asked for generation 7
    # arrives when the member is in generation 8, whatever the threads' timing.
    sidecar.answering = lambda: setattr(membership, "current", 8)
    a = advisor(sidecar, membership, led(), every_s=60.0)
    run_until(a, lambda: a._latest is not None, "the advice for generation 7")
    assert a._latest is not None
    assert a._latest.generation == 7
    run_for(a, 0.2)
    assert membership.rejoins == []
    assert len(sidecar.paths) == 1


def test_an_unreachable_sidecar_is_logged_once_and_changes_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sidecar, membership = Sidecar(), Membership()
    sidecar.fail = True
    a = advisor(sidecar, membership, led())
    with caplog.at_level(logging.INFO, logger="lagassign_client"):
        run_until(a, lambda: len(sidecar.paths) >= 5, "five requests to a sidecar down")
        assert membership.rejoins == []
        warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 1
        assert "cannot read the rebalance advice" in warnings[0].getMessage()
        assert a.warnings == 1
        sidecar.fail = False
        run_until(a, lambda: membership.rejoins, "a rebalance once the sidecar answers")
    assert any("answers the advice again" in r.getMessage() for r in caplog.records)


def test_an_untested_library_version_is_refused_once(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(TESTED_VERSIONS, "aiokafka", ("0.0.1",))

    class Consumer:
        _coordinator = Membership()

    with caplog.at_level(logging.WARNING, logger="lagassign_client"):
        assert aiokafka_group(Consumer()) is None
    assert "tested with aiokafka 0.0.1" in caplog.text
    a = RebalanceAdvisor(None, led(), url="http://127.0.0.1:1", group_id="orders")
    assert a.maybe_rebalance() is False
    assert a.requests == 0


def test_advice_about_another_assignment_is_not_acted_on() -> None:
    # The sidecar's last refresh still weighed the assignment before this generation's.
    sidecar, membership = Sidecar(), Membership()
    sidecar.digest = "0123456789abcdef"
    a = advisor(sidecar, membership, led())
    run_until(a, lambda: len(sidecar.paths) >= 3, "three requests for advice")
    assert membership.rejoins == []
    sidecar.digest = DIGEST  # the sidecar has seen the new assignment
    run_until(a, lambda: membership.rejoins, "a rebalance on the new assignment's advice")
    assert len(membership.rejoins) == 1


def test_the_digest_is_the_sidecars() -> None:
    # The same values as the sidecar's and the Java shim's tests.
    assert assignment_digest([("c-2", "t0", 1), ("c-1", "t0", 0)]) == DIGEST
    unordered = [("c-2", "t0", 10), ("c-2", "t0", 2), ("c-1", "t1", 0)]
    assert assignment_digest(unordered) == "f3e1456c923a0402"
