"""``lagassign_live_assignment_matches{group}``: is the live assignment the last answer?

Read at scrape time from the lag view's cached snapshots and the answer log, by
the comparison ``/groups`` shows (``lagassign.groups.live_match.live_status``, passed in
by the app: static members matched by ``group.instance.id``):

- 1: every partition is where the sidecar's last answer for the group put it;
- 0: it is not (the leader fell back to range, or rebalanced without asking);
- absent: not known (no answer yet, no snapshot, the answer is newer than the
  snapshot, or the live assignment is not known, as while the group rebalances).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from lagassign.assign.answer_log import AnswerRecord
from lagassign.lagview.reader import LagReader
from lagassign.lagview.snapshot import GroupSnapshot

#: The live-vs-last-answer status of a group: ``matches``, ``differs``, ``pending``, ``unknown``.
LiveStatus = Callable[[GroupSnapshot, AnswerRecord | None], str]

MATCH_VALUES = {"matches": 1.0, "differs": 0.0}


class AnswersReader(Protocol):
    """What the collector reads of the answer log."""

    def groups(self) -> list[str]: ...

    def last(self, group_id: str) -> AnswerRecord | None: ...


class LiveMatchCollector(Collector):
    def __init__(self, lag_view: LagReader, answers: AnswersReader, status: LiveStatus) -> None:
        self._lag_view = lag_view
        self._answers = answers
        self._status = status

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily(
            "lagassign_live_assignment_matches",
            "1 when the group's live assignment is the sidecar's last answer for it, 0 when "
            "it differs; absent when not known.",
            labels=["group"],
        )
        snapshots = self._lag_view.snapshots()
        for group_id in self._answers.groups():
            snapshot = snapshots.get(group_id)
            if snapshot is None:
                continue
            value = MATCH_VALUES.get(self._status(snapshot, self._answers.last(group_id)))
            if value is not None:
                family.add_metric([group_id], value)
        yield family

    def describe(self) -> Iterator[Metric]:
        return iter(())
