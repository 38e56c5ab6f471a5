"""aiokafka's repeated lines are rate-limited; the sidecar's own lines always pass."""

from __future__ import annotations

import logging

import pytest

from lagassign.redaction import RateLimitedClientLogs, configure_logging


def record(name: str, msg: str, *args: object, level: int = logging.ERROR) -> logging.LogRecord:
    return logging.LogRecord(name, level, __file__, 1, msg, args, None)


def test_repeats_of_a_client_line_are_dropped_then_counted() -> None:
    now = [0.0]
    limiter = RateLimitedClientLogs(interval_s=60, monotonic=lambda: now[0])
    template = "Unable connect to node with id %s: %s"
    passed = []
    for second in range(0, 180, 4):  # 45 attempts in 3 minutes, as in a broker outage
        now[0] = float(second)
        r = record("aiokafka.cluster", template, 1, "refused")
        if limiter.filter(r):
            passed.append((second, r.getMessage()))
    assert [s for s, _ in passed] == [0, 60, 120]
    assert passed[0][1] == "Unable connect to node with id 1: refused"
    assert passed[1][1].endswith("(14 alike suppressed in 60 s)")
    assert passed[2][1].endswith("(14 alike suppressed in 60 s)")


def test_different_lines_and_the_sidecars_own_lines_pass() -> None:
    limiter = RateLimitedClientLogs(interval_s=60, monotonic=lambda: 0.0)
    assert limiter.filter(record("aiokafka.conn", "a %s", 1))
    assert not limiter.filter(record("aiokafka.conn", "a %s", 2))
    assert limiter.filter(record("aiokafka.conn", "b"))
    assert limiter.filter(record("aiokafka.conn", "a %s", 1, level=logging.WARNING))
    assert limiter.filter(record("aiokafka", "top"))
    for _ in range(3):
        assert limiter.filter(record("lagassign.lagview.refresh", "lag refresh failed"))
        assert limiter.filter(record("aiokafkaesque", "not a client logger"))


def test_the_sidecars_handler_limits_client_lines_except_at_debug() -> None:
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        debug = configure_logging("debug", [])
        assert not any(isinstance(f, RateLimitedClientLogs) for f in debug.filters)
        info = configure_logging("info", [])
        assert any(isinstance(f, RateLimitedClientLogs) for f in info.filters)
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    with pytest.raises(ValueError, match="positive"):
        RateLimitedClientLogs(interval_s=0)
