"""The group as the leader sees it in a rebalance, and the ``POST /assign`` body it makes.

The leader's own metadata is authoritative: ``partitions`` holds the partition
count of every subscribed topic the leader has metadata for. A topic without
metadata is left out of the request and out of every member's topics (the
client libraries' range assignors skip such a topic the same way).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lagassign_client.errors import IncompleteMetadata, NoMetadataYet
from lagassign_client.userdata import SubscriptionUserData

# member id -> topic -> sorted partition ids
Assignment = dict[str, dict[str, list[int]]]


@dataclass(frozen=True, slots=True)
class Subscriber:
    """One member's subscription as the leader received it.

    ``group_instance_id`` is the static id the client library reports, if any;
    the one in ``user_data`` is used when the library drops it.
    """

    member_id: str
    topics: tuple[str, ...]
    user_data: SubscriptionUserData
    group_instance_id: str | None = None

    def instance_id(self) -> str | None:
        return self.group_instance_id or self.user_data.instance_id


def partition_counts(
    topics: Iterable[str], partitions_for_topic: Callable[[str], Iterable[int] | None]
) -> dict[str, int]:
    """Topic -> partition count from the leader's metadata, topics without metadata left out.

    Raises :class:`IncompleteMetadata` when a topic's partitions are not exactly
    ``0..n-1``, and :class:`NoMetadataYet` when no subscribed topic has metadata at all.
    """
    counts: dict[str, int] = {}
    wanted = sorted(set(topics))
    for topic in wanted:
        known = partitions_for_topic(topic)
        if known is None:
            continue
        ids = sorted(known)
        if ids != list(range(len(ids))):
            raise IncompleteMetadata(f"metadata of topic {topic!r} lists partitions {ids[:10]}")
        counts[topic] = len(ids)
    if wanted and not counts:
        raise NoMetadataYet("no subscribed topic has metadata yet")
    return counts


@dataclass(frozen=True, slots=True)
class GroupView:
    """Everything the leader knows of one rebalance."""

    group_id: str
    subscribers: tuple[Subscriber, ...]
    partitions: Mapping[str, int]

    def member_topics(self) -> dict[str, set[str]]:
        """Member id -> the subscribed topics the leader has metadata for."""
        return {
            s.member_id: {t for t in s.topics if t in self.partitions} for s in self.subscribers
        }

    def request_body(self, strategy: str | None, reset_policy: str | None = None) -> dict[str, Any]:
        """The ``POST /assign`` request (``docs/http-api.md``), members with known topics only.

        ``reset_policy`` is the consumer's ``auto_offset_reset``: the lag the sidecar
        counts for a partition without a committed offset.
        """
        members: list[dict[str, Any]] = []
        for s in self.subscribers:
            topics = sorted({t for t in s.topics if t in self.partitions})
            if not topics:
                continue
            owned = {
                t: [p for p in ps if p < self.partitions[t]]
                for t, ps in sorted(s.user_data.owned.items())
                if t in self.partitions
            }
            members.append(
                {
                    "member_id": s.member_id,
                    "group_instance_id": s.instance_id(),
                    "topics": topics,
                    "owned": {t: ps for t, ps in owned.items() if ps},
                    "generation": s.user_data.generation,
                    "rack": s.user_data.rack,
                }
            )
        subscribed = {t for m in members for t in m["topics"]}
        body: dict[str, Any] = {
            "group_id": self.group_id,
            "members": members,
            "partitions": {t: n for t, n in sorted(self.partitions.items()) if t in subscribed},
            "protocol": "eager",
        }
        if strategy is not None:
            body["strategy"] = strategy
        if reset_policy is not None:
            body["reset_policy"] = reset_policy
        return body
