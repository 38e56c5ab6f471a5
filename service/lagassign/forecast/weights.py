"""The forecast weights file: per-partition lag forecasts the pipeline writes for the service.

The pipeline forecasts each partition's lag a fixed horizon ahead and writes one JSON
file (format in ``docs/forecast-weights.md``). The service reads it with
:func:`load_forecast_weights` and, when it is fresh, balances by forecast lag instead
of the lag of this instant (``lag.source = forecast``).

Staleness is judged on the history the forecasts were made from, not on when the file
was written: a group whose newest history row is older than the maximum age (by default
the file's forecast horizon, ``LAGASSIGN_WEIGHTS_MAX_AGE_S`` when set) is dropped, and a
file with no fresh group loads as ``None``, as does a missing file.

The format is said once, by the pydantic models ``_Group`` and ``_Document`` (strict
numbers and strings, zone-aware timestamps); their errors are put in the format's
words by :func:`explain`, each naming its field.

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    Field,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import ErrorDetails

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


def _timestamp_text(value: object) -> object:
    """A timestamp is ISO 8601 text starting with its date; pydantic then parses it.

    (Pydantic alone would also take a number, or a string of one, as Unix seconds.)
    """
    if not isinstance(value, str) or not (value[:4].isdigit() and value[4:5] == "-"):
        raise ValueError("must be an ISO 8601 timestamp string")
    return value


Timestamp = Annotated[AwareDatetime, BeforeValidator(_timestamp_text)]
Seconds = Annotated[float, Field(strict=True, gt=0, allow_inf_nan=False)]
Weight = Annotated[int, Field(strict=True, ge=0)]


class _Group(BaseModel):
    """One entry of ``groups``: a group's forecast lags per topic, by partition id."""

    cluster: StrictStr
    group: Annotated[StrictStr, Field(min_length=1)]
    as_of: Timestamp
    topics: dict[str, tuple[Weight | None, ...]]


class _Document(BaseModel):
    """The weights file as written on disk (``docs/forecast-weights.md``)."""

    format: Literal["lagassign-forecast-weights"]
    version: int
    generated_at: Timestamp
    horizon_seconds: Seconds
    window_seconds: Seconds
    groups: list[_Group]

    @field_validator("version", mode="before")
    @classmethod
    def _supported(cls, version: object) -> object:
        if type(version) is not int or version != VERSION:
            raise ValueError(f"{version!r} is not supported (expected {VERSION})")
        return version

    @model_validator(mode="after")
    def _each_group_once(self) -> Self:
        seen: set[tuple[str, str]] = set()
        for i, g in enumerate(self.groups):
            if (g.cluster, g.group) in seen:
                raise ValueError(f"groups[{i}] repeats group {g.group!r} of cluster {g.cluster!r}")
            seen.add((g.cluster, g.group))
        return self

    def values(self) -> ForecastWeights:
        return ForecastWeights(
            generated_at=self.generated_at,
            horizon_seconds=self.horizon_seconds,
            window_seconds=self.window_seconds,
            groups=tuple(GroupForecast(g.cluster, g.group, g.as_of, g.topics) for g in self.groups),
        )


# What each kind of pydantic error means in this format, said of the field it names.
_PROBLEMS = {
    "missing": "is missing",
    "model_type": "must be an object",
    "dict_type": "must be an object",
    "list_type": "must be a list",
    "tuple_type": "must be a list",
    "string_type": "must be a string",
    "string_too_short": "must be a non-empty string",
    "int_type": "must be a non-negative integer or null",
    "greater_than_equal": "must be a non-negative integer or null",
    "float_type": "must be a positive number of seconds",
    "greater_than": "must be a positive number of seconds",
    "finite_number": "must be a positive number of seconds",
    "timezone_aware": "must carry a time zone",
}
# Past this many problems, the message says how many more there are.
_SHOWN_PROBLEMS = 3


def explain(errors: Sequence[ErrorDetails]) -> str:
    """The validation errors as one message naming each field (``groups[0].topics['t0'][2]``)."""
    problems = [_problem(e) for e in errors[:_SHOWN_PROBLEMS]]
    if len(errors) > _SHOWN_PROBLEMS:
        problems.append(f"and {len(errors) - _SHOWN_PROBLEMS} more problems")
    return "; ".join(problems)


def _problem(error: ErrorDetails) -> str:
    where = _field(error["loc"])
    kind, value = error["type"], error.get("input")
    if kind == "value_error":
        reason = str(error.get("ctx", {}).get("error", error["msg"]))
        return f"{where} {reason}" if where else reason
    if kind == "model_type" and not where:
        return "the document must be a JSON object"
    if kind == "literal_error":
        problem = f"must be {error.get('ctx', {}).get('expected', '')}"
    elif kind.startswith(("datetime", "date_")):
        problem = "is not an ISO 8601 timestamp"
    else:
        problem = _PROBLEMS.get(kind, error["msg"])
    if kind != "missing" and not isinstance(value, dict | list):
        problem += f", got {value!r}"
    return f"{where or 'the document'} {problem}"


def _field(loc: tuple[int | str, ...]) -> str:
    """``('groups', 0, 'topics', 't0', 2)`` -> ``groups[0].topics['t0'][2]``."""
    out = ""
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
        elif i and loc[i - 1] == "topics":
            out += f"[{part!r}]"
        else:
            out += f".{part}" if out else part
    return out


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
        document = _Document.model_validate_json(text)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        if errors[0]["type"] == "json_invalid":
            problem = errors[0].get("ctx", {}).get("error", errors[0]["msg"])
            raise InvalidForecastWeights(f"{os.fspath(path)} is not JSON: {problem}") from None
        raise InvalidForecastWeights(explain(errors)) from None
    return document.values()


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
    try:
        return _Document.model_validate(data).values()
    except ValidationError as exc:
        raise InvalidForecastWeights(explain(exc.errors(include_url=False))) from None


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


#: The weights file's mode: the sidecar reading it usually runs as another user than
#: the pipeline writing it (the image's uid 10001), so it is readable by all.
#: ``mkstemp`` alone would leave it 0600.
WEIGHTS_FILE_MODE = 0o644


def write_forecast_weights(path: str | os.PathLike[str], weights: ForecastWeights) -> None:
    """Write the file atomically: a reader sees the old file or the new one, never a part.

    The file is left ``WEIGHTS_FILE_MODE`` (0644), whatever the writer's umask.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        os.fchmod(fd, WEIGHTS_FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(dump_forecast_weights(weights))
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


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
