"""The demo's consumer-protocol group (KIP-848), balanced by lagassign's broker plugin.

Beside the classic group ``demo-orders`` (Kafka's range assignor, the sidecar asked
directly), ``demo-orders-kip848`` reads the same topics with the same committed lag on
the new consumer group protocol: three confluent-kafka consumers with
``group.protocol=consumer`` and ``group.remote.assignor=lagassign``. The broker runs
lagassign's plugin (``kafka start --lagassign-url``), which asks the sidecar. The first
member starts the group cold and gets Kafka's own ``uniform`` (the sidecar does not know
the group yet); once the sidecar has described the group, the other two join and the
group is assigned by the sidecar's ``balanced`` answer. The members hold their partitions
paused (they read nothing), so the lag stays what it was set to.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import httpx

from harness.paused_member import PausedMember
from harness.poll import eventually_async

GROUP = "demo-orders-kip848"
MEMBERS = 3


@contextlib.contextmanager
def paused_members(
    bootstrap: str, topics: Sequence[str], count: int, first: int = 0
) -> Iterator[None]:
    members = [
        PausedMember(bootstrap, GROUP, f"demo-kip848-{first + i}", topics, "lagassign")
        for i in range(count)
    ]
    try:
        yield
    finally:
        for member in members:
            member.close()


async def group_json(client: httpx.AsyncClient) -> dict[str, Any] | None:
    with contextlib.suppress(httpx.HTTPError):
        response = await client.get(f"/groups/{GROUP}")
        if response.status_code == 200:
            body: dict[str, Any] = response.json()
            return body
    return None


async def known_to_sidecar(client: httpx.AsyncClient, timeout_s: float) -> dict[str, Any]:
    """The group once the sidecar has described it with its first member."""

    async def described() -> dict[str, Any] | None:
        body = await group_json(client)
        return body if body is not None and len(body["members"]) == 1 else None

    found: dict[str, Any] = await eventually_async(
        described, timeout_s, f"the sidecar describes {GROUP}", 0.5
    )
    return found


async def balanced_by_plugin(
    client: httpx.AsyncClient, partitions: int, timeout_s: float
) -> dict[str, Any]:
    """The group once all members hold the sidecar's last answer, live."""

    async def live() -> dict[str, Any] | None:
        body = await group_json(client)
        if body is None or len(body["members"]) != MEMBERS:
            return None
        if sum(m["partitions"] for m in body["members"]) != partitions:
            return None
        answers = body["last_answers"]
        if not answers or answers[0]["members"] != MEMBERS:
            return None
        if body["live_vs_last_answer"]["status"] != "matches":
            return None
        return body

    found: dict[str, Any] = await eventually_async(
        live, timeout_s, f"{GROUP} holds the plugin's answer", 0.5
    )
    return found


def lag_table(classic: Mapping[str, Any], plugin: Mapping[str, Any]) -> list[str]:
    """Per member (largest lag first), lag and partitions of the two groups side by side."""

    def rows(body: Mapping[str, Any]) -> list[tuple[int, int]]:
        return sorted(((m["lag"], m["partitions"]) for m in body["members"]), reverse=True)

    left, right = rows(classic), rows(plugin)
    c_name = "classic, range"  # the demo's classic members use Kafka's range assignor
    p_name = f"consumer protocol, {plugin['header']['assignment_strategy']}"
    lines = [f"  {'':>8}   {c_name:>22}   {p_name:>32}"]
    for i, ((c_lag, c_n), (p_lag, p_n)) in enumerate(zip(left, right, strict=False)):
        lines.append(f"  member {i}   {c_lag:>10} lag, {c_n:>2} p   {p_lag:>20} lag, {p_n:>2} p")
    lines.append(f"  worst member lag: {left[0][0]} ({c_name}) vs {right[0][0]} ({p_name})")
    return lines
