"""The report page: self-contained, every section present, values shown."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime
from html.parser import HTMLParser

from lagassign_pipeline.charts import Series
from lagassign_pipeline.report_page import HistoryFacts, ReportPage, render_report

WHEN = datetime(2026, 1, 1, tzinfo=UTC)


def summary_row(strategy: str, weights: str, realised: float) -> dict[str, object]:
    return {
        "strategy": strategy,
        "weights": weights,
        "snapshots": 10,
        "imbalance_mean": 1.2,
        "imbalance_p95": 1.5,
        "max_lag_mean": 1_000.0,
        "max_lag_p50": 900,
        "max_lag_p95": 1_400,
        "over_lower_bound_mean": 1.1,
        "moved_total": 7,
        "moved_mean": 0.7,
        "realised_max_lag_mean": realised,
        "realised_imbalance_mean": 1.3,
        "compute_ms_p99": 0.4,
    }


PAGE = ReportPage(
    generated_at=WHEN,
    history=HistoryFacts("synthetic <history>", 1_000, 2, 24, WHEN, WHEN),
    settings={"forecast horizon": "60 s"},
    summary=[
        summary_row("balanced", "forecast", 800.0),
        summary_row("balanced", "lag", 1_000.0),
        summary_row("range", "forecast", 1_500.0),
        summary_row("range", "lag", 1_500.0),
    ],
    imbalance=[Series("balanced", ((WHEN.timestamp(), 1.0), (WHEN.timestamp() + 60, 1.1)))],
    moves=[Series("balanced", ((WHEN.timestamp(), 0.0),))],
    max_lag_quantiles={"balanced": [1.0, 5.0, 9.0]},
    hottest=[{"group": "g", "topic": "t", "partition": 0, "lag": 5, "forecast_lag": 9.0}],
    files={"weights file": "var/forecast-weights.json"},
)


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.references: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.references += [v or "" for k, v in attrs if k in ("src", "href")]


def test_the_page_is_self_contained() -> None:
    html = render_report(PAGE)
    parser = Tags()
    parser.feed(html)
    assert "script" not in parser.tags
    assert "link" not in parser.tags
    assert "img" not in parser.tags
    assert parser.references == []
    assert "url(" not in html
    assert "@import" not in html
    # the only address on the page is the SVG namespace
    assert set(re.findall(r"https?://[^\"' ]+", html)) == {"http://www.w3.org/2000/svg"}
    assert parser.tags.count("svg") == 5


def test_the_page_shows_the_figures_and_escapes_text() -> None:
    html = render_report(PAGE)
    assert "synthetic &lt;history&gt;" in html
    for heading in (
        "Strategies on the lag of each instant",
        "Imbalance over time",
        "Distribution of max member lag",
        "Partitions moved",
        "Forecast weights against the lag of the instant",
        "Partitions with the largest forecast lag",
    ):
        assert heading in html
    assert '<span class="better">-20.0 %</span>' in html  # balanced: 1,000 -> 800
    assert "+0.0 %" in html  # range: no change
    assert "var/forecast-weights.json" in html


def test_one_member_groups_say_why_every_strategy_shows_imbalance_one() -> None:
    assert "one member" not in render_report(PAGE)
    every = render_report(replace(PAGE, groups_replayed=2, groups_with_one_member=2))
    assert "Every replayed group has one member" in every
    assert "imbalance is 1.0 under every strategy" in every
    some = render_report(replace(PAGE, groups_replayed=3, groups_with_one_member=1))
    assert "1 of 3 replayed groups have one member" in some
