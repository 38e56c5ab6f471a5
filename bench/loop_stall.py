"""Does one heavy request stall the sidecar? A real ``lagassign serve`` on 127.0.0.1, no broker.

For each case a fresh sidecar is started, one heavy request is sent, and while it is
being handled ``/livez`` and a small ``POST /assign`` are asked every 50 ms. One JSON
line per case: the heavy request's status and seconds, the worst ``/livez`` and small
``/assign`` latency seen meanwhile, and the sidecar's peak RSS (``VmHWM``) against the
body's size. The cases are those of issue 26:

- ``compact_2000``: 0.2 MB, 5,000 members sharing 2,000 one-partition topics (balanced);
- ``compact_400_range`` / ``compact_400_roundrobin``: 5,000 members x 400 topics;
- ``owned_16mib``: one member whose ``owned`` list is 16 MiB of zeros;
- ``tiny_members_64mib``: a 64 MiB body of minimal members (refused: too many members);
- ``racks_64mib``: a 64 MiB body of empty ``partition_racks`` lists;
- ``topics_2m``: 2,000,000 one-partition topics (the partition cap), one member on none.

    .venv/bin/python -m bench.loop_stall [--case NAME ...]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from harness.sidecar import SidecarProcess, start_sidecar

MIB = 1024 * 1024
PROBE_EVERY_S = 0.05
CASE_DEADLINE_S = 180.0
SMALL = json.dumps(
    {
        "group_id": "small",
        "members": [{"member_id": "a", "topics": ["t"]}, {"member_id": "b", "topics": ["t"]}],
        "partitions": {"t": 4},
        "lags": {"t": [4, 3, 2, 1]},
    }
).encode()


def compact(topics: int, strategy: str | None) -> bytes:
    names = [f"t{i}" for i in range(topics)]
    body: dict[str, Any] = {
        "group_id": "compact",
        "subscriptions": [names],
        "members": [{"member_id": f"m{i:05d}", "subscription": 0} for i in range(5_000)],
        "partitions": {t: 1 for t in names},
    }
    if strategy is not None:
        body["strategy"] = strategy
    return json.dumps(body, separators=(",", ":")).encode()


def filled(head: bytes, item: bytes, tail: bytes, size: int) -> bytes:
    """``head`` + ``item`` repeated (comma-separated) + ``tail``, about ``size`` bytes."""
    count = max(1, (size - len(head) - len(tail)) // (len(item) + 1))
    return head + b",".join([item] * count) + tail


def owned(size: int) -> bytes:
    head = (
        b'{"group_id":"owned","partitions":{"t":4},"members":[{"member_id":"b","topics":["t"]},'
        b'{"member_id":"a","topics":["t"],"owned":{"t":['
    )
    return filled(head, b"0", b"]}}]}", size)


def tiny_members(size: int) -> bytes:
    return filled(
        b'{"group_id":"tiny","partitions":{"t":1},"members":[',
        b'{"member_id":"","topics":[]}',
        b"]}",
        size,
    )


def racks(size: int) -> bytes:
    return filled(
        b'{"group_id":"racks","partitions":{"t":1},"members":[{"member_id":"a","topics":["t"]}],'
        b'"partition_racks":{"t":[',
        b"[]",
        b"]}}",
        size,
    )


def many_topics(count: int) -> bytes:
    head = b'{"group_id":"topics","members":[{"member_id":"a","topics":[]}],"partitions":{'
    return head + b",".join(b'"t%d":1' % i for i in range(count)) + b"}}"


CASES: dict[str, Callable[[], bytes]] = {
    "compact_2000": lambda: compact(2_000, None),
    "compact_400_range": lambda: compact(400, "range"),
    "compact_400_roundrobin": lambda: compact(400, "roundrobin"),
    "owned_16mib": lambda: owned(16 * MIB),
    "tiny_members_64mib": lambda: tiny_members(64 * MIB - 1024),
    "racks_64mib": lambda: racks(64 * MIB - 1024),
    "topics_2m": lambda: many_topics(2_000_000),
}


def peak_rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def run_case(name: str, body: bytes, sidecar: SidecarProcess) -> dict[str, Any]:
    outcome: dict[str, Any] = {}

    def heavy() -> None:
        started = time.perf_counter()
        try:
            response = httpx.post(
                f"{sidecar.url}/assign",
                content=body,
                headers={"content-type": "application/json"},
                timeout=CASE_DEADLINE_S,
            )
            outcome["status"] = response.status_code
            if response.status_code != 200:
                outcome["error"] = response.json().get("error", {}).get("code")
        except httpx.HTTPError as exc:
            outcome["status"] = type(exc).__name__
        outcome["seconds"] = round(time.perf_counter() - started, 3)

    rss_before = peak_rss_bytes(sidecar.pid)
    worker = threading.Thread(target=heavy, name=f"heavy-{name}")
    worst_livez = worst_small = 0.0
    probes = 0
    deadline = time.monotonic() + CASE_DEADLINE_S
    with httpx.Client(base_url=sidecar.url, timeout=CASE_DEADLINE_S) as client:
        worker.start()
        while worker.is_alive() and time.monotonic() < deadline:
            started = time.perf_counter()
            client.get("/livez")
            worst_livez = max(worst_livez, time.perf_counter() - started)
            started = time.perf_counter()
            client.post("/assign", content=SMALL, headers={"content-type": "application/json"})
            worst_small = max(worst_small, time.perf_counter() - started)
            probes += 1
            worker.join(PROBE_EVERY_S)
    worker.join(max(0.0, deadline - time.monotonic()))
    peak = peak_rss_bytes(sidecar.pid)
    return {
        "case": name,
        "body_bytes": len(body),
        **outcome,
        "probes": probes,
        "worst_livez_s": round(worst_livez, 3),
        "worst_small_assign_s": round(worst_small, 3),
        "rss_at_start_mib": round(rss_before / MIB, 1),
        "peak_rss_mib": round(peak / MIB, 1),
        "peak_over_body": round(peak / len(body), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=sorted(CASES))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="loop-stall-") as tmp:
        for name in args.case or list(CASES):
            body = CASES[name]()
            sidecar = start_sidecar(
                {
                    # No broker: the answers use the requests' own lags or count.
                    "LAGASSIGN_BOOTSTRAP_SERVERS": "127.0.0.1:9",
                    "LAGASSIGN_LOG_LEVEL": "warning",
                },
                Path(tmp) / f"{name}.log",
                wait_until_ready=False,
            )
            try:
                print(json.dumps(run_case(name, body, sidecar)), flush=True)
            finally:
                sidecar.stop()


if __name__ == "__main__":
    main()
