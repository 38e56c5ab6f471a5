"""Which consumer groups the lag view tracks.

Three sources, merged: the groups named in the settings, the cluster's groups
whose id matches the settings' regex (the whole id must match, as Kafka's own
pattern subscriptions do), and groups registered on demand (by ``/assign``
for a group the view did not know).

Groups registered on demand are bounded: one unused for ``idle_s`` seconds is
dropped at the next :meth:`GroupTracking.select`, and past ``max_on_demand``
groups the least recently used is dropped at once. ``evicted_total`` counts both.
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable

from lagassign.lagview.errors import InvalidLagViewSettings


class GroupTracking:
    """The tracked group ids.

    >>> t = GroupTracking(["orders"], r"pay-.*")
    >>> t.register("late")
    >>> t.select(["pay-eu", "payroll", "orders", "other"])
    ['late', 'orders', 'pay-eu']
    """

    def __init__(
        self,
        groups: Iterable[str] = (),
        pattern: str | None = None,
        *,
        max_on_demand: int = 1_000,
        idle_s: float = 3_600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._named = frozenset(groups)
        if any(not g for g in self._named):
            raise InvalidLagViewSettings("a tracked group id must not be empty")
        try:
            self._pattern = re.compile(pattern) if pattern else None
        except re.error as exc:
            raise InvalidLagViewSettings(
                f"group pattern {pattern!r} is not a regex: {exc}"
            ) from exc
        if max_on_demand < 1 or idle_s <= 0:
            raise InvalidLagViewSettings("on-demand groups need a positive cap and idle time")
        self._max_on_demand = max_on_demand
        self._idle_s = idle_s
        self._clock = clock
        # group id -> when it was last registered, least recently used first.
        self._on_demand: OrderedDict[str, float] = OrderedDict()
        self.evicted_total = 0

    def register(self, group_id: str) -> list[str]:
        """Track ``group_id`` from now on; the groups dropped to stay within the cap."""
        if not group_id:
            raise InvalidLagViewSettings("a tracked group id must not be empty")
        self._on_demand[group_id] = self._clock()
        self._on_demand.move_to_end(group_id)
        dropped: list[str] = []
        while len(self._on_demand) > self._max_on_demand:
            dropped.append(self._on_demand.popitem(last=False)[0])
        self.evicted_total += len(dropped)
        return dropped

    def expire(self) -> list[str]:
        """Drop the on-demand groups unused for ``idle_s``; their ids."""
        oldest_kept = self._clock() - self._idle_s
        dropped: list[str] = []
        while self._on_demand:
            group_id, used = next(iter(self._on_demand.items()))
            if used > oldest_kept:
                break
            del self._on_demand[group_id]
            dropped.append(group_id)
        self.evicted_total += len(dropped)
        return dropped

    def select(self, listed: Iterable[str]) -> list[str]:
        """The tracked ids, given the cluster's current group ids, sorted (idle ones expire)."""
        self.expire()
        chosen = set(self._named) | set(self._on_demand)
        if self._pattern is not None:
            chosen.update(g for g in listed if self._pattern.fullmatch(g))
        return sorted(chosen)
