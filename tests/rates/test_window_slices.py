"""The rate window records a refresh in slices: the event loop gets a turn between them,
and the window ends as it would after recording each snapshot in one go."""

from __future__ import annotations

import asyncio

from lagassign.lagview.listeners import Refresh
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.rates.window import RECORD_SLICE, RateWindow
from tests.rates.test_window import row, snap

PARTITIONS = 2 * RECORD_SLICE + 7


def shots() -> list[GroupSnapshot]:
    """Three refreshes of one group: every partition's log end and commit move."""
    return [
        snap(
            10.0 * i,
            *(row(f"t{p % 3}", p, 100 * i + p, 90 * i + p // 2) for p in range(PARTITIONS)),
        )
        for i in range(1, 4)
    ]


def contents(window: RateWindow) -> dict[tuple[str, int], tuple[object, ...]]:
    return {
        key: (list(w.times), list(w.ends), list(w.committed), w.recent_produce, w.recent_consume)
        for key, w in window.group_windows("g").items()
    }


def test_a_refresh_gives_the_loop_a_turn_between_slices_and_ends_as_recorded_whole() -> None:
    whole, sliced = RateWindow(refresh_interval_s=10), RateWindow(refresh_interval_s=10)
    turns: list[int] = []

    async def run() -> None:
        async def other_caller() -> None:
            for _ in range(PARTITIONS):  # bounded: at most one turn per partition
                turns.append(len(sliced.group_windows("g")))
                await asyncio.sleep(0)

        for shot in shots():
            whole.record(shot)
            caller = asyncio.create_task(other_caller())
            await asyncio.sleep(0)  # the caller waits for its next turn
            turns.clear()
            await sliced.refreshed(Refresh(0.0, True, [shot]))
            assert len(turns) >= PARTITIONS // RECORD_SLICE
            caller.cancel()
            await asyncio.gather(caller, return_exceptions=True)

    asyncio.run(run())
    assert contents(sliced) == contents(whole)
    assert len(contents(whole)) == PARTITIONS
