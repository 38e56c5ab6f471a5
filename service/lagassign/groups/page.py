"""The ``/groups`` pages: Jinja2 templates rendered on the server, inline CSS, no JavaScript.

The templates (``templates/*.html``, shipped in the wheel) read the pure values of
:mod:`lagassign.groups.report`; autoescaping is on for every template, so every
value that comes from Kafka or a request (group ids, member ids, hosts, client
ids, topics, error messages) is HTML-escaped wherever it lands, text or
attribute. Group ids in links are percent-encoded (the ``group_href`` filter).
The bars are ``<div>`` widths in percent and each member's lag line an inline
``<svg>``, so they draw without scripts; each bar also carries its numbers in
``data-*`` attributes and as text. ``StrictUndefined`` makes a misspelt name in a
template an error, not an empty cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol
from urllib.parse import quote

from fastapi.templating import Jinja2Templates
from jinja2 import Environment, PackageLoader, StrictUndefined

from lagassign.assign.answer import iso_utc
from lagassign.groups.advice import Advice
from lagassign.groups.header import GroupHeader
from lagassign.groups.report import GroupReport, GroupSummary
from lagassign.groups.sparkline import lag_sparkline

# The partition table of a huge group is cut here; the JSON always has every row.
MAX_PARTITION_ROWS = 2_000

# The partition table's columns (``kafka-consumer-groups --describe`` names and the
# live figures), and whether each is a number.
PARTITION_COLUMNS = (
    ("topic", False),
    ("partition", True),
    ("current_offset", True),
    ("log_end_offset", True),
    ("log_start_offset", True),
    ("lag", True),
    ("lag_seconds", True),
    ("produce_rate", True),
    ("consume_rate", True),
    ("consumer_id", False),
    ("host", False),
    ("client_id", False),
)


def fmt_seconds(value: float | None) -> str | None:
    return None if value is None else f"{value:.1f}"


def fmt_rate(value: float | None) -> str | None:
    return None if value is None else f"{value:.2f}"


def fmt_ratio(value: float | None) -> str | None:
    return None if value is None else f"{value:.3f}"


def fmt_lag(value: float | None) -> str | None:
    return None if value is None else f"{value:.1f}"


def fmt_share(value: float | None) -> str | None:
    return None if value is None else f"{100 * value:.1f} %"


def group_href(group_id: str) -> str:
    return "/groups/" + quote(group_id, safe="")


def protocol_text(h: GroupHeader) -> str | None:
    if h.protocol_type == "consumer":
        return f"consumer: the broker assigns ({h.assignment_strategy or 'its own assignor'})"
    return h.protocol_type


class LagViewLine(Protocol):
    """What the list page says of the lag view (the ``lag_view`` JSON object)."""

    @property
    def running(self) -> bool: ...
    @property
    def kafka_up(self) -> bool: ...
    @property
    def last_refresh_error(self) -> str | None: ...


class HistoryLine(Protocol):
    """What the list page says of the lag history (the ``history`` JSON object)."""

    @property
    def path(self) -> str: ...
    @property
    def failing(self) -> bool: ...
    @property
    def write_errors_total(self) -> int: ...
    @property
    def last_error(self) -> str | None: ...
    @property
    def failing_since(self) -> str | None: ...


class WeightsLine(Protocol):
    """What the list page says of the forecast weights (the ``forecast_weights`` object)."""

    @property
    def path(self) -> str: ...
    @property
    def file(self) -> str: ...
    @property
    def in_use(self) -> bool: ...
    @property
    def groups(self) -> int: ...
    @property
    def fresh_groups(self) -> int: ...
    @property
    def age_seconds(self) -> float | None: ...
    @property
    def max_age_seconds(self) -> float | None: ...
    @property
    def last_error(self) -> str | None: ...


def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("lagassign.groups", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        iso=lambda moment: None if moment is None else iso_utc(moment),
        seconds=fmt_seconds,
        rate=fmt_rate,
        ratio=fmt_ratio,
        lag=fmt_lag,
        share=fmt_share,
        group_href=group_href,
        protocol_text=protocol_text,
        sparkline=lag_sparkline,
    )
    return env


TEMPLATES = Jinja2Templates(env=environment())


def render_group_list(
    summaries: Sequence[GroupSummary],
    lag_view: LagViewLine,
    weights: WeightsLine | None = None,
    history: HistoryLine | None = None,
) -> str:
    """The ``GET /groups`` page: one row per tracked group.

    ``lag_view``, ``weights`` and ``history`` are the ``lag_view``, ``forecast_weights``
    and ``history`` objects of the JSON answer (``weights`` ``None`` without a weights
    file, ``history`` ``None`` without a history directory).
    """
    template = TEMPLATES.get_template("groups.html")
    return template.render(summaries=summaries, lag_view=lag_view, weights=weights, history=history)


def render_group(report: GroupReport, advice: Advice | None = None) -> str:
    """The ``GET /groups/{group_id}`` page (with the rebalance advice, when given)."""
    now = report.skew.default_now
    target = dict(now.member_lag) if now else {}
    scale = max([m.lag for m in report.members] + list(target.values()) + [1])
    return TEMPLATES.get_template("group.html").render(
        report=report,
        advice=advice,
        target=target,
        scale=scale,
        columns=PARTITION_COLUMNS,
        max_rows=MAX_PARTITION_ROWS,
    )
