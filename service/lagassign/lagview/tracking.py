"""Which consumer groups the lag view tracks.

Three sources, merged: the groups named in the settings, the cluster's groups
whose id matches the settings' regex (the whole id must match, as Kafka's own
pattern subscriptions do), and groups registered on demand (by ``/assign``
for a group the view did not know).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lagassign.lagview.errors import InvalidLagViewSettings


class GroupTracking:
    """The tracked group ids.

    >>> t = GroupTracking(["orders"], r"pay-.*")
    >>> t.register("late")
    >>> t.select(["pay-eu", "payroll", "orders", "other"])
    ['late', 'orders', 'pay-eu']
    """

    def __init__(self, groups: Iterable[str] = (), pattern: str | None = None) -> None:
        self._named = frozenset(groups)
        if any(not g for g in self._named):
            raise InvalidLagViewSettings("a tracked group id must not be empty")
        try:
            self._pattern = re.compile(pattern) if pattern else None
        except re.error as exc:
            raise InvalidLagViewSettings(
                f"group pattern {pattern!r} is not a regex: {exc}"
            ) from exc
        self._on_demand: set[str] = set()

    def register(self, group_id: str) -> None:
        """Track ``group_id`` from now on."""
        if not group_id:
            raise InvalidLagViewSettings("a tracked group id must not be empty")
        self._on_demand.add(group_id)

    def select(self, listed: Iterable[str]) -> list[str]:
        """The tracked ids, given the cluster's current group ids, sorted."""
        chosen = set(self._named) | self._on_demand
        if self._pattern is not None:
            chosen.update(g for g in listed if self._pattern.fullmatch(g))
        return sorted(chosen)
