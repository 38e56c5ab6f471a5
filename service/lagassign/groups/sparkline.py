"""A small lag-over-time line as inline SVG: drawn on the server, no JavaScript.

The points are ``(time ms, lag)``, oldest first. Time runs left to right over
the points' own span, lag bottom to top from 0 to the largest lag shown; the
``title`` gives the span and the range. Fewer than two points draw nothing
(an empty string).

Example: ``[(0, 0), (10_000, 50), (20_000, 100)]`` is a straight line from the
bottom left to the top right, titled "lag over 20 s: 0 to 100".
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

WIDTH = 120
HEIGHT = 24
PAD = 2


def lag_sparkline(points: Sequence[tuple[int, int]], member_id: str) -> str:
    if len(points) < 2:
        return ""
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
    title = f"lag over {(t1 - t0) / 1000:.0f} s: {low} to {top}"
    return (
        f'<svg class="lag-line" data-member="{escape(member_id)}" data-points="{len(points)}" '
        f'width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}"><title>{escape(title)}</title>'
        f'<polyline fill="none" stroke="#d9822b" stroke-width="1.5" points="{coords}"/></svg>'
    )
