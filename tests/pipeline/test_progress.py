"""The progress line: steps counted and timed; one line per event off a terminal."""

from __future__ import annotations

import io
import time

import pytest

from lagassign_pipeline.progress import Progress


def test_off_a_terminal_each_step_prints_its_start_and_end() -> None:
    out = io.StringIO()
    progress = Progress(2, stream=out)
    with progress.step("rates"):
        pass
    with pytest.raises(RuntimeError), progress.step("backtest"):
        raise RuntimeError("boom")
    progress.note("report: var/report/report.html")
    lines = out.getvalue().splitlines()
    assert lines[0] == "[pipeline 1/2] rates ..."
    assert lines[1].startswith("[pipeline 1/2] rates done in ")
    assert lines[2] == "[pipeline 2/2] backtest ..."
    assert lines[3].startswith("[pipeline 2/2] backtest done in ")
    assert lines[4] == "report: var/report/report.html"
    assert set(progress.seconds) == {"rates", "backtest"}
    assert all(s >= 0 for s in progress.seconds.values())


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_line_is_redrawn_while_the_step_runs() -> None:
    out = Terminal()
    progress = Progress(1, stream=out, interval_s=0.01)
    with progress.step("rates"):
        deadline = 200
        while out.getvalue().count("\r") < 2 and deadline:
            deadline -= 1
            time.sleep(0.01)
    text = out.getvalue()
    assert text.count("\r\x1b[2K[pipeline 1/1] rates |") >= 2
    assert text.endswith("s\n")
    assert "[pipeline 1/1] rates done in" in text
