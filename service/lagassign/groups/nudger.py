"""Acting on the advice for consumer-protocol groups: nudge the broker to reassign.

A consumer-protocol (KIP-848) group has no member that can ask for a rebalance;
the broker recomputes its target assignment only when its group epoch moves.
:class:`GroupNudger` is a refresh listener placed after the advice tracker: when
the advice for a ``Stable`` consumer-protocol group on lagassign's broker plugin
says a rebalance would pay (the same rules as for classic groups: gain, hold,
cooldown), it makes the broker compute a new one, once, with the sidecar's own
short-lived member (:mod:`lagassign.lagview.kafka.nudge`: a join and a leave, so two
recomputations, each answered by the plugin).

- At most one nudge of a group at a time, and never two within the advice's
  cooldown (``LAGASSIGN_ADVICE_COOLDOWN_S``, or the proportional one), whatever
  the nudge's outcome: a nudge that moved nothing is not repeated at every refresh.
- A nudge runs in a task of its own, so the refresh loop never waits on it.
- Every nudge is counted by outcome (``lagassign_nudges_total{group,outcome}``),
  logged at INFO (WARNING when it failed), and shown on the group's advice
  (``nudges``, ``last_nudge``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping

from lagassign.groups.advice_tracker import AdviceTracker
from lagassign.lagview.kafka.nudge import NudgeResult
from lagassign.lagview.listeners import Refresh

log = logging.getLogger(__name__)

Nudge = Callable[[str], Awaitable[NudgeResult]]


def nudge_line(result: NudgeResult) -> str:
    """One line saying what a nudge did, for the log and ``last_nudge``."""
    epochs = ""
    if result.epoch_before is not None and result.epoch_joined is not None:
        epochs = f", group epoch {result.epoch_before} -> {result.epoch_joined} (join) -> leave"
    detail = f": {result.detail}" if result.detail else ""
    return f"{result.outcome}{epochs} in {result.seconds:.1f} s{detail}"


class GroupNudger:
    """Nudges the advised consumer-protocol groups; counts the nudges by outcome."""

    def __init__(
        self,
        tracker: AdviceTracker,
        nudge: Nudge,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._tracker = tracker
        self._nudge = nudge
        self._clock = clock
        self._last: dict[str, float] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._counts: dict[tuple[str, str], int] = {}

    def counts(self) -> Mapping[tuple[str, str], int]:
        """(group, outcome) -> nudges so far."""
        return dict(self._counts)

    def due(self, refresh: Refresh) -> list[str]:
        """The groups to nudge after ``refresh``: advised, consumer-protocol, out of cooldown."""
        consumer = {s.group_id for s in refresh.fresh if s.protocol_type == "consumer"}
        now = self._clock()
        found = []
        for group_id, advice in sorted(self._tracker.advice().items()):
            if not advice.advised or group_id not in consumer or group_id in self._tasks:
                continue
            cooldown_s = self._tracker.policy.timing(
                advice.catch_up_now_s, advice.catch_up_after_s
            )[1]
            last = self._last.get(group_id)
            if last is not None and now - last < cooldown_s:
                continue
            found.append(group_id)
        return found

    async def refreshed(self, refresh: Refresh) -> None:
        for group_id in self.due(refresh):
            self._last[group_id] = self._clock()
            self._tasks[group_id] = asyncio.create_task(
                self._run(group_id), name=f"lagassign-nudge-{group_id}"
            )

    async def _run(self, group_id: str) -> None:
        try:
            result = await self._nudge(group_id)
        except Exception as exc:  # a defect must not kill the task silently  # noqa: BLE001
            result = NudgeResult(group_id, "", "failed", f"{type(exc).__name__}: {exc}")
        finally:
            self._tasks.pop(group_id, None)
        key = (group_id, result.outcome)
        self._counts[key] = self._counts.get(key, 0) + 1
        line = nudge_line(result)
        level = logging.INFO if result.outcome in ("nudged", "not_recomputed") else logging.WARNING
        log.log(level, "group %r: nudged the broker to reassign on the advice: %s", group_id, line)
        self._tracker.record_nudge(group_id, line)

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
