"""What the broker plugin's requests are resolved with: member id -> group, topic id -> name.

The broker's assignor is not told which group it assigns and names topics by
id, so the sidecar keeps, from its own refreshes only (never from Kafka during
a request):

- the member index: every member of every tracked consumer-protocol group
  (``ConsumerGroupDescribe``), rebuilt on each refresh;
- the topic names: the ids ``ConsumerGroupDescribe`` reports beside names, and the
  cluster's topic ids from ``Metadata`` (v10+), asked again only when a refresh finds
  a subscribed topic it cannot name or a request asked for an id the index lacked
  (:meth:`ConsumerGroupIndex.unknown_id_asked`): a topic's id never changes while it
  exists.

A request is resolved through the members the index knows; members it does not
know yet (they joined since the last refresh) follow them. None known: the
group is unknown; known members in two groups: ambiguous.

>>> index = ConsumerGroupIndex()
>>> index.rebuild({"orders": ["m-1", "m-2"], "audit": ["m-9"]}, {"Tid": "t0"})
>>> index.resolve(["m-1", "m-new"])
Resolution(group_id='orders', known=1, groups=('orders',))
>>> index.resolve(["m-1", "m-9"]).groups
('audit', 'orders')
>>> index.topic_name("Tid")
't0'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True, slots=True)
class Resolution:
    """How a set of member ids resolved: the group (``None`` unless exactly one) and why."""

    group_id: str | None
    known: int
    groups: tuple[str, ...]


class ConsumerGroupIndex:
    """Member id -> consumer-protocol group id, and topic id -> topic name."""

    def __init__(self) -> None:
        self._groups: Mapping[str, str] = MappingProxyType({})
        self._topics: Mapping[str, str] = MappingProxyType({})
        self._unknown_asked = False

    def rebuild(self, members: Mapping[str, Iterable[str]], topic_names: Mapping[str, str]) -> None:
        """Replace the index: ``members`` is group id -> its member ids now.

        The new maps replace the old ones whole, so a reader never sees a half-built index.
        """
        groups = {m: g for g, ids in sorted(members.items()) for m in ids}
        self._groups = MappingProxyType(groups)
        self._topics = MappingProxyType(dict(topic_names))

    @property
    def members(self) -> int:
        return len(self._groups)

    def group_of(self, member_id: str) -> str | None:
        return self._groups.get(member_id)

    def topic_name(self, topic_id: str) -> str | None:
        name = self._topics.get(topic_id)
        if name is None:
            self._unknown_asked = True
        return name

    def unknown_id_asked(self) -> bool:
        """True once after :meth:`topic_name` was asked for an id the index lacked."""
        asked, self._unknown_asked = self._unknown_asked, False
        return asked

    def resolve(self, member_ids: Iterable[str]) -> Resolution:
        """The one group the known ones of ``member_ids`` belong to, if there is one."""
        index = self._groups
        found = [g for g in (index.get(m) for m in member_ids) if g is not None]
        groups = tuple(sorted(set(found)))
        return Resolution(groups[0] if len(groups) == 1 else None, len(found), groups)
