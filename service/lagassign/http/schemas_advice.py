"""The wire model of ``GET /groups/{group_id}/advice`` (and ``advice`` in the group's answer).

Built from :class:`lagassign.groups.advice.Advice`; unknown values are ``null``.
"""

from __future__ import annotations

from lagassign.assign.answer import iso_utc
from lagassign.groups.advice import Advice
from lagassign.http.schemas_values import CopiedModel, iso, rounded


class AdviceOut(CopiedModel):
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
        return cls.copied(
            a,
            as_of=iso_utc(a.as_of),
            gain=rounded(a.gain, 4),
            since=iso(a.skew_since),
            hold_seconds=a.hold_s,
            last_rebalance=iso(a.last_rebalance),
            cooldown_until=iso(a.cooldown_until),
            catch_up_now_seconds=rounded(a.catch_up_now_s, 2),
            catch_up_after_seconds=rounded(a.catch_up_after_s, 2),
        )
