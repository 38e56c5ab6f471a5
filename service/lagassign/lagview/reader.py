"""What the HTTP service needs of the lag view, as a protocol.

The real :class:`lagassign.lagview.view.LagView` satisfies it; unit tests
pass small fakes (a view that answers slowly, fails, or holds given snapshots)
through the same ``create_app(settings, lag_view=...)`` door.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Protocol

from lagassign.lagview.consumer_index import ConsumerGroupIndex
from lagassign.lagview.snapshot import GroupSnapshot


class LagReader(Protocol):
    """The cached lag of tracked groups, and the health of the refresh loop."""

    @property
    def consumer_index(self) -> ConsumerGroupIndex: ...

    @property
    def first_snapshot_loaded(self) -> bool: ...

    @property
    def kafka_up(self) -> bool: ...

    @property
    def last_refresh_ok(self) -> datetime | None: ...

    @property
    def last_refresh_error(self) -> str | None: ...

    @property
    def last_refresh_seconds(self) -> float | None: ...

    @property
    def refresh_errors_total(self) -> int: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def snapshot(self, group_id: str) -> GroupSnapshot | None: ...

    def snapshots(self) -> Mapping[str, GroupSnapshot]: ...

    def track(self, group_id: str, topics: Collection[str] = ()) -> None: ...

    @property
    def tracked_groups_evicted_total(self) -> int: ...

    async def fetch_group(
        self, group_id: str, budget_s: float, topics: Collection[str] = ()
    ) -> GroupSnapshot | None: ...
