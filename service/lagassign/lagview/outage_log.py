"""One log line when Kafka answers again after an outage.

The lag view logs one WARNING when its refreshes stop reaching Kafka. An
:class:`OutageLog`, a refresh listener, logs one INFO line when a refresh reaches
Kafka again, with how long the outage lasted and how many refreshes failed::

    WARNING lagassign.lagview.refresh: lag refresh failed, keeping the last snapshots: ...
    INFO lagassign.lagview.outage_log: Kafka answers again after 183 s: 17 lag refreshes failed

Worked example: refreshes at t = 0 (ok), 10, 20, 30 (failed), 40 (ok) give one line
at t = 40: "Kafka answers again after 30 s: 3 lag refreshes failed" (the outage is
counted from the start of the first failed refresh).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from lagassign.lagview.listeners import Refresh

log = logging.getLogger(__name__)


class OutageLog:
    """A :class:`~lagassign.lagview.listeners.RefreshListener` that logs the end of outages."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._down_since: float | None = None
        self._failed = 0
        #: Outages that ended, for tests and the curious.
        self.recoveries = 0

    async def refreshed(self, refresh: Refresh) -> None:
        self.observe(refresh)

    async def close(self) -> None:
        """Nothing to finish."""

    def observe(self, refresh: Refresh) -> None:
        now = self._monotonic()
        if not refresh.kafka_up:
            if self._down_since is None:
                self._down_since = now - refresh.duration_s
            self._failed += 1
            return
        if self._down_since is not None:
            log.info(
                "Kafka answers again after %.0f s: %d lag refresh%s failed",
                now - self._down_since,
                self._failed,
                "" if self._failed == 1 else "es",
            )
            self.recoveries += 1
        self._down_since = None
        self._failed = 0
