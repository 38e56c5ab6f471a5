"""What the sidecar learns of a group from DescribeGroups alone, with real consumers.

- A group whose leader never reached the sidecar (nothing listens at the shims' URL)
  falls back to range; a sidecar started afterwards (cold) reads the fallback from the
  assignment user data, shows and counts it, and a restarted one sees it again. The
  members' subscriptions (a Java member on two topics, an aiokafka one on one) come
  from their metadata, and the what-if of ``/groups`` keeps to them.
- A static member that restarts under a new member id, with no rebalance, still
  "matches" the last answer, and ``lagassign_live_assignment_matches`` stays 1.
- A shim given another group's id is refused (``400 wrong_group``) once the sidecar
  knows the leader as a member of its real group: the leader falls back, says why, and
  the sidecar counts it.
"""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.broker import LocalKafka
from harness.builders import commit, create_topic, produce
from harness.poll import eventually_async
from harness.sidecar import SidecarProcess, free_port, start_sidecar
from lagassign.core.model import Member, make_rebalance
from lagassign.core.stats import assignment_stats
from lagassign.core.strategies import run_strategy
from tests.client.backlog import GROUP_PREFIX, SKEW
from tests.client.group_waits import settled
from tests.client.member import Member as ShimMember
from tests.client.member import Membership
from tests.client.members import NewGroup
from tests.client.python_members import AiokafkaMember

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

SEEN_S = 60.0


async def report_of(sidecar: SidecarProcess, group: str) -> dict[str, Any] | None:
    return await asyncio.to_thread(sidecar.group, group)


def metric(sidecar: SidecarProcess, name: str, **labels: str) -> float | None:
    """One sample of the sidecar's /metrics, ``None`` when absent."""
    text = httpx.get(f"{sidecar.url}/metrics", timeout=10.0).text
    for line in text.splitlines():
        found = re.fullmatch(rf"{name}\{{(.*)\}} (\S+)", line)
        if found is None:
            continue
        have = dict(re.findall(r'(\w+)="([^"]*)"', found.group(1)))
        if all(have.get(k) == v for k, v in labels.items()):
            return float(found.group(2))
    return None


async def backlog(bootstrap: str, group: str, topics: Sequence[str]) -> None:
    for topic in topics:
        await create_topic(bootstrap, topic, len(SKEW))
        await produce(bootstrap, topic, SKEW)
    await commit(bootstrap, group, {(t, p): 0 for t in topics for p in range(len(SKEW))})


def cold_sidecar(bootstrap: str, group: str, log: Path) -> SidecarProcess:
    return start_sidecar(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": bootstrap,
            "LAGASSIGN_REFRESH_INTERVAL_S": "1",
            "LAGASSIGN_GROUPS": group,
        },
        log,
    )


async def test_a_cold_sidecar_reads_the_fallback_and_the_subscriptions_from_the_group(
    new_group: NewGroup, tmp_path: Path
) -> None:
    group = new_group.group
    both, one = new_group.topics(2)
    await backlog(new_group.bootstrap, group, [both, one])
    nowhere = f"http://127.0.0.1:{free_port()}"  # nothing listens: every rebalance falls back
    java = new_group.java("java-0", new_group.membership([both, one], nowhere))
    python = AiokafkaMember("aiokafka-1", new_group.membership([one], nowhere))
    members: list[ShimMember] = [java, python]
    sidecars: list[SidecarProcess] = []
    try:
        for member in members:
            await member.start()
        expected = {(t, p) for t in (both, one) for p in range(len(SKEW))}
        held = await settled(members, expected)
        notes = [m.note() for m in members]
        assert all(n is not None and n["by"] == "range" for n in notes), notes
        reason = notes[0]["reason"] if notes[0] else None
        # The group is settled on the fallback; only now does a sidecar start.
        for start in range(2):  # cold, then restarted
            sidecar = cold_sidecar(new_group.bootstrap, group, tmp_path / f"sidecar-{start}.log")
            sidecars.append(sidecar)

            async def described(sidecar: SidecarProcess = sidecar) -> dict[str, Any] | None:
                report = await report_of(sidecar, group)
                ready = report and report["assigned_by"] and report["skew"]["default_strategy_now"]
                return report if ready else None

            report = await eventually_async(
                described, SEEN_S, f"sidecar {start} reads how {group} was assigned", 0.5
            )
            assert report["assigned_by"] == {"by": "range", "reason": reason, "strategy": None}
            assert report["assignments_seen"] == [{"by": "range", "reason": reason, "count": 1}]
            assert report["live_vs_last_answer"]["status"] == "unknown"  # it never answered
            labels = {"group": group}
            assert metric(sidecar, "lagassign_group_live_fallback", **labels) == 1.0
            seen = {"reason": reason or "", **labels}
            assert metric(sidecar, "lagassign_group_fallbacks_seen_total", **seen) == 1.0
            assert metric(sidecar, "lagassign_live_assignment_matches", **labels) is None
            check_what_if(report, {java.name: (both, one), python.name: (one,)})
            sidecar.stop()
        # The members held their partitions all along: the sidecars only read.
        assert {m.name: m.partitions() for m in members} == held
    finally:
        for member in members:
            await member.stop()
        for sidecar in sidecars:
            sidecar.stop()


def check_what_if(report: dict[str, Any], topics_of: dict[str, tuple[str, ...]]) -> None:
    """The what-if equals the default strategy run on the members' real subscriptions."""
    what_if = report["skew"]["default_strategy_now"]
    assert what_if["assumes"] == "each member's subscription as the group's description reports it"
    lags: dict[str, list[int]] = {}
    for row in report["partitions"]:
        lags.setdefault(row["topic"], []).append(row["lag"])
    by_client = {m["client_id"]: m for m in report["members"]}
    assert {name: tuple(by_client[name]["subscribed_topics"]) for name in topics_of} == {
        name: tuple(sorted(topics)) for name, topics in topics_of.items()
    }
    members = [
        Member(
            member_id=by_client[name]["member_id"],
            topics=tuple(sorted(topics)),
            owned={t: tuple(ps) for t, ps in by_client[name]["assignment"].items()},
        )
        for name, topics in topics_of.items()
    ]
    rebalance = make_rebalance(members, {t: len(v) for t, v in lags.items()}, lags)
    expected = assignment_stats(rebalance, run_strategy(what_if["strategy"], rebalance))
    assert what_if["member_lag"] == dict(expected.member_lag)
    assert what_if["max_lag"] == expected.max_lag


async def test_a_static_member_restarted_under_a_new_member_id_still_matches(
    sidecar: SidecarProcess, new_group: NewGroup
) -> None:
    group = new_group.group
    topic = new_group.names("topic")
    await backlog(new_group.bootstrap, group, [topic])
    joins = new_group.membership([topic], sidecar.url)

    def static(i: int) -> AiokafkaMember:
        return AiokafkaMember(f"static-{i}", joins, group_instance_id=f"web-{i}")

    members = [static(0), static(1)]
    expected = {(topic, p) for p in range(len(SKEW))}
    try:
        for member in members:
            await member.start()
        held = await settled(members, expected)

        async def matching() -> dict[str, Any] | None:
            report = await report_of(sidecar, group)
            ok = report and report["live_vs_last_answer"]["status"] == "matches"
            return report if ok else None

        before = await eventually_async(
            matching, SEEN_S, f"{group} matches the sidecar's answer", 0.5
        )
        assert metric(sidecar, "lagassign_live_assignment_matches", group=group) == 1.0
        # Restart a follower (the leader's restart may rebalance): same instance id.
        follower = next(i for i, m in enumerate(members) if m.assignor.last_decision is None)
        old_id = members[follower].member_id()
        await members[follower].stop()  # a static member does not leave the group
        members[follower] = static(follower)
        await members[follower].start()
        assert await settled(members, expected) == held
        new_id = members[follower].member_id()
        assert new_id != old_id

        async def restarted() -> dict[str, Any] | None:
            report = await report_of(sidecar, group)
            ids = {m["member_id"] for m in report["members"]} if report else set()
            return report if new_id in ids else None

        after = await eventually_async(
            restarted, SEEN_S, f"the sidecar sees {new_id} in {group}", 0.5
        )
        # No rebalance: the sidecar made no new answer, and the live assignment is its last.
        assert after["last_answers"] == before["last_answers"]
        assert after["live_vs_last_answer"]["status"] == "matches", after["live_vs_last_answer"]
        assert metric(sidecar, "lagassign_live_assignment_matches", group=group) == 1.0
        statics = {m["member_id"]: m["group_instance_id"] for m in after["members"]}
        assert statics[new_id] == f"web-{follower}"
    finally:
        for member in members:
            await member.stop()


async def test_a_shim_naming_another_group_is_refused_once_its_members_are_known(
    kafka_broker: LocalKafka,
    kafka_names: Callable[[str], str],
    sidecar: SidecarProcess,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Short names: the shim logs the first 120 characters of the sidecar's message.
    group = f"{GROUP_PREFIX}{uuid.uuid4().hex[:8]}"
    typo = group + ".typo"
    topic = kafka_names("topic")
    await backlog(kafka_broker.bootstrap, group, [topic])
    refused_before = metric(sidecar, "lagassign_assign_failures_total", reason="wrong_group") or 0.0

    joins = Membership(kafka_broker.bootstrap, group, [topic], sidecar.url)

    def mistaken(i: int) -> AiokafkaMember:
        return AiokafkaMember(f"typo-{i}", joins, shim_group=typo)

    first = mistaken(0)
    members = [first]
    expected = {(topic, p) for p in range(len(SKEW))}
    with caplog.at_level(logging.WARNING, logger="lagassign_client"):
        try:
            await first.start()
            await settled(members, expected)

            async def known() -> bool:
                report = await report_of(sidecar, group)
                ids = {m["member_id"] for m in report["members"]} if report else set()
                return first.member_id() in ids

            await eventually_async(
                known, SEEN_S, f"the sidecar knows {first.member_id()} in {group}", 0.5
            )
            caplog.clear()
            members.append(mistaken(1))
            await members[1].start()

            async def refused() -> bool:
                notes = [m.note() for m in members]
                return len(members[1].partitions()) > 0 and all(
                    n is not None and n["by"] == "range" for n in notes
                )

            await eventually_async(
                refused, SEEN_S, "the leader falls back after the sidecar refused it", 0.5
            )
            await settled(members, expected)
        finally:
            for member in members:
                await member.stop()
    assert first.assignor.fallbacks.get("status", 0) >= 1, first.assignor.fallbacks
    warnings = [r.getMessage() for r in caplog.records if r.name == "lagassign_client"]
    said = f"HTTP 400: the members belong to group '{group}', not '{typo}'"
    assert any(said in w for w in warnings), warnings
    refused_after = metric(sidecar, "lagassign_assign_failures_total", reason="wrong_group")
    assert refused_after is not None
    assert refused_after > refused_before
