"""How long the kafka-python ``poll()`` that runs a rebalance still waits for it.

kafka-python 3 runs JoinGroup -> ``assign()`` -> SyncGroup as one task on its
network loop and waits for that task only as long as what is left of the
``poll(timeout_ms)`` that started the join. A task that ends later is never
applied: when the rebalance was started by a metadata or subscription change,
nothing rejoins, the leader owns nothing although the broker says it owns its
partitions, its heartbeats stay off, and the broker evicts it after
``session_timeout_ms``; when it was started by the broker, the next ``poll()``
sends a new JoinGroup and the group rebalances again. So the leader's
``assign()`` plus SyncGroup must fit in what is left of that poll.

The same holds for a follower, whose SyncGroup waits for the leader's ``assign()``.

kafka-python does not tell assignors about the poll; :func:`poll_time_left`
reads it from the consumer's and the coordinator's ``poll`` frames (their own
timers), found from the assignor's call stack, and :func:`join_dropped` tells a
dropped join from the coordinator's state. They answer None / False when they
cannot tell (another kafka-python version), and the shim then keeps its own
deadline.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from types import FrameType
from typing import Any

# How deep the assignor's caller is looked for, and how deep each thread's stack.
STACK_LIMIT = 40


def _self_of_caller(function: str) -> Any:
    """The ``self`` of the nearest ``function`` on the stack above the asking function's
    caller (at most ``STACK_LIMIT`` frames up), or None."""
    frame: FrameType | None = sys._getframe(2)
    depth = 0
    while frame is not None and depth < STACK_LIMIT:
        if frame.f_code.co_name == function:
            return frame.f_locals.get("self")
        frame = frame.f_back
        depth += 1
    return None


def coordinator_of_this_rebalance() -> Any:
    """The ``ConsumerCoordinator`` whose ``_perform_assignment`` called the assignor, or None."""
    return _self_of_caller("_perform_assignment")


@dataclass(frozen=True, slots=True)
class PollTime:
    """The consumer's ``poll(timeout_ms)`` (seconds) and what is left of the wait for the join."""

    timeout_s: float | None
    left_s: float


def _timer(frame: FrameType) -> tuple[float, float | None] | None:
    """(expiry, timeout in seconds) of the ``timer`` local of a kafka-python poll frame."""
    timer = frame.f_locals.get("timer")
    expire_at = getattr(timer, "_expire_at", None)
    timeout_ms = getattr(timer, "_timeout_ms", None)
    if not isinstance(expire_at, float) or expire_at == float("inf"):
        return None
    return expire_at, timeout_ms / 1000 if isinstance(timeout_ms, int | float) else None


def poll_time_left(coordinator: Any) -> PollTime | None:
    """What is left of the ``poll()`` running ``coordinator``'s rebalance, and its timeout.

    None when no such poll is found or it has no timeout (``poll()`` without
    ``timeout_ms`` waits as long as the rebalance takes).
    """
    if coordinator is None:
        return None
    now = time.monotonic()
    left: float | None = None
    timeout: float | None = None
    for top in sys._current_frames().values():
        frame: FrameType | None = top
        depth = 0
        while frame is not None and depth < STACK_LIMIT:
            if frame.f_code.co_name == "poll":
                owner = frame.f_locals.get("self")
                found = _timer(frame)
                if found is not None and owner is coordinator:
                    left = found[0] - now if left is None else min(left, found[0] - now)
                elif found is not None and getattr(owner, "_coordinator", None) is coordinator:
                    # KafkaConsumer.poll: its timer is the application's timeout_ms.
                    timeout = found[1]
            frame = frame.f_back
            depth += 1
    return None if left is None else PollTime(timeout_s=timeout, left_s=left)


def coordinator_of_this_join() -> Any:
    """The ``ConsumerCoordinator`` whose ``group_protocols`` asked for this member's
    subscription, or None."""
    return _self_of_caller("group_protocols")


def join_dropped(coordinator: Any) -> bool:
    """Whether ``coordinator`` holds a finished join it never applied and will not retry.

    kafka-python's state then: the join task is done and succeeded (a failed one is
    kafka-python's own to retry), the member is still marked as rejoining, and nothing
    asks it to join again.
    """
    task = getattr(coordinator, "_join_task", None)
    return (
        task is not None
        and getattr(task, "is_done", False) is True
        and getattr(task, "exception", None) is None
        and getattr(coordinator, "rejoining", False) is True
        and not coordinator.need_rejoin()
    )
