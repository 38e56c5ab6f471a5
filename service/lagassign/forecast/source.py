"""The pipeline's forecast weights as a lag source for ``POST /assign``.

When ``LAGASSIGN_WEIGHTS_PATH`` is set, the app's lifespan re-reads the weights
file in a worker thread whenever it changes (checked every refresh interval), so
a request never waits on parsing it. A request uses the forecast of its group
when the forecast is fresh (its history is at most ``LAGASSIGN_WEIGHTS_MAX_AGE_S``
old at the time of the request) and knows at least one requested partition;
otherwise the next source in line (the lag view) answers.

The group is looked up under the cluster name of the settings
(``LAGASSIGN_CLUSTER``, the name the history records), else under any cluster
when exactly one holds a group of that id.

A broken file is logged and ignored; the last good forecast stays in use until
it goes stale.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from lagassign.forecast.weights import (
    ForecastWeights,
    GroupForecast,
    InvalidForecastWeights,
    load_forecast_weights,
)

log = logging.getLogger(__name__)


def utc_now() -> datetime:
    return datetime.now(UTC)


class ForecastSource:
    def __init__(
        self,
        path: Path,
        max_age_s: float,
        cluster: str,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.path = path
        self.max_age_s = max_age_s
        self.cluster = cluster
        self._clock = clock
        self._weights: ForecastWeights | None = None
        self._stamp: tuple[int, int] | None = None
        #: Why the last read of the file failed, None after a good read.
        self.last_error: str | None = None

    @property
    def weights(self) -> ForecastWeights | None:
        return self._weights

    def reload(self) -> bool:
        """Read the file again if it changed since the last read; True if it was read."""
        try:
            status = os.stat(self.path)
        except FileNotFoundError:
            self._weights, self._stamp = None, None
            return False
        except OSError as exc:
            self.last_error = f"cannot read {self.path}: {exc.strerror}"
            return False
        stamp = (status.st_mtime_ns, status.st_size)
        if stamp == self._stamp:
            return False
        self._stamp = stamp
        try:
            self._weights = load_forecast_weights(self.path, self._clock(), self.max_age_s)
        except InvalidForecastWeights as exc:
            self.last_error = str(exc)
            log.warning("ignoring the forecast weights file: %s", exc)
            return False
        self.last_error = None
        return True

    async def watch(self, interval_s: float) -> None:
        """Re-read the file in a worker thread every ``interval_s`` (until cancelled)."""
        while True:
            await asyncio.to_thread(self.reload)
            await asyncio.sleep(interval_s)

    def group_forecast(self, group_id: str) -> GroupForecast | None:
        weights = self._weights
        if weights is None:
            return None
        forecast = weights.for_group(group_id, self.cluster) or weights.for_group(group_id)
        if forecast is None:
            return None
        if (self._clock() - forecast.as_of).total_seconds() > self.max_age_s:
            return None
        return forecast
