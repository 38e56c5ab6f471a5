"""Plots as inline SVG text: line charts and grouped bar charts, no plotting library.

The report embeds the returned ``<svg>`` elements directly, so the page needs no
script, no font and no network to be read. Every mark carries a ``<title>`` (the
browser shows it on hover) with its exact value.

Example: ``line_chart("Imbalance", [Series("range", ((0, 1.5), (10, 1.2)))],
x_label="time", y_label="max / mean")`` gives one polyline with two points.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from html import escape

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#8c564b",
    "#e377c2",
)

WIDTH, HEIGHT = 760, 340
LEFT, RIGHT, TOP, BOTTOM = 72, 150, 34, 50


@dataclass(frozen=True, slots=True)
class Series:
    """One named line: (x, y) points in x order."""

    name: str
    points: tuple[tuple[float, float], ...]


def line_chart(
    title: str,
    series: Sequence[Series],
    *,
    x_label: str,
    y_label: str,
    x_format: Callable[[float], str] | None = None,
    y_from_zero: bool = False,
) -> str:
    """An SVG line chart with axes, ticks and a legend (one colour per series)."""
    points = [pt for s in series for pt in s.points]
    if not points:
        return _empty(title)
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    x_lo, x_hi = _span(min(xs), max(xs))
    y_lo, y_hi = _span(0.0 if y_from_zero else min(ys), max(ys))
    y_ticks = nice_ticks(y_lo, y_hi)
    y_lo, y_hi = min(y_lo, y_ticks[0]), max(y_hi, y_ticks[-1])
    x_ticks = nice_ticks(x_lo, x_hi)
    fx = _scale(x_lo, x_hi, LEFT, WIDTH - RIGHT)
    fy = _scale(y_lo, y_hi, HEIGHT - BOTTOM, TOP)
    label_x = x_format or format_number
    parts = [_open(title), *_axes(x_label, y_label)]
    for tick in x_ticks:
        if x_lo <= tick <= x_hi:
            parts.append(_x_tick(fx(tick), label_x(tick)))
    for tick in y_ticks:
        parts.append(_y_tick(fy(tick), format_number(tick)))
    for i, s in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        path = " ".join(f"{fx(x):.1f},{fy(y):.1f}" for x, y in s.points)
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="1.8" points="{path}">'
            f"<title>{escape(s.name)}</title></polyline>"
        )
        if len(s.points) == 1:
            ((x, y),) = s.points
            parts.append(f'<circle cx="{fx(x):.1f}" cy="{fy(y):.1f}" r="3" fill="{colour}"/>')
    parts.extend(_legend([s.name for s in series]))
    parts.append("</svg>")
    return "\n".join(parts)


def bar_chart(
    title: str,
    categories: Sequence[str],
    bars: Mapping[str, Sequence[float]],
    *,
    y_label: str,
) -> str:
    """An SVG grouped bar chart: per category, one bar per entry of ``bars`` (legend)."""
    values = [v for vs in bars.values() for v in vs]
    if not categories or not values:
        return _empty(title)
    y_ticks = nice_ticks(0.0, max(max(values), 0.0) or 1.0)
    y_hi = y_ticks[-1]
    fy = _scale(0.0, y_hi, HEIGHT - BOTTOM, TOP)
    slot = (WIDTH - RIGHT - LEFT) / len(categories)
    bar = slot * 0.8 / max(1, len(bars))
    parts = [_open(title), *_axes("", y_label)]
    for tick in y_ticks:
        parts.append(_y_tick(fy(tick), format_number(tick)))
    for c, category in enumerate(categories):
        left = LEFT + slot * c + slot * 0.1
        parts.append(_x_tick(LEFT + slot * (c + 0.5), category))
        for b, (name, vs) in enumerate(bars.items()):
            value = vs[c]
            top = fy(max(value, 0.0))
            parts.append(
                f'<rect x="{left + b * bar:.1f}" y="{top:.1f}" width="{bar * 0.92:.1f}" '
                f'height="{HEIGHT - BOTTOM - top:.1f}" fill="{PALETTE[b % len(PALETTE)]}">'
                f"<title>{escape(category)} / {escape(name)}: {format_number(value)}</title></rect>"
            )
    parts.extend(_legend(list(bars)))
    parts.append("</svg>")
    return "\n".join(parts)


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values covering [lo, hi] (steps of 1, 2 or 5 x 10^k)."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.floor(lo / step) * step
    ticks = []
    tick = first
    while tick < hi + step * 0.5:
        ticks.append(round(tick, 12))
        tick += step
    return ticks


def format_number(value: float) -> str:
    """Short human form: 950, 12.5k, 3.2M, 1.25, 1.5 (at most two decimals below 10)."""
    size = abs(value)
    if size >= 1e9:
        return f"{value / 1e9:.3g}G"
    if size >= 1e6:
        return f"{value / 1e6:.3g}M"
    if size >= 1e4:
        return f"{value / 1e3:.3g}k"
    if size >= 10 or value == int(value):
        return f"{value:.0f}"
    return f"{value:.2f}".rstrip("0")


def _span(lo: float, hi: float) -> tuple[float, float]:
    if hi > lo:
        return lo, hi
    pad = abs(lo) * 0.1 or 1.0
    return lo - pad, hi + pad


def _scale(lo: float, hi: float, a: float, b: float) -> Callable[[float], float]:
    ratio = (b - a) / (hi - lo)
    return lambda v: a + (v - lo) * ratio


def _open(title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{escape(title)}" '
        f'font-family="sans-serif" font-size="12">\n<title>{escape(title)}</title>\n'
        f'<text x="{LEFT}" y="20" font-size="14" font-weight="bold">{escape(title)}</text>'
    )


def _axes(x_label: str, y_label: str) -> list[str]:
    bottom, right = HEIGHT - BOTTOM, WIDTH - RIGHT
    out = [
        f'<line x1="{LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#333"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="#333"/>',
        f'<text x="16" y="{(TOP + bottom) / 2:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {(TOP + bottom) / 2:.0f})">{escape(y_label)}</text>',
    ]
    if x_label:
        out.append(
            f'<text x="{(LEFT + right) / 2:.0f}" y="{HEIGHT - 8}" '
            f'text-anchor="middle">{escape(x_label)}</text>'
        )
    return out


def _x_tick(x: float, label: str) -> str:
    y = HEIGHT - BOTTOM
    return (
        f'<line x1="{x:.1f}" y1="{y}" x2="{x:.1f}" y2="{y + 5}" stroke="#333"/>'
        f'<text x="{x:.1f}" y="{y + 18}" text-anchor="middle">{escape(label)}</text>'
    )


def _y_tick(y: float, label: str) -> str:
    return (
        f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="#ddd"/>'
        f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{escape(label)}</text>'
    )


def _legend(names: Sequence[str]) -> list[str]:
    x = WIDTH - RIGHT + 14
    out = []
    for i, name in enumerate(names):
        y = TOP + 8 + i * 18
        out.append(
            f'<rect x="{x}" y="{y - 9}" width="12" height="12" fill="{PALETTE[i % len(PALETTE)]}"/>'
            f'<text x="{x + 18}" y="{y + 1}">{escape(name)}</text>'
        )
    return out


def _empty(title: str) -> str:
    return (
        f"{_open(title)}\n"
        f'<text x="{WIDTH / 2:.0f}" y="{HEIGHT / 2:.0f}" text-anchor="middle" fill="#666">'
        "no data</text>\n</svg>"
    )
