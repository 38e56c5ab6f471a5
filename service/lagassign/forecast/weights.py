"""The forecast weights file: per-partition lag forecasts the pipeline writes for the service.

The pipeline forecasts each partition's lag a fixed horizon ahead and writes one JSON
file (format in ``docs/forecast-weights.md``). The service reads it with
:func:`load_forecast_weights` and, when it is fresh, balances by forecast lag instead
of the lag of this instant (``lag.source = forecast``).

Staleness is judged on the history the forecasts were made from, not on when the file
was written: a group whose newest history row is older than the maximum age (by default
the file's forecast horizon, ``LAGASSIGN_WEIGHTS_MAX_AGE_S`` when set) is dropped, and a
file with no fresh group loads as ``None``, as does a missing file.

Errors::

    ValueError
     └── InvalidForecastWeights   the file exists but cannot be read, is not JSON,
                                  or breaks the format (wrong version, a negative
                                  weight, a timestamp without a time zone, ...)

Example: with ``{"orders": {"t0": [1200, 80, null]}}`` and a rebalance that sees four
partitions of ``t0``, ``GroupForecast.lags({"t0": 4})`` gives ``[1200, 80, 0, 0]``
with ``unknown_partitions = 2``.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

FORMAT = "lagassign-forecast-weights"
VERSION = 1


class InvalidForecastWeights(ValueError):
    """The weights file exists but is unreadable or breaks the format; names what is wrong."""


@dataclass(frozen=True, slots=True)
class ForecastLags:
    """Forecast lags for one rebalance, shaped like the ``lags`` of ``POST /assign``.

    ``lags`` has one non-negative value per partition of every topic asked for;
    partitions the forecast does not know (added since, or never seen) hold 0 and are
    counted in ``unknown_partitions``.
    """

    lags: dict[str, list[int]]
    unknown_partitions: int

    @property
    def complete(self) -> bool:
        return self.unknown_partitions == 0


@dataclass(frozen=True, slots=True)
class GroupForecast:
    """One group's forecast lags: topic -> per partition id, the lag forecast (None: unknown)."""

    cluster: str
    group: str
    as_of: datetime
    topics: Mapping[str, tuple[int | None, ...]]

    def lags(self, partitions: Mapping[str, int]) -> ForecastLags:
        """Forecast lags for the given partition counts (topic -> count)."""
        out: dict[str, list[int]] = {}
        unknown = 0
        for topic, count in partitions.items():
            known = self.topics.get(topic, ())
            values: list[int] = []
            for p in range(count):
                value = known[p] if p < len(known) else None
                if value is None:
                    unknown += 1
                    values.append(0)
                else:
                    values.append(value)
            out[topic] = values
        return ForecastLags(lags=out, unknown_partitions=unknown)


@dataclass(frozen=True, slots=True)
class ForecastWeights:
    """The contents of one weights file."""

    generated_at: datetime
    horizon_seconds: float
    window_seconds: float
    groups: tuple[GroupForecast, ...]

    @property
    def as_of(self) -> datetime | None:
        """The newest history timestamp behind any group's forecast."""
        return max((g.as_of for g in self.groups), default=None)

    def max_age_s(self, configured: float | None = None) -> float:
        """How old a group's history may be: ``configured``, else the forecast horizon."""
        return self.horizon_seconds if configured is None else configured

    def fresh_groups(
        self, now: datetime, max_age_s: float | None = None
    ) -> tuple[GroupForecast, ...]:
        """The groups whose history is at most :meth:`max_age_s` old at ``now``."""
        limit = self.max_age_s(max_age_s)
        return tuple(g for g in self.groups if (now - g.as_of).total_seconds() <= limit)

    def for_group(self, group: str, cluster: str | None = None) -> GroupForecast | None:
        """The forecast of ``group``; with ``cluster=None``, only if one cluster has that group."""
        found = [g for g in self.groups if g.group == group and cluster in (None, g.cluster)]
        return found[0] if len(found) == 1 else None


def read_forecast_weights(path: str | os.PathLike[str]) -> ForecastWeights | None:
    """Read and check the whole file, stale groups included; ``None`` when it is missing.

    Raises :class:`InvalidForecastWeights` when the file exists but is unusable.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidForecastWeights(f"cannot read {os.fspath(path)}: {exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidForecastWeights(f"{os.fspath(path)} is not JSON: {exc}") from exc
    return parse_forecast_weights(data)


def load_forecast_weights(
    path: str | os.PathLike[str], now: datetime, max_age_s: float | None = None
) -> ForecastWeights | None:
    """Read the weights file; ``None`` when it is missing or no group in it is fresh.

    A group is fresh when ``now - as_of <= max_age_s``, by default the file's own
    ``horizon_seconds`` (past ``as_of + horizon`` a forecast is about the past); stale
    groups are left out. Raises :class:`InvalidForecastWeights` when the file exists
    but is unusable.
    """
    if now.tzinfo is None:
        raise ValueError("now must carry a time zone")
    weights = read_forecast_weights(path)
    if weights is None:
        return None
    fresh = weights.fresh_groups(now, max_age_s)
    if not fresh:
        return None
    return ForecastWeights(
        generated_at=weights.generated_at,
        horizon_seconds=weights.horizon_seconds,
        window_seconds=weights.window_seconds,
        groups=fresh,
    )


def parse_forecast_weights(data: Any) -> ForecastWeights:
    """Check a decoded weights document and return its values (no staleness applied)."""
    if not isinstance(data, dict):
        raise InvalidForecastWeights("the document must be a JSON object")
    if data.get("format") != FORMAT:
        raise InvalidForecastWeights(f"format must be {FORMAT!r}")
    if data.get("version") != VERSION:
        raise InvalidForecastWeights(
            f"version {data.get('version')!r} is not supported (expected {VERSION})"
        )
    groups_data = data.get("groups")
    if not isinstance(groups_data, list):
        raise InvalidForecastWeights("groups must be a list")
    groups: list[GroupForecast] = []
    seen: set[tuple[str, str]] = set()
    for i, entry in enumerate(groups_data):
        group = _group(entry, f"groups[{i}]")
        if (group.cluster, group.group) in seen:
            raise InvalidForecastWeights(
                f"groups[{i}] repeats group {group.group!r} of cluster {group.cluster!r}"
            )
        seen.add((group.cluster, group.group))
        groups.append(group)
    return ForecastWeights(
        generated_at=_timestamp(data.get("generated_at"), "generated_at"),
        horizon_seconds=_seconds(data.get("horizon_seconds"), "horizon_seconds"),
        window_seconds=_seconds(data.get("window_seconds"), "window_seconds"),
        groups=tuple(groups),
    )


def dump_forecast_weights(weights: ForecastWeights) -> str:
    """The JSON text of a weights file (groups and topics in a stable order)."""
    groups = sorted(weights.groups, key=lambda g: (g.cluster, g.group))
    document = {
        "format": FORMAT,
        "version": VERSION,
        "generated_at": _iso(weights.generated_at),
        "horizon_seconds": weights.horizon_seconds,
        "window_seconds": weights.window_seconds,
        "groups": [
            {
                "cluster": g.cluster,
                "group": g.group,
                "as_of": _iso(g.as_of),
                "topics": {t: list(g.topics[t]) for t in sorted(g.topics)},
            }
            for g in groups
        ],
    }
    return json.dumps(document, separators=(",", ":")) + "\n"


def write_forecast_weights(path: str | os.PathLike[str], weights: ForecastWeights) -> None:
    """Write the file atomically: a reader sees the old file or the new one, never a part."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(dump_forecast_weights(weights))
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _group(entry: Any, where: str) -> GroupForecast:
    if not isinstance(entry, dict):
        raise InvalidForecastWeights(f"{where} must be an object")
    cluster, group = entry.get("cluster"), entry.get("group")
    if not isinstance(cluster, str):
        raise InvalidForecastWeights(f"{where}.cluster must be a string")
    if not isinstance(group, str) or not group:
        raise InvalidForecastWeights(f"{where}.group must be a non-empty string")
    topics_data = entry.get("topics")
    if not isinstance(topics_data, dict):
        raise InvalidForecastWeights(f"{where}.topics must be an object")
    topics: dict[str, tuple[int | None, ...]] = {}
    for topic, values in topics_data.items():
        topics[topic] = _weights(values, f"{where}.topics[{topic!r}]")
    return GroupForecast(
        cluster=cluster,
        group=group,
        as_of=_timestamp(entry.get("as_of"), f"{where}.as_of"),
        topics=topics,
    )


def _weights(values: Any, where: str) -> tuple[int | None, ...]:
    if not isinstance(values, list):
        raise InvalidForecastWeights(f"{where} must be a list")
    out: list[int | None] = []
    for p, value in enumerate(values):
        if value is None:
            out.append(None)
        elif isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            out.append(value)
        else:
            raise InvalidForecastWeights(
                f"{where}[{p}] must be a non-negative integer or null, got {value!r}"
            )
    return tuple(out)


def _timestamp(value: Any, where: str) -> datetime:
    if not isinstance(value, str):
        raise InvalidForecastWeights(f"{where} must be an ISO 8601 timestamp string")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise InvalidForecastWeights(f"{where} is not an ISO 8601 timestamp: {value!r}") from exc
    if parsed.tzinfo is None:
        raise InvalidForecastWeights(f"{where} must carry a time zone: {value!r}")
    return parsed


def _seconds(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise InvalidForecastWeights(f"{where} must be a positive number of seconds")
    return float(value)


def _iso(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError("timestamps in a weights file must carry a time zone")
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


__all__ = [
    "ForecastLags",
    "ForecastWeights",
    "GroupForecast",
    "InvalidForecastWeights",
    "dump_forecast_weights",
    "load_forecast_weights",
    "parse_forecast_weights",
    "read_forecast_weights",
    "write_forecast_weights",
]
