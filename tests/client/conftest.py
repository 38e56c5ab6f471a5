"""Fixtures of the shim's integration tests: the real sidecar and the Java member program."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.broker import LocalKafka
from harness.sidecar import SidecarProcess, start_sidecar
from tests.client.backlog import GROUP_PATTERN
from tests.client.java_build import java_member_classpath


@pytest.fixture(scope="session")
def sidecar(
    kafka_broker: LocalKafka, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SidecarProcess]:
    """``lagassign serve`` on the session's broker, refreshing lag every second."""
    process = start_sidecar(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": kafka_broker.bootstrap,
            "LAGASSIGN_REFRESH_INTERVAL_S": "1",
            "LAGASSIGN_GROUP_PATTERN": GROUP_PATTERN,
        },
        tmp_path_factory.mktemp("sidecar") / "lagassign.log",
    )
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="session")
def java_classpath() -> str:
    """The classpath of ``io.lagassign.GroupMember`` (compiled by Maven once per session)."""
    return java_member_classpath()
