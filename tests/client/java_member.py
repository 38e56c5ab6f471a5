"""A Kafka Java ``KafkaConsumer`` with the Java shim in its own JVM
(``io.lagassign.GroupMember``, or ``io.lagassign.SpringMember``: the README's Spring
Kafka recipe), reporting JSON lines on stdout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.client.member import COMMIT_EACH_BATCH, Membership, PollLoop
from tests.client.process_member import ProcessMember


class JavaMember(ProcessMember):
    """``io.lagassign.GroupMember`` in its own JVM, stopped through stdin, else by its pid."""

    def __init__(
        self,
        name: str,
        membership: Membership,
        classpath: str,
        log_dir: Path,
        loop: PollLoop = COMMIT_EACH_BATCH,
        *,
        cooperative: bool = False,
        spring: bool = False,
    ) -> None:
        #: Rebalances its RebalanceAdvisor forced (only with ``loop.advise_every_s``).
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
            f"-Dlagassign.member.workMs={round(loop.work_s * 1000)}",
            *(
                [f"-Dlagassign.member.maxPollRecords={loop.max_records}"]
                if loop.max_records is not None
                else []
            ),
            "-cp",
            classpath,
            # spring: the README's Spring Kafka recipe (a listener container) instead of a
            # hand-written poll loop; it commits after every batch and takes no advisor.
            *(["io.lagassign.SpringMember"] if spring else ["io.lagassign.GroupMember"]),
            membership.bootstrap,
            membership.group,
            ",".join(membership.topics),
            membership.url,
            str(round(membership.timeout_s * 1000)),
            name,
            *(
                []
                if spring
                else [
                    "true" if loop.commit else "false",
                    *(
                        [str(round(loop.advise_every_s * 1000))]
                        if loop.advise_every_s is not None
                        else []
                    ),
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
        elif event["event"] in ("revoked", "lost"):
            # Eager: everything; cooperative: only the partitions listed; lost: all it held.
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
