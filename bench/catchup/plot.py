"""The catch-up plot: the group's lag and its worst member's lag over time, one line per
assignor, time from the first record processed; the lower bound as a dashed line."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt

COLOURS = {
    "range": "#d62728",
    "cooperative-sticky": "#ff7f0e",
    "lag-aware": "#9467bd",
    "balanced": "#2ca02c",
    "balanced+advice": "#1f77b4",
    "uniform": "#8c564b",
    "lagassign-broker": "#17becf",
}


def plot(
    path: Path,
    title: str,
    timelines: Mapping[str, Mapping[str, Sequence[float | None]]],
    lines: Mapping[str, Mapping[str, Any]],
) -> None:
    """Write ``path`` (SVG): ``timelines[assignor]`` holds ``t``, ``group_lag`` and
    ``worst_member_lag``; ``lines[assignor]`` the run's JSON line (for the legend)."""
    figure, (group_axis, member_axis) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    bound = None
    caught_up = [
        float(line["catch_up_s"]) for line in lines.values() if line.get("catch_up_s") is not None
    ]
    for assignor, series in timelines.items():
        line = lines[assignor]
        caught = line.get("catch_up_s")
        label = (
            f"{assignor} ({caught:.1f} s)" if caught is not None else f"{assignor} (not caught up)"
        )
        colour = COLOURS.get(assignor)
        group_axis.plot(series["t"], series["group_lag"], label=label, color=colour, linewidth=1.5)
        worst = [math.nan if v is None else v for v in series["worst_member_lag"]]
        member_axis.plot(series["t"], worst, color=colour, linewidth=1.5)
        bound = line.get("lower_bound_s") or bound
    if bound is not None:
        for axis in (group_axis, member_axis):
            axis.axvline(bound, color="black", linestyle="--", linewidth=1)
        group_axis.text(bound, group_axis.get_ylim()[1] * 0.92, f" lower bound {bound:.1f} s")
    group_axis.set_ylabel("group lag (records)")
    member_axis.set_ylabel("worst member's lag (records)")
    member_axis.set_xlabel("seconds since the first record was processed")
    group_axis.set_title(textwrap.fill(title, 95), fontsize=9)
    group_axis.legend(loc="upper right", fontsize=8)
    right = max([*caught_up, bound or 0.0]) * 1.15 + 1 if caught_up else None
    for axis in (group_axis, member_axis):
        axis.set_xlim(left=0, right=right)
        axis.set_ylim(bottom=0)
        axis.grid(alpha=0.3)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="svg", metadata={"Date": None})
    plt.close(figure)
