"""Who hears about each refresh of the lag view: one list of listeners.

The refresh loop calls every listener after each refresh, in order, with a
:class:`Refresh`; the history recorder (:mod:`lagassign.history.recorder`) and
the refresh metrics (:mod:`lagassign.metrics.lag_view`) are two of them. The
lag view knows nothing else of them, so ``lagview`` imports neither.

A listener must not raise for its own failures (it counts and logs them) and
must not hold up the loop: slow work belongs in a task it owns and awaits in
:meth:`RefreshListener.close`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from lagassign.lagview.snapshot import GroupSnapshot


@dataclass(frozen=True, slots=True)
class Refresh:
    """One finished refresh: how long it took, whether it read everything, what it read.

    ``fresh`` holds the snapshots read without error in this refresh (stale or
    unread groups are left out). ``kafka_up``: the refresh reached Kafka (a refresh
    that failed for one group only is not ``ok`` but still reached Kafka).
    """

    duration_s: float
    ok: bool
    fresh: Sequence[GroupSnapshot]
    kafka_up: bool = True


class RefreshListener(Protocol):
    """Told of every refresh; closed once when the lag view stops."""

    async def refreshed(self, refresh: Refresh) -> None: ...

    async def close(self) -> None: ...
