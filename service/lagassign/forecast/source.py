"""The pipeline's forecast weights for ``POST /assign``, and their state.

When ``LAGASSIGN_WEIGHTS_PATH`` is set, the app's lifespan re-reads the weights
file in a worker thread whenever it changes (checked every refresh interval), so
a request never waits on parsing it. A request uses the forecast of its group
when the forecast is fresh and knows at least one requested partition; otherwise
the next source in line (the lag view) answers.

Fresh: the group's history (its ``as_of``) is at most the maximum age old at the time
of the request. The maximum age is ``LAGASSIGN_WEIGHTS_MAX_AGE_S`` when set, else the
file's own forecast horizon (``horizon_seconds``): a forecast describes the lag at
``as_of + horizon``, and past that moment it describes the past.

The group is looked up under the cluster name of the settings
(``LAGASSIGN_CLUSTER``, the name the history records), else under any cluster
when exactly one holds a group of that id.

A file that turns unusable (unreadable, not JSON, breaks the format) is logged once;
its last good copy stays in use for ``LAGASSIGN_WEIGHTS_ERROR_GRACE_S`` (60 s; long
enough for a writer that is not atomic to finish), then it is dropped and the lag view
answers, with a second log line. A missing file means no forecast at once. Going stale
(no group fresh any more) and becoming fresh again are logged once each.

:meth:`ForecastSource.state` is what ``/groups`` and the metrics show.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from lagassign.forecast.weights import (
    ForecastWeights,
    GroupForecast,
    InvalidForecastWeights,
    read_forecast_weights,
)
from lagassign.settings import Settings

log = logging.getLogger(__name__)

FileStatus = Literal["unread", "missing", "loaded", "invalid"]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class WeightsState:
    """The weights file as the sidecar sees it now.

    - ``file``: ``loaded`` (the last read succeeded), ``missing``, ``invalid`` (the
      last read failed: ``last_error`` says why, since ``error_since``), ``unread``;
    - ``in_use``: whether ``/assign`` may answer from these weights now (a good copy,
      not past the grace of an invalid file, at least one fresh group);
    - ``as_of`` and ``age_seconds``: the newest history behind any group's forecast;
    - ``groups``: groups in the good copy; ``fresh_groups``: those fresh now.
    """

    path: str
    file: FileStatus
    in_use: bool
    generated_at: datetime | None
    as_of: datetime | None
    age_seconds: float | None
    horizon_seconds: float | None
    max_age_seconds: float | None
    groups: int
    fresh_groups: int
    last_error: str | None
    error_since: datetime | None
    error_grace_seconds: float
    load_errors_total: int

    @property
    def stale(self) -> bool:
        """A good copy is held but no group in it is fresh."""
        return self.groups > 0 and self.fresh_groups == 0


class ForecastSource:
    def __init__(
        self,
        path: Path,
        max_age_s: float | None,
        cluster: str,
        clock: Callable[[], datetime] = utc_now,
        error_grace_s: float = 60.0,
    ) -> None:
        self.path = path
        #: The configured maximum age; None: the file's forecast horizon.
        self.max_age_s = max_age_s
        self.cluster = cluster
        self.error_grace_s = error_grace_s
        self._clock = clock
        self._good: ForecastWeights | None = None
        self._stamp: tuple[int, int] | None = None
        self._file: FileStatus = "unread"
        #: Why the last read of the file failed, None after a good read.
        self.last_error: str | None = None
        self._error_since: datetime | None = None
        self._dropped_logged = False
        self._stale_logged = False
        self.load_errors_total = 0

    @classmethod
    def from_settings(cls, settings: Settings) -> ForecastSource | None:
        if settings.weights_path is None:
            return None
        return cls(
            settings.weights_path,
            settings.weights_max_age_s,
            settings.cluster,
            error_grace_s=settings.weights_error_grace_s,
        )

    @property
    def weights(self) -> ForecastWeights | None:
        """The weights ``/assign`` may use now: the good copy, unless past an error's grace."""
        if self._good is None:
            return None
        if self._error_since is not None and self._past_grace(self._clock()):
            return None
        return self._good

    def reload(self) -> bool:
        """Read the file again if it changed since the last read; True if it was read."""
        changed = self._read_if_changed()
        self._log_transitions()
        return changed

    def _read_if_changed(self) -> bool:
        try:
            status = os.stat(self.path)
        except FileNotFoundError:
            if self._file != "missing":
                log.warning(
                    "forecast weights file %s not found: /assign uses the lag view", self.path
                )
            self._good, self._stamp, self._file = None, None, "missing"
            self._clear_error()
            return False
        except OSError as exc:
            self._failed(f"cannot read {self.path}: {exc.strerror}")
            return False
        stamp = (status.st_mtime_ns, status.st_size)
        if stamp == self._stamp:
            return False
        self._stamp = stamp
        try:
            weights = read_forecast_weights(self.path)
        except InvalidForecastWeights as exc:
            self._failed(str(exc))
            return False
        if weights is None:  # removed between stat and read
            self._good, self._stamp, self._file = None, None, "missing"
            return False
        self._good, self._file = weights, "loaded"
        self._clear_error()
        self._stale_logged = False
        fresh = len(weights.fresh_groups(self._clock(), self.max_age_s))
        log.info(
            "forecast weights loaded from %s: %d group(s), %d fresh (maximum age %g s)",
            self.path,
            len(weights.groups),
            fresh,
            weights.max_age_s(self.max_age_s),
        )
        return True

    def _failed(self, reason: str) -> None:
        self.load_errors_total += 1
        first = self._error_since is None
        self._file = "invalid"
        self.last_error = reason
        if first:
            self._error_since = self._clock()
            self._dropped_logged = False
            kept = (
                f"the last good copy stays in use for {self.error_grace_s:g} s"
                if self._good is not None
                else "/assign uses the lag view"
            )
            log.warning("forecast weights file unusable: %s; %s", reason, kept)

    def _clear_error(self) -> None:
        self.last_error = None
        self._error_since = None
        self._dropped_logged = False

    def _past_grace(self, now: datetime) -> bool:
        since = self._error_since
        return since is not None and (now - since).total_seconds() > self.error_grace_s

    def _log_transitions(self) -> None:
        """One line when an error's grace runs out, when weights go stale or fresh again."""
        now = self._clock()
        good = self._good
        if good is not None and self._past_grace(now) and not self._dropped_logged:
            self._dropped_logged = True
            log.warning(
                "forecast weights file %s still unusable after %g s: the last good copy is "
                "dropped and /assign uses the lag view (%s)",
                self.path,
                self.error_grace_s,
                self.last_error,
            )
        if good is None:
            return
        fresh = good.fresh_groups(now, self.max_age_s)
        if not fresh and not self._stale_logged:
            self._stale_logged = True
            newest = good.as_of
            age = (now - newest).total_seconds() if newest is not None else float("nan")
            log.warning(
                "forecast weights in %s are stale: their newest history is %.0f s old, over "
                "the maximum age of %g s; /assign uses the lag view until the pipeline "
                "writes newer ones",
                self.path,
                age,
                good.max_age_s(self.max_age_s),
            )
        elif fresh and self._stale_logged:
            self._stale_logged = False
            log.info("forecast weights in %s: %d group(s) fresh again", self.path, len(fresh))

    def state(self) -> WeightsState:
        now = self._clock()
        good = self._good
        usable = self.weights
        as_of = good.as_of if good is not None else None
        fresh = len(good.fresh_groups(now, self.max_age_s)) if good is not None else 0
        return WeightsState(
            path=os.fspath(self.path),
            file=self._file,
            in_use=usable is not None and fresh > 0,
            generated_at=good.generated_at if good is not None else None,
            as_of=as_of,
            age_seconds=(now - as_of).total_seconds() if as_of is not None else None,
            horizon_seconds=good.horizon_seconds if good is not None else None,
            max_age_seconds=good.max_age_s(self.max_age_s) if good is not None else self.max_age_s,
            groups=len(good.groups) if good is not None else 0,
            fresh_groups=fresh,
            last_error=self.last_error,
            error_since=self._error_since,
            error_grace_seconds=self.error_grace_s,
            load_errors_total=self.load_errors_total,
        )

    async def watch(self, interval_s: float) -> None:
        """Re-read the file in a worker thread every ``interval_s`` (until cancelled)."""
        while True:
            await asyncio.to_thread(self.reload)
            await asyncio.sleep(interval_s)

    def group_forecast(self, group_id: str) -> GroupForecast | None:
        weights = self.weights
        if weights is None:
            return None
        forecast = weights.for_group(group_id, self.cluster) or weights.for_group(group_id)
        if forecast is None:
            return None
        age_s = (self._clock() - forecast.as_of).total_seconds()
        if age_s > weights.max_age_s(self.max_age_s):
            return None
        return forecast
