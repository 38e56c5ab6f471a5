"""The collector pause is counted: overlapping pauses end together; an off collector stays off."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from lagassign.assign.collector import collector_paused


@pytest.fixture
def collector_on() -> Iterator[None]:
    was_on = gc.isenabled()
    gc.enable()
    yield
    if not was_on:
        gc.disable()


@pytest.mark.usefixtures("collector_on")
def test_overlapping_pauses_turn_it_back_on_only_after_the_last() -> None:
    first = collector_paused()
    second = collector_paused()
    first.__enter__()
    assert not gc.isenabled()
    second.__enter__()
    first.__exit__(None, None, None)  # the first ends while the second still runs
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_on")
def test_a_failure_inside_still_turns_it_back_on() -> None:
    with pytest.raises(ValueError, match="inside"), collector_paused():
        raise ValueError("inside")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    was_on = gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        if was_on:
            gc.enable()
