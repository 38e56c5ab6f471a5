"""The group as the leader sees it in a rebalance, and the ``POST /assign`` body it makes.

The leader's own metadata is authoritative: ``partitions`` holds the partition
count of every subscribed topic the leader has metadata for. A topic without
metadata is left out of the request and out of every member's topics (the
client libraries' range assignors skip such a topic the same way).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter, lt
from typing import Any

from lagassign_client.errors import IncompleteMetadata, InvalidAnswer, NoMetadataYet
from lagassign_client.wire import codec
from lagassign_client.wire.userdata import SubscriptionUserData

# member id -> its (topic, partition ids) pairs, topics in name order, ids ascending: the
# shape of Kafka's own member assignment, handed to the client libraries as it is
Assignment = dict[str, list[tuple[str, Sequence[int]]]]


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
        ids = known if isinstance(known, set | frozenset) else set(known)
        if ids and (min(ids) != 0 or max(ids) != len(ids) - 1):
            listed = sorted(ids)[:10]
            raise IncompleteMetadata(f"metadata of topic {topic!r} lists partitions {listed}")
        counts[topic] = len(ids)
    if wanted and not counts:
        raise NoMetadataYet("no subscribed topic has metadata yet")
    return counts


@dataclass(frozen=True, slots=True)
class GroupView:
    """Everything the leader knows of one rebalance.

    ``known_topics`` (derived): member id -> its subscribed topics the leader has
    metadata for, sorted; members with the same subscription share one tuple.
    """

    group_id: str
    subscribers: tuple[Subscriber, ...]
    partitions: Mapping[str, int]
    known_topics: Mapping[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Members of one group mostly share a subscription: work it out once per distinct one.
        shared: dict[tuple[str, ...], tuple[str, ...]] = {}
        known: dict[str, tuple[str, ...]] = {}
        for s in self.subscribers:
            topics = shared.get(s.topics)
            if topics is None:
                topics = tuple(sorted({t for t in s.topics if t in self.partitions}))
                shared[s.topics] = topics
            known[s.member_id] = topics
        object.__setattr__(self, "known_topics", known)

    def answered_members(self, answered: Collection[str]) -> dict[str, tuple[str, ...]]:
        """Member id -> its known topics, for each member the leader asks about; raises
        :class:`InvalidAnswer` when ``answered`` (the members an answer lists) leaves one
        out or names one it did not ask about."""
        topics_of = {m: ts for m, ts in self.known_topics.items() if ts}
        missing = topics_of.keys() - set(answered)
        if missing:
            raise InvalidAnswer(f"member {min(missing)!r} is missing from the answer")
        for member_id in answered:
            if member_id not in topics_of:
                raise InvalidAnswer(f"the answer names unknown member {member_id!r}")
        return topics_of

    def member_topics(self) -> dict[str, set[str]]:
        """Member id -> the subscribed topics the leader has metadata for."""
        return {m: set(ts) for m, ts in self.known_topics.items()}

    def _owned(self, owned: Mapping[str, Sequence[int]]) -> Mapping[str, Sequence[int]]:
        """The owned partitions the leader's metadata knows (sorted lists, none empty)."""
        counts = self.partitions
        if (
            owned.keys() <= counts.keys()
            and all(owned.values())
            and all(map(lt, map(itemgetter(-1), owned.values()), map(counts.__getitem__, owned)))
        ):
            return owned  # every topic known, every id below its topic's count: as it is
        kept = {
            t: [p for p in ps if p < counts[t]] for t, ps in sorted(owned.items()) if t in counts
        }
        return {t: ps for t, ps in kept.items() if ps}

    def request_body(self, strategy: str | None, reset_policy: str | None = None) -> dict[str, Any]:
        """The ``POST /assign`` request (``docs/http-api.md``), members with known topics only.

        The compact form: each distinct subscription once in ``subscriptions``, each member
        naming its own by index, and the answer asked for in the ``packed`` form
        (:data:`lagassign_client.wire.codec.ANSWER_FORM`).
        ``reset_policy`` is the consumer's ``auto_offset_reset``: the lag the sidecar
        counts for a partition without a committed offset.
        """
        subscriptions: list[tuple[str, ...]] = []
        index: dict[tuple[str, ...], int] = {}
        members: list[dict[str, Any]] = []
        for s in self.subscribers:
            topics = self.known_topics[s.member_id]
            if not topics:
                continue
            i = index.get(topics)
            if i is None:
                i = index[topics] = len(subscriptions)
                subscriptions.append(topics)
            members.append(
                {
                    "member_id": s.member_id,
                    "group_instance_id": s.instance_id(),
                    "subscription": i,
                    "owned": self._owned(s.user_data.owned),
                    "generation": s.user_data.generation,
                    "rack": s.user_data.rack,
                }
            )
        subscribed = {t for topics in subscriptions for t in topics}
        body: dict[str, Any] = {
            "group_id": self.group_id,
            "subscriptions": [list(topics) for topics in subscriptions],
            "members": members,
            "partitions": {t: n for t, n in sorted(self.partitions.items()) if t in subscribed},
            "protocol": "eager",
            "answer_form": codec.ANSWER_FORM,
        }
        if strategy is not None:
            body["strategy"] = strategy
        if reset_policy is not None:
            body["reset_policy"] = reset_policy
        return body
