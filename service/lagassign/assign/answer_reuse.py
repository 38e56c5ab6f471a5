"""A group's last answer served again for the same request over the same lag.

The broker plugin asks again for a group that has not changed (a new group epoch with
the same members, subscriptions and owned partitions): the answer would be computed
again to the same bytes. It is served from the last one instead when all it depends
on is the same:

- the request's body is byte for byte the same (members, owned partitions, topics,
  partition counts, racks, strategy, protocol, answer form: everything it says);
- it resolves to the same group and, in the topic-id form, the same topic names;
- its lag has the same inputs (:class:`~lagassign.assign.lag_cache.LagInputs`: the
  same snapshot and rate window of the group, so no refresh came between) and the
  service's default strategy is the same.

The bytes served are the first answer's, ``stats.compute_ms`` and ``lag.age_seconds``
as they were then. One answer is kept per group, for at most ``max_groups`` groups
and ``max_bytes`` of bodies in all (the least recently used group goes first).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

from lagassign.assign.answer import Answer
from lagassign.assign.lag_cache import LagInputs

DEFAULT_MAX_GROUPS = 64
DEFAULT_MAX_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Asked:
    """What an answer depends on besides its lag's inputs (equal when every field is)."""

    body: bytes
    group_id: str
    topic_ids: Mapping[str, str] | None
    default_strategy: str


@dataclass(frozen=True, slots=True)
class Served:
    asked: Asked
    inputs: LagInputs
    answer: Answer
    body: bytes

    @property
    def size(self) -> int:
        return len(self.asked.body) + len(self.body)


class AnswerReuse:
    """Each group's last answer and what it depends on (see the module docstring)."""

    def __init__(
        self, max_groups: int = DEFAULT_MAX_GROUPS, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.max_groups = max_groups
        self.max_bytes = max_bytes
        self._served: OrderedDict[str, Served] = OrderedDict()
        self.bytes = 0
        self.reused = 0

    def get(self, asked: Asked, inputs: LagInputs) -> tuple[Answer, bytes] | None:
        """The group's last answer and its bytes, when it was asked and computed alike."""
        served = self._served.get(asked.group_id)
        if served is None or not (served.asked == asked and served.inputs.same_as(inputs)):
            return None
        self._served.move_to_end(asked.group_id)
        self.reused += 1
        return served.answer, served.body

    def put(self, asked: Asked, inputs: LagInputs, answer: Answer, body: bytes) -> None:
        served = Served(asked, inputs, answer, body)
        self._drop(asked.group_id)
        if served.size > self.max_bytes:
            return
        self._served[asked.group_id] = served
        self.bytes += served.size
        while len(self._served) > self.max_groups or self.bytes > self.max_bytes:
            self._drop(next(iter(self._served)))

    def _drop(self, group_id: str) -> None:
        served = self._served.pop(group_id, None)
        if served is not None:
            self.bytes -= served.size

    def __len__(self) -> int:
        return len(self._served)
