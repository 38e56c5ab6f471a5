"""``make run``: the local broker, a consumer group with skewed lag, and the sidecar on it.

    .venv/bin/python -m deploy.demo.run [--kafka-dir DIR] [--kafka-port N] [--port N]
                                        [--work-dir DIR] [--once]

Run from the repository root (``make run``): it drives the project's local broker
and starts the sidecar through the project's harness (:mod:`harness`).

1. starts the local broker (``deploy/local-kafka/kafka start``: Apache Kafka from
   Maven Central and the machine's JDK, no Docker) unless it already runs there, with
   lagassign's broker plugin calling the sidecar's port (``--lagassign-url``);
2. creates two demo topics, produces skewed traffic (a few partitions hold most of
   it) and commits offsets for the group ``demo-orders`` so that each partition has
   a known lag;
3. joins three members to the group with Kafka's range assignor; they hold their
   partitions (paused, so the lag stays) like consumers that fall behind;
4. starts ``lagassign serve`` tracking the group, prints where to look, and sends
   one real ``POST /assign`` (with curl when it is installed), showing the
   per-member lag of ``range`` next to ``balanced``;
5. beside it, a consumer-protocol group (KIP-848) on the same topics and lag,
   ``demo-orders-kip848``: confluent-kafka members with
   ``group.remote.assignor=lagassign``, balanced through the broker plugin
   (:mod:`deploy.demo.consumer_protocol`), its per-member lag shown beside the classic
   group's; skipped, with a note, when the broker already ran without the plugin;
6. keeps producing a skewed trickle until Ctrl-C (or at once with ``--once``),
   then stops what it started, each by its pid: the sidecar, the members, and the
   broker if it was not already running.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx
from aiokafka import AIOKafkaConsumer, TopicPartition  # type: ignore[import-untyped]
from aiokafka.abc import ConsumerRebalanceListener  # type: ignore[import-untyped]
from aiokafka.coordinator.assignors.range import (  # type: ignore[import-untyped]
    RangePartitionAssignor,
)
from aiokafka.errors import KafkaError  # type: ignore[import-untyped]

from deploy.demo import consumer_protocol
from harness import builders
from harness.broker import REPO, LocalKafka, start_broker, stop_broker
from harness.poll import eventually_async
from harness.sidecar import SidecarProcess
from harness.sidecar import start_sidecar as start_lagassign

DEMO_DIR = REPO / "var" / "demo"

GROUP = "demo-orders"
# Topic -> the lag each partition gets: a few hot partitions hold most of it.
TARGET_LAG: Mapping[str, Sequence[int]] = {
    "demo.orders": (8_000, 6_000, 400, 300, 200, 100),
    "demo.payments": (4_000, 200, 150, 100),
}
CONSUMED = 500  # records per partition the group has already read
TRICKLE = {"demo.orders": (40, 25, 2, 1, 1, 1), "demo.payments": (15, 1, 1, 1)}
TRICKLE_EVERY_S = 5.0
MEMBERS = 3
DEADLINE_S = 90.0


def say(text: str = "") -> None:
    print(text, flush=True)


# --- the demo group --------------------------------------------------------------------


async def create_topics(bootstrap: str) -> None:
    """The demo topics (kept as they are when an earlier run created them)."""
    partitions = {topic: len(lags) for topic, lags in TARGET_LAG.items()}
    await builders.create_topics(bootstrap, partitions, exist_ok=True, timeout_s=DEADLINE_S)


async def produce(bootstrap: str, amounts: Mapping[str, Sequence[int]]) -> None:
    """Write ``amounts[topic][p]`` small records to each partition."""
    await builders.produce_many(bootstrap, amounts)


async def commit_target_lag(bootstrap: str, group: str = GROUP) -> None:
    """Commit ``end - target`` on every partition, so each lag is exactly its target.

    The group must have no members; a member left over from an earlier run is
    waited out (its session times out) within the deadline.
    """
    tps = [TopicPartition(t, p) for t, lags in TARGET_LAG.items() for p in range(len(lags))]

    async def committed() -> bool:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False
        )
        await consumer.start()
        try:
            consumer.assign(tps)
            ends = await consumer.end_offsets(tps)
            offsets = {tp: max(0, ends[tp] - TARGET_LAG[tp.topic][tp.partition]) for tp in tps}
            await consumer.commit(offsets)
            return True
        except KafkaError:
            say("  (the group still has members from an earlier run; waiting for them to leave)")
            return False
        finally:
            await consumer.stop()

    await eventually_async(committed, DEADLINE_S, f"a commit for {group}", interval_s=3)


class HoldPaused(ConsumerRebalanceListener):  # type: ignore[misc]
    """Pause whatever the member is given: it holds its partitions and reads nothing."""

    def __init__(self, consumer: AIOKafkaConsumer) -> None:
        self.consumer = consumer

    async def on_partitions_revoked(self, revoked: Any) -> None:
        return None

    async def on_partitions_assigned(self, assigned: Any) -> None:
        self.consumer.pause(*assigned)


@contextlib.asynccontextmanager
async def demo_members(bootstrap: str) -> AsyncIterator[None]:
    """Three members on the range assignor that poll (to stay in the group) but read nothing."""
    stop = asyncio.Event()
    consumers = [
        AIOKafkaConsumer(
            bootstrap_servers=bootstrap,
            group_id=GROUP,
            client_id=f"demo-consumer-{i}",
            enable_auto_commit=False,
            partition_assignment_strategy=(RangePartitionAssignor,),
        )
        for i in range(MEMBERS)
    ]

    async def poll(consumer: AIOKafkaConsumer) -> None:
        while not stop.is_set():
            await consumer.getmany(timeout_ms=500)

    for consumer in consumers:
        consumer.subscribe(list(TARGET_LAG), listener=HoldPaused(consumer))
        await consumer.start()
    polls = [asyncio.create_task(poll(c)) for c in consumers]
    try:
        yield
    finally:
        stop.set()
        await asyncio.gather(*polls, return_exceptions=True)
        for consumer in consumers:
            await consumer.stop()


# --- the sidecar -----------------------------------------------------------------------


def start_sidecar(bootstrap: str, port: int, work_dir: Path) -> SidecarProcess:
    """``lagassign serve`` tracking the demo group, its history in ``work_dir/history``.

    A ``LAGASSIGN_TOKEN`` (or any other ``LAGASSIGN_*`` setting) exported by the user
    applies to it.
    """
    work_dir.mkdir(parents=True, exist_ok=True)
    settings = {
        "LAGASSIGN_BOOTSTRAP_SERVERS": bootstrap,
        "LAGASSIGN_GROUPS": GROUP,
        "LAGASSIGN_REFRESH_INTERVAL_S": "2",
        "LAGASSIGN_HISTORY_DIR": str(work_dir / "history"),
    }
    return start_lagassign(
        settings,
        work_dir / "sidecar.log",
        port=port,
        inherit_settings=True,
        ready_timeout_s=DEADLINE_S,
    )


async def settled_group(client: httpx.AsyncClient, sidecar: SidecarProcess) -> dict[str, Any]:
    """``GET /groups/demo-orders`` once the sidecar sees every member and every lag."""
    partitions = sum(len(lags) for lags in TARGET_LAG.values())

    async def settled() -> dict[str, Any] | None:
        if sidecar.process.poll() is not None:
            raise SystemExit(
                f"the sidecar exited ({sidecar.process.returncode}):\n{sidecar.log_tail()}"
            )
        with contextlib.suppress(httpx.HTTPError):
            response = await client.get(f"/groups/{GROUP}")
            if response.status_code == 200:
                body: dict[str, Any] = response.json()
                members = body["members"]
                if (
                    len(members) == MEMBERS
                    and sum(m["partitions"] for m in members) == partitions
                    and body["header"]["unknown_partitions"] == 0
                    and body["header"]["partitions"] == partitions
                ):
                    return body
        return None

    try:
        return await eventually_async(settled, DEADLINE_S, f"the sidecar sees {GROUP} settle", 0.5)
    except TimeoutError as late:
        raise SystemExit(str(late)) from None


def assign_request(group: Mapping[str, Any], strategy: str) -> dict[str, Any]:
    """What the group leader's shim would send: the live members, their owned partitions."""
    return {
        "group_id": GROUP,
        "members": [
            {"member_id": m["member_id"], "topics": list(TARGET_LAG), "owned": m["assignment"]}
            for m in group["members"]
        ],
        "partitions": {t: len(lags) for t, lags in TARGET_LAG.items()},
        "strategy": strategy,
    }


def curl_assign(sidecar: SidecarProcess, request_path: Path) -> tuple[str, dict[str, Any] | None]:
    """The curl command line, and its answer when curl is installed."""
    command = ["curl", "-s", "-X", "POST", f"{sidecar.url}/assign"]
    command += ["-H", "content-type: application/json"]
    shown = list(command)
    if sidecar.headers:
        command += ["-H", f"authorization: {sidecar.headers['authorization']}"]
        shown += ["-H", "authorization: Bearer $LAGASSIGN_TOKEN"]
    relative = request_path.relative_to(REPO) if request_path.is_relative_to(REPO) else request_path
    command += ["--data", f"@{request_path}"]
    shown += ["--data", f"@{relative}"]
    line = shlex.join(shown)
    if shutil.which("curl") is None:
        return line, None
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=30)
    if done.returncode != 0:
        return line, None
    answer: dict[str, Any] = json.loads(done.stdout)
    return line, answer


NUMBER_LIST = re.compile(r"\[\s*([-\d.,\s]*?)\s*\]")


def compact_json(value: Any) -> str:
    """Indented JSON with lists of numbers kept on one line."""

    def one_line(match: re.Match[str]) -> str:
        items = [item.strip() for item in match[1].split(",") if item.strip()]
        return "[" + ", ".join(items) + "]"

    return NUMBER_LIST.sub(one_line, json.dumps(value, indent=2))


def comparison(range_answer: Mapping[str, Any], balanced: Mapping[str, Any]) -> list[str]:
    """A small table: per member, partitions and lag under range and under balanced."""

    def count(assignment: Mapping[str, Mapping[str, list[int]]], member: str) -> int:
        return sum(len(ps) for ps in assignment.get(member, {}).values())

    members = sorted(balanced["assignment"])
    width = max(len(m) for m in members)
    lines = [f"  {'member':<{width}}   {'range':>18}   {'balanced':>18}"]
    for m in members:
        r_lag = range_answer["stats"]["member_lag"][m]
        b_lag = balanced["stats"]["member_lag"][m]
        r_n, b_n = count(range_answer["assignment"], m), count(balanced["assignment"], m)
        lines.append(f"  {m:<{width}}   {r_lag:>8} lag, {r_n:>2} p   {b_lag:>8} lag, {b_n:>2} p")
    for name, answer in (("range", range_answer), ("balanced", balanced)):
        s = answer["stats"]
        lines.append(
            f"  {name}: max member lag {s['max_lag']}, imbalance {s['imbalance']:.3f} "
            f"(lower bound {s['lower_bound']:.0f}), moved {s['moved']}"
        )
    return lines


async def show_answers(
    client: httpx.AsyncClient, sidecar: SidecarProcess, group: Mapping[str, Any]
) -> None:
    # range first, so the last answer the service records is balanced's
    range_response = await client.post("/assign", json=assign_request(group, "range"))
    range_response.raise_for_status()
    request_path = sidecar.log_path.parent / "assign-request.json"
    request_path.write_text(json.dumps(assign_request(group, "balanced"), indent=2) + "\n")
    line, answer = curl_assign(sidecar, request_path)
    if answer is None:  # no curl here: the same request with httpx
        response = await client.post(
            "/assign",
            content=request_path.read_bytes(),
            headers={"content-type": "application/json"},
        )
        response.raise_for_status()
        answer = response.json()
        say("One POST /assign (curl is not installed; the same request was sent with httpx):")
    else:
        say("One real POST /assign:")
    say(f"  $ {line}")
    for text in compact_json(answer).splitlines():
        say(f"  {text}")
    say()
    say("Per-member lag, Kafka's range assignor vs lagassign's balanced strategy:")
    for text in comparison(range_response.json(), answer):
        say(text)


async def show_consumer_protocol_group(
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
    partitions = sum(len(lags) for lags in TARGET_LAG.values())
    group = consumer_protocol.GROUP
    say(f"A consumer-protocol group, {group}: same topics, same lag, the broker plugin ...")
    with consumer_protocol.paused_members(bootstrap, topics, 1):
        await consumer_protocol.known_to_sidecar(client, DEADLINE_S)
        say("  its first member got Kafka's uniform (the sidecar did not know the group yet);")
        with consumer_protocol.paused_members(bootstrap, topics, consumer_protocol.MEMBERS - 1, 1):
            body = await consumer_protocol.balanced_by_plugin(client, partitions, DEADLINE_S)
            say("  the others joined and the group now holds the sidecar's balanced answer.")
            say(f"  its page: {str(client.base_url).rstrip('/')}/groups/{group}")
            say()
            say("Per-member lag, the classic group vs the consumer-protocol group:")
            for text in consumer_protocol.lag_table(classic, body):
                say(text)


# --- the whole demo --------------------------------------------------------------------


async def demo(broker: LocalKafka, port: int, work_dir: Path, once: bool) -> None:
    bootstrap = broker.bootstrap
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    say(f"Kafka at {bootstrap}. Creating the demo topics and skewed traffic ...")
    await create_topics(bootstrap)
    await produce(
        bootstrap, {t: [lag + CONSUMED for lag in lags] for t, lags in TARGET_LAG.items()}
    )
    await commit_target_lag(bootstrap)
    await commit_target_lag(bootstrap, consumer_protocol.GROUP)
    async with demo_members(bootstrap):
        sidecar = start_sidecar(bootstrap, port, work_dir)
        try:
            async with httpx.AsyncClient(
                base_url=sidecar.url, headers=sidecar.headers, timeout=10
            ) as client:
                group = await settled_group(client, sidecar)
                say()
                say(f"lagassign is serving on {sidecar.url} (pid {sidecar.process.pid}).")
                say(f"  groups (HTML in a browser, JSON with curl): {sidecar.url}/groups")
                say(f"  the demo group:                          {sidecar.url}/groups/{GROUP}")
                say(f"  Prometheus metrics:                      {sidecar.url}/metrics")
                say(f"  its log:                                 {sidecar.log_path}")
                say(
                    "  Kafka's view:  deploy/local-kafka/kafka consumer-groups "
                    f"--bootstrap-server {bootstrap} --describe --group {GROUP}"
                )
                say()
                await show_answers(client, sidecar, group)
                say()
                await show_consumer_protocol_group(broker, client, group)
            say()
            if once:
                return
            say("Producing a skewed trickle every few seconds; Ctrl-C stops everything.")
            while not stop.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), TRICKLE_EVERY_S)
                if stop.is_set():
                    break
                if sidecar.process.poll() is not None:
                    say(
                        f"The sidecar exited ({sidecar.process.returncode}); see {sidecar.log_path}"
                    )
                    break
                await produce(bootstrap, TRICKLE)
        finally:
            also = " and the broker" if broker.started_here else ""
            say(f"Stopping the sidecar, the demo members{also} ...")
            sidecar.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deploy.demo.run",
        description="Local broker, skewed demo traffic and the lagassign sidecar on it.",
    )
    parser.add_argument(
        "--kafka-dir", type=Path, default=REPO / "var" / "kafka", help="broker directory"
    )
    parser.add_argument(
        "--kafka-port", type=int, default=None, help="broker port for a new broker (0 = free port)"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=int(os.environ.get("LAGASSIGN_PORT", "8321")),
        help="sidecar port (default LAGASSIGN_PORT or 8321)",
    )
    parser.add_argument(
        "--work-dir",
        type=Path,
        default=DEMO_DIR,
        help="the sidecar's log, the request sent and the lag history (default var/demo)",
    )
    parser.add_argument("--once", action="store_true", help="set up, answer once, stop")
    args = parser.parse_args(argv)
    # The demo members rebalance on purpose; aiokafka's notes about it are noise here.
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
    say(f"The local Kafka broker in {args.kafka_dir} (started unless it runs already) ...")
    broker = start_broker(
        args.kafka_dir,
        args.kafka_port,
        start_args=(
            "--lagassign-url",
            f"http://127.0.0.1:{args.port}",
            # The plugin's longest deadline (50 ms by default): a laptop running the broker,
            # the sidecar and the demo's members at once answers slower than a real cluster.
            "--lagassign-timeout-ms",
            "1000",
            # Consumer-protocol members learn their assignment on their next heartbeat.
            "--set",
            "group.consumer.heartbeat.interval.ms=1000",
            "--set",
            "group.consumer.min.heartbeat.interval.ms=1000",
        ),
    )
    try:
        asyncio.run(demo(broker, args.port, args.work_dir.resolve(), args.once))
    finally:
        stop_broker(broker)
    return 0


if __name__ == "__main__":
    sys.exit(main())
