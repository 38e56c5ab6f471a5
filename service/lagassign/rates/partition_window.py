"""One partition's window: its points, its running rates and its reading rate.

Memory is bounded twice. A point leaves once the next one is older than the
window (``window_s``; the one point at or before the window's start stays, so
a step ending inside the window and a time lag reaching its start are both
seen). And the points are at least ``window_s / max_points`` apart: a new
point replaces the newest one while that one is closer than this to the one
before (only when both steps count, so resets and gaps always keep their
points), so a partition never holds more than ``max_points`` + 2 points
whatever the refresh interval. Each point is three 64-bit integers in
``array('q')`` columns, about 24 bytes.

The rates are kept as running sums (counted growth and counted milliseconds),
updated as points come and go, so reading them is O(1); the time lag is a
binary search. A group that has not been read for a whole window is
forgotten, and so is a partition its group no longer lists.

The reading rate (``reading_rate``, the drain model's member capacity) is the
consume rate since the committed offset started moving, within the newest
``recent_s``: from the oldest point in that span that a commit moved the
committed offset to (:meth:`PartitionWindow._moved`), to the newest point. A group
that stood still and has just started reading shows its rate from its second
moving refresh on, not averaged with the time it stood still. Starting at a
point a commit reached, never at a still one before it, means a consumer that
commits less often than the refresh interval is not credited with a whole
commit interval's records over one refresh: between its commits the figure
falls short (0 until its second commit), it never runs ahead by more than the
time from a commit to the refresh that saw it. A partition whose committed
offset has not moved in the span (it never read, or stopped reading) has no
figure. These points, one per refresh a commit moved the offset at, are kept
apart from the window's points (whose merging would lose where the movement
started), at most ``MOVES_PER_SPAN`` + 2 of them.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections import deque
from dataclasses import dataclass

from lagassign.rates.figures import NO_OFFSET, incarnation_start, step_counts, time_lag_s

#: The moves a reading rate may start from are kept at least ``recent_s`` / this apart.
MOVES_PER_SPAN = 8


@dataclass(frozen=True, slots=True)
class PartitionRates:
    """The live figures of one partition; ``None`` where nothing honest can be said."""

    lag_seconds: float | None
    produce_rate: float | None
    consume_rate: float | None


UNKNOWN_RATES = PartitionRates(None, None, None)


class PartitionWindow:
    """The points of one partition, oldest first, and the running sums of its rates."""

    __slots__ = (
        "committed",
        "committed_grown",
        "committed_ms",
        "end_bad",
        "end_grown",
        "end_ms",
        "ends",
        "moves",
        "reading_rate",
        "recent_produce",
        "start",
        "times",
    )

    def __init__(self) -> None:
        self.times = array("q")
        self.ends = array("q")
        self.committed = array("q")
        #: Index of the first point since the log end last moved back.
        self.start = 0
        self.end_grown = 0
        self.end_ms = 0
        self.committed_grown = 0
        self.committed_ms = 0
        #: The newest point whose log-end step did not count (a gap, a reset), -1 if
        #: none: the recent produce rate starts after it.
        self.end_bad = -1
        #: ``(time ms, committed offset)`` of the refreshes a commit moved the offset at,
        #: oldest first, within the newest ``recent_ms`` (:meth:`_moved`).
        self.moves: deque[tuple[int, int]] = deque()
        #: The rates over the newest ``recent_ms``, kept at each point (:meth:`_recent`).
        self.recent_produce: float | None = None
        self.reading_rate: float | None = None

    def __len__(self) -> int:
        return len(self.times)

    # --- the sums, one step at a time ------------------------------------------------

    def _step(self, i: int, sign: int, max_gap_ms: int) -> tuple[bool, bool]:
        """Add (``sign`` 1) or remove (-1) the step ending at point ``i``; whether each counts."""
        dt = self.times[i] - self.times[i - 1]
        end_step = self.ends[i] - self.ends[i - 1]
        end_ok = step_counts(dt, end_step, max_gap_ms)
        if end_ok:
            self.end_grown += sign * end_step
            self.end_ms += sign * dt
        before, after = self.committed[i - 1], self.committed[i]
        committed_ok = (
            before != NO_OFFSET
            and after != NO_OFFSET
            and step_counts(dt, after - before, max_gap_ms)
        )
        if committed_ok:
            self.committed_grown += sign * (after - before)
            self.committed_ms += sign * dt
        return end_ok, committed_ok

    def _pop_newest(self, max_gap_ms: int) -> None:
        self._step(len(self.times) - 1, -1, max_gap_ms)
        for column in (self.times, self.ends, self.committed):
            column.pop()
        if self.start >= len(self.times):
            self.start = incarnation_start(self.ends)
        self.end_bad = min(self.end_bad, len(self.times) - 1)

    def _pop_oldest(self, max_gap_ms: int) -> None:
        self._step(1, -1, max_gap_ms)
        for column in (self.times, self.ends, self.committed):
            del column[0]
        self.start = max(0, self.start - 1)
        self.end_bad = max(-1, self.end_bad - 1)

    # --- adding a point ------------------------------------------------------------------

    def add(
        self,
        t_ms: int,
        end: int,
        committed: int,
        *,
        window_ms: int,
        spacing_ms: int,
        max_gap_ms: int,
        max_points: int,
        recent_ms: int = 30_000,
    ) -> None:
        """Add the point of one refresh, then drop what the window no longer needs."""
        times = self.times
        if times and t_ms <= times[-1]:
            return  # the same refresh twice, or a clock that went back: keep what we have
        self._moved(t_ms, committed, max_gap_ms, recent_ms)
        n = len(times)
        if (
            n >= 2
            and times[-1] - times[-2] < spacing_ms
            and t_ms - times[-2] <= max_gap_ms
            and self._mergeable(end, committed)
        ):
            self._pop_newest(max_gap_ms)
        times.append(t_ms)
        self.ends.append(end)
        self.committed.append(committed)
        n = len(times)
        if n >= 2:
            end_ok, _ = self._step(n - 1, 1, max_gap_ms)
            if self.ends[-1] < self.ends[-2]:
                self.start = n - 1
            if not end_ok:
                self.end_bad = n - 1
        while len(times) >= 2 and (times[1] <= t_ms - window_ms or len(times) > max_points + 2):
            self._pop_oldest(max_gap_ms)
        self._recent(recent_ms)

    def _moved(self, t_ms: int, committed: int, max_gap_ms: int, recent_ms: int) -> None:
        """Note the refresh at ``t_ms`` in :attr:`moves` when a commit moved the offset
        since the previous refresh (called before the point is added).

        An offset reset starts the moves over, and so does a first commit (an unknown
        offset left none); a gap, an unknown offset or a first point leave none
        (nothing says when reading started). The
        moves older than ``recent_ms`` leave, and a move closer than ``recent_ms /
        MOVES_PER_SPAN`` to the one before replaces it (never the oldest).
        """
        moves = self.moves
        times, offsets = self.times, self.committed
        if committed == NO_OFFSET or not times or t_ms - times[-1] > max_gap_ms:
            moves.clear()
        elif committed != offsets[-1]:
            if committed < offsets[-1]:  # an offset reset: reading starts over
                moves.clear()
            elif len(moves) >= 2 and moves[-1][0] - moves[-2][0] < recent_ms // MOVES_PER_SPAN:
                moves.pop()
            moves.append((t_ms, committed))
        while moves and moves[0][0] < t_ms - recent_ms:
            moves.popleft()

    def _recent(self, recent_ms: int) -> None:
        """The recent rates, two subtractions each once their first point is found.

        Produce: from the newest point back to the last point at least ``recent_ms``
        older (or the oldest one), never across a step that did not count. Reading:
        from the oldest of :attr:`moves` to the newest point.
        """
        times = self.times
        newest = len(times) - 1
        anchor = bisect_right(times, times[newest] - recent_ms) - 1
        self.recent_produce = _growth(times, self.ends, max(anchor, self.end_bad, 0), newest)
        self.reading_rate = None
        if self.moves and self.moves[0][0] < times[newest]:
            since_ms, since = self.moves[0]
            self.reading_rate = (self.committed[newest] - since) * 1000 / (times[newest] - since_ms)

    def _mergeable(self, end: int, committed: int) -> bool:
        """Whether the newest point can be replaced: its step and the new one both move forward.

        Only then is the replacing step the sum of the two (the rates and the
        reset points stay the same). The caller checks that it spans no gap.
        """
        e1, e2 = self.ends[-2], self.ends[-1]
        c1, c2 = self.committed[-2], self.committed[-1]
        if not (e1 <= e2 <= end):
            return False
        if NO_OFFSET in (c1, c2, committed):
            return c1 == c2 == committed == NO_OFFSET
        return c1 <= c2 <= committed

    # --- reading -------------------------------------------------------------------------

    def produce_rate(self) -> float | None:
        return self.end_grown * 1000 / self.end_ms if self.end_ms > 0 else None

    def consume_rate(self) -> float | None:
        return self.committed_grown * 1000 / self.committed_ms if self.committed_ms > 0 else None

    def time_lag_s(self) -> float | None:
        if not self.times:
            return None
        return time_lag_s(self.times, self.ends, self.committed[-1], self.start)


def _growth(times: array[int], values: array[int], first: int, newest: int) -> float | None:
    """Records/s from point ``first`` to point ``newest``; ``None`` when they are one point."""
    if first >= newest:
        return None
    return (values[newest] - values[first]) * 1000 / (times[newest] - times[first])
