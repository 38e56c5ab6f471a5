"""Soak of a real ``lagassign serve`` on the real local broker, with a broker restart.

For ``--minutes`` (10) the sidecar gets ``--rate`` (200) requests per second, open
loop, spread over ``--groups`` (50) groups whose lag it reads from Kafka; one of
them churns its members (new member ids and count every 10 s); a client sends
half a request and disconnects every 5 s; in the middle the broker is stopped
for ``--outage`` (20) seconds and started again in the same directory.

Prints one JSON line per minute (requests, p50/p99/max latency from the
scheduled send time and p99 from the actual send, requests the client itself
was too far behind to send, errors, errors while the broker was down, lag sources, the
sidecar's RSS and open file descriptors), then a summary: the time until
``/readyz`` was 200 again after the broker was back, and the bars (no error
outside the outage, every request during it still answered, the last minute's
RSS within 10% of the second minute's).

An error is named by its kind (with ``--trace-connections``, also its connection, new
or reused, and whether the body went out). A request whose keep-alive connection the
sidecar closed under it before any answer is sent once more (counted under ``retried``):
:mod:`bench.soak_client`. ``--keep-alive``, ``--client-keepalive-expiry`` and ``--no-retry``
reproduce that race; the half request and the broker restart are :mod:`bench.soak_faults`.

    .venv/bin/python -m bench.soak [--minutes 10] [--rate 200] [--groups 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.percentiles import percentile
from bench.soak_client import Failed, post_once_more_if_closed
from bench.soak_faults import Broker, disconnecting_client, restart_broker
from harness.broker import LocalKafka
from harness.builders import commit, create_topic, produce
from harness.sidecar import start_sidecar

SEED = 20_261_123
TOPIC = f"soak-events-{os.getpid()}"
PARTITIONS = 12
READY_S = 120.0
MAX_IN_FLIGHT = 200
# A request the client could not send within this long of its time is skipped and
# counted (unsent_client_behind): the load stays on its schedule, the run on its length.
BEHIND_S = 1.0
REPORT_GRACE_S = 6.0
# The sidecar closes a connection idle this long (LAGASSIGN_KEEP_ALIVE_TIMEOUT_S, its
# default). The client's pool drops an idle connection after half of it: a client must
# stop reusing a connection well before the server may close it, or a request sent as the
# server closes is reset (httpx's default expiry, 5 s, equals uvicorn's default timeout).
KEEP_ALIVE_S = 5


def emit(line: dict[str, Any]) -> None:
    print(json.dumps(line), flush=True)


async def groups_with_lag(bootstrap: str, groups: list[str]) -> None:
    """One skewed topic; each group commits its own offsets, so each has its own lag."""
    rng = random.Random(SEED)
    records = [int(rng.lognormvariate(4.0, 1.0)) + 1 for _ in range(PARTITIONS)]
    await create_topic(bootstrap, TOPIC, PARTITIONS)
    await produce(bootstrap, TOPIC, records)
    for group in groups:
        offsets = {(TOPIC, p): int(n * rng.random()) for p, n in enumerate(records)}
        await commit(bootstrap, group, offsets)


@contextmanager
def sidecar(
    bootstrap: str, groups: list[str], log: Path, keep_alive_s: int
) -> Iterator[tuple[str, int]]:
    """``lagassign serve`` on a free port, ready, stopped by its pid: its url and pid."""
    process = start_sidecar(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": bootstrap,
            "LAGASSIGN_GROUPS": ",".join(groups),
            "LAGASSIGN_REFRESH_INTERVAL_S": "2",
            "LAGASSIGN_KAFKA_TIMEOUT_MS": "2000",
            "LAGASSIGN_KEEP_ALIVE_TIMEOUT_S": str(keep_alive_s),
            # An idle connection is also closed when no next request began within the
            # header deadline: never before the keep-alive timeout.
            "LAGASSIGN_HEADER_TIMEOUT_S": str(max(10, keep_alive_s)),
            "LAGASSIGN_LOG_LEVEL": "warning",
        },
        log,
        ready_timeout_s=READY_S,
    )
    try:
        yield process.url, process.pid
    finally:
        process.stop()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def body_of(group: str, members: list[str]) -> bytes:
    request = {
        "group_id": group,
        "members": [{"member_id": m, "topics": [TOPIC], "generation": 1} for m in members],
        "partitions": {TOPIC: PARTITIONS},
        "strategy": "balanced",
    }
    return json.dumps(request).encode()


@dataclass
class Minute:
    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    errors_broker_down: dict[str, int] = field(default_factory=dict)
    answered_broker_down: int = 0
    sources: dict[str, int] = field(default_factory=dict)
    disconnects: int = 0
    retried: dict[str, int] = field(default_factory=dict)
    service: list[float] = field(default_factory=list)
    unsent: int = 0
    rss_mb: float | None = None


async def soak(
    args: argparse.Namespace, url: str, pid: int, kafka: LocalKafka, groups: list[str]
) -> None:
    rng = random.Random(SEED)
    stable = {g: [f"{g}-c{i}" for i in range(4)] for g in groups}
    bodies = {g: body_of(g, members) for g, members in stable.items()}
    churning = groups[0]
    minutes = [Minute() for _ in range(args.minutes)]
    state = Broker()
    stop = asyncio.Event()
    in_flight: set[asyncio.Task[None]] = set()
    limits = httpx.Limits(
        max_connections=MAX_IN_FLIGHT,
        max_keepalive_connections=MAX_IN_FLIGHT,
        keepalive_expiry=args.client_keepalive_expiry,
    )
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=5.0) as client:
        t0 = time.perf_counter() + 0.5

        def disconnected() -> None:
            minutes[min(len(minutes) - 1, int((time.perf_counter() - t0) // 60))].disconnects += 1

        side = [
            asyncio.create_task(disconnecting_client(url, bodies[groups[0]], stop, disconnected)),
            asyncio.create_task(
                restart_broker(kafka, url, args.minutes * 30, args.outage, state, t0)
            ),
        ]

        async def one(at: float, minute: Minute, body: bytes) -> None:
            down = state.down
            sent = time.perf_counter()
            try:
                response = await post_once_more_if_closed(
                    client, body, minute.retried, args.retry, args.trace_connections
                )
            except Failed as exc:
                kind = exc.kind
            else:
                if response.status_code == 200:
                    done = time.perf_counter()
                    minute.latencies.append(done - at)
                    minute.service.append(done - sent)
                    source = response.json()["lag"]["source"]
                    minute.sources[source] = minute.sources.get(source, 0) + 1
                    minute.answered_broker_down += down
                    return
                kind = str(response.status_code)
            errors = minute.errors_broker_down if down else minute.errors
            errors[kind] = errors.get(kind, 0) + 1

        async def reporter() -> None:
            for index, minute in enumerate(minutes):
                # Each minute is reported a few seconds after it ends, its requests answered.
                await asyncio.sleep(
                    max(0.0, t0 + 60 * (index + 1) + REPORT_GRACE_S - time.perf_counter())
                )
                report(index, minute, pid, state)

        side.append(asyncio.create_task(reporter()))
        churn_body = bodies[churning]
        total = int(args.rate * args.minutes * 60)
        for i in range(total):
            at = t0 + i / args.rate
            await asyncio.sleep(max(0.0, at - time.perf_counter()))
            minute = minutes[min(args.minutes - 1, int((at - t0) // 60))]
            if time.perf_counter() - at > BEHIND_S:
                minute.unsent += 1  # the client itself is this far behind: skip, stay on time
                continue
            if int((at - t0) // 10) != int((at - t0 - 1 / args.rate) // 10):
                count = rng.randint(2, 8)
                churn_body = body_of(
                    churning, [f"churn-{rng.randrange(10**6)}" for _ in range(count)]
                )
            group = groups[i % len(groups)]
            body = churn_body if group == churning else bodies[group]
            if len(in_flight) >= MAX_IN_FLIGHT:
                minute.errors["overload"] = minute.errors.get("overload", 0) + 1
                continue
            task = asyncio.create_task(one(at, minute, body))
            in_flight.add(task)
            task.add_done_callback(in_flight.discard)
        if in_flight:
            await asyncio.wait(in_flight, timeout=30)
        stop.set()
        await asyncio.wait(side, timeout=READY_S)
    rss = [m.rss_mb for m in minutes if m.rss_mb is not None]
    summary: dict[str, Any] = {
        "summary": True,
        "minutes": args.minutes,
        "rate": args.rate,
        "groups": len(groups),
        "broker_down_at_s": state.down_at,
        "broker_back_at_s": state.back_at,
        "readyz_200_after_broker_back_s": state.ready_again_s,
        "errors_outside_outage": sum(sum(m.errors.values()) for m in minutes),
        "errors_during_outage": sum(sum(m.errors_broker_down.values()) for m in minutes),
        "answered_during_outage": sum(m.answered_broker_down for m in minutes),
        "answered": sum(len(m.latencies) for m in minutes),
        "retried_closed_connection": sum(sum(m.retried.values()) for m in minutes),
        "client_keepalive_expiry_s": args.client_keepalive_expiry,
        "client_retries_closed_connection": args.retry,
        "server_keep_alive_s": args.keep_alive,
        "unsent_client_behind": sum(m.unsent for m in minutes),
        "rss_mb_second_minute": rss[1] if len(rss) > 1 else None,
        "rss_mb_last_minute": rss[-1] if rss else None,
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    summary["meets_rss_bar"] = len(rss) > 1 and rss[-1] <= rss[1] * 1.10
    summary["meets_error_bar"] = (
        summary["errors_outside_outage"] == 0 and summary["errors_during_outage"] == 0
    )
    emit(summary)


def report(index: int, minute: Minute, pid: int, state: Broker) -> None:
    lat = minute.latencies
    minute.rss_mb = rss_mb(pid)
    emit(
        {
            "minute": index + 1,
            "answered": len(lat),
            "p50_ms": round(statistics.median(lat) * 1000, 2) if lat else None,
            "p99_ms": round(percentile(lat, 0.99) * 1000, 2) if lat else None,
            "max_ms": round(max(lat) * 1000, 2) if lat else None,
            "p99_service_ms": (
                round(percentile(minute.service, 0.99) * 1000, 2) if minute.service else None
            ),
            "unsent_client_behind": minute.unsent,
            "errors": minute.errors,
            "errors_broker_down": minute.errors_broker_down,
            "answered_broker_down": minute.answered_broker_down,
            "lag_sources": minute.sources,
            "disconnects": minute.disconnects,
            "retried_closed_connection": minute.retried,
            "rss_mb": minute.rss_mb,
            "open_fds": open_fds(pid),
            "broker_down_now": state.down,
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=int, default=10)
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--groups", type=int, default=50)
    parser.add_argument("--outage", type=float, default=20.0, help="seconds the broker is down")
    parser.add_argument(
        "--keep-alive",
        type=int,
        default=KEEP_ALIVE_S,
        help="the sidecar's LAGASSIGN_KEEP_ALIVE_TIMEOUT_S",
    )
    parser.add_argument(
        "--client-keepalive-expiry",
        type=float,
        default=None,
        help="seconds the client's pool keeps an idle connection (default: half the keep-alive)",
    )
    parser.add_argument(
        "--no-retry",
        dest="retry",
        action="store_false",
        help="do not send a request again when the server closed a reused connection under it",
    )
    parser.add_argument(
        "--trace-connections",
        action="store_true",
        help="name each error's connection (new or reused) and how far it got; costs client CPU",
    )
    args = parser.parse_args()
    if args.client_keepalive_expiry is None:
        args.client_keepalive_expiry = args.keep_alive / 2
    if args.minutes < 2:
        parser.error("--minutes must be at least 2 (the RSS bar compares minutes 2 and last)")
    groups = [f"soak-g{i:03d}-{os.getpid()}" for i in range(args.groups)]
    with tempfile.TemporaryDirectory(prefix="lagassign-soak-") as directory:
        kafka = LocalKafka(Path(directory))
        kafka.start()
        try:
            asyncio.run(groups_with_lag(kafka.bootstrap, groups))
            log = Path(directory) / "sidecar.log"
            with sidecar(kafka.bootstrap, groups, log, args.keep_alive) as (url, pid):
                asyncio.run(soak(args, url, pid, kafka, groups))
        finally:
            kafka.stop()


if __name__ == "__main__":
    main()
