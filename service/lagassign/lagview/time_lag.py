"""A lower bound of time lag that never hides a stalled partition.

The rate window (:mod:`lagassign.rates.window`) interpolates a partition's time
lag from its log ends, so it says nothing (``None``) once the committed offset
is older than the window's oldest point: exactly the partitions of a stalled
group, and every backlog right after the sidecar starts. This module gives, for
every partition that is behind, a time lag it is *at least*:

- **the oldest point known**: a partition whose committed offset has not moved
  since the view first saw it there, already behind its log end, at ``since``,
  has had its log end past that offset since ``since`` at the latest, so its
  time lag is at least ``as_of - since``. A committed offset that moves starts
  the clock again (the consumer is working; the rate window measures it).
- **the records' timestamps**: the first time the view sees a stall, it reads the
  timestamp of the record at the committed offset (:mod:`lagassign.lagview.kafka.record_times`,
  once per stall, at most 64 partitions a refresh); that record was written when the
  log end passed the offset, so the clock starts there when it is earlier. A refresh
  reads them before it publishes the snapshots that show the stalls (the store stages
  the clocks with :meth:`StallClock.observed`, :func:`stamp` and keeps them with the
  snapshots), so after a restart a backlog's bound is its full age from the first
  snapshot a reader sees.
- the same from the window's own points: when every log end the window holds
  is above the committed offset, the time lag is at least the window's span
  (:func:`window_floor_s`).

A bound of ``N`` reads "at least N s" (with producer-set ``CreateTime`` timestamps
the records' part trusts the producers' clocks). When no record timestamp can be
read, the clock starts at the first refresh after a restart and grows from 0.

Worked example: committed offset 500 first seen at 10:00:00 with log end 900;
still 500 at 10:16:40 with log end 1,400: time lag at least 1,000 s, whatever
the rate window says.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

from lagassign.lagview.snapshot import GroupSnapshot, PartitionLag

TopicPartition = tuple[str, int]
#: A behind partition's committed offset (``None``: no commit), since when it has been
#: behind there, and whether the timestamp of the record at that offset was asked for.
Stall = tuple[int | None, datetime, bool]
#: One group's stalls, by partition.
Stalls = dict[TopicPartition, Stall]


class StallClock:
    """Per group and partition: since when the committed offset has not moved while behind.

    Fed with every fresh snapshot (:meth:`observe`); bounded by the tracked
    partitions (a partition that catches up or leaves its group is dropped).
    """

    def __init__(self) -> None:
        self._groups: dict[str, Stalls] = {}

    def observed(self, snapshot: GroupSnapshot) -> Stalls:
        """The group's stalls once ``snapshot`` is seen, not kept yet (:meth:`keep`)."""
        old = self._groups.get(snapshot.group_id, {})
        new: Stalls = {}
        for p in snapshot.partitions:
            key = (p.topic, p.partition)
            kept = old.get(key)
            if p.stale or p.lag is None:
                # Nothing new is known: keep what was (a stale row says nothing of progress).
                if kept is not None:
                    new[key] = kept
                continue
            if p.lag <= 0:
                continue
            if kept is not None and kept[0] == p.current_offset:
                new[key] = kept
            else:
                new[key] = (p.current_offset, snapshot.as_of, p.current_offset is None)
        return new

    def keep(self, staged: Mapping[str, Stalls]) -> None:
        """Make each group's stalls of ``staged`` the clock's (a group without any is dropped)."""
        for group_id, stalls in staged.items():
            if stalls:
                self._groups[group_id] = stalls
            else:
                self._groups.pop(group_id, None)

    def observe(self, snapshot: GroupSnapshot) -> None:
        """Start, keep or stop the clock of each partition of a freshly read snapshot."""
        self.keep({snapshot.group_id: self.observed(snapshot)})

    def forget_all_but(self, groups: Iterable[str]) -> None:
        """Drop the clocks of every group not in ``groups``."""
        keep = set(groups)
        for group_id in [g for g in self._groups if g not in keep]:
            del self._groups[group_id]

    def since(self, group_id: str, topic: str, partition: int) -> datetime | None:
        """When the partition's committed offset was first seen where it is, behind."""
        stall = self._groups.get(group_id, {}).get((topic, partition))
        return None if stall is None else stall[1]

    def at_least(self, snapshot: GroupSnapshot) -> dict[TopicPartition, float]:
        """The lower bound of each behind partition of ``snapshot``, seconds (0 or more)."""
        stalls = self._groups.get(snapshot.group_id, {})
        out: dict[TopicPartition, float] = {}
        for p in snapshot.partitions:
            if not _behind(p):
                continue
            stall = stalls.get((p.topic, p.partition))
            if stall is None or stall[0] != p.current_offset:
                out[(p.topic, p.partition)] = 0.0
            else:
                out[(p.topic, p.partition)] = max(0.0, (snapshot.as_of - stall[1]).total_seconds())
        return out

    def worst_at_least(self, snapshot: GroupSnapshot) -> float:
        """The group's worst lower bound over every partition; 0 when none is behind."""
        return max(self.at_least(snapshot).values(), default=0.0)


def unstamped(staged: Mapping[str, Stalls], limit: int) -> dict[TopicPartition, int]:
    """Up to ``limit`` partitions (and committed offsets) whose record time was not asked."""
    out: dict[TopicPartition, int] = {}
    for stalls in staged.values():
        for key, (committed, _, stamped) in stalls.items():
            if not stamped and committed is not None and len(out) < limit:
                out.setdefault(key, committed)
    return out


def stamp(
    staged: Mapping[str, Stalls],
    wanted: Mapping[TopicPartition, int],
    found: Mapping[TopicPartition, int],
) -> None:
    """Mark ``wanted`` as asked in ``staged``; where the record at the offset is older, start there.

    ``found``: partition -> the record's timestamp in ms. A clock only moves back
    (a record written before the view first saw the stall), never forward.
    """
    for stalls in staged.values():
        for key, (committed, since, stamped) in list(stalls.items()):
            if stamped or wanted.get(key) != committed:
                continue
            written = found.get(key)
            if written is not None:
                since = min(since, datetime.fromtimestamp(written / 1000, UTC))
            stalls[key] = (committed, since, True)


def _behind(p: PartitionLag) -> bool:
    return p.lag is not None and p.lag > 0


def window_floor_s(times_ms: Iterable[int]) -> float | None:
    """The span of a window's points, seconds: a lower bound of a time lag older than all of them.

    Only for a partition whose committed offset is below every log end the
    window holds (its interpolated time lag is ``None``). ``None`` without points.

    >>> window_floor_s([1_000, 31_000, 61_000])
    60.0
    >>> window_floor_s([]) is None
    True
    """
    times = list(times_ms)
    if not times:
        return None
    return (times[-1] - times[0]) / 1000
