"""The wire models of ``GET /groups``: every tracked group, and the health of what feeds them.

A group's line reuses the parts of :mod:`lagassign.http.schemas_group`; beside the
groups stand the lag view's health, the forecast weights file's state and the lag
history's writes. Built like the group's models (:mod:`lagassign.http.schemas_values`).
"""

from __future__ import annotations

from lagassign.forecast.source import FileStatus, WeightsState
from lagassign.groups.report import GroupSummary
from lagassign.history.recorder import HistoryState
from lagassign.http.schemas import WireModel
from lagassign.http.schemas_group import (
    AnswerOut,
    AssignedByOut,
    AssignmentSeenOut,
    FreshnessOut,
    HeaderOut,
    LiveMatchOut,
)
from lagassign.http.schemas_values import CopiedModel, iso, rounded
from lagassign.lagview.reader import LagReader


class GroupSummaryOut(WireModel):
    """One group of ``GET /groups``: freshness and the headline numbers."""

    group_id: str
    freshness: FreshnessOut
    header: HeaderOut
    imbalance: float | None
    last_answer: AnswerOut | None
    live_vs_last_answer: LiveMatchOut
    assigned_by: AssignedByOut | None
    assignments_seen: list[AssignmentSeenOut]

    @classmethod
    def of(cls, s: GroupSummary) -> GroupSummaryOut:
        return cls(
            group_id=s.group_id,
            freshness=FreshnessOut.of(s.freshness),
            header=HeaderOut.of(s.header),
            imbalance=rounded(s.imbalance, 4),
            last_answer=AnswerOut.of(s.last_answer) if s.last_answer else None,
            live_vs_last_answer=LiveMatchOut.of(s.live_vs_last_answer),
            assigned_by=AssignedByOut.of(s.assigned_by),
            assignments_seen=AssignmentSeenOut.all_of(s.assignments_seen),
        )


class LagViewOut(CopiedModel):
    """The lag view's health; without a lag view ``running`` and ``kafka_up`` are false."""

    running: bool
    kafka_up: bool
    first_snapshot_loaded: bool
    last_refresh_ok: str | None
    last_refresh_error: str | None

    @classmethod
    def of(cls, view: LagReader | None) -> LagViewOut:
        if view is None:
            return cls(
                running=False,
                kafka_up=False,
                first_snapshot_loaded=False,
                last_refresh_ok=None,
                last_refresh_error=None,
            )
        last_ok = view.last_refresh_ok
        return cls.copied(
            view, running=True, last_refresh_ok=last_ok.isoformat() if last_ok else None
        )


class ForecastWeightsOut(CopiedModel):
    """The forecast weights file's state (``docs/forecast-weights.md``)."""

    path: str
    file: FileStatus
    in_use: bool
    stale: bool
    generated_at: str | None
    as_of: str | None
    age_seconds: float | None
    horizon_seconds: float | None
    max_age_seconds: float | None
    groups: int
    fresh_groups: int
    last_error: str | None
    error_since: str | None
    error_grace_seconds: float
    load_errors_total: int

    @classmethod
    def of(cls, s: WeightsState) -> ForecastWeightsOut:
        return cls.copied(
            s,
            generated_at=iso(s.generated_at),
            as_of=iso(s.as_of),
            age_seconds=rounded(s.age_seconds, 3),
            error_since=iso(s.error_since),
        )


class HistoryOut(CopiedModel):
    """The lag history's writes (``LAGASSIGN_HISTORY_DIR``): failing, how often, since when."""

    path: str
    #: Whether the last append (or close) failed.
    failing: bool
    write_errors_total: int
    #: The last failure's message, ``null`` once an append works again.
    last_error: str | None
    failing_since: str | None
    last_written: str | None

    @classmethod
    def of(cls, path: str, s: HistoryState) -> HistoryOut:
        return cls.copied(
            s,
            path=path,
            write_errors_total=s.errors_total,
            failing_since=iso(s.failing_since),
            last_written=iso(s.last_written),
        )


class GroupsOut(WireModel):
    """``GET /groups``: every tracked group, the lag view's health, the forecast weights
    and the lag history."""

    groups: list[GroupSummaryOut]
    lag_view: LagViewOut
    #: ``null`` without ``LAGASSIGN_WEIGHTS_PATH``.
    forecast_weights: ForecastWeightsOut | None
    #: ``null`` without ``LAGASSIGN_HISTORY_DIR``.
    history: HistoryOut | None
