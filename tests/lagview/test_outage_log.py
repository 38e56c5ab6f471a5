"""One INFO line when Kafka answers again, with the outage's length and failed refreshes."""

from __future__ import annotations

import logging

import pytest

from lagassign.lagview.listeners import Refresh
from lagassign.lagview.outage_log import OutageLog


def test_one_line_on_recovery(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    outage = OutageLog(monotonic=lambda: now[0])
    caplog.set_level(logging.INFO, logger="lagassign.lagview.outage_log")

    def refresh(at: float, up: bool) -> None:
        now[0] = at
        outage.observe(Refresh(duration_s=0.0, ok=up, fresh=(), kafka_up=up))

    refresh(0, True)
    for at in (10, 20, 30):
        refresh(at, False)
    assert caplog.messages == []
    refresh(40, True)
    refresh(50, True)
    assert caplog.messages == ["Kafka answers again after 30 s: 3 lag refreshes failed"]
    assert outage.recoveries == 1

    refresh(60, False)
    refresh(61, True)
    assert caplog.messages[-1] == "Kafka answers again after 1 s: 1 lag refresh failed"
    assert outage.recoveries == 2


def test_a_failed_group_read_with_kafka_up_is_no_outage(caplog: pytest.LogCaptureFixture) -> None:
    outage = OutageLog(monotonic=lambda: 0.0)
    caplog.set_level(logging.INFO, logger="lagassign.lagview.outage_log")
    outage.observe(Refresh(duration_s=0.1, ok=False, fresh=(), kafka_up=True))
    outage.observe(Refresh(duration_s=0.1, ok=True, fresh=(), kafka_up=True))
    assert caplog.messages == []
    assert outage.recoveries == 0
