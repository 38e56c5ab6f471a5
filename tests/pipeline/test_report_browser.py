"""The report page in real headless Chromium, from a file: its inline charts are drawn."""

from __future__ import annotations

import asyncio
import shutil
from collections import Counter
from pathlib import Path

import pytest

from lagassign_pipeline.charts import PALETTE
from lagassign_pipeline.report_page import render_report
from tests.pipeline.test_report_page import PAGE
from tests.service.png_pixels import read_png
from tests.service.test_groups_browser import run_chromium

WINDOW = (1000, 3600)


def rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


@pytest.mark.browser
def test_the_report_draws_its_charts_offline(tmp_path: Path) -> None:
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is missing: `make chromium` installs it"
    page = tmp_path / "report.html"
    page.write_text(render_report(PAGE), encoding="utf-8")
    shot = tmp_path / "report.png"
    asyncio.run(
        run_chromium(
            chromium,
            tmp_path / "profile",
            f"--window-size={WINDOW[0]},{WINDOW[1]}",
            f"--screenshot={shot}",
            page.as_uri(),
        )
    )
    image = read_png(shot)
    colours = Counter(
        image.rgb(x, y) for y in range(0, image.height, 2) for x in range(0, image.width, 2)
    )
    # The realised-lag bars: "lag" in the first colour, "forecast" in the second; every
    # bar is a filled block of its colour (a quarter of its pixels are sampled here).
    assert colours[rgb(PALETTE[0])] > 1_000
    assert colours[rgb(PALETTE[1])] > 1_000
