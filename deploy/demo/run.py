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

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx

from deploy.demo import consumer_protocol
from deploy.demo.answers import show_answers
from deploy.demo.cli import arguments, quiet_logs, run_on, say
from deploy.demo.group import (
    DEMO_DIR,
    GROUP,
    MEMBERS,
    PARTITIONS,
    paused_range_members,
    produce,
    skewed_backlog,
)
from deploy.demo.sidecar import group_once, start_sidecar
from harness.broker import LocalKafka, start_broker

TRICKLE = {"demo.orders": (40, 25, 2, 1, 1, 1), "demo.payments": (15, 1, 1, 1)}
TRICKLE_EVERY_S = 5.0


def settled(group: Mapping[str, Any]) -> bool:
    """The sidecar sees every member and every partition's lag."""
    members = group["members"]
    return (
        len(members) == MEMBERS
        and sum(m["partitions"] for m in members) == PARTITIONS
        and group["header"]["unknown_partitions"] == 0
        and group["header"]["partitions"] == PARTITIONS
    )


async def demo(broker: LocalKafka, port: int, work_dir: Path, once: bool) -> None:
    bootstrap = broker.bootstrap
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    say(f"Kafka at {bootstrap}. Creating the demo topics and skewed traffic ...")
    await skewed_backlog(bootstrap, GROUP, consumer_protocol.GROUP)
    async with paused_range_members(bootstrap):
        sidecar = start_sidecar(bootstrap, port, work_dir)
        try:
            async with httpx.AsyncClient(
                base_url=sidecar.url, headers=sidecar.headers, timeout=10
            ) as client:
                group = await group_once(
                    client, GROUP, settled, f"the sidecar sees {GROUP} settle", sidecar
                )
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
                await consumer_protocol.show_group(broker, client, group)
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
    parser = arguments(
        "python -m deploy.demo.run",
        "Local broker, skewed demo traffic and the lagassign sidecar on it.",
        DEMO_DIR,
        "the sidecar's log, the request sent and the lag history (default var/demo)",
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
    parser.add_argument("--once", action="store_true", help="set up, answer once, stop")
    args = parser.parse_args(argv)
    quiet_logs(logging.WARNING)
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
    return run_on(broker, lambda: demo(broker, args.port, args.work_dir.resolve(), args.once))


if __name__ == "__main__":
    sys.exit(main())
