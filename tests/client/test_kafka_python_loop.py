"""kafka-python's slow-step warning dropped for the shim's own sidecar call only, on
kafka-python's own logger."""

from __future__ import annotations

import logging
import threading

import pytest

from lagassign_client.assignor import kafka_python_loop

WARNING = (
    "Task <kafka.net.selector.Task object at 0x7f0> ran for %s (>0.100s threshold). It is"
    " blocking the event loop -- likely a tight sync loop inside a coroutine. Other pollers"
    " will time out."
)
selector = logging.getLogger(kafka_python_loop.SELECTOR_LOGGER)


def warned(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == selector.name]


def test_the_step_of_the_sidecar_call_is_not_warned(caplog: pytest.LogCaptureFixture) -> None:
    kafka_python_loop.held(0.4)
    with caplog.at_level(logging.WARNING):
        selector.warning(WARNING % "0.403s")
    assert warned(caplog) == []


def test_a_step_slow_for_another_reason_is_warned(caplog: pytest.LogCaptureFixture) -> None:
    kafka_python_loop.held(0.4)
    with caplog.at_level(logging.WARNING):
        selector.warning(WARNING % "0.950s")
        selector.warning(WARNING % "0.403s")  # the call's time is used once
    assert len(warned(caplog)) == 2


def test_another_threads_step_is_warned(caplog: pytest.LogCaptureFixture) -> None:
    kafka_python_loop.held(0.4)
    other = threading.Thread(target=selector.warning, args=(WARNING % "0.403s",))
    with caplog.at_level(logging.WARNING):
        other.start()
        other.join(10)
    assert len(warned(caplog)) == 1
    kafka_python_loop.held(0.0)


def test_a_quick_call_leaves_the_warnings_alone(caplog: pytest.LogCaptureFixture) -> None:
    kafka_python_loop.held(0.02)
    with caplog.at_level(logging.WARNING):
        selector.warning(WARNING % "0.150s")
    assert len(warned(caplog)) == 1
    assert selector.level == logging.NOTSET
