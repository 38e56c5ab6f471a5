"""What ``GET /groups/{group_id}`` reports about one consumer group, as pure values.

From the group's cached :class:`~lagassign.lagview.snapshot.GroupSnapshot` and the
last answers the service computed for it (:class:`~lagassign.assign.answer_log.AnswerRecord`):

- freshness: ``as_of``, ``age_seconds``, ``stale``, the last refresh error;
- header: state, protocol type, strategy (for a ``consumer``-protocol group, KIP-848,
  the broker's assignor, its epochs, and a note on how it opts in to lagassign's
  broker plugin when it does not use it yet), counts;
- per partition, the rows of ``kafka-consumer-groups --describe`` (unknown = ``None``);
- per member of the live assignment: partitions, lag sum, share of the group's lag;
- skew: the imbalance of the live assignment now, what the default strategy would
  give now (the core run on the snapshot's lags and the live members), hot partitions;
- the last answers and whether the live assignment matches the last one (members
  matched by ``group.instance.id`` when they have one, so a static member that
  restarted under a new member id still matches);
- how the live assignment was made (``assigned_by``: the sidecar's answer or the
  shims' range fallback, from the assignment's user data) and how often each kind
  was seen (``assignments_seen``).

Worked example: two live members, ``c-1`` holding ``t0-0`` (lag 900) and ``c-2``
holding ``t0-1`` and ``t0-2`` (lags 50 and 50). The group's lag is 1000, the mean
member lag 500, so the live imbalance is 900 / 500 = 1.8, ``c-1`` carries 90 % of
the lag and ``t0-0`` is the hottest partition. No assignment beats 900 here (one
partition holds it), so ``balanced`` would give 1.8 as well.

Nothing here does I/O: the HTTP route reads the snapshot and the answer log and
passes them in, with ``now``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from lagassign.assign.answer_log import AnswerRecord
from lagassign.core.errors import InvalidRebalance
from lagassign.core.model import Assignment, Member, make_rebalance
from lagassign.core.stats import assignment_stats
from lagassign.core.strategies import run_strategy
from lagassign.groups.rates import NO_RATES, GroupRates
from lagassign.lagview.assignment_note import AssignmentNote, live_note
from lagassign.lagview.snapshot import GroupSnapshot, PartitionLag

HOT_PARTITIONS = 5

PLUGIN_ASSIGNOR = "lagassign"


def consumer_protocol_note(assignor: str | None) -> str:
    """What a consumer-protocol group's header says about its assignor."""
    if assignor == PLUGIN_ASSIGNOR:
        return (
            "This group uses Kafka's new consumer group protocol (KIP-848) and the broker "
            "assigns it with lagassign's broker plugin (group.remote.assignor=lagassign)."
        )
    named = f"its '{assignor}' assignor" if assignor else "its own assignor"
    return (
        "This group uses Kafka's new consumer group protocol (KIP-848): the broker assigns "
        f"it with {named}, which balances partition counts, not lag. With lagassign's broker "
        "plugin on the brokers it opts in with the consumer setting "
        "group.remote.assignor=lagassign; 'balanced now' shows what that would give."
    )


MatchStatus = Literal["matches", "differs", "pending", "unknown"]
TopicPartition = tuple[str, int]
#: Who holds a partition: ("instance", group.instance.id) for a static member, else
#: ("member", member id).
Holder = tuple[str, str]
#: (by, reason or "") -> how many live assignments of that kind the refreshes saw.
AssignmentsSeen = Mapping[tuple[str, str], int]


@dataclass(frozen=True, slots=True)
class Freshness:
    """How old the group's snapshot is, and why it may not be current."""

    as_of: datetime | None
    age_seconds: float | None
    stale: bool
    last_refresh_error: str | None


@dataclass(frozen=True, slots=True)
class GroupHeader:
    """The group as ``DescribeGroups`` reports it, with the lag totals."""

    state: str | None
    protocol_type: str | None
    assignment_strategy: str | None
    members: int
    partitions: int
    total_lag: int
    unknown_partitions: int
    group_epoch: int | None = None
    assignment_epoch: int | None = None

    @property
    def protocol_note(self) -> str | None:
        if self.protocol_type != "consumer":
            return None
        return consumer_protocol_note(self.assignment_strategy)


@dataclass(frozen=True, slots=True)
class MemberLag:
    """One live member: what it holds now and how much of the group's lag that is.

    ``share`` is the member's lag over the group's lag, ``None`` when the group
    has no lag at all.
    """

    member_id: str
    group_instance_id: str | None
    client_id: str | None
    host: str | None
    assignment: Mapping[str, tuple[int, ...]]
    partitions: int
    lag: int
    unknown_partitions: int
    share: float | None
    #: The topics the member subscribes to, as the group's description reports them.
    subscribed_topics: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HotPartition:
    topic: str
    partition: int
    lag: int
    share: float | None
    consumer_id: str | None


@dataclass(frozen=True, slots=True)
class StrategyNow:
    """What a strategy would give the live members on the snapshot's lags now.

    Each member's subscription is the one the group's description reports (the
    classic consumer protocol's member metadata, or a consumer-protocol member's
    subscribed topics); a member whose subscription is not known is taken as
    subscribed to every topic the group reads (``assumes`` says which). The live
    assignment counts as owned, so ``moved`` is how many partitions would change hands.
    """

    strategy: str
    member_lag: Mapping[str, int]
    max_lag: int
    imbalance: float
    moved: int
    compute_ms: float
    assumes: str = "every live member subscribes to every topic the group reads"


@dataclass(frozen=True, slots=True)
class Skew:
    """How uneven the live assignment is, and what the default strategy would do."""

    imbalance: float | None
    max_member_lag: int | None
    mean_member_lag: float | None
    default_strategy: str
    default_now: StrategyNow | None
    default_now_unavailable: str | None
    hot_partitions: tuple[HotPartition, ...]


@dataclass(frozen=True, slots=True)
class LiveMatch:
    """Whether the group's live assignment is the service's last answer.

    Members are matched by ``group.instance.id`` when they have one, else by member id.

    - ``matches``: every partition is where the last answer put it;
    - ``differs``: it is not (``differing_partitions`` of them): the consumers
      probably fell back to their own assignor, or rebalanced without asking;
    - ``pending``: the last answer is newer than the snapshot;
    - ``unknown``: no answer yet, or the live assignment is not known.
    """

    status: MatchStatus
    reason: str
    differing_partitions: int | None = None


@dataclass(frozen=True, slots=True)
class GroupReport:
    """Everything ``GET /groups/{group_id}`` shows about one group."""

    group_id: str
    freshness: Freshness
    header: GroupHeader
    partitions: tuple[PartitionLag, ...]
    members: tuple[MemberLag, ...]
    unassigned_partitions: int
    unassigned_lag: int
    skew: Skew
    last_answers: tuple[AnswerRecord, ...]
    live_vs_last_answer: LiveMatch
    #: Live rates and time lag (:mod:`lagassign.groups.rates`).
    rates: GroupRates = NO_RATES
    #: How the live assignment was made, from its user data (``None``: not known).
    assigned_by: AssignmentNote | None = None
    assignments_seen: AssignmentsSeen = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GroupSummary:
    """One line of ``GET /groups``: freshness and the headline numbers."""

    group_id: str
    freshness: Freshness
    header: GroupHeader
    imbalance: float | None
    last_answer: AnswerRecord | None
    live_vs_last_answer: LiveMatch
    assigned_by: AssignmentNote | None = None
    assignments_seen: AssignmentsSeen = field(default_factory=dict)


# --- building the report -----------------------------------------------------------


def group_report(
    group_id: str,
    snapshot: GroupSnapshot | None,
    answers: Sequence[AnswerRecord],
    *,
    default_strategy: str,
    now: datetime,
    stale_after_s: float | None = None,
    refresh_error: str | None = None,
    rates: GroupRates = NO_RATES,
    assignments_seen: AssignmentsSeen | None = None,
) -> GroupReport:
    """The full report of one group; ``answers`` newest first."""
    header = group_header(snapshot)
    live = live_assignment(snapshot) if snapshot else {}
    members = member_lags(snapshot, live, header.total_lag) if snapshot else ()
    held = {(t, p) for topics in live.values() for t, ps in topics.items() for p in ps}
    rows = snapshot.partitions if snapshot else ()
    unassigned = [p for p in rows if (p.topic, p.partition) not in held]
    default_now, unavailable = strategy_now(snapshot, live, default_strategy)
    return GroupReport(
        group_id=group_id,
        freshness=freshness(snapshot, now, stale_after_s, refresh_error),
        header=header,
        partitions=rows,
        members=members,
        unassigned_partitions=len(unassigned),
        unassigned_lag=sum(p.lag for p in unassigned if p.lag is not None),
        skew=Skew(
            imbalance=live_imbalance(members, header.total_lag),
            max_member_lag=max((m.lag for m in members), default=None),
            mean_member_lag=header.total_lag / len(members) if members else None,
            default_strategy=default_strategy,
            default_now=default_now,
            default_now_unavailable=unavailable,
            hot_partitions=hot_partitions(rows, header.total_lag),
        ),
        last_answers=tuple(answers),
        live_vs_last_answer=compare_live(snapshot, live, answers[0] if answers else None),
        rates=rates,
        assigned_by=assigned_by(snapshot),
        assignments_seen=dict(assignments_seen or {}),
    )


def group_summary(
    group_id: str,
    snapshot: GroupSnapshot | None,
    last_answer: AnswerRecord | None,
    *,
    now: datetime,
    stale_after_s: float | None = None,
    refresh_error: str | None = None,
    assignments_seen: AssignmentsSeen | None = None,
) -> GroupSummary:
    """The list view of one group: cheap (no strategy is run)."""
    header = group_header(snapshot)
    live = live_assignment(snapshot) if snapshot else {}
    members = member_lags(snapshot, live, header.total_lag) if snapshot else ()
    return GroupSummary(
        group_id=group_id,
        freshness=freshness(snapshot, now, stale_after_s, refresh_error),
        header=header,
        imbalance=live_imbalance(members, header.total_lag),
        last_answer=last_answer,
        live_vs_last_answer=compare_live(snapshot, live, last_answer),
        assigned_by=assigned_by(snapshot),
        assignments_seen=dict(assignments_seen or {}),
    )


def freshness(
    snapshot: GroupSnapshot | None,
    now: datetime,
    stale_after_s: float | None,
    refresh_error: str | None,
) -> Freshness:
    """Stale when the view says so, when the group's refresh failed, or when too old."""
    if snapshot is None:
        return Freshness(None, None, True, refresh_error)
    age = max(0.0, (now - snapshot.as_of).total_seconds())
    too_old = stale_after_s is not None and age > stale_after_s
    return Freshness(
        as_of=snapshot.as_of,
        age_seconds=round(age, 3),
        stale=snapshot.stale or snapshot.error is not None or too_old,
        last_refresh_error=snapshot.error or refresh_error,
    )


def group_header(snapshot: GroupSnapshot | None) -> GroupHeader:
    if snapshot is None:
        return GroupHeader(None, None, None, 0, 0, 0, 0)
    return GroupHeader(
        state=snapshot.state,
        protocol_type=snapshot.protocol_type,
        assignment_strategy=snapshot.assignment_strategy,
        members=len(snapshot.members),
        partitions=len(snapshot.partitions),
        total_lag=snapshot.total_lag(),
        unknown_partitions=snapshot.unknown_partitions,
        group_epoch=snapshot.group_epoch,
        assignment_epoch=snapshot.assignment_epoch,
    )


def live_assignment(snapshot: GroupSnapshot) -> Assignment:
    """Member id -> topic -> sorted partitions, for every live member.

    From the members' decoded assignments, completed by the partition rows'
    ``consumer_id`` (the two agree when both are known).
    """
    held: dict[str, dict[str, set[int]]] = {m.member_id: {} for m in snapshot.members}
    for m in snapshot.members:
        for topic, parts in m.assignment.items():
            held[m.member_id].setdefault(topic, set()).update(parts)
    for p in snapshot.partitions:
        if p.consumer_id is not None and p.consumer_id in held:
            held[p.consumer_id].setdefault(p.topic, set()).add(p.partition)
    return {
        member_id: {t: sorted(ps) for t, ps in sorted(topics.items()) if ps}
        for member_id, topics in held.items()
    }


def member_lags(snapshot: GroupSnapshot, live: Assignment, total_lag: int) -> tuple[MemberLag, ...]:
    """Per live member, sorted by member id: partitions held, lag sum and share."""
    lag_of = {(p.topic, p.partition): p.lag for p in snapshot.partitions}
    out = []
    for m in sorted(snapshot.members, key=lambda m: m.member_id):
        topics = live.get(m.member_id, {})
        lags = [lag_of.get((t, p)) for t, ps in topics.items() for p in ps]
        lag = sum(v for v in lags if v is not None)
        out.append(
            MemberLag(
                member_id=m.member_id,
                group_instance_id=m.group_instance_id,
                client_id=m.client_id or None,
                host=m.host or None,
                assignment={t: tuple(ps) for t, ps in topics.items()},
                partitions=len(lags),
                lag=lag,
                unknown_partitions=sum(1 for v in lags if v is None),
                share=lag / total_lag if total_lag > 0 else None,
                subscribed_topics=m.subscribed_topics,
            )
        )
    return tuple(out)


def live_imbalance(members: Sequence[MemberLag], total_lag: int) -> float | None:
    """Max member lag over the mean (group lag / members); 1.0 when there is no lag."""
    if not members:
        return None
    if total_lag <= 0:
        return 1.0
    return max(m.lag for m in members) / (total_lag / len(members))


def hot_partitions(
    rows: Sequence[PartitionLag], total_lag: int, count: int = HOT_PARTITIONS
) -> tuple[HotPartition, ...]:
    """The partitions with the most lag (lag above 0), most first."""
    lagging = [p for p in rows if p.lag]
    lagging.sort(key=lambda p: (-(p.lag or 0), p.topic, p.partition))
    return tuple(
        HotPartition(
            topic=p.topic,
            partition=p.partition,
            lag=p.lag or 0,
            share=(p.lag or 0) / total_lag if total_lag > 0 else None,
            consumer_id=p.consumer_id,
        )
        for p in lagging[:count]
    )


def strategy_now(
    snapshot: GroupSnapshot | None, live: Assignment, strategy: str
) -> tuple[StrategyNow | None, str | None]:
    """Run ``strategy`` on the snapshot's lags for the live members.

    Returns the result, or ``None`` and the reason it cannot be computed.
    """
    if snapshot is None:
        return None, "no lag snapshot of this group yet"
    if not snapshot.members:
        return None, "the group has no live members"
    lags = snapshot.lags_by_topic()
    if not lags:
        return None, "the group reads no partitions"
    topics = tuple(lags)
    described = all(m.subscribed_topics for m in snapshot.members)
    members = [
        Member(
            member_id=m.member_id,
            # The subscription the description reports; every topic when it is not known.
            topics=tuple(t for t in m.subscribed_topics if t in lags) or topics,
            group_instance_id=m.group_instance_id,
            owned={t: tuple(ps) for t, ps in live.get(m.member_id, {}).items() if t in lags},
        )
        for m in snapshot.members
    ]
    try:
        rebalance = make_rebalance(members, {t: len(v) for t, v in lags.items()}, lags)
        started = time.perf_counter()
        result = run_strategy(strategy, rebalance)
        compute_ms = (time.perf_counter() - started) * 1000
    except InvalidRebalance as exc:
        return None, exc.message
    stats = assignment_stats(rebalance, result)
    return (
        StrategyNow(
            strategy=strategy,
            member_lag=stats.member_lag,
            max_lag=stats.max_lag,
            imbalance=stats.imbalance,
            moved=stats.moved,
            compute_ms=compute_ms,
            assumes=(
                "each member's subscription as the group's description reports it"
                if described
                else "every live member whose subscription is not known subscribes to "
                "every topic the group reads"
            ),
        ),
        None,
    )


def compare_live(
    snapshot: GroupSnapshot | None, live: Assignment, last: AnswerRecord | None
) -> LiveMatch:
    """Does the live assignment match the last answer? See :class:`LiveMatch`."""
    if last is None:
        return LiveMatch("unknown", "the service has not answered a rebalance of this group")
    if snapshot is None:
        return LiveMatch("unknown", "no lag snapshot of this group yet")
    if last.computed_at > snapshot.as_of:
        return LiveMatch("pending", "the last answer is newer than the snapshot")
    live_owner = owners(live, holders(snapshot))
    if not live_owner:
        state = snapshot.state or "unknown"
        return LiveMatch("unknown", f"the live assignment is not known (group state {state})")
    answer_owner = owners(last.assignment, last.instance_ids)
    differing = sum(
        1
        for tp in live_owner.keys() | answer_owner.keys()
        if live_owner.get(tp) != answer_owner.get(tp)
    )
    if differing == 0:
        return LiveMatch("matches", "every partition is where the last answer put it", 0)
    note = assigned_by(snapshot)
    why = (
        f"the leader fell back to the range assignor ({note.reason or 'no reason given'}), "
        "as the assignment's user data says"
        if note is not None and note.fallback
        else "the consumers probably fell back to their own assignor or rebalanced without asking"
    )
    return LiveMatch(
        "differs",
        f"{differing} partition(s) are not where the last answer put them: {why}",
        differing,
    )


def live_status(snapshot: GroupSnapshot, last: AnswerRecord | None) -> MatchStatus:
    """The status of :func:`compare_live` on the snapshot's own live assignment."""
    return compare_live(snapshot, live_assignment(snapshot), last).status


def holders(snapshot: GroupSnapshot) -> dict[str, str]:
    """Member id -> ``group.instance.id`` for the live static members."""
    return {m.member_id: m.group_instance_id for m in snapshot.members if m.group_instance_id}


def owners(
    assignment: Assignment, instance_ids: Mapping[str, str] | None = None
) -> dict[TopicPartition, Holder]:
    """Partition -> who holds it: the static member's instance id, else the member id."""
    ids = instance_ids or {}
    out: dict[TopicPartition, Holder] = {}
    for member_id, topics in assignment.items():
        instance = ids.get(member_id)
        holder = ("instance", instance) if instance else ("member", member_id)
        for topic, parts in topics.items():
            for p in parts:
                out[(topic, p)] = holder
    return out


def assigned_by(snapshot: GroupSnapshot | None) -> AssignmentNote | None:
    """How the live assignment was made, from the notes in its user data."""
    if snapshot is None:
        return None
    return live_note(m.note for m in snapshot.members)
