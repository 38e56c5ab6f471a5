"""History write failures are refused at start and visible while running, never silent.

- ``lagassign serve`` (a real process) refuses a ``LAGASSIGN_HISTORY_DIR`` it cannot
  write: exit 2, one line, no traceback;
- the recorder counts failures, says it is failing, logs at most one WARNING per
  ``log_every_s`` (with how many failures the line stands for) and one INFO when
  writing works again (the fault: a file put where the history directory was);
- a real sidecar on the real broker shows it in ``/metrics`` and ``/groups`` from a cold start.
"""

from __future__ import annotations

import asyncio
import logging
import re
import shutil
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from harness.broker import LocalKafka
from harness.builders import commit, create_topic, produce
from harness.poll import eventually
from harness.python import run_python
from harness.sidecar import start_sidecar
from lagassign.history.directory import check_writable
from lagassign.history.errors import HistoryWriteError
from lagassign.history.parquet import ParquetHistorySink
from lagassign.history.recorder import HistoryRecorder
from lagassign.lagview.listeners import Refresh
from tests.history.builders import group, partition
from tests.service.test_serve import base_environ

DAY = datetime(2026, 11, 27, 9, 0, tzinfo=UTC)


def blocked(tmp_path: Path) -> Path:
    """A history directory path that runs through a regular file (unwritable even for root)."""
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file")
    return blocker / "history"


def test_check_writable_makes_the_directory_and_names_a_blocked_one(tmp_path: Path) -> None:
    made = check_writable(tmp_path / "a" / "history")
    assert made.is_dir()
    assert list(made.iterdir()) == []  # the probe leaves nothing behind
    with pytest.raises(HistoryWriteError, match="is not writable"):
        check_writable(blocked(tmp_path))


def test_serve_refuses_an_unwritable_history_directory(tmp_path: Path) -> None:
    done = run_python(
        "-m",
        "lagassign.cli",
        "serve",
        env={
            **base_environ(),
            "LAGASSIGN_BOOTSTRAP_SERVERS": "127.0.0.1:9",
            "LAGASSIGN_HISTORY_DIR": str(blocked(tmp_path)),
        },
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("lagassign serve: LAGASSIGN_HISTORY_DIR: history directory")
    assert "is not writable" in done.stderr


def refresh(minute: int) -> Refresh:
    rows = [partition("t", 0, 5, 0, 9, 4, "m-1")]
    return Refresh(0.01, True, [group("g", DAY + timedelta(minutes=minute), rows)])


def test_failures_are_counted_shown_and_logged_at_a_bounded_rate(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    directory = tmp_path / "history"
    sink = ParquetHistorySink(directory, "local", roll_interval_s=1e-9)
    now = [0.0]
    recorder = HistoryRecorder(sink, log_every_s=60.0, monotonic=lambda: now[0])
    caplog.set_level(logging.INFO, logger="lagassign.history.recorder")

    async def scenario() -> None:
        await recorder.refreshed(refresh(0))
        await recorder._written()
        assert not recorder.state().failing
        assert recorder.state().last_written is not None
        shutil.rmtree(directory)
        directory.write_text("a file where the history was")
        for minute in range(1, 6):  # five failures within the same minute: one line
            now[0] = float(minute)
            await recorder.refreshed(refresh(minute))
            await recorder._written()
        state = recorder.state()
        assert state.failing
        assert state.errors_total == 5
        assert state.last_error is not None
        assert "history append" in state.last_error
        now[0] = 70.0  # a minute later: one more line, saying what it stands for
        await recorder.refreshed(refresh(6))
        await recorder._written()
        directory.unlink()  # the directory can be made again
        now[0] = 80.0
        await recorder.refreshed(refresh(7))
        await recorder._written()
        await recorder.close()

    asyncio.run(scenario())
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2, warnings
    assert "4 more failed since the last line" in warnings[1]
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert infos == ["lag history written again after 6 failed appends"]
    assert not recorder.state().failing
    assert recorder.state().errors_total == 6


def metric(url: str, name: str) -> float | None:
    text = httpx.get(f"{url}/metrics", timeout=10).text
    found = re.search(rf"^{name} (\S+)$", text, re.M)
    return None if found is None else float(found.group(1))


def replace_with_a_file(history: Path) -> None:
    """``history`` replaced by a file while the sidecar keeps writing into it: moved aside
    whole (a rename, which a file made meanwhile cannot stand in the way of, where a removal
    found a new date directory not empty once) and a file made in its place; again if the
    sidecar made the directory anew in between."""
    for attempt in range(50):
        history.rename(history.with_name(f"{history.name}-gone-{attempt}"))
        try:
            with history.open("x") as made:
                made.write("a file where the history was")
            return
        except FileExistsError:
            continue
    raise AssertionError("the sidecar made its history directory anew 50 times over")


@pytest.mark.kafka
def test_a_real_sidecar_shows_history_failures_in_its_metrics(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str], tmp_path: Path
) -> None:
    topic, group_id = kafka_names("t"), kafka_names("g")

    async def setup() -> None:
        await create_topic(kafka_broker.bootstrap, topic, 1)
        await produce(kafka_broker.bootstrap, topic, [5])
        await commit(kafka_broker.bootstrap, group_id, {(topic, 0): 2})

    asyncio.run(setup())
    history = tmp_path / "history"
    sidecar = start_sidecar(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": kafka_broker.bootstrap,
            "LAGASSIGN_GROUPS": group_id,
            "LAGASSIGN_REFRESH_INTERVAL_S": "0.5",
            "LAGASSIGN_HISTORY_DIR": str(history),
            "LAGASSIGN_HISTORY_ROLL_INTERVAL_S": "1",
        },
        tmp_path / "sidecar.log",
    )
    try:
        eventually(
            lambda: list(history.glob("date=*/part-*.parquet")), 30, "a finished history file"
        )
        assert metric(sidecar.url, "lagassign_history_write_failing") == 0.0
        assert metric(sidecar.url, "lagassign_history_write_errors_total") == 0.0
        replace_with_a_file(history)
        eventually(
            lambda: metric(sidecar.url, "lagassign_history_write_failing") == 1.0,
            30,
            "lagassign_history_write_failing 1",
        )
        eventually(
            lambda: (metric(sidecar.url, "lagassign_history_write_errors_total") or 0) >= 5,
            30,
            "five failed appends",
        )
        listed = httpx.get(f"{sidecar.url}/groups", timeout=10).json()["history"]
        assert listed["failing"] is True
        assert listed["write_errors_total"] >= 5
        assert "history append" in listed["last_error"]
    finally:
        sidecar.stop()
    warnings = [line for line in sidecar.log_path.read_text().splitlines() if "WARNING" in line]
    history_lines = [line for line in warnings if "lag history" in line]
    # Five failures or more within seconds, one line (the next may come 60 s later).
    assert len(history_lines) == 1, history_lines
