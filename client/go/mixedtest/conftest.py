"""Fixtures of the mixed-group tests: the Go member program built once per session, and
:class:`MixedGroups` (the broker, sidecar and Java member fixtures are the repository's,
in its conftest.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from mixed_group import MixedGroups

from harness.broker import LocalKafka
from harness.sidecar import SidecarProcess

GO_MODULE = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT_S = 600


def go_command() -> str:
    """``go`` on PATH, else the official install's."""
    return shutil.which("go") or "/usr/local/go/bin/go"


@pytest.fixture(scope="session")
def go_member_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``client/go/mixedtest/groupmember`` built (its modules from the Go module proxy)."""
    program = tmp_path_factory.mktemp("go") / "groupmember"
    subprocess.run(
        [go_command(), "build", "-o", str(program), "./mixedtest/groupmember"],
        cwd=GO_MODULE,
        check=True,
        timeout=BUILD_TIMEOUT_S,
        capture_output=True,
        env={**os.environ, "GOFLAGS": "-mod=readonly"},
    )
    return program


@pytest.fixture
def mixed_groups(
    kafka_broker: LocalKafka,
    sidecar: SidecarProcess,
    go_member_program: Path,
    kafka_names: Callable[[str], str],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> MixedGroups:
    """The test's groups on skewed backlogs, and members of every kind made for them."""
    return MixedGroups(kafka_broker, sidecar, go_member_program, kafka_names, tmp_path, request)
