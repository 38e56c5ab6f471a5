"""A Kafka Java ``KafkaConsumer`` with the Java shim in its own JVM
(``io.lagassign.GroupMember``, or ``io.lagassign.SpringMember``: the README's Spring
Kafka recipe), reporting JSON lines on stdout."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.client.process_member import ProcessMember


class JavaMember(ProcessMember):
    """``io.lagassign.GroupMember`` in its own JVM, stopped through stdin, else by its pid."""

    def __init__(
        self,
        name: str,
        bootstrap: str,
        group: str,
        topics: Sequence[str],
        url: str,
        timeout_s: float,
        classpath: str,
        log_dir: Path,
        commit: bool = True,
        advise_ms: int | None = None,
        cooperative: bool = False,
        *,
        max_poll_records: int | None = None,
        work_ms: int = 0,
        spring: bool = False,
    ) -> None:
        #: Rebalances its RebalanceAdvisor forced (only with ``advise_ms``).
        self.enforced = 0
        #: Commits Kafka refused (``commit_failed`` lines: the error's text).
        self.commit_failures: list[str] = []
        #: Commits its advisor left to the next one during a rebalance (``commit_deferred``).
        self.deferred_commits = 0
        command = [
            "java",
            "-Xmx256m",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            f"-Dlagassign.member.cooperative={'true' if cooperative else 'false'}",
            f"-Dlagassign.member.workMs={work_ms}",
            *(
                [f"-Dlagassign.member.maxPollRecords={max_poll_records}"]
                if max_poll_records is not None
                else []
            ),
            "-cp",
            classpath,
            # spring: the README's Spring Kafka recipe (a listener container) instead of a
            # hand-written poll loop; it commits after every batch and takes no advisor.
            *(["io.lagassign.SpringMember"] if spring else ["io.lagassign.GroupMember"]),
            bootstrap,
            group,
            ",".join(topics),
            url,
            str(round(timeout_s * 1000)),
            name,
            *(
                []
                if spring
                else [
                    "true" if commit else "false",
                    *([str(advise_ms)] if advise_ms is not None else []),
                ]
            ),
        ]
        super().__init__(name, command, log_dir)
        self._events: list[dict[str, Any]] = []

    def _on_event(self, event: dict[str, Any]) -> None:
        self._events.append(event)
        if event["event"] == "assigned":
            self._partitions = {(t, p) for t, p in event["partitions"]}
            self._last = event
        elif event["event"] == "revoked":
            # Eager: everything; cooperative: only the partitions listed.
            revoked = {(t, p) for t, p in event.get("partitions", [])}
            self._partitions = self._partitions - revoked if revoked else set()
        elif event["event"] == "enforced":
            self.enforced += 1
        elif event["event"] == "commit_failed":
            self.commit_failures.append(event["error"])
        elif event["event"] == "commit_deferred":
            self.deferred_commits += 1

    def events(self) -> list[dict[str, Any]]:
        """Every JSON line it printed so far, in order (a copy)."""
        with self._lock:
            return list(self._events)

    def generation(self) -> int | None:
        """The generation of its last assignment."""
        with self._lock:
            generation = self._last.get("generation")
        return int(generation) if generation is not None else None

    def decision_seconds(self) -> float | None:
        with self._lock:
            decision = self._last.get("decision")
        return None if decision is None else float(decision["seconds"])
