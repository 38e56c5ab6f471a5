"""The report's plots, drawn by matplotlib and embedded as inline ``<svg>`` text.

The figures are drawn with matplotlib's object API (a :class:`~matplotlib.figure.Figure`
of its own per chart, no pyplot and no GUI backend) and written by its SVG backend with
text kept as ``<text>`` (``svg.fonttype = none``), so the page needs no script, no
image file, no font file and no network to be read. The SVG is then tidied for
inlining in HTML: no XML prolog or metadata, no clip paths (every mark lies inside
its axes, whose limits always cover the data), plain ``href`` for markers, and a
``<title>`` (shown on hover) on every line and bar with its exact value.

Example: ``line_chart("Imbalance", [Series("range", ((0, 1.5), (10, 1.2)))],
x_label="time", y_label="max / mean")`` gives one line (``<g id="series-0">``) with
two points.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib as mpl
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator
from matplotlib.typing import RcKeyType

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
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
# Inches at 100 dpi: 760 x 340 px, as the page lays them out.
SIZE = (7.6, 3.4)
STYLE: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",  # <text>, not glyph paths: small, searchable, no font file
    "svg.hashsalt": "lagassign",  # the same ids on every run
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica"],
    "font.size": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
# Written as the default namespace (<svg xmlns=...>), as a browser expects inline SVG.
ET.register_namespace("", SVG_NS)
# Ids of the parts a reader (or a test) looks for.
PLOT_AREA = "plot-area"
TITLE = "chart-title"
# Ticks step by 1, 2 or 5 x 10^k: round labels only.
ROUND_STEPS = [1, 2, 5, 10]


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
    """An SVG line chart with axes, round ticks and a legend (one colour per series).

    Each line is ``<g id="series-N">`` with the series' name as its ``<title>``; a
    one-point series shows as a dot.
    """
    if not any(s.points for s in series):
        return _empty(title)
    titles: dict[str, str] = {}
    with mpl.rc_context(STYLE):
        figure, axes = _figure(title, y_label)
        for i, s in enumerate(series):
            xs = [x for x, _ in s.points]
            ys = [y for _, y in s.points]
            (line,) = axes.plot(
                xs,
                ys,
                color=PALETTE[i % len(PALETTE)],
                linewidth=1.8,
                marker="o" if len(s.points) == 1 else None,
                markersize=5,
                label=s.name,
            )
            line.set_gid(f"series-{i}")
            titles[f"series-{i}"] = s.name
        instants = {x for s in series for x, _ in s.points}
        if len(instants) == 1:  # one instant: a second either side, not a share of the epoch
            (only,) = instants
            axes.set_xlim(only - 1.0, only + 1.0)
        if y_from_zero:
            axes.set_ylim(bottom=min(0.0, *(y for s in series for _, y in s.points)))
        axes.set_xlabel(x_label)
        axes.xaxis.set_major_locator(MaxNLocator(nbins=6, steps=ROUND_STEPS))
        axes.yaxis.set_major_locator(MaxNLocator(nbins=5, steps=ROUND_STEPS))
        label_x = x_format or format_number
        axes.xaxis.set_major_formatter(FuncFormatter(lambda v, _: label_x(v)))
        _legend(axes)
        return _svg(figure, title, titles)


def bar_chart(
    title: str,
    categories: Sequence[str],
    bars: Mapping[str, Sequence[float]],
    *,
    y_label: str,
) -> str:
    """An SVG grouped bar chart: per category, one bar per entry of ``bars`` (legend).

    Each bar is ``<g id="bar-C-B">`` (category C, entry B) titled ``"category / entry:
    value"``. The value axis runs from 0 to a round tick at or above the largest bar,
    so no bar reaches past its axis or into the title.
    """
    values = [v for vs in bars.values() for v in vs]
    if not categories or not values:
        return _empty(title)
    titles: dict[str, str] = {}
    with mpl.rc_context(STYLE):
        figure, axes = _figure(title, y_label)
        width = 0.8 / max(1, len(bars))
        for c, category in enumerate(categories):  # category by category, as the eye reads
            for b, (name, heights) in enumerate(bars.items()):
                (patch,) = axes.bar(
                    c - 0.4 + width * (b + 0.5),
                    max(heights[c], 0.0),
                    width * 0.92,
                    color=PALETTE[b % len(PALETTE)],
                    label=name if c == 0 else None,
                ).patches
                patch.set_gid(f"bar-{c}-{b}")
                titles[f"bar-{c}-{b}"] = f"{category} / {name}: {format_number(heights[c])}"
        axes.set_xticks(range(len(categories)), list(categories))
        axes.set_xlim(-0.6, len(categories) - 0.4)
        locator = MaxNLocator(nbins=5, steps=ROUND_STEPS, min_n_ticks=2)
        axes.yaxis.set_major_locator(locator)
        # Headroom: the axis ends on the first round tick 5 % above the largest bar.
        top = (max(max(values), 0.0) or 1.0) * 1.05
        axes.set_ylim(0.0, max(locator.tick_values(0.0, top)[-1], top))
        _legend(axes)
        return _svg(figure, title, titles)


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


def _figure(title: str, y_label: str) -> tuple[Figure, Axes]:
    figure = Figure(figsize=SIZE, dpi=100, layout="constrained")
    axes = figure.add_subplot()
    axes.patch.set_gid(PLOT_AREA)
    axes.set_title(title, loc="left", fontsize=11, fontweight="bold", gid=TITLE)
    axes.set_ylabel(y_label)
    axes.grid(axis="y", color="#dddddd", linewidth=0.8)
    axes.set_axisbelow(True)
    axes.yaxis.set_major_formatter(FuncFormatter(lambda v, _: format_number(v)))
    return figure, axes


def _legend(axes: Axes) -> None:
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)


def _svg(
    figure: Figure,
    title: str,
    titles: Mapping[str, str],
) -> str:
    """The figure as inline SVG text: tidied, titled, every mark with its ``<title>``."""
    out = io.StringIO()
    figure.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    root = ET.fromstring(out.getvalue())
    shapes = {
        element.get("id"): element
        for defs in root.iter(f"{{{SVG_NS}}}defs")
        for element in list(defs)
        if element.tag == f"{{{SVG_NS}}}path"
    }
    for parent in root.iter():
        for i, child in enumerate(list(parent)):
            if child.tag in (f"{{{SVG_NS}}}metadata", f"{{{SVG_NS}}}clipPath"):
                parent.remove(child)
            elif child.tag == f"{{{SVG_NS}}}use":
                parent.remove(child)
                parent.insert(i, _drawn_in_place(child, shapes))
            elif child.get("id") in shapes and parent.tag == f"{{{SVG_NS}}}defs":
                parent.remove(child)
        parent.attrib.pop("clip-path", None)
        gid = parent.get("id", "")
        if gid in titles:
            hover = ET.Element(f"{{{SVG_NS}}}title")
            hover.text = titles[gid]
            parent.insert(0, hover)
    root.set("role", "img")
    root.set("aria-label", title)
    heading = ET.Element(f"{{{SVG_NS}}}title")
    heading.text = title
    root.insert(0, heading)
    return ET.tostring(root, encoding="unicode")


def _drawn_in_place(use: ET.Element, shapes: Mapping[str | None, ET.Element]) -> ET.Element:
    """The shape a ``<use>`` points at (a tick or a marker), as a path of its own.

    The page then holds no reference at all, not even to a fragment of itself.
    """
    href = use.get(XLINK_HREF) or use.get("href") or ""
    shape = shapes[href.removeprefix("#")]
    path = ET.Element(f"{{{SVG_NS}}}path", {"d": shape.get("d", "")})
    path.set("transform", f"translate({use.get('x', '0')} {use.get('y', '0')})")
    path.set("style", use.get("style") or shape.get("style") or "")
    return path


def _empty(title: str) -> str:
    with mpl.rc_context(STYLE):
        figure = Figure(figsize=SIZE, dpi=100)
        figure.text(0.02, 0.92, title, fontsize=11, fontweight="bold", gid=TITLE)
        figure.text(0.5, 0.5, "no data", ha="center", va="center", color="#666666")
        return _svg(figure, title, {})
