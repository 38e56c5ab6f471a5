"""The assignors the catch-up benchmark compares, and the group of members each one runs.

Classic groups: aiokafka's ``range`` and lagassign's ``lag-aware`` and ``balanced``
(the Python shim; ``balanced+advice`` adds every member's ``RebalanceAdvisor``) in
this process, and Kafka's ``CooperativeStickyAssignor`` in a JVM. On the consumer
group protocol (KIP-848, Java consumers): the broker's ``uniform`` and lagassign's
broker plugin (``lagassign-broker``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from aiokafka.coordinator.assignors.range import (  # type: ignore[import-untyped]
    RangePartitionAssignor,
)

from bench.catchup.java_groups import ConsumerProtocolGroup, JavaGroup, java_available
from bench.catchup.members import GroupSpec, PythonGroup
from bench.catchup.run import Group, Start
from harness.sidecar import SidecarProcess
from lagassign_client import LagAssignor

CLASSIC = ("range", "cooperative-sticky", "lag-aware", "balanced")
CONSUMER_PROTOCOL = ("uniform", "lagassign-broker")
# ``balanced`` with the members' RebalanceAdvisor acting on the sidecar's advice (only
# when asked for: ``--assignor balanced+advice``).
ADVISED = "balanced+advice"
ASSIGNORS = CLASSIC + CONSUMER_PROTOCOL
COOPERATIVE_STICKY = "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"
BROKER_ASSIGNOR = {"uniform": "uniform", "lagassign-broker": "lagassign"}
SHIM_STRATEGY = {"lag-aware": "lag-aware", "balanced": "balanced", ADVISED: "balanced"}
SHIM_TIMEOUT_S = 1.5


def shim(url: str, group: str, strategy: str, start: Start) -> LagAssignor:
    """The Python shim for one member; a new group tells the sidecar it reads from the
    earliest offset."""
    return LagAssignor(
        url=url,
        group_id=group,
        strategy=strategy,
        timeout_s=SHIM_TIMEOUT_S,
        reset_policy="earliest" if start == "new-group" else None,
    )


def group_maker(
    assignor: str, sidecar: SidecarProcess, start: Start, logs: Path
) -> Callable[[GroupSpec], Group]:
    """What makes ``assignor``'s group of a run's spec (``logs``: where a JVM's log goes)."""

    def make(spec: GroupSpec) -> Group:
        if assignor == "range":
            return PythonGroup(spec, lambda _: RangePartitionAssignor)
        if assignor in SHIM_STRATEGY:
            strategy = SHIM_STRATEGY[assignor]
            return PythonGroup(
                spec,
                lambda _: shim(sidecar.url, spec.group, strategy, start),
                advise_url=sidecar.url if assignor == ADVISED else None,
            )
        if assignor in BROKER_ASSIGNOR:

            async def describe() -> dict[str, Any] | None:
                async with httpx.AsyncClient(headers=sidecar.headers, timeout=10) as client:
                    response = await client.get(
                        f"{sidecar.url}/groups/{spec.group}",
                        headers={"accept": "application/json"},
                    )
                if response.status_code != 200:
                    return None
                body: dict[str, Any] = response.json()
                return body

            return ConsumerProtocolGroup(spec, BROKER_ASSIGNOR[assignor], logs, describe)
        if assignor == "cooperative-sticky":
            return JavaGroup(spec, COOPERATIVE_STICKY, logs / f"{spec.group}.java.log")
        raise ValueError(f"no group for assignor {assignor!r}")

    return make


def cannot_run(assignor: str, plugin: bool) -> str | None:
    """Why ``assignor`` cannot run here (``plugin``: the broker runs lagassign's), or None."""
    if assignor == "lagassign-broker" and not plugin:
        return (
            "needs the bench's own broker, started with lagassign's broker plugin"
            " (--bootstrap names a broker the bench did not start)"
        )
    if assignor == "cooperative-sticky" or assignor in CONSUMER_PROTOCOL:
        why = java_available()
        return None if why is None else f"Kafka's Java consumers cannot run: {why}"
    return None
