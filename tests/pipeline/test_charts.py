"""Inline SVG charts: well-formed, every series drawn, round ticks, empty data said so."""

from __future__ import annotations

import itertools
import math
import re
import xml.etree.ElementTree as ET

import pytest

from lagassign_pipeline.charts import PLOT_AREA, TITLE, Series, bar_chart, format_number, line_chart

SVG = "{http://www.w3.org/2000/svg}"


def marks(svg: str, prefix: str) -> list[ET.Element]:
    """The groups of one kind of mark (``series-``, ``bar-``), in document order."""
    return [g for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("id", "").startswith(prefix)]


def hover(mark: ET.Element) -> str:
    title = mark.find(f"{SVG}title")
    assert title is not None
    assert title.text is not None
    return title.text


def corners(mark: ET.Element) -> list[tuple[float, float]]:
    """The (x, y) points of the first path in ``mark``."""
    path = next(mark.iter(f"{SVG}path"))
    numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", path.attrib["d"])]
    return list(zip(numbers[::2], numbers[1::2], strict=True))


def plot_area(svg: str) -> tuple[float, float, float, float]:
    """left, top, right, bottom of the axes (SVG y grows downwards)."""
    (area,) = marks(svg, PLOT_AREA)
    xs, ys = zip(*corners(area), strict=True)
    return min(xs), min(ys), max(xs), max(ys)


def texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_a_line_chart_draws_each_series_with_its_legend() -> None:
    svg = line_chart(
        "Imbalance <over> time",
        [Series("range", ((0, 1.5), (10, 1.2), (20, 1.1))), Series("balanced", ((0, 1.0),))],
        x_label="time",
        y_label="imbalance",
    )
    lines = marks(svg, "series-")
    assert [hover(line) for line in lines] == ["range", "balanced"]
    assert len(corners(lines[0])) == 3
    dots = [p for p in lines[1].iter(f"{SVG}path") if "translate(" in p.get("transform", "")]
    assert dots  # a one-point series still shows (a dot)
    assert "Imbalance <over> time" in texts(svg)
    assert {"range", "balanced", "time", "imbalance"} <= set(texts(svg))


def test_points_stay_inside_the_plot_area() -> None:
    svg = line_chart("t", [Series("a", ((5, -3.0), (6, 7.0)))], x_label="x", y_label="y")
    left, top, right, bottom = plot_area(svg)
    (line,) = marks(svg, "series-")
    for x, y in corners(line):
        assert left <= x <= right
        assert top <= y <= bottom


def test_a_bar_chart_has_one_bar_per_category_and_series() -> None:
    svg = bar_chart(
        "Moved", ["range", "sticky"], {"lag": [10.0, 0.0], "forecast": [12.0, 1.0]}, y_label="n"
    )
    bars = marks(svg, "bar-")
    assert [hover(b) for b in bars] == [
        "range / lag: 10",
        "range / forecast: 12",
        "sticky / lag: 0",
        "sticky / forecast: 1",
    ]
    heights = [max(y for _, y in corners(b)) - min(y for _, y in corners(b)) for b in bars]
    assert heights[2] == 0
    assert heights[1] > heights[0] > heights[3] > 0


@pytest.mark.parametrize("largest", [97.0, 1_234.0, 12.5, 0.3, 5_000_001.0])
def test_no_bar_reaches_past_its_axis_or_into_the_title(largest: float) -> None:
    svg = bar_chart("Moved", ["a", "b", "c"], {"n": [largest, largest / 3, 0.0]}, y_label="n")
    left, top, right, bottom = plot_area(svg)
    for bar in marks(svg, "bar-"):
        for x, y in corners(bar):
            assert left <= x <= right
            assert top <= y <= bottom
    (title,) = marks(svg, TITLE)
    baseline = float(next(title.iter(f"{SVG}text")).attrib["y"])
    assert baseline < top


def test_ticks_are_round_and_cover_the_range() -> None:
    svg = bar_chart("t", ["a", "b"], {"n": [3.0, 97.0]}, y_label="n")
    ticks = [
        float(next(g.iter(f"{SVG}text")).text or "nan")
        for g in ET.fromstring(svg).iter(f"{SVG}g")
        if g.get("id", "").startswith("ytick_")
    ]
    assert ticks[0] == 0
    assert ticks[-1] >= 97
    steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
    assert len(steps) == 1
    (step,) = steps
    assert round(step / 10 ** math.floor(math.log10(step)), 9) in {1, 2, 5}


@pytest.mark.parametrize(
    "svg", [line_chart("x", [], x_label="", y_label=""), bar_chart("x", [], {}, y_label="")]
)
def test_no_data_says_so(svg: str) -> None:
    assert "no data" in texts(svg)


def test_numbers_are_short() -> None:
    assert [format_number(v) for v in (0, 3, 1.25, 1.5, 950, 12_500, 3_200_000, 2e9)] == [
        "0",
        "3",
        "1.25",
        "1.5",
        "950",
        "12.5k",
        "3.2M",
        "2G",
    ]
