"""An answer made without (all of) the lag is used, but said: WARNING once, counted, noted."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest

from lagassign_client import LagAssignor
from lagassign_client.assignor.leader import GroupLeader
from lagassign_client.wire.group import Subscriber
from lagassign_client.wire.sidecar import Sidecar
from lagassign_client.wire.userdata import SubscriptionUserData, decode_assignment
from tests.client.answers import NO_LAG, as_lists, partly_known, roundrobin_answer
from tests.client.mock_sidecar import Handler, answering

METADATA = {"t0": {0, 1, 2, 3}}
MEMBERS = (
    Subscriber("c-1", ("t0",), SubscriptionUserData()),
    Subscriber("c-2", ("t0",), SubscriptionUserData()),
)


def saying(lag: dict[str, Any] | None) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        answer = roundrobin_answer(json.loads(request.content), lag)
        if lag is None:
            del answer["lag"]
        return httpx.Response(200, json=answer)

    return handler


def leader(handler: Handler, reset_policy: str | None = None) -> GroupLeader:
    sidecar = Sidecar("http://sidecar.test", timeout_s=1.0, transport=httpx.MockTransport(handler))
    return GroupLeader(sidecar, "orders", "balanced", reset_policy)


@pytest.mark.parametrize(
    ("lag", "reason", "said"),
    [
        (NO_LAG, "lag_blind", "saw no lag for the group (lag.source=none)"),
        (partly_known(3), "lag_partial", "assumed the lag of 3 partition(s)"),
        ({**partly_known(0), "complete": False}, "lag_partial", "lag.complete=false"),
        (None, "lag_blind", "does not say which lag"),
    ],
    ids=["source-none", "unknown-partitions", "incomplete", "no-lag-block"],
)
def test_a_blind_answer_is_used_warned_once_and_counted(
    lag: dict[str, Any] | None, reason: str, said: str, caplog: pytest.LogCaptureFixture
) -> None:
    chief = leader(saying(lag))
    with caplog.at_level(logging.WARNING, logger="lagassign_client"):
        assignment, decision = chief.decide(MEMBERS, METADATA.get)
    assert assignment is not None
    assert as_lists(assignment) == {"c-1": {"t0": [0, 2]}, "c-2": {"t0": [1, 3]}}
    assert (decision.by, decision.reason) == ("sidecar", reason)
    assert chief.blind_answers == {reason: 1}
    assert chief.fallbacks == {}
    assert chief.answers == 1
    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    assert said in record.getMessage()
    assert "group orders uses the sidecar's answer" in record.getMessage()
    note = decode_assignment(decision.user_data().encode())
    assert note is not None
    assert (note.by, note.reason) == ("sidecar", reason)


def test_an_answer_with_all_the_lag_is_not_blind(caplog: pytest.LogCaptureFixture) -> None:
    chief = leader(answering())
    with caplog.at_level(logging.WARNING, logger="lagassign_client"):
        _, decision = chief.decide(MEMBERS, METADATA.get)
    assert decision.reason is None
    assert chief.blind_answers == {}
    assert caplog.records == []


def test_every_decision_is_logged_at_info_with_its_numbers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="lagassign_client"):
        leader(answering()).decide(MEMBERS, METADATA.get)
    (record,) = caplog.records
    assert record.levelno == logging.INFO
    text = record.getMessage()
    assert "group orders assigned by the sidecar" in text
    for part in ("strategy=balanced", "members=2", "partitions=4", "max_member_lag=2"):
        assert part in text
    assert "mean_member_lag=2.0" in text
    assert "lag_source=kafka" in text
    assert "elapsed_ms=" in text


def test_a_fallback_is_one_warning_with_its_numbers(caplog: pytest.LogCaptureFixture) -> None:
    def failing(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503, text="down")

    with caplog.at_level(logging.DEBUG, logger="lagassign_client"):
        leader(failing).decide(MEMBERS, METADATA.get)
    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    text = record.getMessage()
    assert "falls back to the range assignor (status)" in text
    assert "members=2 partitions=4" in text
    assert "max_member_lag=unknown mean_member_lag=unknown" in text


@pytest.mark.parametrize("policy", ["earliest", "latest", "none"])
def test_the_reset_policy_travels_with_the_request(policy: str) -> None:
    requests: list[dict[str, object]] = []
    leader(answering(requests), reset_policy=policy).decide(MEMBERS, METADATA.get)
    assert requests[0]["reset_policy"] == policy


def test_without_a_reset_policy_the_sidecar_decides() -> None:
    requests: list[dict[str, object]] = []
    leader(answering(requests)).decide(MEMBERS, METADATA.get)
    assert "reset_policy" not in requests[0]


def test_a_wrong_reset_policy_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="reset_policy must be one of earliest, latest, none"):
        LagAssignor(url="http://127.0.0.1:8321", group_id="orders", reset_policy="smallest")


def test_an_answer_made_without_any_lag_reports_its_member_lag_unknown(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def no_lag_with_zero_stats(request: httpx.Request) -> httpx.Response:
        answer = roundrobin_answer(json.loads(request.content), NO_LAG)
        answer["stats"] = {**answer.get("stats", {}), "max_lag": 0, "mean_lag": 0.0}
        return httpx.Response(200, json=answer)

    with caplog.at_level(logging.INFO, logger="lagassign_client"):
        _, decision = leader(no_lag_with_zero_stats).decide(MEMBERS, METADATA.get)
    assert decision.reason == "lag_blind"
    assert (decision.max_lag, decision.mean_lag) == (None, None)
    info = next(r for r in caplog.records if r.levelno == logging.INFO).getMessage()
    assert "max_member_lag=unknown mean_member_lag=unknown" in info
    assert "max_member_lag=0" not in info


def test_the_collector_is_left_alone_unless_asked(caplog: pytest.LogCaptureFixture) -> None:
    """The request is built while the leader reads its metadata (``partitions_for_topic``):
    the collector runs then, unless the assignor was made with ``pause_gc=True``."""
    import gc

    def seen_by(assignor: LagAssignor) -> list[bool]:
        states: list[bool] = []

        def partitions_for_topic(topic: str) -> set[int] | None:
            states.append(gc.isenabled())
            return METADATA.get(topic)

        assignor.leader.decide(MEMBERS, partitions_for_topic)
        return states

    def make(**options: Any) -> LagAssignor:
        return LagAssignor(
            url="http://sidecar.test",
            group_id="orders",
            transport=httpx.MockTransport(answering()),
            **options,
        )

    assert gc.isenabled()
    assert seen_by(make()) == [True]
    assert seen_by(make(pause_gc=True)) == [False]
    assert gc.isenabled()
