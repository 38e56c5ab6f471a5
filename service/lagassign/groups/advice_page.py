"""The one line of rebalance advice on a group's page."""

from __future__ import annotations

from html import escape

from lagassign.groups.advice import Advice


def advice_line(advice: Advice | None) -> list[str]:
    """``<p id="advice">``: advised or not, and why; nothing before the first advice."""
    if advice is None:
        return []
    verdict = "Rebalance advised" if advice.advised else "No rebalance advised"
    css = "warning" if advice.advised else "note"
    return [f'<p class="{css}" id="advice"><b>{verdict}</b>: {escape(advice.reason)}</p>']
