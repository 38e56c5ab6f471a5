"""What every ``/groups`` wire model writes alike: times, rounded figures, copied fields.

A model is built from a pure value of :mod:`lagassign.groups` (or of the lag view, the
forecast and the history) by its ``of`` class method. Most of its fields are the
value's fields of the same name, unchanged: :meth:`CopiedModel.copied` takes those by
name, and ``of`` says only the fields it works out (a time written as ISO 8601 UTC, a
figure rounded, a field named otherwise on the wire). A field the value lacks is an
``AttributeError`` at the first answer, not a silent ``null``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Self

from lagassign.assign.answer import iso_utc
from lagassign.assign.answer_log import AnswerRecord
from lagassign.groups.strategy_now import StrategyNow
from lagassign.http.schemas import WireModel
from lagassign.rates.totals import RatesTotal


def iso(moment: datetime | None) -> str | None:
    """``2026-11-20T22:19:03.120Z``, or ``None`` for an unknown time."""
    return iso_utc(moment) if moment is not None else None


def rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def rates_fields(rates: RatesTotal) -> dict[str, Any]:
    """The live rates of a group or a member as the wire writes them (3 decimals)."""
    return {
        "produce_rate": rounded(rates.produce_rate, 3),
        "consume_rate": rounded(rates.consume_rate, 3),
        "lag_seconds_max": rounded(rates.lag_seconds_max, 3),
        "lag_seconds_unknown": rates.lag_seconds_unknown,
    }


def run_figures(run: StrategyNow | AnswerRecord) -> dict[str, float]:
    """A strategy run's imbalance (4 decimals) and compute time (3) as the wire writes them."""
    return {"imbalance": round(run.imbalance, 4), "compute_ms": round(run.compute_ms, 3)}


class CopiedModel(WireModel):
    """A wire object whose fields are its value's of the same name, but for a few."""

    @classmethod
    def copied(cls, value: object, **worked_out: Any) -> Self:
        """The model of ``value``: ``worked_out`` fields as given, every other one copied."""
        same = {name: getattr(value, name) for name in cls.model_fields if name not in worked_out}
        return cls(**same, **worked_out)
