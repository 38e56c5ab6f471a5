"""The interpreter hand-over benchmark at a tiny size: one line per switch interval."""

from __future__ import annotations

import json
import sys

import pytest

from bench.interpreter_handoff import main
from lagassign.serve import SWITCH_INTERVAL_S


def test_a_tiny_run_gives_a_line_for_the_default_and_the_sidecars_interval(
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = sys.getswitchinterval()
    assert main(["--runs", "3"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["switch_interval_ms"] for line in lines] == [
        before * 1000,
        SWITCH_INTERVAL_S * 1000,
    ]
    for line in lines:
        assert line["runs"] == 3
        assert 0 <= line["worker_call_ms_p50"] <= line["worker_call_ms_p99"]
    assert sys.getswitchinterval() == before
