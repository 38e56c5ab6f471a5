"""Inline SVG charts: well-formed, every series drawn, round ticks, empty data said so."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from lagassign_pipeline.charts import Series, bar_chart, format_number, line_chart, nice_ticks

SVG = "{http://www.w3.org/2000/svg}"


def test_a_line_chart_draws_each_series_with_its_legend() -> None:
    svg = line_chart(
        "Imbalance <over> time",
        [Series("range", ((0, 1.5), (10, 1.2), (20, 1.1))), Series("balanced", ((0, 1.0),))],
        x_label="time",
        y_label="imbalance",
    )
    root = ET.fromstring(svg)
    lines = root.findall(f"{SVG}polyline")
    assert [line.find(f"{SVG}title").text for line in lines] == ["range", "balanced"]  # type: ignore[union-attr]
    assert len(lines[0].attrib["points"].split()) == 3
    assert root.findall(f"{SVG}circle")  # a one-point series still shows
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "Imbalance <over> time" in texts
    assert {"range", "balanced", "time", "imbalance"} <= set(texts)


def test_points_stay_inside_the_plot_area() -> None:
    svg = line_chart("t", [Series("a", ((5, -3.0), (6, 7.0)))], x_label="x", y_label="y")
    points = ET.fromstring(svg).find(f"{SVG}polyline").attrib["points"]  # type: ignore[union-attr]
    for pair in points.split():
        x, y = (float(v) for v in pair.split(","))
        assert 72 <= x <= 760 - 150
        assert 34 <= y <= 340 - 50


def test_a_bar_chart_has_one_bar_per_category_and_series() -> None:
    svg = bar_chart(
        "Moved", ["range", "sticky"], {"lag": [10.0, 0.0], "forecast": [12.0, 1.0]}, y_label="n"
    )
    bars = [
        r for r in ET.fromstring(svg).findall(f"{SVG}rect") if r.find(f"{SVG}title") is not None
    ]
    titles = [b.find(f"{SVG}title").text for b in bars]  # type: ignore[union-attr]
    assert titles == [
        "range / lag: 10",
        "range / forecast: 12",
        "sticky / lag: 0",
        "sticky / forecast: 1",
    ]
    heights = [float(b.attrib["height"]) for b in bars]
    assert heights[2] == 0
    assert heights[1] > heights[0] > heights[3] > 0


@pytest.mark.parametrize(
    "svg", [line_chart("x", [], x_label="", y_label=""), bar_chart("x", [], {}, y_label="")]
)
def test_no_data_says_so(svg: str) -> None:
    assert "no data" in [t.text for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_ticks_are_round_and_cover_the_range() -> None:
    assert nice_ticks(0, 1.0) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(3, 97) == [0, 20, 40, 60, 80, 100]
    ticks = nice_ticks(1.07, 1.93)
    assert ticks[0] <= 1.07
    assert ticks[-1] >= 1.93
    assert nice_ticks(5, 5) == nice_ticks(5, 6)


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
