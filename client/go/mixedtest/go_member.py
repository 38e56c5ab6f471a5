"""A franz-go consumer with the Go shim (``groupmember``) in a process of its own, with
the interface of the Java and Python test members (:mod:`tests.client.member`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.client.member import Partition
from tests.client.process_member import ProcessMember


class GoMember(ProcessMember):
    """``groupmember`` reporting JSON lines on stdout; stopped through stdin, else by its pid.

    ``command``: the program and its arguments, ``BOOTSTRAP GROUP TOPICS URL TIMEOUT_MS NAME
    [cooperative]`` (see :func:`mixed_group.MixedGroups.go`).
    """

    def __init__(self, name: str, command: Sequence[str], log_dir: Path) -> None:
        super().__init__(name, command, log_dir)
        self._revoked: Counter[Partition] = Counter()

    def _on_event(self, event: dict[str, Any]) -> None:
        if event["event"] == "assigned":
            # The partitions added (cooperative: only the new ones).
            self._partitions |= {(t, p) for t, p in event["partitions"]}
            self._last = event
        elif event["event"] == "revoked":
            revoked = {(t, p) for t, p in event["partitions"]}
            self._partitions -= revoked
            self._revoked.update(revoked)

    def revoked(self) -> Counter[Partition]:
        """How often each partition was taken from it."""
        with self._lock:
            return Counter(self._revoked)

    def answers(self) -> int:
        """Rebalances it led on the sidecar's answer."""
        with self._lock:
            return int(self._last.get("answers") or 0)

    def decision_seconds(self) -> float | None:
        return None
