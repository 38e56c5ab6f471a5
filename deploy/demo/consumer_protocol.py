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

from deploy.demo.cli import say
from deploy.demo.group import PARTITIONS, TARGET_LAG
from deploy.demo.sidecar import group_once
from harness.broker import LocalKafka
from harness.paused_member import PausedMember

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


def balanced_by_plugin(body: Mapping[str, Any]) -> bool:
    """All members hold the sidecar's last answer, live."""
    answers = body["last_answers"]
    return (
        len(body["members"]) == MEMBERS
        and sum(m["partitions"] for m in body["members"]) == PARTITIONS
        and bool(answers)
        and answers[0]["members"] == MEMBERS
        and body["live_vs_last_answer"]["status"] == "matches"
    )


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


async def show_group(
    broker: LocalKafka, client: httpx.AsyncClient, classic: Mapping[str, Any]
) -> None:
    """The consumer-protocol group, cold then balanced by the plugin, beside the classic one."""
    plugin = broker.state.get("lagassign")
    if not isinstance(plugin, dict) or plugin.get("url") != str(client.base_url).rstrip("/"):
        say(
            "The broker runs without lagassign's plugin for this sidecar, so the "
            "consumer-protocol group is left out. Stop the broker and run again to see it."
        )
        return
    bootstrap = broker.bootstrap
    topics = list(TARGET_LAG)
    say(f"A consumer-protocol group, {GROUP}: same topics, same lag, the broker plugin ...")
    with paused_members(bootstrap, topics, 1):
        await group_once(
            client, GROUP, lambda body: len(body["members"]) == 1, f"the sidecar describes {GROUP}"
        )
        say("  its first member got Kafka's uniform (the sidecar did not know the group yet);")
        with paused_members(bootstrap, topics, MEMBERS - 1, 1):
            body = await group_once(
                client, GROUP, balanced_by_plugin, f"{GROUP} holds the plugin's answer"
            )
            say("  the others joined and the group now holds the sidecar's balanced answer.")
            say(f"  its page: {str(client.base_url).rstrip('/')}/groups/{GROUP}")
            say()
            say("Per-member lag, the classic group vs the consumer-protocol group:")
            for text in lag_table(classic, body):
                say(text)
