"""The last answers the service computed, per group, for ``/groups`` and the metrics.

Bounded: at most ``per_group`` answers for each of at most ``max_groups``
groups (the oldest group is forgotten first). Holds plain summaries, not the
requests, so a huge group does not pin its request in memory.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass
from datetime import datetime

from lagassign.assign.answer import Answer
from lagassign.core.model import Assignment


@dataclass(frozen=True, slots=True)
class AnswerRecord:
    """What ``/groups/{group_id}`` shows of one computed answer."""

    computed_at: datetime
    strategy: str
    lag_source: str
    imbalance: float
    max_lag: int
    moved: int
    compute_ms: float
    members: int
    partitions: int
    assignment: Assignment


class AnswerLog:
    def __init__(self, per_group: int = 10, max_groups: int = 1_000) -> None:
        self._per_group = per_group
        self._max_groups = max_groups
        self._records: OrderedDict[str, deque[AnswerRecord]] = OrderedDict()

    def record(self, answer: Answer) -> AnswerRecord:
        entry = AnswerRecord(
            computed_at=answer.computed_at,
            strategy=answer.strategy,
            lag_source=answer.lag.source,
            imbalance=answer.stats.imbalance,
            max_lag=answer.stats.max_lag,
            moved=answer.stats.moved,
            compute_ms=answer.compute_ms,
            members=answer.stats.members,
            partitions=answer.stats.partitions,
            assignment=answer.result.assignment,
        )
        records = self._records.get(answer.group_id)
        if records is None:
            records = self._records[answer.group_id] = deque(maxlen=self._per_group)
            while len(self._records) > self._max_groups:
                self._records.popitem(last=False)
        else:
            self._records.move_to_end(answer.group_id)
        records.append(entry)
        return entry

    def recent(self, group_id: str) -> list[AnswerRecord]:
        """The group's answers, newest first."""
        return list(reversed(self._records.get(group_id, ())))

    def last(self, group_id: str) -> AnswerRecord | None:
        records = self._records.get(group_id)
        return records[-1] if records else None

    def groups(self) -> list[str]:
        return sorted(self._records)
