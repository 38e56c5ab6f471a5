"""Rebalance advice for one group: would a rebalance now pay? Pure values.

A classic group is assigned only when a rebalance happens anyway (a member joins,
leaves, or changes its subscription). The advice says when one is worth forcing:

- the lag is fresh: the group's snapshot was read in the last refresh, completely
  (no stale or unknown partition), and Kafka is up;
- the group is ``Stable`` on the classic protocol and its live assignment is known
  (with ``AdvicePolicy.consumer_groups``, also a ``Stable`` consumer-protocol group
  assigned by lagassign's broker plugin: the sidecar then makes the broker
  recompute its assignment, :mod:`lagassign.groups.nudger`);
- the default strategy, run on the snapshot's lags with the live assignment as
  ``owned``, lowers the worst member's lag by at least ``min_gain`` (a share) and
  moves at least one partition; with the member capacity known (the ``drain`` lag
  model) the gain is in seconds instead: the worst member's projected catch-up
  (its weight over the capacity) must fall by more than twice what a rebalance
  costs (``rebalance_cost_s``) and by at least a tenth (``FLOW_MIN_SHARE``);
- that has held for ``hold_s`` without a break;
- the group has not rebalanced within ``cooldown_s``.

The state between two refreshes (since when the gain holds, when the group last
rebalanced, the live assignment last seen) is an :class:`AdviceState`;
:func:`advise` takes the previous one and returns the next, so the decision has no
clock or I/O of its own. The tracker (:mod:`lagassign.groups.advice_tracker`)
keeps the states.

Worked example (``min_gain`` 0.3, ``hold_s`` 300, ``cooldown_s`` 600): ``c-1``
holds ``t0-0`` and ``t0-1`` (lags 900 and 800), ``c-2`` holds ``t0-2`` and ``t0-3``
(lags 10 and 10). The worst member's lag is 1700; ``balanced`` would give each
member one hot and one cold partition, worst 910, a gain of 1 - 910/1700 = 46 %,
above 30 %. At the first refresh that sees it, the advice is "holding" (since
now); 300 s of such refreshes later, and more than 600 s after the last
rebalance, it is advised. When the group then rebalances (its live assignment
changes), the hold restarts and the cooldown runs from that refresh.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from lagassign.groups.assignment_digest import assignment_digest
from lagassign.groups.header import PLUGIN_ASSIGNOR
from lagassign.groups.live_assignment import live_assignment, member_lags
from lagassign.groups.strategy_now import strategy_now
from lagassign.lagview.snapshot import GroupSnapshot

#: Member id -> topic -> sorted partitions, frozen for comparison.
LiveKey = frozenset[tuple[str, str, int]]


#: The hold and cooldown when they cannot be put in seconds of catch-up (no capacity known).
FIXED_HOLD_S = 300.0
FIXED_COOLDOWN_S = 600.0
#: In proportion: the hold is this share of the projected catch-up now, the cooldown this
#: share of the projected catch-up after the rebalance, each at least ``min_wait_s``.
HOLD_SHARE = 0.1
COOLDOWN_SHARE = 0.5
#: With the capacity known: the least share of the projected catch-up a rebalance saves.
FLOW_MIN_SHARE = 0.1


@dataclass(frozen=True, slots=True)
class AdvicePolicy:
    """When a rebalance is advised: the share it must gain, the hold time, the cooldown.

    ``hold_s`` and ``cooldown_s`` left ``None`` are *in proportion*: when the member
    capacity is known (the ``drain`` lag model), a tenth of the projected catch-up
    and half of the projected catch-up after the rebalance, at least ``min_wait_s``
    (three refreshes) and at most the fixed 300 s / 600 s used otherwise. With the
    capacity known the gain is judged in seconds: a rebalance must shorten the
    projected catch-up by more than twice ``rebalance_cost_s`` (what a rebalance
    stalls the group) and by at least ``FLOW_MIN_SHARE``; ``min_gain`` is the share
    asked when the capacity is not known.
    """

    min_gain: float = 0.3
    hold_s: float | None = None
    cooldown_s: float | None = None
    strategy: str = "balanced"
    #: A snapshot older than this is stale, whatever it says of itself (None: no bound).
    stale_after_s: float | None = None
    rebalance_cost_s: float = 1.0
    min_wait_s: float = 0.0
    #: Weigh consumer-protocol groups on the broker plugin too (the nudge acts on them).
    consumer_groups: bool = False

    def timing(self, now_s: float | None, after_s: float | None) -> tuple[float, float]:
        """The hold and the cooldown, given the projected catch-up now and after."""
        hold, cooldown = self.hold_s, self.cooldown_s
        if hold is None:
            hold = FIXED_HOLD_S if now_s is None else HOLD_SHARE * now_s
            hold = min(FIXED_HOLD_S, max(self.min_wait_s, hold))
        if cooldown is None:
            cooldown = FIXED_COOLDOWN_S if after_s is None else COOLDOWN_SHARE * after_s
            cooldown = min(FIXED_COOLDOWN_S, max(self.min_wait_s, cooldown))
        return hold, cooldown


@dataclass(frozen=True, slots=True)
class AdviceState:
    """What the tracker remembers of one group between two refreshes.

    - ``live``: the live assignment last seen (``None``: not seen yet);
    - ``last_rebalance``: when a change of the live assignment was last seen;
    - ``skew_since``: since when the gain has held without a break;
    - ``relieved``: the member the gain relieves (the worst now): when another member
      becomes the worst, the hold starts again, so a skew that moves from refresh to
      refresh (noise, a flapping producer) is never advised;
    - ``advised``: whether the last advice was to rebalance.
    """

    live: LiveKey | None = None
    last_rebalance: datetime | None = None
    skew_since: datetime | None = None
    advised: bool = False
    relieved: str | None = None


@dataclass(frozen=True, slots=True)
class Advice:
    """The advice for one group at ``as_of`` (see the module's rules)."""

    group_id: str
    advised: bool
    reason: str
    as_of: datetime
    strategy: str
    min_gain: float
    worst_lag_now: int | None = None
    worst_lag_after: int | None = None
    gain: float | None = None
    partitions_to_move: int | None = None
    skew_since: datetime | None = None
    hold_s: float = 0.0
    last_rebalance: datetime | None = None
    cooldown_until: datetime | None = None
    #: What the lags are (:mod:`lagassign.groups.advice_weights`): kafka, kafka-load, forecast.
    lag_source: str = "kafka"
    #: The digest of the live assignment weighed (:mod:`lagassign.groups.assignment_digest`).
    assignment_digest: str | None = None
    #: Projected catch-up of the worst member now and after the rebalance, in seconds
    #: (its weight over the member capacity; ``None`` while the capacity is unknown).
    catch_up_now_s: float | None = None
    catch_up_after_s: float | None = None
    #: Consumer-protocol groups: how often the sidecar made the broker recompute the
    #: assignment on this advice, and what the last time did (:mod:`.nudger`).
    nudges: int = 0
    last_nudge: str | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """One step of the decision: the advice, the next state, and whether the group
    rebalanced while the previous advice said to (a rebalance that followed advice)."""

    advice: Advice
    state: AdviceState
    rebalanced: bool
    followed_advice: bool


#: How the advice's reasons name what is weighed, by lag source.
WEIGHT_NAMES = {"kafka-load": "load", "kafka-drain": "drain weight", "forecast": "forecast lag"}


def not_fresh(group_id: str, reason: str, now: datetime, policy: AdvicePolicy) -> Advice:
    """The advice when the lag cannot be trusted: never to rebalance."""
    return Advice(group_id, False, reason, now, policy.strategy, policy.min_gain)


def live_key(snapshot: GroupSnapshot) -> LiveKey:
    live = live_assignment(snapshot)
    return frozenset(
        (member, topic, p)
        for member, topics in live.items()
        for topic, ps in topics.items()
        for p in ps
    )


def staleness(
    snapshot: GroupSnapshot | None, *, now: datetime, kafka_up: bool, policy: AdvicePolicy
) -> str | None:
    """Why the snapshot's lag cannot be trusted now, ``None`` when it can."""
    if not kafka_up:
        return "Kafka is unreachable: no advice on old lag"
    if snapshot is None:
        return "no fresh lag of this group in the last refresh"
    if snapshot.error is not None or snapshot.stale or snapshot.stale_partitions:
        return "the group's lag is stale"
    if snapshot.unknown_partitions:
        return f"the lag of {snapshot.unknown_partitions} partition(s) is unknown"
    age = (now - snapshot.as_of).total_seconds()
    if policy.stale_after_s is not None and age > policy.stale_after_s:
        return f"the group's lag is {age:.0f} s old"
    return None


def advise(
    group_id: str,
    snapshot: GroupSnapshot | None,
    previous: AdviceState | None,
    *,
    now: datetime,
    kafka_up: bool,
    policy: AdvicePolicy,
    lag_source: str = "kafka",
    capacity: float | None = None,
    distrust: str | None = None,
) -> Outcome:
    """The advice for ``group_id`` at ``now`` from its fresh ``snapshot`` (or none).

    ``lag_source`` says what the snapshot's lags are: ``kafka`` (the backlog), or the
    weights :func:`lagassign.groups.advice_weights.weighed` put in their place;
    ``capacity`` (records/s one member reads, known with the ``drain`` model) puts
    the gain in seconds of catch-up. ``distrust`` says why the weights cannot be acted
    on (a forecast the live lag contradicts, :func:`lagassign.groups.advice_weights.contradicted`):
    then, as with stale lag, the advice is not to rebalance.
    """
    what = {"kafka-load": "load", "kafka-drain": "drain weight", "forecast": "forecast lag"}.get(
        lag_source, "lag"
    )
    state = previous or AdviceState()
    stale = staleness(snapshot, now=now, kafka_up=kafka_up, policy=policy) or distrust
    if stale is not None or snapshot is None:
        # Unknown lag breaks the hold; the live assignment and last rebalance are kept.
        # ``advised`` is kept: a rebalance seen once the lag is fresh again followed it.
        reason = stale or "no fresh lag"
        kept = replace(state, skew_since=None)
        refused = not_fresh(group_id, reason, now, policy)
        if stale == distrust:  # the lag is fresh; the weights in its place are refused
            refused = replace(refused, lag_source=lag_source)
        return Outcome(refused, kept, False, False)

    key = live_key(snapshot)
    digest = assignment_digest(key) if key else None
    # An empty live assignment (a group between generations) is no new layout yet.
    rebalanced = bool(key) and state.live is not None and key != state.live
    followed = rebalanced and state.advised
    last_rebalance = now if rebalanced else state.last_rebalance
    # While the group cannot be weighed (not Stable, layout unknown), an advice given
    # before is remembered, so the rebalance it asked for is counted when it is seen.
    pending = state.advised and not rebalanced
    base = AdviceState(live=key or state.live, last_rebalance=last_rebalance, advised=pending)
    judged = replace(base, advised=False)

    def no(reason: str, *, weighed: bool = True, **values: Any) -> Outcome:
        advice = Advice(
            group_id,
            False,
            reason,
            now,
            policy.strategy,
            policy.min_gain,
            hold_s=policy.timing(None, None)[0],
            last_rebalance=last_rebalance,
            lag_source=lag_source,
            assignment_digest=digest,
            **values,
        )
        return Outcome(advice, judged if weighed else base, rebalanced, followed)

    if snapshot.protocol_type != "classic":
        if not policy.consumer_groups or snapshot.protocol_type != "consumer":
            return no(f"only classic groups are advised (protocol {snapshot.protocol_type})")
        if snapshot.assignment_strategy != PLUGIN_ASSIGNOR:
            return no(
                f"the group's assignor is {snapshot.assignment_strategy!r}, not "
                f"{PLUGIN_ASSIGNOR!r}: a new target assignment would not balance lag"
            )
    if snapshot.state != "Stable":
        state_name = snapshot.state or "in an unknown state"
        return no(f"the group is {state_name}, not Stable", weighed=False)
    if not key:
        return no("the group's live assignment is not known", weighed=False)

    live = live_assignment(snapshot)
    members = member_lags(snapshot, live, snapshot.total_lag())
    worst_now = max((m.lag for m in members), default=0)
    now_result, unavailable = strategy_now(snapshot, live, policy.strategy)
    if now_result is None:
        return no(f"the default strategy cannot be run: {unavailable}", worst_lag_now=worst_now)
    worst_after = now_result.max_lag
    gain = (worst_now - worst_after) / worst_now if worst_now > 0 else 0.0
    figures: dict[str, Any] = {
        "worst_lag_now": worst_now,
        "worst_lag_after": worst_after,
        "gain": gain,
        "partitions_to_move": now_result.moved,
    }
    if worst_now <= 0:
        return no(f"the group has no {what}", **figures)
    now_s = worst_now / capacity if capacity else None
    after_s = worst_after / capacity if capacity else None
    figures.update(catch_up_now_s=now_s, catch_up_after_s=after_s)
    hold_s, cooldown_s = policy.timing(now_s, after_s)
    in_seconds = now_s is not None and after_s is not None
    least = FLOW_MIN_SHARE if in_seconds else policy.min_gain
    if now_result.moved == 0 or gain < least:
        return no(
            f"a rebalance would lower the worst member's {what} by {gain:.0%}, below {least:.0%}",
            **figures,
        )
    if now_s is not None and after_s is not None and now_s - after_s <= 2 * policy.rebalance_cost_s:
        return no(
            f"a rebalance would shorten the projected catch-up by {now_s - after_s:.1f} s, "
            f"not more than twice what a rebalance costs ({policy.rebalance_cost_s:.1f} s)",
            **figures,
        )

    relieved = max(members, key=lambda m: m.lag).member_id if members else None
    same_skew = not rebalanced and state.relieved == relieved
    since = state.skew_since if same_skew and state.skew_since is not None else now
    held = (now - since).total_seconds()
    holding = replace(judged, skew_since=since, relieved=relieved)
    cooldown_until = last_rebalance + seconds(cooldown_s) if last_rebalance else None
    common = {**figures, "skew_since": since, "cooldown_until": cooldown_until}

    def result(advised: bool, reason: str) -> Outcome:
        advice = Advice(
            group_id,
            advised,
            reason,
            now,
            policy.strategy,
            policy.min_gain,
            hold_s=hold_s,
            last_rebalance=last_rebalance,
            lag_source=lag_source,
            assignment_digest=digest,
            **common,
        )
        return Outcome(advice, replace(holding, advised=advised), rebalanced, followed)

    if held < hold_s:
        return result(False, f"the gain has held {held:.0f} s of {hold_s:.0f} s")
    if cooldown_until is not None and now < cooldown_until:
        left = (cooldown_until - now).total_seconds()
        return result(False, f"the group rebalanced recently: cooldown for {left:.0f} s more")
    projected = (
        f"; projected catch-up {now_s:.0f} s -> {after_s:.0f} s"
        if now_s is not None and after_s is not None
        else ""
    )
    return result(
        True,
        f"a rebalance would lower the worst member's {what} from {worst_now} to {worst_after} "
        f"({gain:.0%}), moving {now_result.moved} partition(s){projected}; held {held:.0f} s",
    )


def seconds(value: float) -> timedelta:
    return timedelta(seconds=value)
