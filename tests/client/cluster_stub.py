"""The one part of a client library's cluster metadata that assignors read."""

from __future__ import annotations

from collections.abc import Mapping


class PartitionsByTopic:
    """``partitions_for_topic`` over a fixed topic -> partition count map."""

    def __init__(self, counts: Mapping[str, int]) -> None:
        self._counts = dict(counts)

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        count = self._counts.get(topic)
        return None if count is None else set(range(count))
