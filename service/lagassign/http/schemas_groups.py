"""The wire models of ``GET /groups``, ``GET /groups/{group_id}`` and its ``/advice``.

Each model says one JSON object of those answers and is built from the pure values
of :mod:`lagassign.groups.report` and :mod:`lagassign.groups.advice` by its ``of``
class method: that is where a value is rounded, a time written as ISO 8601 UTC
(``2026-11-20T22:19:03.120Z``) and the live rates merged into a partition's or a
member's row. The routes answer ``model.model_dump_json()``, so the body is the
model and the model is what ``/openapi.json`` serves; ``extra="forbid"`` keeps each
object closed. ``tests/service/test_contract.py`` checks real answers against the
served schema. Unknown values are ``null``, never 0 or -1.
"""

from __future__ import annotations

from datetime import datetime

from lagassign.assign.answer import iso_utc
from lagassign.assign.answer_log import AnswerRecord
from lagassign.forecast.source import FileStatus, WeightsState
from lagassign.groups.advice import Advice
from lagassign.groups.rates import GroupRates
from lagassign.groups.report import (
    AssignmentsSeen,
    Freshness,
    GroupHeader,
    GroupReport,
    GroupSummary,
    HotPartition,
    LiveMatch,
    MatchStatus,
    MemberLag,
    StrategyNow,
)
from lagassign.history.recorder import HistoryState
from lagassign.http.schemas import WireModel
from lagassign.lagview.assignment_note import AssignmentNote
from lagassign.lagview.reader import LagReader
from lagassign.lagview.snapshot import PartitionLag
from lagassign.rates.totals import RatesTotal


def iso(moment: datetime | None) -> str | None:
    return iso_utc(moment) if moment is not None else None


def rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


class FreshnessOut(WireModel):
    """How old the group's snapshot is; ``stale`` also when its refresh failed."""

    as_of: str | None
    age_seconds: float | None
    stale: bool
    last_refresh_error: str | None

    @classmethod
    def of(cls, f: Freshness) -> FreshnessOut:
        return cls(
            as_of=iso(f.as_of),
            age_seconds=f.age_seconds,
            stale=f.stale,
            last_refresh_error=f.last_refresh_error,
        )


class HeaderOut(WireModel):
    """The group as ``DescribeGroups`` (or ``ConsumerGroupDescribe``) reports it."""

    state: str | None
    protocol_type: str | None
    protocol_note: str | None
    assignment_strategy: str | None
    group_epoch: int | None
    assignment_epoch: int | None
    members: int
    partitions: int
    total_lag: int
    unknown_partitions: int

    @classmethod
    def of(cls, h: GroupHeader) -> HeaderOut:
        return cls(
            state=h.state,
            protocol_type=h.protocol_type,
            protocol_note=h.protocol_note,
            assignment_strategy=h.assignment_strategy,
            group_epoch=h.group_epoch,
            assignment_epoch=h.assignment_epoch,
            members=h.members,
            partitions=h.partitions,
            total_lag=h.total_lag,
            unknown_partitions=h.unknown_partitions,
        )


class RatesOut(WireModel):
    """The group's live rates over the rate window (all ``null`` without one)."""

    window_seconds: float | None
    produce_rate: float | None
    consume_rate: float | None
    lag_seconds_max: float | None
    lag_seconds_unknown: int

    @classmethod
    def of(cls, rates: GroupRates) -> RatesOut:
        g = rates.group
        return cls(
            window_seconds=rates.window_s,
            produce_rate=rounded(g.produce_rate, 3),
            consume_rate=rounded(g.consume_rate, 3),
            lag_seconds_max=rounded(g.lag_seconds_max, 3),
            lag_seconds_unknown=g.lag_seconds_unknown,
        )


class PartitionOut(WireModel):
    """One partition, with the field names of ``kafka-consumer-groups --describe``."""

    topic: str
    partition: int
    current_offset: int | None
    log_end_offset: int | None
    log_start_offset: int | None
    lag: int | None
    consumer_id: str | None
    host: str | None
    client_id: str | None
    out_of_range: bool
    stale: bool
    lag_seconds: float | None
    produce_rate: float | None
    consume_rate: float | None

    @classmethod
    def of(cls, p: PartitionLag, rates: GroupRates) -> PartitionOut:
        f = rates.of_partition(p.topic, p.partition)
        return cls(
            topic=p.topic,
            partition=p.partition,
            current_offset=p.current_offset,
            log_end_offset=p.log_end_offset,
            log_start_offset=p.log_start_offset,
            lag=p.lag,
            consumer_id=p.consumer_id,
            host=p.host,
            client_id=p.client_id,
            out_of_range=p.out_of_range,
            stale=p.stale,
            lag_seconds=rounded(f.lag_seconds, 3),
            produce_rate=rounded(f.produce_rate, 3),
            consume_rate=rounded(f.consume_rate, 3),
        )


class MemberOut(WireModel):
    """One live member: what it holds, its lag and share of the group's, its rates."""

    member_id: str
    group_instance_id: str | None
    client_id: str | None
    host: str | None
    partitions: int
    assignment: dict[str, list[int]]
    lag: int
    unknown_partitions: int
    share: float | None
    #: From the group's description; empty when not known.
    subscribed_topics: list[str]
    produce_rate: float | None
    consume_rate: float | None
    lag_seconds_max: float | None
    lag_seconds_unknown: int

    @classmethod
    def of(cls, m: MemberLag, rates: RatesTotal) -> MemberOut:
        return cls(
            member_id=m.member_id,
            group_instance_id=m.group_instance_id,
            client_id=m.client_id,
            host=m.host,
            partitions=m.partitions,
            assignment={t: list(ps) for t, ps in m.assignment.items()},
            lag=m.lag,
            unknown_partitions=m.unknown_partitions,
            share=rounded(m.share, 4),
            subscribed_topics=list(m.subscribed_topics),
            produce_rate=rounded(rates.produce_rate, 3),
            consume_rate=rounded(rates.consume_rate, 3),
            lag_seconds_max=rounded(rates.lag_seconds_max, 3),
            lag_seconds_unknown=rates.lag_seconds_unknown,
        )


class UnassignedOut(WireModel):
    """The partitions no live member holds, and their lag."""

    partitions: int
    lag: int


class StrategyNowOut(WireModel):
    """What the default strategy would give the live members on the snapshot's lags now."""

    strategy: str
    member_lag: dict[str, int]
    max_lag: int
    imbalance: float
    moved: int
    compute_ms: float
    assumes: str

    @classmethod
    def of(cls, n: StrategyNow) -> StrategyNowOut:
        return cls(
            strategy=n.strategy,
            member_lag=dict(n.member_lag),
            max_lag=n.max_lag,
            imbalance=round(n.imbalance, 4),
            moved=n.moved,
            compute_ms=round(n.compute_ms, 3),
            assumes=n.assumes,
        )


class HotPartitionOut(WireModel):
    topic: str
    partition: int
    lag: int
    share: float | None
    consumer_id: str | None

    @classmethod
    def of(cls, h: HotPartition) -> HotPartitionOut:
        return cls(
            topic=h.topic,
            partition=h.partition,
            lag=h.lag,
            share=rounded(h.share, 4),
            consumer_id=h.consumer_id,
        )


class SkewOut(WireModel):
    """How uneven the live assignment is now, and what the default strategy would give."""

    imbalance: float | None
    max_member_lag: int | None
    mean_member_lag: float | None
    default_strategy: str
    default_strategy_now: StrategyNowOut | None
    default_strategy_now_unavailable: str | None
    hot_partitions: list[HotPartitionOut]


class AnswerOut(WireModel):
    """One answer the service computed for the group (its assignment is not repeated)."""

    computed_at: str
    strategy: str
    lag_source: str
    members: int
    partitions: int
    imbalance: float
    max_lag: int
    moved: int
    compute_ms: float

    @classmethod
    def of(cls, a: AnswerRecord) -> AnswerOut:
        return cls(
            computed_at=iso_utc(a.computed_at),
            strategy=a.strategy,
            lag_source=a.lag_source,
            members=a.members,
            partitions=a.partitions,
            imbalance=round(a.imbalance, 4),
            max_lag=a.max_lag,
            moved=a.moved,
            compute_ms=round(a.compute_ms, 3),
        )


class LiveMatchOut(WireModel):
    """Whether the live assignment is the last answer; ``matches`` is ``null`` unless decided."""

    status: MatchStatus
    matches: bool | None
    differing_partitions: int | None
    reason: str

    @classmethod
    def of(cls, m: LiveMatch) -> LiveMatchOut:
        return cls(
            status=m.status,
            matches={"matches": True, "differs": False}.get(m.status),
            differing_partitions=m.differing_partitions,
            reason=m.reason,
        )


class AssignedByOut(WireModel):
    """How the live assignment was made, from the user data lagassign's shims write."""

    by: str  # "sidecar", or "range" (the shims' fallback)
    reason: str | None
    strategy: str | None

    @classmethod
    def of(cls, note: AssignmentNote | None) -> AssignedByOut | None:
        if note is None:
            return None
        return cls(by=note.by, reason=note.reason, strategy=note.strategy)


class AssignmentSeenOut(WireModel):
    """How many live assignments of one kind the refreshes of this sidecar saw."""

    by: str
    reason: str | None
    count: int

    @classmethod
    def all_of(cls, seen: AssignmentsSeen) -> list[AssignmentSeenOut]:
        return [
            cls(by=by, reason=reason or None, count=count)
            for (by, reason), count in sorted(seen.items())
        ]


class AdviceOut(WireModel):
    """``GET /groups/{group_id}/advice``, and ``advice`` in ``GET /groups/{group_id}``."""

    group_id: str
    advised: bool
    reason: str
    as_of: str
    strategy: str
    worst_lag_now: int | None
    worst_lag_after: int | None
    gain: float | None
    min_gain: float
    partitions_to_move: int | None
    since: str | None
    hold_seconds: float
    last_rebalance: str | None
    cooldown_until: str | None
    #: What the lags are: kafka (backlog), kafka-drain, kafka-load or forecast.
    lag_source: str
    #: The digest of the live assignment weighed (groups/assignment_digest.py), or null.
    assignment_digest: str | None
    #: The worst member's projected catch-up now and after the rebalance, in seconds
    #: (null while the member capacity is unknown: the drain lag model measures it).
    catch_up_now_seconds: float | None
    catch_up_after_seconds: float | None
    #: Consumer-protocol groups (LAGASSIGN_NUDGE_CONSUMER_GROUPS): how often the sidecar
    #: made the broker recompute the assignment on the advice, and what the last time did.
    nudges: int = 0
    last_nudge: str | None = None

    @classmethod
    def of(cls, a: Advice) -> AdviceOut:
        return cls(
            group_id=a.group_id,
            advised=a.advised,
            reason=a.reason,
            as_of=iso_utc(a.as_of),
            strategy=a.strategy,
            worst_lag_now=a.worst_lag_now,
            worst_lag_after=a.worst_lag_after,
            gain=rounded(a.gain, 4),
            min_gain=a.min_gain,
            partitions_to_move=a.partitions_to_move,
            since=iso(a.skew_since),
            hold_seconds=a.hold_s,
            last_rebalance=iso(a.last_rebalance),
            cooldown_until=iso(a.cooldown_until),
            lag_source=a.lag_source,
            assignment_digest=a.assignment_digest,
            catch_up_now_seconds=rounded(a.catch_up_now_s, 2),
            catch_up_after_seconds=rounded(a.catch_up_after_s, 2),
            nudges=a.nudges,
            last_nudge=a.last_nudge,
        )


class GroupOut(WireModel):
    """``GET /groups/{group_id}``: everything the service knows of one group."""

    group_id: str
    freshness: FreshnessOut
    header: HeaderOut
    rates: RatesOut
    partitions: list[PartitionOut]
    members: list[MemberOut]
    unassigned: UnassignedOut
    skew: SkewOut
    last_answers: list[AnswerOut]
    live_vs_last_answer: LiveMatchOut
    #: ``null`` when not known (another assignor, a rebalancing or consumer-protocol group).
    assigned_by: AssignedByOut | None
    assignments_seen: list[AssignmentSeenOut]
    #: ``null`` before the first refresh weighed the group (or without advice).
    advice: AdviceOut | None

    @classmethod
    def of(cls, report: GroupReport, advice: Advice | None) -> GroupOut:
        rates, skew = report.rates, report.skew
        return cls(
            group_id=report.group_id,
            freshness=FreshnessOut.of(report.freshness),
            header=HeaderOut.of(report.header),
            rates=RatesOut.of(rates),
            partitions=[PartitionOut.of(p, rates) for p in report.partitions],
            members=[MemberOut.of(m, rates.of_member(m.member_id)) for m in report.members],
            unassigned=UnassignedOut(
                partitions=report.unassigned_partitions, lag=report.unassigned_lag
            ),
            skew=SkewOut(
                imbalance=rounded(skew.imbalance, 4),
                max_member_lag=skew.max_member_lag,
                mean_member_lag=rounded(skew.mean_member_lag, 3),
                default_strategy=skew.default_strategy,
                default_strategy_now=(
                    StrategyNowOut.of(skew.default_now) if skew.default_now else None
                ),
                default_strategy_now_unavailable=skew.default_now_unavailable,
                hot_partitions=[HotPartitionOut.of(h) for h in skew.hot_partitions],
            ),
            last_answers=[AnswerOut.of(a) for a in report.last_answers],
            live_vs_last_answer=LiveMatchOut.of(report.live_vs_last_answer),
            assigned_by=AssignedByOut.of(report.assigned_by),
            assignments_seen=AssignmentSeenOut.all_of(report.assignments_seen),
            advice=AdviceOut.of(advice) if advice is not None else None,
        )


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


class LagViewOut(WireModel):
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
        return cls(
            running=True,
            kafka_up=view.kafka_up,
            first_snapshot_loaded=view.first_snapshot_loaded,
            last_refresh_ok=last_ok.isoformat() if last_ok else None,
            last_refresh_error=view.last_refresh_error,
        )


class ForecastWeightsOut(WireModel):
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
        return cls(
            path=s.path,
            file=s.file,
            in_use=s.in_use,
            stale=s.stale,
            generated_at=iso(s.generated_at),
            as_of=iso(s.as_of),
            age_seconds=rounded(s.age_seconds, 3),
            horizon_seconds=s.horizon_seconds,
            max_age_seconds=s.max_age_seconds,
            groups=s.groups,
            fresh_groups=s.fresh_groups,
            last_error=s.last_error,
            error_since=iso(s.error_since),
            error_grace_seconds=s.error_grace_seconds,
            load_errors_total=s.load_errors_total,
        )


class HistoryOut(WireModel):
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
        return cls(
            path=path,
            failing=s.failing,
            write_errors_total=s.errors_total,
            last_error=s.last_error,
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
