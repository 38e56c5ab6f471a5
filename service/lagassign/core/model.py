"""Domain values of one rebalance: members, partition counts, lags, the answer.

These are frozen dataclasses over plain Python values. A ``Rebalance`` is always
built through :func:`make_rebalance`, which checks it once and puts it in
canonical order (members by member id, topics by name), so every strategy sees
the same input whatever order the caller used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from lagassign.core.errors import InvalidRebalance
from lagassign.core.flat import FlatAssignment
from lagassign.core.owned import SENT_OWNED, SentOwned, read_owned

Protocol = Literal["eager", "cooperative"]

# member id -> topic -> sorted partition ids
Assignment = dict[str, dict[str, list[int]]]


@dataclass(frozen=True, slots=True)
class Member:
    """One member of a consumer group as the group leader sees it.

    ``owned`` holds the partitions the member owned before this rebalance
    (topic -> partition ids), as its subscription user data reported them.
    """

    member_id: str
    topics: tuple[str, ...]
    group_instance_id: str | None = None
    owned: Mapping[str, Sequence[int]] = field(default_factory=dict)
    generation: int | None = None
    rack: str | None = None


@dataclass(frozen=True, slots=True)
class Rebalance:
    """Everything a strategy needs to assign one group's partitions.

    - ``members``: sorted by member id; each member's ``topics`` sorted.
    - ``partitions``: topic -> partition count, for every subscribed topic
      (topics nobody subscribes to are dropped).
    - ``lags``: topic -> one non-negative lag per partition, for every topic in
      ``partitions`` (zeros where no lag is known).
    - ``partition_racks``: topic -> per partition, the racks of its replicas;
      empty when racks are not known.
    - ``protocol``: ``eager`` or ``cooperative``.
    - ``flows``: the lags are drain weights that hold production (the ``drain`` lag
      model with some produce rate above 0): partitions are unlike, and ``balanced``
      may leave partition counts uneven where the weights ask for it.
    - ``derived``: not an input: values computed from the others once and shared
      read-only by the strategy, the statistics and the cooperative rule (the owned
      maps as :func:`make_rebalance` read them, the previous owner of every
      partition: a million of each in a large group).
    """

    members: tuple[Member, ...]
    partitions: Mapping[str, int]
    lags: Mapping[str, Sequence[int]]
    partition_racks: Mapping[str, Sequence[Sequence[str]]] = field(default_factory=dict)
    protocol: Protocol = "eager"
    flows: bool = False
    derived: dict[object, object] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def subscribers(self) -> dict[str, list[str]]:
        """Topic -> member ids subscribed to it, sorted (topics sorted)."""
        out: dict[str, list[str]] = {t: [] for t in sorted(self.partitions)}
        for m in self.members:
            for t in m.topics:
                out[t].append(m.member_id)
        return out

    def partition_count(self) -> int:
        return sum(self.partitions.values())


class AssignmentResult:
    """A strategy's answer.

    ``assignment`` lists every member (possibly with nothing) and, per topic, a
    sorted list of partitions. ``revoked`` is used in the cooperative protocol
    only: member -> topic -> partitions that member owned, that now go to
    another member, and that are therefore withheld from everyone this round.
    ``settled_by`` is the strategy's account of how it reached the answer, when
    it gives one: the balanced strategy names the stage that settled it.

    A strategy may give its answer as a :class:`~lagassign.core.flat.FlatAssignment`
    (``flat``) instead of the nested ``assignment``: the nested form is then built
    from it the first time it is read (topics a member gets nothing of left out),
    and readers that can work on the array (the statistics, the response's bytes)
    use ``flat`` and never build it.
    """

    __slots__ = ("_assignment", "flat", "revoked", "settled_by")

    def __init__(
        self,
        assignment: Assignment | None = None,
        revoked: Assignment | None = None,
        settled_by: str | None = None,
        *,
        flat: FlatAssignment | None = None,
    ) -> None:
        if assignment is None and flat is None:
            raise TypeError("an AssignmentResult needs an assignment or a flat assignment")
        self._assignment = assignment
        self.flat = flat
        self.revoked: Assignment = {} if revoked is None else revoked
        self.settled_by = settled_by

    @property
    def assignment(self) -> Assignment:
        if self._assignment is None:
            if self.flat is None:
                raise AssertionError("an AssignmentResult always has one of its forms")
            self._assignment = self.flat.nested()
        return self._assignment

    def settled(self, settled_by: str | None) -> AssignmentResult:
        """The same answer with ``settled_by`` set."""
        return AssignmentResult(self._assignment, self.revoked, settled_by, flat=self.flat)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AssignmentResult):
            return NotImplemented
        return (self.assignment, self.revoked, self.settled_by) == (
            other.assignment,
            other.revoked,
            other.settled_by,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"AssignmentResult(assignment={self.assignment!r}, revoked={self.revoked!r}, "
            f"settled_by={self.settled_by!r})"
        )


def make_rebalance(
    members: Iterable[Member],
    partitions: Mapping[str, int],
    lags: Mapping[str, Sequence[int]] | None = None,
    partition_racks: Mapping[str, Sequence[Sequence[str]]] | None = None,
    protocol: Protocol = "eager",
    flows: bool = False,
) -> Rebalance:
    """Check the inputs of a rebalance and return them in canonical order.

    Raises :class:`InvalidRebalance` naming the first offending field, with
    the same paths as the ``POST /assign`` request (``members[2].topics``).
    Lags missing for a topic count as zero; lags for topics that no member
    subscribes to are ignored.
    """
    given = list(members)
    if not given:
        raise InvalidRebalance("members must not be empty")
    seen: set[str] = set()
    instance_ids: set[str] = set()
    # Each distinct topic list is checked and put in order once: in a large group
    # most members share one subscription (hundreds of topics).
    canon_topics: dict[tuple[str, ...], tuple[str, ...]] = {}
    for i, m in enumerate(given):
        if not m.member_id:
            raise InvalidRebalance(f"members[{i}].member_id must not be empty")
        if m.member_id in seen:
            raise InvalidRebalance(f"members[{i}].member_id {m.member_id!r} is duplicated")
        seen.add(m.member_id)
        if m.group_instance_id is not None:
            if m.group_instance_id in instance_ids:
                raise InvalidRebalance(
                    f"members[{i}].group_instance_id {m.group_instance_id!r} is duplicated"
                )
            instance_ids.add(m.group_instance_id)
        if not m.topics:
            raise InvalidRebalance(f"members[{i}].topics must not be empty")
        key = tuple(m.topics)  # the same object when it is a tuple already
        if key not in canon_topics:
            for topic in key:
                if topic not in partitions:
                    raise InvalidRebalance(
                        f"members[{i}].topics names {topic!r}, which is missing from partitions"
                    )
            canon_topics[key] = tuple(sorted(set(key)))
    read = read_owned([m.owned for m in given], partitions)
    in_order = read.in_order
    for topic, count in partitions.items():
        if count < 0:
            raise InvalidRebalance(f"partitions[{topic!r}] must not be negative, got {count}")

    subscribed = {t for topics in canon_topics.values() for t in topics}
    canon_partitions = {t: partitions[t] for t in sorted(subscribed)}
    canon_lags: dict[str, Sequence[int]] = {}
    for topic, count in canon_partitions.items():
        topic_lags = (lags or {}).get(topic)
        if topic_lags is None:
            canon_lags[topic] = [0] * count
            continue
        if len(topic_lags) != count:
            raise InvalidRebalance(
                f"lags[{topic!r}] has {len(topic_lags)} values but the topic has {count} partitions"
            )
        if count and min(topic_lags) < 0:
            raise InvalidRebalance(f"lags[{topic!r}] must not hold negative values")
        canon_lags[topic] = topic_lags

    canon_racks: dict[str, Sequence[Sequence[str]]] = {}
    for topic, racks in (partition_racks or {}).items():
        if topic not in canon_partitions:
            continue
        if len(racks) != canon_partitions[topic]:
            raise InvalidRebalance(
                f"partition_racks[{topic!r}] has {len(racks)} entries but the topic has "
                f"{canon_partitions[topic]} partitions"
            )
        canon_racks[topic] = racks

    every_topic_subscribed = len(canon_partitions) == len(partitions)

    def canonical_owned(i: int) -> Mapping[str, Sequence[int]]:
        owned = given[i].owned
        if in_order[i] and (every_topic_subscribed or canon_partitions.keys() >= owned.keys()):
            return owned  # the usual case: as the leader sent it
        return {
            t: canonical_partitions(ps)
            for t, ps in sorted(owned.items())
            if t in canon_partitions and ps
        }

    order = sorted(range(len(given)), key=lambda i: given[i].member_id)
    canon_members = tuple(
        Member(
            member_id=given[i].member_id,
            topics=canon_topics[tuple(given[i].topics)],
            group_instance_id=given[i].group_instance_id,
            owned=canonical_owned(i),
            generation=given[i].generation,
            rack=given[i].rack,
        )
        for i in order
    )
    rebalance = Rebalance(
        members=canon_members,
        partitions=canon_partitions,
        lags=canon_lags,
        partition_racks=canon_racks,
        protocol=protocol,
        flows=flows,
    )
    if every_topic_subscribed and len(read.parts) and all(in_order):
        position = np.empty(len(given), dtype=np.int64)
        position[order] = np.arange(len(given))
        rebalance.derived[SENT_OWNED] = SentOwned(read, position)
    return rebalance


def canonical_partitions(partitions: Sequence[int]) -> tuple[int, ...]:
    """Partition ids ascending, each once (one id is its own answer: the usual owned case)."""
    if len(partitions) == 1:
        return tuple(partitions)
    return tuple(sorted(set(partitions)))
