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
- Not when someone else has just recomputed the group (:class:`EpochWatch`): the
  nudge reads the group just before its join and skips it (outcome
  ``recomputed_recently``) when the group or target-assignment epoch moved since
  the last refresh, or moved within the cooldown, by anything but this sidecar's
  own nudges. So several replicas of the sidecar with the nudge on, sharing no
  store, nudge a group once between them: the first one's join and leave move the
  epochs, and the others see it before they join.
- A nudge runs in a task of its own, so the refresh loop never waits on it.
- Every nudge is counted by outcome (``lagassign_nudges_total{group,outcome}``),
  logged at INFO (WARNING when it failed), and shown on the group's advice
  (``nudges``, ``last_nudge``).
- What is kept of a group goes when the group is no longer tracked.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from lagassign.groups.advice_tracker import AdviceTracker
from lagassign.lagview.kafka.groups import GroupDescription
from lagassign.lagview.kafka.nudge import NudgeResult, Unless
from lagassign.lagview.listeners import Refresh

log = logging.getLogger(__name__)


class Nudge(Protocol):
    """Nudges one group (:meth:`lagassign.lagview.view.LagView.nudge`)."""

    def __call__(
        self, group_id: str, *, unless: Unless | None = None
    ) -> Awaitable[NudgeResult]: ...


@dataclass(frozen=True, slots=True)
class Epochs:
    """A consumer-protocol group's group epoch and target-assignment epoch."""

    group: int
    assignment: int

    @classmethod
    def of(cls, group: GroupDescription) -> Epochs | None:
        if group.group_epoch is None or group.assignment_epoch is None:
            return None
        return cls(group.group_epoch, group.assignment_epoch)

    def __str__(self) -> str:
        return f"group epoch {self.group}, target assignment epoch {self.assignment}"


class EpochWatch:
    """The epochs each refresh saw of the consumer-protocol groups, and when they last
    moved other than by this sidecar's own nudges.

    :meth:`before_nudge` gives the check a nudge makes on the description it reads
    just before its join (:func:`recently_moved`). What moves while this sidecar's
    nudge of a group runs, and epochs up to that nudge's leave, are its own; a group
    first seen has no known move.
    """

    def __init__(self) -> None:
        self._seen: dict[str, Epochs] = {}
        self._moved: dict[str, float] = {}
        # group -> the group epoch of this sidecar's last nudge's leave.
        self._own: dict[str, int] = {}
        self._nudging: set[str] = set()

    def saw(self, group_id: str, epochs: Epochs, now: float) -> None:
        """A refresh read ``epochs`` of ``group_id`` at ``now``."""
        last = self._seen.get(group_id)
        self._seen[group_id] = epochs
        if last is None or epochs == last or group_id in self._nudging:
            return
        if epochs.group > self._own.get(group_id, -1):
            self._moved[group_id] = now

    def before_nudge(self, group_id: str, cooldown_s: float, clock: Callable[[], float]) -> Unless:
        """The check of a nudge of ``group_id`` that starts now, on what is known now."""
        last, moved = self._seen.get(group_id), self._moved.get(group_id)
        own = self._own.get(group_id, -1)
        self._nudging.add(group_id)

        def unless(group: GroupDescription) -> str | None:
            described = Epochs.of(group)
            if described is None or described.group <= own:
                return None
            return recently_moved(last, moved, described, clock(), cooldown_s)

        return unless

    def keep_only(self, groups: set[str]) -> None:
        """Forget the groups not in ``groups`` (no longer tracked), except one being nudged."""
        for kept in (self._seen, self._moved, self._own):
            for group_id in set(kept) - groups - self._nudging:
                del kept[group_id]

    def nudged(self, group_id: str, result: NudgeResult) -> None:
        """The nudge of ``group_id`` ended: a join (and its leave) moved the group epoch
        twice from ``epoch_before``, unless it was skipped or refused."""
        self._nudging.discard(group_id)
        if result.outcome in ("recomputed_recently", "refused") or result.epoch_before is None:
            return
        joined = result.epoch_joined if result.epoch_joined is not None else result.epoch_before + 1
        self._own[group_id] = joined + 1


def recently_moved(
    last: Epochs | None, moved: float | None, described: Epochs, now: float, cooldown_s: float
) -> str | None:
    """Why a group ``described`` just before the join is not to be nudged: its epochs
    differ from what the last refresh saw (``last``: they moved since), or they last
    moved (``moved``) within ``cooldown_s`` of ``now``; ``None`` when neither."""
    if last is not None and described != last:
        return (
            f"its epochs moved since the last refresh (group epoch {last.group} ->"
            f" {described.group}, target assignment epoch {last.assignment} ->"
            f" {described.assignment})"
        )
    if moved is not None and now - moved < cooldown_s:
        return (
            f"its epochs moved {now - moved:.1f} s ago ({described}), within the"
            f" cooldown of {cooldown_s:.1f} s"
        )
    return None


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
        self.epochs = EpochWatch()
        self._last: dict[str, float] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._counts: dict[tuple[str, str], int] = {}

    def counts(self) -> Mapping[tuple[str, str], int]:
        """(group, outcome) -> nudges so far."""
        return dict(self._counts)

    def due(self, refresh: Refresh) -> list[tuple[str, float]]:
        """The groups to nudge after ``refresh`` (advised, consumer-protocol, out of
        cooldown), each with its cooldown."""
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
            found.append((group_id, cooldown_s))
        return found

    async def refreshed(self, refresh: Refresh) -> None:
        now = self._clock()
        self._forget_gone(set(self._tracker.advice()))
        for snapshot in refresh.fresh:
            if snapshot.group_epoch is not None and snapshot.assignment_epoch is not None:
                seen = Epochs(snapshot.group_epoch, snapshot.assignment_epoch)
                self.epochs.saw(snapshot.group_id, seen, now)
        for group_id, cooldown_s in self.due(refresh):
            self._last[group_id] = now
            unless = self.epochs.before_nudge(group_id, cooldown_s, self._clock)
            self._tasks[group_id] = asyncio.create_task(
                self._run(group_id, unless), name=f"lagassign-nudge-{group_id}"
            )

    def _forget_gone(self, groups: set[str]) -> None:
        """Drop what is kept of groups no longer tracked (a group deleted, or past the
        tracking cap), so the nudger's state stays as large as the tracked groups; their
        counts leave ``lagassign_nudges_total`` with them."""
        groups |= set(self._tasks)
        self.epochs.keep_only(groups)
        for group_id in set(self._last) - groups:
            del self._last[group_id]
        for key in [k for k in self._counts if k[0] not in groups]:
            del self._counts[key]

    async def _run(self, group_id: str, unless: Unless) -> None:
        try:
            result = await self._nudge(group_id, unless=unless)
        except Exception as exc:  # a defect must not kill the task silently  # noqa: BLE001
            result = NudgeResult(group_id, "", "failed", f"{type(exc).__name__}: {exc}")
        finally:
            self._tasks.pop(group_id, None)
        self.epochs.nudged(group_id, result)
        key = (group_id, result.outcome)
        self._counts[key] = self._counts.get(key, 0) + 1
        line = nudge_line(result)
        level = logging.WARNING if result.outcome in ("refused", "failed") else logging.INFO
        done = "did not nudge" if result.outcome == "recomputed_recently" else "nudged"
        message = "group %r: %s the broker to reassign on the advice: %s"
        log.log(level, message, group_id, done, line)
        self._tracker.record_nudge(group_id, line)

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
