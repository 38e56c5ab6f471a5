"""The rate window: per group and partition, the offsets of the last minutes, fed by each refresh.

:class:`RateWindow` is a refresh listener of the lag view
(:mod:`lagassign.lagview.listeners`): after every refresh it adds, for each
partition of each freshly read group, one point (the snapshot's time, the log
end offset, the committed offset). The figures
(:mod:`lagassign.rates.figures`) are read from it at any time: produce rate,
consume rate and time lag per partition, and a group's lag over time.

Each partition's points and figures are a
:class:`~lagassign.rates.partition_window.PartitionWindow`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Iterator, Mapping

from lagassign.lagview.listeners import Refresh
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.rates.figures import NO_OFFSET
from lagassign.rates.partition_window import PartitionRates, PartitionWindow

log = logging.getLogger(__name__)

TopicPartition = tuple[str, int]

DEFAULT_WINDOW_S = 900.0
DEFAULT_MAX_POINTS = 64
#: How far back a partition's *recent* rates reach (the drain model reads them).
DEFAULT_RECENT_S = 30.0
#: The longest step that counts is at least this long (the pipeline's default).
MIN_MAX_GAP_S = 60.0


def _time_of(snapshot: GroupSnapshot) -> int:
    """The snapshot's time in ms, the time of its points."""
    return round(snapshot.as_of.timestamp() * 1000)


class RateWindow:
    """Every tracked group's partition windows; a refresh listener of the lag view.

    - ``window_s``: how far back the window reaches (default 15 minutes);
    - ``max_points``: the most points a partition keeps (besides the newest and
      the one before the window's start);
    - ``refresh_interval_s``: the lag view's; a step longer than
      ``max(60 s, 3 refresh intervals + the point spacing)`` is a gap;
    - ``recent_s``: how far back each partition's recent rates reach
      (``recent_produce``: from the newest point back to the last point at least that
      much older, never across a gap or a reset; ``reading_rate``: since the committed
      offset started moving within that span, see the module docstring; both kept as
      each point is added, so reading them costs nothing).

    The lag view records on its own thread while routes and worker threads read:
    :attr:`lock` is held while a group is recorded, and by :meth:`rates_of` and
    :meth:`lag_line`; a reader of :meth:`partition_window` that calls a window's
    methods over several partitions holds it too (``with window.lock:``), so it never
    sees a window half-way through an added point.
    """

    def __init__(
        self,
        *,
        window_s: float = DEFAULT_WINDOW_S,
        max_points: int = DEFAULT_MAX_POINTS,
        refresh_interval_s: float = 10.0,
        recent_s: float = DEFAULT_RECENT_S,
    ) -> None:
        if window_s <= 0 or refresh_interval_s <= 0:
            raise ValueError("window_s and refresh_interval_s must be positive")
        if max_points < 2:
            raise ValueError("max_points must be at least 2")
        self.window_ms = round(window_s * 1000)
        self.recent_ms = round(recent_s * 1000)
        self.max_points = max_points
        self.spacing_ms = self.window_ms // max_points
        self.max_gap_ms = max(
            round(MIN_MAX_GAP_S * 1000), round(3 * refresh_interval_s * 1000) + self.spacing_ms
        )
        self._groups: dict[str, dict[TopicPartition, PartitionWindow]] = {}
        self._newest: dict[str, int] = {}
        self.lock = threading.RLock()

    @property
    def window_s(self) -> float:
        return self.window_ms / 1000

    # --- as a refresh listener -------------------------------------------------------------

    async def refreshed(self, refresh: Refresh) -> None:
        """Record every fresh snapshot (on the lag view's own loop, in its own thread)."""
        newest = 0
        for snapshot in refresh.fresh:
            newest = max(newest, self.record(snapshot))
        if newest:
            self.forget_older_than(newest - self.window_ms)

    async def close(self) -> None:
        """Nothing to finish: the window lives in memory only."""

    # --- feeding -------------------------------------------------------------------------

    def record(self, snapshot: GroupSnapshot) -> int:
        """Add one point per partition of ``snapshot`` with a known log end; its time in ms.

        A partition the snapshot no longer lists leaves the window; a row kept
        from an earlier refresh (``stale``) adds nothing. The group's mapping of
        windows is replaced once every partition is recorded.
        """
        with self.lock:
            t_ms = _time_of(snapshot)
            old = self._groups.get(snapshot.group_id, {})
            windows: dict[TopicPartition, PartitionWindow] = {}
            window_ms, spacing_ms = self.window_ms, self.spacing_ms
            max_gap_ms, max_points, recent_ms = self.max_gap_ms, self.max_points, self.recent_ms
            for p in snapshot.partitions:
                key = (p.topic, p.partition)
                window = old.get(key)
                if window is None:
                    window = PartitionWindow()
                windows[key] = window
                if p.stale or p.log_end_offset is None:
                    continue
                committed = NO_OFFSET if p.current_offset is None else p.current_offset
                window.add(
                    t_ms,
                    p.log_end_offset,
                    committed,
                    window_ms=window_ms,
                    spacing_ms=spacing_ms,
                    max_gap_ms=max_gap_ms,
                    max_points=max_points,
                    recent_ms=recent_ms,
                )
            self._groups[snapshot.group_id] = windows
            self._newest[snapshot.group_id] = t_ms
        return t_ms

    def forget_older_than(self, t_ms: int) -> None:
        """Drop the groups whose newest point is older than ``t_ms``."""
        for group_id in [g for g, newest in self._newest.items() if newest < t_ms]:
            del self._newest[group_id]
            self._groups.pop(group_id, None)

    def forget(self, group_id: str) -> None:
        self._newest.pop(group_id, None)
        self._groups.pop(group_id, None)

    # --- reading -------------------------------------------------------------------------

    def groups(self) -> list[str]:
        return sorted(self._groups)

    def partition_window(self, group_id: str, topic: str, partition: int) -> PartitionWindow | None:
        return self._groups.get(group_id, {}).get((topic, partition))

    def group_windows(self, group_id: str) -> Mapping[TopicPartition, PartitionWindow]:
        """The group's windows by partition (read-only; a refresh replaces the mapping whole)."""
        return self._groups.get(group_id, {})

    def rates_of(self, snapshot: GroupSnapshot) -> dict[TopicPartition, PartitionRates]:
        """The figures of every partition of ``snapshot``.

        Time lag: 0 when the snapshot's lag is 0 (by the lag rules), ``None``
        when its lag or its committed offset is unknown, else from the window.
        """
        with self.lock:
            windows = self._groups.get(snapshot.group_id, {})
            out: dict[TopicPartition, PartitionRates] = {}
            for p in snapshot.partitions:
                key = (p.topic, p.partition)
                window = windows.get(key)
                if window is None:
                    out[key] = PartitionRates(0.0 if p.lag == 0 else None, None, None)
                    continue
                if p.lag == 0:
                    lag_seconds: float | None = 0.0
                elif p.lag is None or p.current_offset is None:
                    lag_seconds = None
                else:
                    lag_seconds = window.time_lag_s()
                out[key] = PartitionRates(lag_seconds, window.produce_rate(), window.consume_rate())
        return out

    def lag_line(
        self, group_id: str, partitions: Iterable[TopicPartition]
    ) -> list[tuple[int, int]]:
        """``(time ms, lag)`` over the window: the summed record lag of ``partitions``.

        At each time any of them has a point, the lags (log end - committed,
        at least 0) of those that have one then and a known committed offset.
        The partitions of one group share their refresh times.
        """
        with self.lock:
            windows = self._groups.get(group_id, {})
            summed: dict[int, int] = {}
            for key in partitions:
                window = windows.get(key)
                if window is None:
                    continue
                for t, end, committed in zip(
                    window.times, window.ends, window.committed, strict=True
                ):
                    if committed != NO_OFFSET:
                        summed[t] = summed.get(t, 0) + max(0, end - committed)
        return sorted(summed.items())

    def sizes(self) -> tuple[int, int]:
        """How many partition windows and points the window holds."""
        windows = [w for group in self._groups.values() for w in group.values()]
        return len(windows), sum(len(w) for w in windows)

    def __iter__(self) -> Iterator[str]:
        return iter(self.groups())
