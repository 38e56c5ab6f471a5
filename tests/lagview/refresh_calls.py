"""A refresh listener that calls a function with each refresh's duration and outcome."""

from __future__ import annotations

from collections.abc import Callable

from lagassign.lagview.listeners import Refresh


class CallOnRefresh:
    def __init__(self, call: Callable[[float, bool], object]) -> None:
        self.call = call

    async def refreshed(self, refresh: Refresh) -> None:
        self.call(refresh.duration_s, refresh.ok)

    async def close(self) -> None:
        return None
