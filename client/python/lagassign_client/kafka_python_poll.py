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

kafka-python does not tell assignors about the poll; :func:`poll_time_left`
reads it from the consumer coordinator's ``poll`` frame (the consumer's own
timer), found from the assignor's call stack. It returns None when it cannot
tell (another kafka-python version), and the shim then keeps its own deadline.
"""

from __future__ import annotations

import sys
import time
from types import FrameType
from typing import Any

# How deep the assignor's caller is looked for, and how deep each thread's stack.
STACK_LIMIT = 40


def coordinator_of_this_rebalance() -> Any:
    """The ``ConsumerCoordinator`` whose ``_perform_assignment`` called the assignor, or None."""
    frame: FrameType | None = sys._getframe(1)
    depth = 0
    while frame is not None and depth < STACK_LIMIT:
        if frame.f_code.co_name == "_perform_assignment":
            return frame.f_locals.get("self")
        frame = frame.f_back
        depth += 1
    return None


def poll_time_left(coordinator: Any) -> float | None:
    """Seconds until the ``poll()`` running ``coordinator``'s rebalance stops waiting for it.

    None when no such poll is found or it has no timeout (``poll()`` without
    ``timeout_ms``... waits as long as the rebalance takes).
    """
    if coordinator is None:
        return None
    now = time.monotonic()
    left: float | None = None
    for top in sys._current_frames().values():
        frame: FrameType | None = top
        depth = 0
        while frame is not None and depth < STACK_LIMIT:
            if frame.f_code.co_name == "poll" and frame.f_locals.get("self") is coordinator:
                expire_at = getattr(frame.f_locals.get("timer"), "_expire_at", None)
                if isinstance(expire_at, float) and expire_at != float("inf"):
                    remaining = expire_at - now
                    left = remaining if left is None else min(left, remaining)
                break
            frame = frame.f_back
            depth += 1
    return left
