"""The ``/groups`` pages: plain server-rendered HTML with inline CSS, no JavaScript.

Every value that comes from Kafka or a request (group ids, member ids, hosts,
client ids, topics, error messages) is HTML-escaped; group ids in links are
percent-encoded. The bars are ``<div>`` widths in percent, so they draw without
scripts; each bar also carries its numbers in ``data-*`` attributes and as text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from typing import Any
from urllib.parse import quote

from lagassign.assign.answer import iso_utc
from lagassign.groups.advice import Advice
from lagassign.groups.advice_page import advice_line
from lagassign.groups.rates import GroupRates
from lagassign.groups.report import (
    Freshness,
    GroupHeader,
    GroupReport,
    GroupSummary,
    LiveMatch,
    MemberLag,
)
from lagassign.groups.sparkline import lag_sparkline

# The partition table of a huge group is cut here; the JSON always has every row.
MAX_PARTITION_ROWS = 2_000

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5rem; color: #1d232b; background: #fff; }
h1 { font-size: 1.4rem; margin: 0 0 .3rem; } h2 { font-size: 1.1rem; margin: 1.6rem 0 .5rem; }
a { color: #0b57b5; } code, td.num, .mono { font-family: ui-monospace, monospace; }
table { border-collapse: collapse; margin: .4rem 0; }
th, td { padding: .25rem .6rem; border-bottom: 1px solid #dde2e8; text-align: left; }
th, td { white-space: nowrap; }
th { background: #f2f4f7; font-weight: 600; } td.num, th.num { text-align: right; }
td.null { color: #8a94a3; font-style: italic; }
.warning { background: #fff4d6; border: 1px solid #e0b232; padding: .6rem .8rem; margin: .8rem 0; }
.note { background: #eef5ff; border: 1px solid #7aa7e0; padding: .6rem .8rem; margin: .8rem 0; }
.error { background: #fde8e8; border: 1px solid #d64545; padding: .6rem .8rem; margin: .8rem 0; }
.facts { display: flex; flex-wrap: wrap; gap: .4rem 1.6rem; margin: .5rem 0; }
.facts div span { color: #5b6573; margin-right: .3rem; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: .6rem; font-size: .85rem; }
.ok { background: #dff3e4; color: #17622e; } .bad { background: #fde1e1; color: #9c1c1c; }
.meh { background: #eceff3; color: #4a5361; }
.bar { width: 22rem; height: .9rem; background: #eef1f5; border-radius: 2px; }
.bar > span { display: block; height: 100%; border-radius: 2px; }
.bar.live > span { background: #d9822b; } .bar.balanced > span { background: #3a8fd9; }
.bar.balanced { height: .45rem; margin-top: .15rem; }
.legend span { display: inline-block; width: .8rem; height: .8rem; vertical-align: middle; }
"""


def render_group_list(
    summaries: Sequence[GroupSummary],
    lag_view: dict[str, Any],
    weights: dict[str, Any] | None = None,
) -> str:
    """The ``GET /groups`` page: one row per tracked group."""
    rows = "".join(summary_row(s) for s in summaries)
    body = [
        "<h1>Consumer groups</h1>",
        lag_view_line(lag_view),
        weights_line(weights),
        '<table id="groups"><thead><tr>',
        th("group"),
        th("state"),
        th("protocol"),
        th("members", num=True),
        th("partitions", num=True),
        th("total lag", num=True),
        th("imbalance", num=True),
        th("as of"),
        th("age (s)", num=True),
        th("fresh"),
        th("last answer"),
        th("live vs last answer"),
        "</tr></thead><tbody>",
        rows or '<tr><td colspan="12" class="null">no tracked groups yet</td></tr>',
        "</tbody></table>",
    ]
    return page("lagassign: consumer groups", body)


def summary_row(s: GroupSummary) -> str:
    h, f = s.header, s.freshness
    last = s.last_answer
    last_text = f"{iso_utc(last.computed_at)} {last.strategy}" if last else None
    link = f'<a href="{group_href(s.group_id)}">{escape(s.group_id)}</a>'
    return (
        f'<tr class="group" data-group="{escape(s.group_id)}"><td>{link}</td>'
        + td(h.state)
        + td(protocol_text(h))
        + td(h.members, num=True)
        + td(h.partitions, num=True)
        + td(h.total_lag, num=True)
        + td(fmt_ratio(s.imbalance), num=True)
        + td(iso_utc(f.as_of) if f.as_of else None)
        + td(f.age_seconds, num=True)
        + f"<td>{freshness_badge(f)}</td>"
        + td(last_text)
        + f"<td>{match_badge(s.live_vs_last_answer)}</td></tr>"
    )


def render_group(report: GroupReport, advice: Advice | None = None) -> str:
    """The ``GET /groups/{group_id}`` page (with the rebalance advice, when given)."""
    h, f = report.header, report.freshness
    body = [
        '<p><a href="/groups">all groups</a></p>',
        f"<h1>Group <code>{escape(report.group_id)}</code></h1>",
    ]
    if h.protocol_note:
        body.append(f'<div class="note" id="protocol-note">{escape(h.protocol_note)}</div>')
    if f.last_refresh_error:
        body.append(
            f'<div class="error" id="refresh-error">Last refresh failed: '
            f"{escape(f.last_refresh_error)}</div>"
        )
    body += [
        '<div class="facts" id="header">',
        fact("state", h.state),
        fact("protocol type", h.protocol_type),
        fact("assignment strategy", h.assignment_strategy),
        *(
            [fact("group epoch", h.group_epoch), fact("assignment epoch", h.assignment_epoch)]
            if h.protocol_type == "consumer"
            else []
        ),
        fact("members", h.members),
        fact("partitions", h.partitions),
        fact("total lag", h.total_lag),
        fact("unknown lags", h.unknown_partitions),
        fact("worst time lag (s)", fmt_seconds(report.rates.group.lag_seconds_max)),
        fact("produce rate (records/s)", fmt_rate(report.rates.group.produce_rate)),
        fact("consume rate (records/s)", fmt_rate(report.rates.group.consume_rate)),
        "</div>",
        '<div class="facts" id="freshness">',
        fact("as of", iso_utc(f.as_of) if f.as_of else None),
        fact("age (s)", f.age_seconds),
        f"<div><span>freshness</span>{freshness_badge(f)}</div>",
        "</div>",
    ]
    body += advice_line(advice)
    body += member_section(report)
    body += skew_section(report)
    body += answers_section(report)
    body += partition_section(report)
    return page(f"lagassign: group {report.group_id}", body)


def member_section(report: GroupReport) -> list[str]:
    members = report.members
    now = report.skew.default_now
    target = now.member_lag if now else {}
    scale = max([m.lag for m in members] + list(target.values()) + [1])
    out = [
        "<h2>Lag per member</h2>",
        '<p class="legend"><span style="background:#d9822b"></span> live assignment '
        f'&nbsp; <span style="background:#3a8fd9"></span> {escape(report.skew.default_strategy)}'
        " now (what-if)</p>",
        '<table id="members"><thead><tr>',
        th("member"),
        th("lag bar"),
        th("lag", num=True),
        th("worst time lag (s)", num=True),
        th("lag over time"),
        th("share", num=True),
        th(f"lag with {report.skew.default_strategy}", num=True),
        th("partitions", num=True),
        th("client"),
        th("host"),
        "</tr></thead><tbody>",
    ]
    out += [member_row(m, target.get(m.member_id), scale, report.rates) for m in members]
    if not members:
        out.append('<tr><td colspan="10" class="null">no live members</td></tr>')
    out.append("</tbody></table>")
    if report.unassigned_partitions:
        out.append(
            f'<p id="unassigned">{report.unassigned_partitions} partition(s) held by no member, '
            f"lag {report.unassigned_lag}.</p>"
        )
    return out


def member_row(m: MemberLag, what_if: int | None, scale: int, rates: GroupRates) -> str:
    bars = bar("live", m.member_id, m.lag, scale)
    line = lag_sparkline(rates.lines.get(m.member_id, ()), m.member_id)
    if what_if is not None:
        bars += bar("balanced", m.member_id, what_if, scale)
    return (
        f'<tr class="member" data-member="{escape(m.member_id)}">'
        + td(m.member_id, mono=True)
        + f"<td>{bars}</td>"
        + td(m.lag, num=True)
        + td(fmt_seconds(rates.of_member(m.member_id).lag_seconds_max), num=True)
        + f"<td>{line}</td>"
        + td(fmt_share(m.share), num=True)
        + td(what_if, num=True)
        + td(m.partitions, num=True)
        + td(m.client_id)
        + td(m.host)
        + "</tr>"
    )


def bar(kind: str, member_id: str, lag: int, scale: int) -> str:
    width = 100.0 * lag / scale if scale > 0 else 0.0
    return (
        f'<div class="bar {kind}" data-member="{escape(member_id)}" data-lag="{lag}" '
        f'data-width="{width:.2f}" title="{lag}"><span style="width:{width:.2f}%"></span></div>'
    )


def skew_section(report: GroupReport) -> list[str]:
    s = report.skew
    out = [
        "<h2>Skew</h2>",
        '<div class="facts" id="skew">',
        fact("imbalance now (max / mean member lag)", fmt_ratio(s.imbalance)),
        fact("max member lag", s.max_member_lag),
        fact("mean member lag", fmt_lag(s.mean_member_lag)),
        "</div>",
    ]
    if s.default_now is not None:
        n = s.default_now
        out += [
            '<div class="facts" id="default-now">',
            fact(f"{n.strategy} now: imbalance", fmt_ratio(n.imbalance)),
            fact("max member lag", n.max_lag),
            fact("partitions moved", n.moved),
            fact("compute (ms)", f"{n.compute_ms:.1f}"),
            "</div>",
            "<p>What-if: every live member taken as subscribed to every topic of the group.</p>",
        ]
    else:
        out.append(
            f'<p id="default-now">{escape(s.default_strategy)} now: '
            f"{escape(s.default_now_unavailable or 'not available')}</p>"
        )
    out += [
        "<h2>Hot partitions</h2>",
        '<table id="hot"><thead><tr>',
        th("topic"),
        th("partition", num=True),
        th("lag", num=True),
        th("share", num=True),
        th("consumer_id"),
        "</tr></thead><tbody>",
    ]
    out += [
        "<tr>"
        + td(p.topic)
        + td(p.partition, num=True)
        + td(p.lag, num=True)
        + td(fmt_share(p.share), num=True)
        + td(p.consumer_id, mono=True)
        + "</tr>"
        for p in s.hot_partitions
    ]
    if not s.hot_partitions:
        out.append('<tr><td colspan="5" class="null">no partition has lag</td></tr>')
    out.append("</tbody></table>")
    return out


def answers_section(report: GroupReport) -> list[str]:
    out = [
        "<h2>Last answers</h2>",
        f'<p id="live-match">Live assignment vs last answer: '
        f"{match_badge(report.live_vs_last_answer)} "
        f"{escape(report.live_vs_last_answer.reason)}</p>",
        '<table id="answers"><thead><tr>',
        th("computed at"),
        th("strategy"),
        th("lag source"),
        th("members", num=True),
        th("partitions", num=True),
        th("imbalance", num=True),
        th("max lag", num=True),
        th("moved", num=True),
        th("compute (ms)", num=True),
        "</tr></thead><tbody>",
    ]
    out += [
        '<tr class="answer">'
        + td(iso_utc(a.computed_at))
        + td(a.strategy)
        + td(a.lag_source)
        + td(a.members, num=True)
        + td(a.partitions, num=True)
        + td(fmt_ratio(a.imbalance), num=True)
        + td(a.max_lag, num=True)
        + td(a.moved, num=True)
        + td(f"{a.compute_ms:.1f}", num=True)
        + "</tr>"
        for a in report.last_answers
    ]
    if not report.last_answers:
        out.append('<tr><td colspan="9" class="null">no answer computed yet</td></tr>')
    out.append("</tbody></table>")
    return out


def partition_section(report: GroupReport) -> list[str]:
    rows = report.partitions
    shown = rows[:MAX_PARTITION_ROWS]
    columns = (
        "topic",
        "partition",
        "current_offset",
        "log_end_offset",
        "log_start_offset",
        "lag",
        "lag_seconds",
        "produce_rate",
        "consume_rate",
        "consumer_id",
        "host",
        "client_id",
    )
    numeric = {
        "partition",
        "current_offset",
        "log_end_offset",
        "log_start_offset",
        "lag",
        "lag_seconds",
        "produce_rate",
        "consume_rate",
    }
    out = [
        "<h2>Partitions</h2>",
        '<table id="partitions"><thead><tr>',
        *(th(c, num=c in numeric) for c in columns),
        th("flags"),
        "</tr></thead><tbody>",
    ]
    for p in shown:
        f = report.rates.of_partition(p.topic, p.partition)
        flags = " ".join(
            f for f, on in (("out_of_range", p.out_of_range), ("stale", p.stale)) if on
        )
        out.append(
            f'<tr class="partition" data-topic="{escape(p.topic)}" data-partition="{p.partition}">'
            + td(p.topic)
            + td(p.partition, num=True)
            + td(p.current_offset, num=True)
            + td(p.log_end_offset, num=True)
            + td(p.log_start_offset, num=True)
            + td(p.lag, num=True)
            + td(fmt_seconds(f.lag_seconds), num=True)
            + td(fmt_rate(f.produce_rate), num=True)
            + td(fmt_rate(f.consume_rate), num=True)
            + td(p.consumer_id, mono=True)
            + td(p.host)
            + td(p.client_id)
            + td(flags or "")
            + "</tr>"
        )
    if not rows:
        out.append('<tr><td colspan="13" class="null">no partitions</td></tr>')
    out.append("</tbody></table>")
    if len(rows) > len(shown):
        out.append(
            f"<p>Showing the first {len(shown)} of {len(rows)} partitions; "
            "the JSON (<code>Accept: application/json</code>) has every row.</p>"
        )
    return out


# --- small pieces -------------------------------------------------------------------


def page(title: str, body: Iterable[str]) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )


def group_href(group_id: str) -> str:
    return escape("/groups/" + quote(group_id, safe=""))


def th(label: str, *, num: bool = False) -> str:
    return f'<th class="num">{escape(label)}</th>' if num else f"<th>{escape(label)}</th>"


def td(value: object, *, num: bool = False, mono: bool = False) -> str:
    """A cell; ``None`` shows as a dimmed ``null`` (unknown), never as 0."""
    if value is None:
        return '<td class="null">null</td>'
    classes = " ".join(c for c, on in (("num", num), ("mono", mono)) if on)
    attr = f' class="{classes}"' if classes else ""
    return f"<td{attr}>{escape(str(value))}</td>"


def fact(label: str, value: object) -> str:
    shown = '<i class="null">null</i>' if value is None else escape(str(value))
    return f"<div><span>{escape(label)}</span>{shown}</div>"


def protocol_text(h: GroupHeader) -> str | None:
    if h.protocol_type == "consumer":
        return f"consumer: the broker assigns ({h.assignment_strategy or 'its own assignor'})"
    return h.protocol_type


def freshness_badge(f: Freshness) -> str:
    if f.as_of is None:
        return '<span class="badge meh">no snapshot</span>'
    if f.stale:
        return '<span class="badge bad">stale</span>'
    return '<span class="badge ok">fresh</span>'


def match_badge(m: LiveMatch) -> str:
    kind = {"matches": "ok", "differs": "bad"}.get(m.status, "meh")
    return f'<span class="badge {kind}" data-status="{m.status}">{escape(m.status)}</span>'


def lag_view_line(lag_view: dict[str, Any]) -> str:
    if not lag_view.get("running"):
        return '<p class="warning">The lag view is not running: lags come from requests only.</p>'
    error = lag_view.get("last_refresh_error")
    kafka = "up" if lag_view.get("kafka_up") else "down"
    line = f"<p>Kafka {kafka}."
    if error:
        line += f' <span class="error">Last refresh error: {escape(str(error))}</span>'
    return line + "</p>"


def weights_line(weights: dict[str, Any] | None) -> str:
    """The forecast weights' state (the ``forecast_weights`` JSON) in one paragraph.

    Empty when no weights file is configured.
    """
    if weights is None:
        return ""
    path = escape(str(weights["path"]))
    if weights["file"] == "missing":
        return f'<p id="weights" class="warning">Forecast weights: {path} not found.</p>'
    parts = [f"Forecast weights: {path}"]
    if weights["groups"]:
        parts.append(
            f"{weights['fresh_groups']} of {weights['groups']} group(s) fresh, newest history "
            f"{weights['age_seconds']:.0f} s old (maximum {weights['max_age_seconds']:g} s)"
        )
    parts.append("in use" if weights["in_use"] else "not in use")
    text = "; ".join(parts) + "."
    css = "" if weights["in_use"] else ' class="warning"'
    if weights["last_error"] is not None:
        text += f' <span class="error">Unusable: {escape(str(weights["last_error"]))}</span>'
    return f'<p id="weights"{css}>{text}</p>'


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
