"""The ``/groups`` pages: Jinja2 templates rendered on the server, inline CSS, no JavaScript.

The templates (``templates/*.html``, shipped in the wheel) read the pure values of
:mod:`lagassign.groups.report`; the list page (``groups.html``) also reads the
``lag_view``, ``forecast_weights`` and ``history`` objects of its JSON answer, so the
route renders it (:func:`lagassign.http.groups.render_group_list`). Autoescaping is
on for every template, so every value that comes from Kafka or a request (group ids,
member ids, hosts, client ids, topics, error messages) is HTML-escaped wherever it
lands, text or attribute. Group ids in links are percent-encoded (the ``group_href`` filter).
The bars are ``<div>`` widths in percent and each member's lag line an inline
``<svg>``, so they draw without scripts; each bar also carries its numbers in
``data-*`` attributes and as text. ``StrictUndefined`` makes a misspelt name in a
template an error, not an empty cell.
"""

from __future__ import annotations

from urllib.parse import quote

from fastapi.templating import Jinja2Templates
from jinja2 import Environment, PackageLoader, StrictUndefined

from lagassign.assign.answer import iso_utc
from lagassign.groups.advice import Advice
from lagassign.groups.header import GroupHeader
from lagassign.groups.report import GroupReport
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
