"""``GET /groups`` shows the lag history's failures beside the metrics, from a cold start.

The sidecar is the real app (its lifespan builds the real lag view, the real history
recorder and its Parquet sink); the refreshes are handed to the recorder as the lag
view would, since the broker named here does not exist. The fault: a file put where
the history directory was.
"""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from lagassign.history.recorder import HistoryRecorder, recorder_of
from lagassign.http.app import create_app
from lagassign.lagview.listeners import Refresh
from lagassign.settings import Settings
from tests.history.builders import group, partition
from tests.service.serving import lag_view_of, served

pytestmark = pytest.mark.anyio

DAY = datetime(2026, 11, 27, 9, 0, tzinfo=UTC)
HTML = {"accept": "text/html"}


def refresh(minute: int) -> Refresh:
    rows = [partition("t", 0, 5, 0, 9, 4, "m-1")]
    return Refresh(0.01, True, [group("g", DAY + timedelta(minutes=minute), rows)])


def metric(text: str, name: str) -> str:
    (line,) = [line for line in text.splitlines() if line.startswith(f"{name} ")]
    return line.split()[1]


async def test_groups_and_metrics_show_history_failures_from_a_cold_start(tmp_path: Path) -> None:
    directory = tmp_path / "history"
    settings = Settings.from_environ(
        {"LAGASSIGN_BOOTSTRAP_SERVERS": "127.0.0.1:9", "LAGASSIGN_HISTORY_DIR": str(directory)}
    )
    app = create_app(settings, kafka=True)
    async with served(app) as client:
        cold = (await client.get("/groups")).json()["history"]
        assert cold == {
            "path": str(directory),
            "failing": False,
            "write_errors_total": 0,
            "last_error": None,
            "failing_since": None,
            "last_written": None,
        }
        recorder = recorder_of(lag_view_of(app))
        assert isinstance(recorder, HistoryRecorder)
        await recorder.refreshed(refresh(0))
        await recorder._written()
        written = (await client.get("/groups")).json()["history"]
        assert written["failing"] is False
        assert written["last_written"] is not None

        shutil.rmtree(directory)
        directory.write_text("a file where the history was")
        for minute in (1, 2, 3):
            await recorder.refreshed(refresh(minute))
            await recorder._written()
        failing = (await client.get("/groups")).json()["history"]
        assert failing["failing"] is True
        assert failing["write_errors_total"] == 3
        assert "history append" in failing["last_error"]
        assert failing["failing_since"] is not None
        assert failing["last_written"] == written["last_written"]
        text = (await client.get("/metrics")).text
        assert metric(text, "lagassign_history_write_failing") == "1.0"
        assert metric(text, "lagassign_history_write_errors_total") == "3.0"
        page = (await client.get("/groups", headers=HTML)).text
        line = re.search(r'<p id="history" class="warning">.*?</p>', page, re.DOTALL)
        assert line is not None, page
        assert "failing since" in line.group(0)
        assert "3 failed write(s)" in line.group(0)


async def test_groups_has_no_history_without_a_history_directory() -> None:
    settings = Settings.from_environ({"LAGASSIGN_BOOTSTRAP_SERVERS": "127.0.0.1:9"})
    app = create_app(settings, kafka=True)
    async with served(app) as client:
        assert (await client.get("/groups")).json()["history"] is None
        assert "lagassign_history_write_failing" not in (await client.get("/metrics")).text
