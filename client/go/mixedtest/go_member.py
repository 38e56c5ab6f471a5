"""A franz-go consumer with the Go shim (``groupmember``) in a process of its own, with
the interface of the Java and Python test members of ``tests/client/members.py``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.client.members import Partition, ProcessMember


class GoMember(ProcessMember):
    """``groupmember`` reporting JSON lines on stdout; stopped through stdin, else by its pid."""

    def __init__(
        self,
        program: Path,
        name: str,
        bootstrap: str,
        group: str,
        topics: Sequence[str],
        url: str,
        timeout_s: float,
        log_dir: Path,
        cooperative: bool = False,
    ) -> None:
        command = [
            str(program),
            bootstrap,
            group,
            ",".join(topics),
            url,
            str(round(timeout_s * 1000)),
            name,
            *(["cooperative"] if cooperative else []),
        ]
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
