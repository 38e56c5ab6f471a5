"""The report page: one self-contained HTML file with inline SVG plots.

No script, no stylesheet or font from elsewhere, no image file: the page reads the
same offline, from a CI artifact or an e-mail attachment. Everything shown is
passed in as plain values (:class:`ReportPage`); Spark is not needed here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import escape

from lagassign_pipeline.charts import Series, bar_chart, format_number, line_chart

STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 1000px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th { background: #f2f2f2; } td:first-child, th:first-child { text-align: left; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; }
dt { font-weight: bold; } dd { margin: 0; }
figure { margin: 1em 0; } figcaption { color: #555; font-size: 0.9em; max-width: 760px; }
.better { color: #1a7f37; } .worse { color: #b42318; }
"""


@dataclass(frozen=True, slots=True)
class HistoryFacts:
    """What the history held."""

    source: str
    rows: int
    groups: int
    partitions: int
    first: datetime | None
    last: datetime | None


@dataclass(frozen=True, slots=True)
class ReportPage:
    """Everything the page shows, as plain values."""

    generated_at: datetime
    history: HistoryFacts
    settings: Mapping[str, str]
    summary: Sequence[Mapping[str, object]]
    imbalance: Sequence[Series]
    moves: Sequence[Series]
    max_lag_quantiles: Mapping[str, Sequence[float]]
    hottest: Sequence[Mapping[str, object]]
    files: Mapping[str, str] = field(default_factory=dict)
    # Replayed groups, and how many of them never had more than one member.
    groups_replayed: int = 0
    groups_with_one_member: int = 0


def render_report(page: ReportPage) -> str:
    """The HTML text of the report."""
    facts = page.history
    sections = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>lagassign: lag history report</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>lagassign: lag history report</h1>",
        _definition_list(
            {
                "generated": _when(page.generated_at),
                "history": facts.source,
                "rows": f"{facts.rows:,}",
                "groups": f"{facts.groups:,}",
                "partitions": f"{facts.partitions:,}",
                "from": _when(facts.first),
                "to": _when(facts.last),
                **page.settings,
            }
        ),
        "<h2>Strategies on the lag of each instant</h2>",
        _summary_table([r for r in page.summary if r["weights"] == "lag"]),
        _figure(
            _over_time(
                "Imbalance over time (max member lag / mean member lag, mean over groups)",
                page.imbalance,
                y_label="imbalance",
            ),
            "1.0 is perfect balance. Each point is the mean over groups of the snapshots "
            "in one time bucket." + _one_member_note(page),
        ),
        _figure(
            line_chart(
                "Distribution of max member lag",
                [
                    Series(name, tuple((v, i / (len(qs) - 1)) for i, v in enumerate(qs)))
                    for name, qs in page.max_lag_quantiles.items()
                    if len(qs) > 1
                ],
                x_label="max member lag (messages)",
                y_label="share of snapshots at or below",
                y_from_zero=True,
            ),
            "Further left is better: the share of replayed snapshots whose most loaded "
            "member carries at most that lag.",
        ),
        _figure(
            bar_chart(
                "Partitions moved, all snapshots",
                [str(r["strategy"]) for r in page.summary if r["weights"] == "lag"],
                {
                    "moved": [
                        _float(r["moved_total"]) for r in page.summary if r["weights"] == "lag"
                    ]
                },
                y_label="partitions moved",
            ),
            "Each strategy's answer becomes the owned partitions of the next snapshot, "
            "so these are the moves a group would have made.",
        ),
        _figure(
            _over_time(
                "Partitions moved, cumulative",
                page.moves,
                y_label="partitions moved",
                y_from_zero=True,
            ),
            "",
        ),
        "<h2>Forecast weights against the lag of the instant</h2>",
        _forecast_table(page.summary),
        _figure(_realised_chart(page.summary), _REALISED_CAPTION),
        "<h2>Partitions with the largest forecast lag</h2>",
        _hottest_table(page.hottest),
    ]
    if page.files:
        sections += ["<h2>Files</h2>", _definition_list(page.files)]
    sections.append("</body></html>")
    return "\n".join(sections) + "\n"


_REALISED_CAPTION = (
    "Each strategy decides once on the lags of the instant and once on the forecast "
    "lags; both answers are then measured on the lags one horizon later."
)

_SUMMARY_COLUMNS = (
    ("strategy", "strategy"),
    ("snapshots", "snapshots"),
    ("imbalance_mean", "imbalance mean"),
    ("imbalance_p95", "imbalance p95"),
    ("max_lag_p50", "max member lag p50"),
    ("max_lag_p95", "max member lag p95"),
    ("over_lower_bound_mean", "max lag / lower bound"),
    ("moved_total", "moved"),
    ("moved_mean", "moved per snapshot"),
    ("compute_ms_p99", "compute ms p99"),
)


def _summary_table(rows: Sequence[Mapping[str, object]]) -> str:
    head = "".join(f"<th>{escape(label)}</th>" for _, label in _SUMMARY_COLUMNS)
    body = "".join(
        "<tr>" + "".join(f"<td>{_cell(r.get(key))}</td>" for key, _ in _SUMMARY_COLUMNS) + "</tr>"
        for r in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _forecast_table(summary: Sequence[Mapping[str, object]]) -> str:
    by_key = {(str(r["strategy"]), str(r["weights"])): r for r in summary}
    strategies = sorted({s for s, _ in by_key})
    head = (
        "<tr><th>strategy</th><th>realised max member lag, lag weights</th>"
        "<th>realised max member lag, forecast weights</th><th>change</th>"
        "<th>realised imbalance, lag</th><th>realised imbalance, forecast</th></tr>"
    )
    body = []
    for s in strategies:
        lag, forecast = by_key.get((s, "lag"), {}), by_key.get((s, "forecast"), {})
        before = lag.get("realised_max_lag_mean")
        after = forecast.get("realised_max_lag_mean")
        change = ""
        if isinstance(before, int | float) and isinstance(after, int | float) and before > 0:
            pct = (after - before) / before * 100
            css = "better" if pct < 0 else "worse" if pct > 0 else ""
            change = f'<span class="{css}">{pct:+.1f} %</span>'
        body.append(
            f"<tr><td>{escape(s)}</td><td>{_cell(before)}</td><td>{_cell(after)}</td>"
            f"<td>{change}</td><td>{_cell(lag.get('realised_imbalance_mean'))}</td>"
            f"<td>{_cell(forecast.get('realised_imbalance_mean'))}</td></tr>"
        )
    return f"<table>{head}{''.join(body)}</table>"


def _one_member_note(page: ReportPage) -> str:
    """Why imbalance is 1.0 for every strategy when a group has a single member."""
    single, groups = page.groups_with_one_member, page.groups_replayed
    if single == 0:
        return ""
    why = (
        "a group with one member gives that member every partition, so its largest member "
        "lag is its mean member lag and its imbalance is 1.0 under every strategy"
    )
    if single == groups:
        return (
            f" Every replayed group has one member: {why}. The lines coincide; "
            "the strategies can only differ once a group has two members or more."
        )
    return (
        f" {single} of {groups} replayed groups have one member: {why}, "
        "which pulls the means toward 1.0."
    )


def _realised_chart(summary: Sequence[Mapping[str, object]]) -> str:
    strategies = sorted({str(r["strategy"]) for r in summary})
    by_key = {(str(r["strategy"]), str(r["weights"])): r for r in summary}
    bars = {
        weights: [
            _float(by_key.get((s, weights), {}).get("realised_max_lag_mean")) for s in strategies
        ]
        for weights in ("lag", "forecast")
    }
    return bar_chart(
        "Max member lag one horizon later (mean over snapshots)",
        strategies,
        bars,
        y_label="messages",
    )


_HOTTEST_COLUMNS = (
    ("group", "group"),
    ("topic", "topic"),
    ("partition", "partition"),
    ("lag", "lag"),
    ("produce_rate", "produce /s"),
    ("consume_rate", "consume /s"),
    ("lag_trend", "lag trend /s"),
    ("seconds_of_lag", "seconds of lag"),
    ("forecast_lag", "forecast lag"),
)


def _hottest_table(rows: Sequence[Mapping[str, object]]) -> str:
    if not rows:
        return "<p>No partition has a forecast.</p>"
    head = "".join(f"<th>{escape(label)}</th>" for _, label in _HOTTEST_COLUMNS)
    body = "".join(
        "<tr>" + "".join(f"<td>{_cell(r.get(key))}</td>" for key, _ in _HOTTEST_COLUMNS) + "</tr>"
        for r in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _definition_list(items: Mapping[str, str]) -> str:
    inner = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items.items())
    return f"<dl>{inner}</dl>"


def _figure(svg: str, caption: str) -> str:
    text = f"<figcaption>{escape(caption)}</figcaption>" if caption else ""
    return f"<figure>{svg}{text}</figure>"


def _cell(value: object) -> str:
    if value is None:
        return "&ndash;"
    if isinstance(value, bool):
        return escape(str(value))
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return format_number(value) if abs(value) >= 10 else f"{value:.3f}"
    return escape(str(value))


def _float(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


def _when(moment: datetime | None) -> str:
    if moment is None:
        return "-"
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _over_time(
    title: str, series: Sequence[Series], *, y_label: str, y_from_zero: bool = False
) -> str:
    """A line chart of ``series`` over UTC time (epoch seconds on the x axis)."""
    return line_chart(
        title,
        series,
        x_label="time (UTC)",
        y_label=y_label,
        x_format=_time_format(series),
        y_from_zero=y_from_zero,
    )


def _time_format(series: Sequence[Series]) -> Callable[[float], str]:
    xs = [x for s in series for x, _ in s.points]
    span = (max(xs) - min(xs)) if xs else 0.0
    if span < 600:
        pattern = "%H:%M:%S"
    elif span < 2 * 86_400:
        pattern = "%H:%M"
    else:
        pattern = "%m-%d %H:%M"

    def label(epoch_s: float) -> str:
        return datetime.fromtimestamp(epoch_s, UTC).strftime(pattern)

    return label
