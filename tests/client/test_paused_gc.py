"""``wire.paused_gc``: the collector paused for the block, what the block made moved to the
oldest generation afterwards, and an application's own frozen objects left frozen."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from lagassign_client.wire.codec import paused_gc

MADE = 50_000


@pytest.fixture
def collector_on() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if not was_enabled:
            gc.disable()


def test_the_block_runs_paused_and_what_it_made_joins_the_oldest_generation(
    collector_on: None,
) -> None:
    with paused_gc():
        assert not gc.isenabled()
        made = [[i] for i in range(MADE)]
        assert gc.get_count()[0] >= MADE  # young objects pile up while paused
    assert gc.isenabled()
    # the block's lists joined the oldest generation: no young collection walks them (a
    # young collection would have moved them to the middle one)
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert id(made) in oldest
    assert id(made[0]) in oldest
    assert id(made[-1]) in oldest


def test_a_paused_collector_stays_paused(collector_on: None) -> None:
    gc.disable()
    with paused_gc():
        made = [[i] for i in range(MADE)]
    assert not gc.isenabled()
    # nothing moved: the caller's pause, the caller's call
    assert id(made[0]) not in {id(o) for o in gc.get_objects(generation=2)}


def collected(o: object) -> bool:
    """True if the collector walks ``o`` (a frozen object is in none of its generations)."""
    return id(o) in {id(c) for c in gc.get_objects()}


def test_objects_the_application_froze_stay_frozen(collector_on: None) -> None:
    # The application's own object, not the freeze count: other threads of the test
    # process may free frozen objects meanwhile.
    application = [object()]
    assert collected(application)
    gc.freeze()
    try:
        assert not collected(application)
        with paused_gc():
            made = [[i] for i in range(MADE)]
        assert not collected(application)
        assert len(made) == MADE
    finally:
        gc.unfreeze()
