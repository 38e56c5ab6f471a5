"""A group of test members of any kind, made and started together.

:class:`NewGroup` (the ``new_group`` fixture) is a new group on the session's broker
that makes members of each kind asked for (``aiokafka``, ``kafka-python``, ``java``:
:mod:`tests.client.python_members`, :mod:`tests.client.java_member`); :func:`started`
starts them and stops every one on the way out.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from harness.broker import LocalKafka
from tests.client.java_member import JavaMember
from tests.client.member import (
    COMMIT_EACH_BATCH,
    SHIM_TIMEOUT_S,
    Member,
    Membership,
    PollLoop,
)
from tests.client.python_members import AiokafkaMember, KafkaPythonMember


@dataclass(frozen=True)
class NewGroup:
    """A group no test used before, named ``group``, on the session's broker (``kafka``):
    names for its topics (``names``: the ``kafka_names`` fixture) and members of every
    kind. Java members run on the ``java_classpath`` fixture's classpath (asked for only
    when one is made) and log into the test's ``tmp_path``."""

    kafka: LocalKafka
    group: str
    names: Callable[[str], str]
    request: pytest.FixtureRequest

    @property
    def bootstrap(self) -> str:
        return self.kafka.bootstrap

    def topics(self, count: int) -> list[str]:
        """``count`` new topic names (the topics are not created)."""
        return [self.names("topic") for _ in range(count)]

    def membership(
        self, topics: Sequence[str], url: str, timeout_s: float = SHIM_TIMEOUT_S
    ) -> Membership:
        """The group on ``topics``, its shims asking ``url`` within ``timeout_s``."""
        return Membership(self.bootstrap, self.group, topics, url, timeout_s)

    def java(
        self, name: str, membership: Membership, loop: PollLoop = COMMIT_EACH_BATCH, **options: Any
    ) -> JavaMember:
        """A Java member; ``options``: :class:`JavaMember`'s."""
        classpath = self.request.getfixturevalue("java_classpath")
        log_dir = self.request.getfixturevalue("tmp_path")
        return JavaMember(name, membership, classpath, log_dir, loop, **options)

    def members(self, kinds: Sequence[str], membership: Membership, loop: PollLoop) -> list[Member]:
        """A member of each kind (``aiokafka``, ``kafka-python`` or ``java``), named
        ``{kind}-{i}``."""
        members: list[Member] = []
        for i, kind in enumerate(kinds):
            name = f"{kind}-{i}"
            if kind == "aiokafka":
                members.append(AiokafkaMember(name, membership, loop))
            elif kind == "kafka-python":
                members.append(KafkaPythonMember(name, membership, loop))
            elif kind == "java":
                members.append(self.java(name, membership, loop))
            else:
                raise ValueError(f"unknown member kind {kind!r}")
        return members


@contextlib.asynccontextmanager
async def started(members: Sequence[Member]) -> AsyncIterator[Sequence[Member]]:
    """Start the members in turn; stop every one of them on the way out."""
    try:
        for member in members:
            await member.start()
        yield members
    finally:
        for member in members:
            await member.stop()
