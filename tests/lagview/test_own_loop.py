"""The lag view on its own loop: the caller's loop runs while a refresh holds the view's thread."""

from __future__ import annotations

import asyncio
import threading

from lagassign.lagview.listeners import Refresh
from lagassign.lagview.own_loop import KafkaLoop
from lagassign.lagview.view import LagView

# Nothing listens on port 1 of the loopback: connections are refused at once.
NOWHERE = "127.0.0.1:1"
WAIT_S = 30.0


class HoldingListener:
    """Holds the thread it is told on (as CPU-bound refresh work does) until released."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.threads: list[str] = []

    async def refreshed(self, refresh: Refresh) -> None:
        self.threads.append(threading.current_thread().name)
        self.entered.set()
        self.release.wait(WAIT_S)

    async def close(self) -> None:
        self.threads.append(threading.current_thread().name)


def test_the_callers_loop_answers_while_a_refresh_holds_the_views_thread() -> None:
    holding = HoldingListener()
    own_loop = KafkaLoop("view-loop")
    view = LagView(NOWHERE, listeners=[holding], request_timeout_s=0.5, own_loop=own_loop)
    asyncio.run(refresh_while_called(view, holding))
    assert holding.threads == ["view-loop", "view-loop"]
    assert own_loop.loop is not None
    assert own_loop.loop.is_closed()
    # What the caller asked while the refresh ran reached the view, on the view's loop.
    assert "orders" in view.store.tracking.select([])


async def refresh_while_called(view: LagView, holding: HoldingListener) -> None:
    try:
        refresh = asyncio.create_task(view.refresh())
        assert await asyncio.to_thread(holding.entered.wait, WAIT_S)
        # The refresh is under way and holds its thread; this loop still runs other work.
        answered = asyncio.create_task(asyncio.sleep(0, result="answered"))
        assert await answered == "answered"
        assert not refresh.done()
        assert view.snapshots() == {}
        view.track("orders", ["t"])
        holding.release.set()
        assert await refresh is False  # nothing listens at NOWHERE
        assert view.kafka_up is False
    finally:
        holding.release.set()
        await view.stop()
