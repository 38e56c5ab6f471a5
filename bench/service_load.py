"""Load benchmark of the sidecar: a real ``lagassign serve`` process on the local broker.

Prints one JSON line per measurement:

- ``steady``: 200 requests per second for 30 s (open loop: each request leaves at
  its scheduled time whatever the earlier ones did) of a 10-member, 100-partition
  group whose lag the sidecar reads from Kafka; latency is measured from the
  scheduled time, so a stall shows in full. Bar: p99 <= 20 ms with 0 errors.
- ``huge``: one 1,000-member, 100,000-partition request (100 topics x 1,000
  partitions, lags in the request): end-to-end seconds at the client and the
  share spent outside the assignment's compute (``stats.compute_ms``), plus the
  worst ``/livez`` latency meanwhile. Bar: <= 1.5 s end to end.
- ``json``: the service's JSON path against FastAPI's default one on the huge
  request (parse and encode, in this process), to show what the fast path buys.

The broker is started with ``deploy/local-kafka/kafka`` in a temporary directory
and stopped at the end, unless ``--bootstrap`` names a running one. The sidecar is
started as a subprocess and stopped by its pid (SIGTERM).

    .venv/bin/python -m bench.service_load [--rate 200] [--seconds 30] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench.percentiles import percentile
from harness.broker import local_broker
from harness.builders import commit, create_topic, produce
from harness.sidecar import start_sidecar

REPO = Path(__file__).resolve().parent.parent
SEED = 20_261_120
# Names unique per run, so a run on an existing broker (--bootstrap) starts clean.
TOPIC = f"bench-orders-{os.getpid()}"
GROUP = f"bench-orders-consumers-{os.getpid()}"
DEADLINE_S = 120.0
# Requests in flight at once; one more is counted as an error, not queued.
MAX_IN_FLIGHT = 100


def emit(line: dict[str, Any]) -> None:
    print(json.dumps(line), flush=True)


async def group_with_lag(bootstrap: str, partitions: int) -> list[int]:
    """A topic with skewed records per partition and the group's commits; the lags."""
    rng = random.Random(SEED)
    records = [int(rng.lognormvariate(4.5, 1.0)) + 1 for _ in range(partitions)]
    committed = [int(n * rng.random()) for n in records]
    await create_topic(bootstrap, TOPIC, partitions)
    await produce(bootstrap, TOPIC, records)
    await commit(bootstrap, GROUP, {(TOPIC, p): o for p, o in enumerate(committed)})
    return [n - c for n, c in zip(records, committed, strict=True)]


@contextmanager
def sidecar(bootstrap: str, log: Path) -> Iterator[tuple[str, int]]:
    """``lagassign serve`` on a free port, stopped by its pid."""
    settings = {
        "LAGASSIGN_BOOTSTRAP_SERVERS": bootstrap,
        "LAGASSIGN_GROUPS": GROUP,
        "LAGASSIGN_REFRESH_INTERVAL_S": "2",
        "LAGASSIGN_LOG_LEVEL": "warning",
    }
    process = start_sidecar(settings, log, ready_timeout_s=DEADLINE_S)
    try:
        yield process.url, process.pid
    finally:
        process.stop()


def steady_request(members: int, partitions: int) -> dict[str, Any]:
    return {
        "group_id": GROUP,
        "members": [
            {"member_id": f"consumer-{i:02d}", "topics": [TOPIC], "generation": 3}
            for i in range(members)
        ],
        "partitions": {TOPIC: partitions},
        "strategy": "balanced",
    }


async def steady(
    url: str, pid: int, rate: float, seconds: float, lags: list[int]
) -> dict[str, Any]:
    body = json.dumps(steady_request(10, len(lags))).encode()
    headers = {"content-type": "application/json"}
    limits = httpx.Limits(max_connections=MAX_IN_FLIGHT, max_keepalive_connections=MAX_IN_FLIGHT)
    latencies: list[float] = []
    service: list[float] = []
    errors: dict[str, int] = {}
    sources: dict[str, int] = {}
    in_flight: set[asyncio.Task[None]] = set()

    def error(kind: str) -> None:
        errors[kind] = errors.get(kind, 0) + 1

    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=5.0) as client:
        for _ in range(50):  # warm the connection and the code paths
            await client.post("/assign", content=body, headers=headers)
        first = (await client.post("/assign", content=body, headers=headers)).json()
        answered_lag = sum(first["stats"]["member_lag"].values())

        async def one(at: float) -> None:
            sent = time.perf_counter()
            try:
                response = await client.post("/assign", content=body, headers=headers)
            except httpx.HTTPError as exc:
                error(type(exc).__name__)
                return
            done = time.perf_counter()
            if response.status_code != 200:
                error(str(response.status_code))
                return
            source = response.json()["lag"]["source"]
            sources[source] = sources.get(source, 0) + 1
            latencies.append(done - at)
            service.append(done - sent)

        before = await server_durations(client)
        server_cpu = process_cpu_seconds(pid)
        client_cpu = time.process_time()
        count = int(rate * seconds)
        start = time.perf_counter() + 0.5
        deadline = start + seconds + 30
        for i in range(count):  # open loop: each request leaves at its time, never later
            at = start + i / rate
            await asyncio.sleep(max(0.0, at - time.perf_counter()))
            if time.perf_counter() > deadline:
                errors["unsent"] = count - i
                break
            if len(in_flight) >= MAX_IN_FLIGHT:
                error("overload")  # the sidecar is this far behind: fail, do not queue
                continue
            task = asyncio.create_task(one(at))
            in_flight.add(task)
            task.add_done_callback(in_flight.discard)
        if in_flight:
            _, pending = await asyncio.wait(
                in_flight, timeout=max(1.0, deadline - time.perf_counter())
            )
            for task in pending:
                task.cancel()
            if pending:
                errors["unfinished"] = len(pending)
        elapsed = time.perf_counter() - start
        client_cpu = time.process_time() - client_cpu
        server_cpu = process_cpu_seconds(pid) - server_cpu
        after = await server_durations(client)
    answered = after[1] - before[1]

    def ms(seconds_: float | None) -> float | None:
        return None if seconds_ is None else round(seconds_ * 1000, 2)

    return {
        "scenario": "steady",
        "members": 10,
        "partitions": len(lags),
        "target_rate": rate,
        "seconds": seconds,
        "requests": count,
        "achieved_rate": round(len(latencies) / elapsed, 1),
        "errors": sum(errors.values()),
        "error_kinds": errors,
        "lag_sources": sources,
        "group_lag_kafka": sum(lags),
        "group_lag_answered": answered_lag,
        "p50_ms": ms(statistics.median(latencies)) if latencies else None,
        "p90_ms": ms(percentile(latencies, 0.90)) if latencies else None,
        "p99_ms": ms(percentile(latencies, 0.99)) if latencies else None,
        "max_ms": ms(max(latencies)) if latencies else None,
        "p99_service_ms": ms(percentile(service, 0.99)) if service else None,
        "server_handler_mean_ms": ms((after[0] - before[0]) / answered) if answered else None,
        "server_cpu_ms_per_request": ms(server_cpu / answered) if answered else None,
        "client_cpu_ms_per_request": ms(client_cpu / max(1, len(latencies))),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "bar_p99_ms": 20,
        "meets_bar": bool(latencies) and not errors and percentile(latencies, 0.99) <= 0.020,
    }


def process_cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of a process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def server_durations(client: httpx.AsyncClient) -> tuple[float, float]:
    """Sum and count of the sidecar's own ``lagassign_assign_duration_seconds``."""
    text = (await client.get("/metrics")).text
    values = dict(
        line.split(" ", 1) for line in text.splitlines() if line.startswith("lagassign_assign_d")
    )
    return (
        float(values.get("lagassign_assign_duration_seconds_sum", 0)),
        float(values.get("lagassign_assign_duration_seconds_count", 0)),
    )


def huge_request(members: int, topics: int, per_topic: int) -> dict[str, Any]:
    rng = random.Random(SEED + 1)
    names = [f"events-{t:03d}" for t in range(topics)]
    return {
        "group_id": "bench-huge",
        "members": [{"member_id": f"consumer-{i:04d}", "topics": names} for i in range(members)],
        "partitions": dict.fromkeys(names, per_topic),
        "lags": {n: [int(rng.lognormvariate(6, 1.5)) for _ in range(per_topic)] for n in names},
    }


async def probe_livez(
    client: httpx.AsyncClient, finished: asyncio.Event, probes: list[float]
) -> None:
    """Time ``/livez`` every 20 ms until ``finished`` (bounded by the request it watches)."""
    while not finished.is_set():
        sent = time.perf_counter()
        await client.get("/livez")
        probes.append(time.perf_counter() - sent)
        await asyncio.sleep(0.02)


async def huge(url: str, request: dict[str, Any], repeats: int) -> list[dict[str, Any]]:
    raw = json.dumps(request, separators=(",", ":")).encode()
    lines = []
    async with httpx.AsyncClient(base_url=url, timeout=httpx.Timeout(120.0)) as client:
        for attempt in range(repeats):
            probes: list[float] = []
            finished = asyncio.Event()
            prober = asyncio.create_task(probe_livez(client, finished, probes))
            started = time.perf_counter()
            response = await client.post(
                "/assign", content=raw, headers={"content-type": "application/json"}
            )
            seconds = time.perf_counter() - started
            answer = response.json()
            finished.set()
            await prober
            compute_s = answer["stats"]["compute_ms"] / 1000 if response.status_code == 200 else 0
            lines.append(
                {
                    "scenario": "huge",
                    "attempt": attempt + 1,
                    "status": response.status_code,
                    "members": len(request["members"]),
                    "partitions": sum(request["partitions"].values()),
                    "request_bytes": len(raw),
                    "response_bytes": len(response.content),
                    "end_to_end_s": round(seconds, 3),
                    "compute_s": round(compute_s, 3),
                    "outside_compute_s": round(seconds - compute_s, 3),
                    "outside_compute_share": round(1 - compute_s / seconds, 3),
                    "imbalance": answer.get("stats", {}).get("imbalance"),
                    "livez_probes": len(probes),
                    "livez_max_ms": round(max(probes) * 1000, 1) if probes else None,
                    "load_average_1m": round(os.getloadavg()[0], 2),
                    "bar_s": 1.5,
                    "meets_bar": response.status_code == 200 and seconds <= 1.5,
                }
            )
    return lines


def json_paths(request: dict[str, Any]) -> dict[str, Any]:
    """The service's parse, and its encode against FastAPI's default, on the huge request."""
    from fastapi.encoders import jsonable_encoder
    from fastapi.responses import JSONResponse

    from lagassign.assign.answer import compute_answer
    from lagassign.assign.lag_sources import request_lag_source
    from lagassign.assign.request import parse_assign_request

    raw = json.dumps(request, separators=(",", ":")).encode()

    def best(run: Any, times: int = 3) -> float:
        timings = []
        for _ in range(times):
            started = time.perf_counter()
            run()
            timings.append(time.perf_counter() - started)
        return min(timings)

    parsed = parse_assign_request(raw)
    answer = compute_answer(parsed, request_lag_source(parsed), "balanced").to_json()
    return {
        "scenario": "json",
        "partitions": sum(request["partitions"].values()),
        "parse_fast_s": round(best(lambda: parse_assign_request(raw)), 4),
        "encode_fast_s": round(best(lambda: json.dumps(answer, separators=(",", ":")).encode()), 4),
        "encode_default_s": round(best(lambda: JSONResponse(jsonable_encoder(answer)).body), 4),
    }


def main() -> None:
    # The broker's leader elections right after topic creation make aiokafka log retries.
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", help="use this running broker instead of starting one")
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--repeats", type=int, default=3, help="runs of the huge request")
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.repeats = 3.0, 1
    request = huge_request(1_000, 100, 1_000)
    with local_broker(args.bootstrap) as bootstrap, tempfile.TemporaryDirectory() as scratch:
        lags = asyncio.run(group_with_lag(bootstrap, 100))
        with sidecar(bootstrap, Path(scratch) / "sidecar.log") as (url, pid):
            emit(asyncio.run(steady(url, pid, args.rate, args.seconds, lags)))
            for line in asyncio.run(huge(url, request, args.repeats)):
                emit(line)
    emit(json_paths(request))


if __name__ == "__main__":
    main()
