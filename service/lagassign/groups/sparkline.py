"""A small lag-over-time line, computed on the server and drawn as inline SVG (no JavaScript).

The points are ``(time ms, lag)``, oldest first. Time runs left to right over
the points' own span, lag bottom to top from 0 to the largest lag shown; the
``title`` gives the span and the range. Fewer than two points draw nothing
(``None``). The page's template (``templates/group.html``) writes the ``<svg>``
with these numbers and escapes the title and the member id.

Example: ``[(0, 0), (10_000, 50), (20_000, 100)]`` is a straight line from the
bottom left to the top right, ``points`` ``"2.0,22.0 60.0,12.0 118.0,2.0"``,
titled "lag over 20 s: 0 to 100".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

WIDTH = 120
HEIGHT = 24
PAD = 2


@dataclass(frozen=True, slots=True)
class Sparkline:
    """What the ``<svg class="lag-line">`` of one member draws."""

    points: str
    count: int
    title: str
    width: int = WIDTH
    height: int = HEIGHT


def lag_sparkline(points: Sequence[tuple[int, int]]) -> Sparkline | None:
    if len(points) < 2:
        return None
    t0, t1 = points[0][0], points[-1][0]
    top = max(lag for _, lag in points)
    span = max(1, t1 - t0)
    scale = top if top > 0 else 1
    inner_w, inner_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD
    coords = " ".join(
        f"{PAD + inner_w * (t - t0) / span:.1f},{PAD + inner_h * (1 - lag / scale):.1f}"
        for t, lag in points
    )
    low = min(lag for _, lag in points)
    return Sparkline(coords, len(points), f"lag over {(t1 - t0) / 1000:.0f} s: {low} to {top}")
