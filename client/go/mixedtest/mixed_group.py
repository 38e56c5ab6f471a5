"""A mixed group's test bench: a new group on a skewed backlog the sidecar already sees,
and members of every kind (Go, Java, aiokafka) made for it with the same settings."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from go_member import GoMember

from harness.broker import LocalKafka
from harness.builders import commit
from harness.sidecar import SidecarProcess
from tests.client.backlog import GROUP_PREFIX, sidecar_sees, skewed_backlog
from tests.client.group_waits import settled
from tests.client.java_member import JavaMember
from tests.client.member import NO_COMMIT, Member, Membership, Partition
from tests.client.members import started
from tests.client.python_members import AiokafkaMember

TIMEOUT_S = 1.5


@dataclass(frozen=True)
class SkewedGroup:
    """A group of the sidecar's, committed at 0 on topics with a skewed backlog."""

    bootstrap: str
    group: str
    topics: list[str]
    lags: dict[Partition, int]
    url: str

    @property
    def membership(self) -> Membership:
        """What every member of it joins."""
        return Membership(self.bootstrap, self.group, self.topics, self.url, TIMEOUT_S)


@dataclass
class MixedGroups:
    """The broker, the sidecar and the Go member program of the mixed-group tests."""

    kafka: LocalKafka
    sidecar: SidecarProcess
    go_program: Path
    names: Callable[[str], str]
    log_dir: Path
    request: pytest.FixtureRequest

    async def skewed(self, name: str, topics: int) -> SkewedGroup:
        """A new group ``name`` on ``topics`` new topics with a skewed backlog, once the
        sidecar sees its whole lag."""
        group = GROUP_PREFIX + self.names(name)
        topic_names = [self.names("topic") for _ in range(topics)]
        lags = await skewed_backlog(self.kafka.bootstrap, group, topic_names)
        return await self._seen(group, lags)

    async def beside(self, name: str, other: SkewedGroup) -> SkewedGroup:
        """A new group ``name`` committed at 0 on ``other``'s topics: the same lag."""
        group = GROUP_PREFIX + self.names(name)
        await commit(self.kafka.bootstrap, group, dict.fromkeys(other.lags, 0))
        return await self._seen(group, other.lags)

    async def _seen(self, group: str, lags: dict[Partition, int]) -> SkewedGroup:
        await sidecar_sees(self.sidecar, group, sum(lags.values()))
        topics = list(dict.fromkeys(t for t, _ in lags))
        return SkewedGroup(self.kafka.bootstrap, group, topics, lags, self.sidecar.url)

    def go(self, name: str, group: SkewedGroup, cooperative: bool = False) -> GoMember:
        command = [
            str(self.go_program),
            group.bootstrap,
            group.group,
            ",".join(group.topics),
            group.url,
            str(round(TIMEOUT_S * 1000)),
            name,
            *(["cooperative"] if cooperative else []),
        ]
        return GoMember(name, command, self.log_dir)

    def java(self, name: str, group: SkewedGroup, cooperative: bool = False) -> JavaMember:
        """A Java member (on the ``java_classpath`` fixture's classpath) that never commits."""
        return JavaMember(
            name,
            group.membership,
            self.request.getfixturevalue("java_classpath"),
            self.log_dir,
            NO_COMMIT,
            cooperative=cooperative,
        )

    def aiokafka(self, name: str, group: SkewedGroup) -> AiokafkaMember:
        """An aiokafka member that never commits."""
        return AiokafkaMember(name, group.membership, NO_COMMIT)

    def members(
        self, kinds: Sequence[str], group: SkewedGroup, cooperative: bool = False
    ) -> dict[str, Member]:
        """Kind -> a member of that kind (``go``, ``java``, ``aiokafka``) named ``{kind}-0``."""
        made: dict[str, Member] = {}
        for kind in kinds:
            if kind == "go":
                made[kind] = self.go("go-0", group, cooperative)
            elif kind == "java":
                made[kind] = self.java("java-0", group, cooperative)
            else:
                assert kind == "aiokafka", kind
                assert not cooperative, "the Python shims are eager"
                made[kind] = self.aiokafka("aiokafka-0", group)
        return made


@dataclass(frozen=True)
class Joined:
    """A group settled once every member joined: who holds what, each member's note, and
    how many rebalances each led on the sidecar's answer (by kind)."""

    held: dict[str, set[Partition]]
    notes: dict[str, dict[str, Any] | None]
    led: dict[str, int]


@contextlib.asynccontextmanager
async def joined_after(
    leader: str, members: dict[str, Member], expected: set[Partition]
) -> AsyncIterator[Joined]:
    """The ``leader`` kind's member starts first and settles holding ``expected`` alone;
    the others join and the group settles again. Every member is stopped after the block."""
    followers = [m for kind, m in members.items() if kind != leader]
    async with started([members[leader]]):
        await settled([members[leader]], expected)
        async with started(followers):
            held = await settled(list(members.values()), expected)
            yield Joined(
                held,
                {kind: m.note() for kind, m in members.items()},
                {kind: answers(m) for kind, m in members.items()},
            )


def answers(member: Member) -> int:
    """Rebalances the member led on the sidecar's answer."""
    if isinstance(member, GoMember):
        return member.answers()
    if isinstance(member, JavaMember):
        events = [e for e in member.events() if e["event"] == "assigned"]
        return int(events[-1].get("answers") or 0) if events else 0
    assert isinstance(member, AiokafkaMember)
    return member.assignor.answers


def revoked(member: Member) -> Counter[Partition]:
    """How often each partition was taken from the member (Go or Java)."""
    if isinstance(member, GoMember):
        return member.revoked()
    assert isinstance(member, JavaMember)
    taken: Counter[Partition] = Counter()
    for event in member.events():
        if event["event"] == "revoked":
            taken.update((t, p) for t, p in event.get("partitions", []))
    return taken
