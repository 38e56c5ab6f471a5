"""The last answers the service computed, per group, for ``/groups`` and the metrics.

Bounded: at most ``per_group`` answers for each of at most ``max_groups``
groups (the least recently answered group is forgotten first), and at most
``max_bytes`` in all by an estimate of each record's size in bytes (the oldest answers
of the least recently answered groups are dropped first). Ids count by their UTF-8
bytes, not their characters: Python holds a string of 4-byte characters in 4 bytes
a character, so counting characters let such ids hold four times the cap. Holds plain
summaries, not the requests, so a huge group does not pin its request in memory.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from lagassign.assign.answer import Answer
from lagassign.core.model import Assignment, AssignmentResult


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
    #: The answer as the strategy gave it; its nested form is built on first read.
    result: AssignmentResult
    #: member id -> ``group.instance.id``, for the members that have one (static members).
    instance_ids: Mapping[str, str] = field(default_factory=dict)

    @property
    def assignment(self) -> Assignment:
        return self.result.assignment


# What a record costs besides its assignment; each (member, topic) entry of it (a
# reference to the topic name, shared with the request, and a list); each partition number.
RECORD_BYTES = 400
ENTRY_BYTES = 16
PARTITION_BYTES = 8


def text_bytes(text: str) -> int:
    """The UTF-8 bytes of ``text``: at least what Python holds of its characters."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def record_bytes(group_id: str, record: AnswerRecord) -> int:
    """An estimate of the memory ``record`` holds: ids, topic entries, partition numbers.

    Reads each member once, not each partition: a million-partition answer is
    estimated in the time of its member count. An answer still in its array form
    is estimated as its nested form at the most (every partition its own entry, or
    every member every topic), which it may become when a page reads it.
    """
    size = RECORD_BYTES + text_bytes(group_id) + PARTITION_BYTES * record.partitions
    flat = record.result.flat
    if flat is not None:
        entries = min(flat.partition_count, len(flat.member_ids) * len(flat.topics))
        size += ENTRY_BYTES * entries + sum(map(text_bytes, flat.member_ids))
    else:
        for member_id, topics in record.assignment.items():
            size += text_bytes(member_id) + ENTRY_BYTES * len(topics)
    return size + sum(text_bytes(i) for i in record.instance_ids.values())


class AnswerLog:
    def __init__(
        self, per_group: int = 10, max_groups: int = 1_000, max_bytes: int = 64 * 1024 * 1024
    ) -> None:
        self._per_group = per_group
        self._max_groups = max_groups
        self._max_bytes = max_bytes
        self._records: OrderedDict[str, deque[tuple[AnswerRecord, int]]] = OrderedDict()
        self.bytes = 0

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
            result=answer.result,
            instance_ids={
                m.member_id: m.group_instance_id
                for m in answer.rebalance.members
                if m.group_instance_id
            },
        )
        group = answer.group_id
        records = self._records.get(group)
        if records is None:
            records = self._records[group] = deque()
            while len(self._records) > self._max_groups:
                self._drop_group(next(iter(self._records)))
        else:
            self._records.move_to_end(group)
        size = record_bytes(group, entry)
        records.append((entry, size))
        self.bytes += size
        if len(records) > self._per_group:
            self.bytes -= records.popleft()[1]
        while self.bytes > self._max_bytes and self._records:
            oldest_group, oldest = next(iter(self._records.items()))
            self.bytes -= oldest.popleft()[1]
            if not oldest:
                del self._records[oldest_group]
        return entry

    def _drop_group(self, group_id: str) -> None:
        self.bytes -= sum(size for _, size in self._records.pop(group_id))

    def recent(self, group_id: str) -> list[AnswerRecord]:
        """The group's answers, newest first."""
        return [record for record, _ in reversed(self._records.get(group_id, ()))]

    def last(self, group_id: str) -> AnswerRecord | None:
        records = self._records.get(group_id)
        return records[-1][0] if records else None

    def groups(self) -> list[str]:
        return sorted(self._records)
