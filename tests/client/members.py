"""A group of test members of any kind, made and started together.

:func:`make_members` makes one member of each kind asked for (``aiokafka``,
``kafka-python``, ``java``: :mod:`tests.client.python_members`,
:mod:`tests.client.java_member`) on the session's broker; :func:`started` starts them
and stops every one on the way out.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence

import pytest

from harness.broker import LocalKafka
from tests.client.java_member import JavaMember
from tests.client.member import Member
from tests.client.python_members import AiokafkaMember, KafkaPythonMember


def make_members(
    kinds: Sequence[str],
    request: pytest.FixtureRequest,
    group: str,
    topics: Sequence[str],
    url: str,
    timeout_s: float,
    *,
    commit: bool,
) -> list[Member]:
    """A member of each kind (``aiokafka``, ``kafka-python`` or ``java``), named
    ``{kind}-{i}``, in ``group`` on the ``kafka_broker`` fixture's broker, its shim asking
    ``url`` within ``timeout_s``. Java members run on the ``java_classpath`` fixture's
    classpath (asked for only when one is Java) and log into the test's ``tmp_path``."""
    broker: LocalKafka = request.getfixturevalue("kafka_broker")
    bootstrap = broker.bootstrap
    members: list[Member] = []
    for i, kind in enumerate(kinds):
        name = f"{kind}-{i}"
        if kind == "aiokafka":
            members.append(AiokafkaMember(name, bootstrap, group, topics, url, timeout_s, commit))
        elif kind == "kafka-python":
            members.append(
                KafkaPythonMember(name, bootstrap, group, topics, url, timeout_s, commit)
            )
        elif kind == "java":
            classpath = request.getfixturevalue("java_classpath")
            log_dir = request.getfixturevalue("tmp_path")
            members.append(
                JavaMember(
                    name, bootstrap, group, topics, url, timeout_s, classpath, log_dir, commit
                )
            )
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
