"""The wire models of ``GET /groups/{group_id}``: one group and the parts ``GET /groups`` shares.

Each model says one JSON object of the answer and is built from the pure values of
:mod:`lagassign.groups.report` by its ``of`` class method (the fields it works out
are named there, the others copied: :mod:`lagassign.http.schemas_values`); the live
rates are merged into a partition's or a member's row. The routes answer
``model.model_dump_json()``, so the body is the model and the model is what
``/openapi.json`` serves; ``extra="forbid"`` keeps each object closed.
``tests/service/test_contract.py`` checks real answers against the served schema.
Unknown values are ``null``, never 0 or -1.
"""

from __future__ import annotations

from lagassign.assign.answer import iso_utc
from lagassign.assign.answer_log import AnswerRecord
from lagassign.groups.advice import Advice
from lagassign.groups.header import Freshness, GroupHeader
from lagassign.groups.live_assignment import HotPartition, MemberLag
from lagassign.groups.live_match import LiveMatch, MatchStatus
from lagassign.groups.rates import GroupRates
from lagassign.groups.report import AssignmentsSeen, GroupReport, Skew
from lagassign.groups.strategy_now import StrategyNow
from lagassign.http.schemas import WireModel
from lagassign.http.schemas_advice import AdviceOut
from lagassign.http.schemas_values import CopiedModel, iso, rates_fields, rounded, run_figures
from lagassign.lagview.assignment_note import AssignmentNote
from lagassign.lagview.snapshot import PartitionLag
from lagassign.rates.totals import RatesTotal


class FreshnessOut(CopiedModel):
    """How old the group's snapshot is; ``stale`` also when its refresh failed."""

    as_of: str | None
    age_seconds: float | None
    stale: bool
    last_refresh_error: str | None

    @classmethod
    def of(cls, f: Freshness) -> FreshnessOut:
        return cls.copied(f, as_of=iso(f.as_of))


class HeaderOut(CopiedModel):
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
        return cls.copied(h)


class RatesOut(WireModel):
    """The group's live rates over the rate window (all ``null`` without one)."""

    window_seconds: float | None
    produce_rate: float | None
    consume_rate: float | None
    lag_seconds_max: float | None
    lag_seconds_unknown: int

    @classmethod
    def of(cls, rates: GroupRates) -> RatesOut:
        return cls(window_seconds=rates.window_s, **rates_fields(rates.group))


class PartitionOut(CopiedModel):
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
        return cls.copied(
            p,
            lag_seconds=rounded(f.lag_seconds, 3),
            produce_rate=rounded(f.produce_rate, 3),
            consume_rate=rounded(f.consume_rate, 3),
        )


class MemberOut(CopiedModel):
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
        return cls.copied(
            m,
            assignment={t: list(ps) for t, ps in m.assignment.items()},
            share=rounded(m.share, 4),
            subscribed_topics=list(m.subscribed_topics),
            **rates_fields(rates),
        )


class UnassignedOut(WireModel):
    """The partitions no live member holds, and their lag."""

    partitions: int
    lag: int


class StrategyNowOut(CopiedModel):
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
        return cls.copied(n, member_lag=dict(n.member_lag), **run_figures(n))


class HotPartitionOut(CopiedModel):
    topic: str
    partition: int
    lag: int
    share: float | None
    consumer_id: str | None

    @classmethod
    def of(cls, h: HotPartition) -> HotPartitionOut:
        return cls.copied(h, share=rounded(h.share, 4))


class SkewOut(WireModel):
    """How uneven the live assignment is now, and what the default strategy would give."""

    imbalance: float | None
    max_member_lag: int | None
    mean_member_lag: float | None
    default_strategy: str
    default_strategy_now: StrategyNowOut | None
    default_strategy_now_unavailable: str | None
    hot_partitions: list[HotPartitionOut]

    @classmethod
    def of(cls, skew: Skew) -> SkewOut:
        return cls(
            imbalance=rounded(skew.imbalance, 4),
            max_member_lag=skew.max_member_lag,
            mean_member_lag=rounded(skew.mean_member_lag, 3),
            default_strategy=skew.default_strategy,
            default_strategy_now=(
                StrategyNowOut.of(skew.default_now) if skew.default_now else None
            ),
            default_strategy_now_unavailable=skew.default_now_unavailable,
            hot_partitions=[HotPartitionOut.of(h) for h in skew.hot_partitions],
        )


class AnswerOut(CopiedModel):
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
        return cls.copied(a, computed_at=iso_utc(a.computed_at), **run_figures(a))


class LiveMatchOut(CopiedModel):
    """Whether the live assignment is the last answer; ``matches`` is ``null`` unless decided."""

    status: MatchStatus
    matches: bool | None
    differing_partitions: int | None
    reason: str

    @classmethod
    def of(cls, m: LiveMatch) -> LiveMatchOut:
        return cls.copied(m, matches={"matches": True, "differs": False}.get(m.status))


class AssignedByOut(CopiedModel):
    """How the live assignment was made, from the user data lagassign's shims write."""

    by: str  # "sidecar", or "range" (the shims' fallback)
    reason: str | None
    strategy: str | None

    @classmethod
    def of(cls, note: AssignmentNote | None) -> AssignedByOut | None:
        return None if note is None else cls.copied(note)


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
        rates = report.rates
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
            skew=SkewOut.of(report.skew),
            last_answers=[AnswerOut.of(a) for a in report.last_answers],
            live_vs_last_answer=LiveMatchOut.of(report.live_vs_last_answer),
            assigned_by=AssignedByOut.of(report.assigned_by),
            assignments_seen=AssignmentSeenOut.all_of(report.assignments_seen),
            advice=AdviceOut.of(advice) if advice is not None else None,
        )
