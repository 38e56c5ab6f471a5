"""How each group's live assignment was made, as the refreshes see it in the user data.

lagassign's shims write into every member's assignment whether the leader used the
sidecar's answer or fell back to the range assignor, and why
(:mod:`lagassign.lagview.assignment_note`). The lag view reads those bytes with
``DescribeGroups`` on every refresh, so the sidecar learns of a fallback even when
the leader never reached it, and a sidecar that restarted sees it again at once.

:class:`AssignmentWatch` is a refresh listener and a Prometheus collector:

- ``lagassign_group_fallbacks_seen_total{group, reason}``: live assignments made by
  the range fallback, one per new assignment (a changed member set, generation or
  note); ``/groups`` shows every kind (``assignments_seen``). A rebalance that
  starts and ends between two refreshes is not seen; a sidecar that restarts counts
  the group's current assignment once again.
- ``lagassign_group_live_fallback{group}``: 1 while the live assignment is the
  shims' range fallback, 0 while it is a sidecar answer, absent when no note is
  known (another assignor, a group rebalancing, or not described yet).
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Iterator, Mapping

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from lagassign.lagview.assignment_note import FALLBACKS, AssignmentNote, live_note
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.reader import LagReader
from lagassign.lagview.snapshot import GroupSnapshot

#: What makes one live assignment another: its members (by instance id when static)
#: with the generation each said its partitions came from, and the note.
Fingerprint = tuple[tuple[tuple[str, int | None], ...], AssignmentNote]


def fingerprint(snapshot: GroupSnapshot) -> Fingerprint | None:
    """The live assignment's identity; ``None`` when it carries no lagassign note."""
    note = live_note(m.note for m in snapshot.members)
    if note is None:
        return None
    # A static member that restarts keeps its instance id and its assignment.
    members = tuple(
        sorted((m.group_instance_id or m.member_id, m.generation) for m in snapshot.members)
    )
    return members, note


class AssignmentWatch(Collector):
    """Counts the live assignments each group's refreshes saw, by how they were made."""

    def __init__(self, lag_view: LagReader | None = None, *, max_groups: int = 1_000) -> None:
        self._lag_view = lag_view
        self._max_groups = max_groups
        self._last: OrderedDict[str, Fingerprint] = OrderedDict()
        self._seen: dict[str, Counter[tuple[str, str]]] = {}

    def watch(self, lag_view: LagReader) -> None:
        """Read the live notes of ``lag_view``'s snapshots at scrape time."""
        self._lag_view = lag_view

    def observe(self, snapshot: GroupSnapshot) -> None:
        """Count the snapshot's live assignment if the last refresh did not see it already."""
        seen = fingerprint(snapshot)
        group_id = snapshot.group_id
        if seen is None or self._last.get(group_id) == seen:
            return
        self._last[group_id] = seen
        self._last.move_to_end(group_id)
        note = seen[1]
        self._seen.setdefault(group_id, Counter())[(note.by, note.reason or "")] += 1
        while len(self._last) > self._max_groups:
            dropped, _ = self._last.popitem(last=False)
            self._seen.pop(dropped, None)

    def seen(self, group_id: str) -> Mapping[tuple[str, str], int]:
        """(by, reason or "") -> live assignments of that kind seen (a copy)."""
        return dict(self._seen.get(group_id, {}))

    async def refreshed(self, refresh: Refresh) -> None:
        """As a refresh listener of the lag view."""
        for snapshot in refresh.fresh:
            self.observe(snapshot)

    async def close(self) -> None:
        """Nothing to finish."""

    def collect(self) -> Iterator[Metric]:
        seen = CounterMetricFamily(
            "lagassign_group_fallbacks_seen",
            "Live assignments the lag refreshes saw made by the shims' range fallback, "
            "by the fallback's reason (from the assignment user data).",
            labels=["group", "reason"],
        )
        for group_id in sorted(self._seen):
            for (by, reason), count in sorted(self._seen[group_id].items()):
                if by in FALLBACKS:
                    seen.add_metric([group_id, reason], float(count))
        yield seen
        fallback = GaugeMetricFamily(
            "lagassign_group_live_fallback",
            "1 while the group's live assignment is the shims' range fallback, 0 while it "
            "is the sidecar's answer (from the assignment user data); absent when not known.",
            labels=["group"],
        )
        if self._lag_view is not None:
            for group_id, snapshot in sorted(self._lag_view.snapshots().items()):
                note = live_note(m.note for m in snapshot.members)
                if note is not None:
                    fallback.add_metric([group_id], 1.0 if note.fallback else 0.0)
        yield fallback

    def describe(self) -> Iterator[Metric]:
        return iter(())
