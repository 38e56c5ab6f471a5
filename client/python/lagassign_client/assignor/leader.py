"""What the group leader does in a rebalance: ask the sidecar, check the answer, or fall back.

:meth:`GroupLeader.decide` never raises a :class:`~lagassign_client.errors.FallbackReason`:
it logs one WARNING with the reason, counts it, and returns no assignment, so the
caller uses the client library's own range assignor. An answer the sidecar made
without (all of) the group's lag is used, but logged at WARNING and counted as
``lag_blind`` or ``lag_partial``. Every decision is logged at INFO with its numbers.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lagassign_client.errors import LAG_BLIND, FallbackReason, NoMetadataYet
from lagassign_client.wire import codec
from lagassign_client.wire.answer import AnswerLag, read_answer
from lagassign_client.wire.codec import paused_gc
from lagassign_client.wire.group import Assignment, GroupView, Subscriber, partition_counts
from lagassign_client.wire.sidecar import Sidecar
from lagassign_client.wire.userdata import AssignedBy, AssignmentUserData

log = logging.getLogger("lagassign_client")


@dataclass(frozen=True, slots=True)
class Decision:
    """How one rebalance was assigned, and how long the leader took to decide.

    ``reason`` is the fallback's reason when ``by == "range"``; with
    ``by == "sidecar"`` it is None, or ``lag_blind`` / ``lag_partial`` when the
    answer was made without (all of) the group's lag.
    """

    by: AssignedBy
    seconds: float
    strategy: str | None = None
    reason: str | None = None
    message: str | None = None
    members: int = 0
    partitions: int = 0
    lag_source: str | None = None
    max_lag: int | None = None
    mean_lag: float | None = None

    def user_data(self) -> AssignmentUserData:
        return AssignmentUserData(by=self.by, strategy=self.strategy, reason=self.reason)


def _fallback(exc: FallbackReason, started: float, members: int, partitions: int) -> Decision:
    """The decision to use the range assignor for ``exc``, timed from ``started``."""
    return Decision(
        by="range",
        seconds=time.monotonic() - started,
        reason=exc.reason,
        message=str(exc),
        members=members,
        partitions=partitions,
    )


def _numbers(decision: Decision) -> str:
    """The decision's numbers; a lag nobody knows (a fallback, an answer made without any
    lag) is ``unknown``, never 0."""
    mean = "unknown" if decision.mean_lag is None else f"{decision.mean_lag:.1f}"
    worst = "unknown" if decision.max_lag is None else str(decision.max_lag)
    return (
        f"strategy={decision.strategy or 'range'} members={decision.members}"
        f" partitions={decision.partitions} max_member_lag={worst} mean_member_lag={mean}"
        f" lag_source={decision.lag_source or 'unknown'} elapsed_ms={decision.seconds * 1000:.0f}"
    )


class GroupLeader:
    """The leader's side of the shim for one consumer, whatever its client library.

    The counters may be read from any thread (kafka-python rebalances on its own).
    """

    def __init__(
        self,
        sidecar: Sidecar,
        group_id: str,
        strategy: str | None,
        reset_policy: str | None = None,
        *,
        pause_gc: bool = False,
    ) -> None:
        self.sidecar = sidecar
        #: Whether the cyclic collector is paused around building the request and reading
        #: the answer (:func:`lagassign_client.wire.codec.paused_gc`); off unless asked for.
        self.pause_gc = pause_gc
        self.group_id = group_id
        self.strategy = strategy
        self.reset_policy = reset_policy
        self._lock = threading.Lock()
        self._decisions: Counter[tuple[AssignedBy, str]] = Counter()
        self._last_decision: Decision | None = None

    @property
    def fallbacks(self) -> dict[str, int]:
        """Rebalances led on the range fallback, by reason (a copy)."""
        with self._lock:
            return {r: n for (by, r), n in self._decisions.items() if by == "range"}

    @property
    def answers(self) -> int:
        """Rebalances led on the sidecar's answer (lag-blind ones included)."""
        with self._lock:
            return sum(n for (by, _), n in self._decisions.items() if by == "sidecar")

    @property
    def blind_answers(self) -> dict[str, int]:
        """Answers used although made without (all of) the lag: ``lag_blind``, ``lag_partial``."""
        with self._lock:
            return {r: n for (by, r), n in self._decisions.items() if by == "sidecar" and r}

    @property
    def decisions(self) -> dict[tuple[AssignedBy, str], int]:
        """Every decision so far by (``sidecar``/``range``, reason or ``""``) (a copy)."""
        with self._lock:
            return dict(self._decisions)

    @property
    def last_decision(self) -> Decision | None:
        with self._lock:
            return self._last_decision

    def _record(self, decision: Decision) -> None:
        with self._lock:
            self._decisions[(decision.by, decision.reason or "")] += 1
            self._last_decision = decision

    def request(
        self,
        members: tuple[Subscriber, ...],
        partitions_for_topic: Callable[[str], Iterable[int] | None],
    ) -> tuple[GroupView, bytes]:
        """The leader's view of the rebalance and the ``POST /assign`` body it sends.

        Raises :class:`~lagassign_client.errors.IncompleteMetadata` (or its
        :class:`~lagassign_client.errors.NoMetadataYet`).
        """
        with paused_gc(self.pause_gc):
            counts = partition_counts(
                set[str]().union(*(s.topics for s in members)), partitions_for_topic
            )
            view = GroupView(group_id=self.group_id, subscribers=members, partitions=counts)
            return view, codec.dumps(view.request_body(self.strategy, self.reset_policy))

    def decide(
        self,
        subscribers: Iterable[Subscriber],
        partitions_for_topic: Callable[[str], Iterable[int] | None],
        timeout_s: float | None = None,
    ) -> tuple[Assignment | None, Decision]:
        """The sidecar's checked answer, or ``None`` when the caller must fall back.

        ``timeout_s`` shortens the sidecar's deadline for this rebalance (never
        lengthens it).
        """
        started = time.monotonic()
        budget = (
            self.sidecar.timeout_s if timeout_s is None else min(timeout_s, self.sidecar.timeout_s)
        )
        deadline = started + budget
        members = tuple(subscribers)
        counts: dict[str, int] = {}
        try:
            view, body = self.request(members, partitions_for_topic)
            counts = dict(view.partitions)
            answer = read_answer(
                self.sidecar.post_assign(body, deadline), view, pause_gc=self.pause_gc
            )
        except NoMetadataYet as exc:
            decision = _fallback(exc, started, len(members), partitions=0)
            with self._lock:
                self._last_decision = decision
            log.info(
                "lagassign: group %s: %s; nothing to assign until the client has it"
                " (it joins again then)",
                self.group_id,
                exc,
            )
            return None, decision
        except FallbackReason as exc:
            decision = _fallback(exc, started, len(members), sum(counts.values()))
            self._record(decision)
            # One line per fallback: the reason, then the numbers.
            log.warning(
                "lagassign: group %s falls back to the range assignor (%s): %s; %s",
                self.group_id,
                exc.reason,
                exc,
                _numbers(decision),
            )
            return None, decision
        lag: AnswerLag = answer.lag
        blind = lag.blindness()
        # An answer made without any lag has no member lag to report (its stats say 0).
        known = blind != LAG_BLIND
        decision = Decision(
            by="sidecar",
            seconds=time.monotonic() - started,
            strategy=answer.strategy,
            reason=blind,
            message=lag.describe() if blind else None,
            members=len(members),
            partitions=sum(counts.values()),
            lag_source=lag.source,
            max_lag=lag.max_lag if known else None,
            mean_lag=lag.mean_lag if known else None,
        )
        self._record(decision)
        if blind is not None:
            log.warning(
                "lagassign: group %s uses the sidecar's answer, but it is %s: %s;"
                " the assignment balances partition counts, not lag%s",
                self.group_id,
                blind.replace("_", "-"),
                lag.describe(),
                " (for the partitions without lag)" if blind == "lag_partial" else "",
            )
        log.info(
            "lagassign: group %s assigned by the sidecar: %s", self.group_id, _numbers(decision)
        )
        return answer.assignment, decision
