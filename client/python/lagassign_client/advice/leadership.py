"""Whether this member led the group's last rebalance: the leader's ``assign()`` ran for it.

Both libraries call ``assign()`` on the leader only, then ``on_assignment()`` on every
member, and ``metadata()`` on every member when it joins. A member led the
rebalance whose assignment it received last when its ``assign()`` ran in that join:
``joining()``, ``leading()``, then ``assigned()``. A join that never completes (the
library dropped it) leaves no trace in the next one.
"""

from __future__ import annotations

import threading


class Leadership:
    """Safe to read from any thread (kafka-python rebalances on its own)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._leading = False
        self._led_last = False
        self._assignments = 0
        self._made: str | None = None
        self._digest: str | None = None

    def joining(self) -> None:
        """This member's ``metadata()`` runs: it joins a rebalance, as leader or not yet known."""
        with self._lock:
            self._leading = False
            self._made = None

    def leading(self, digest: str | None = None) -> None:
        """This member's ``assign()`` made the assignment ``digest`` names
        (:mod:`lagassign_client.assignor.assignment_digest`): it leads the rebalance under way."""
        with self._lock:
            self._leading = True
            self._made = digest

    def assigned(self) -> None:
        """This member received its assignment: the rebalance is over."""
        with self._lock:
            self._led_last = self._leading
            self._digest = self._made if self._leading else None
            self._leading = False
            self._made = None
            self._assignments += 1

    @property
    def led_last(self) -> bool:
        """Whether this member led the rebalance that gave it its current assignment."""
        with self._lock:
            return self._led_last

    @property
    def digest(self) -> str | None:
        """The digest of the assignment this member made, when it led the last rebalance."""
        with self._lock:
            return self._digest

    @property
    def assignments(self) -> int:
        """Assignments received so far."""
        with self._lock:
            return self._assignments
