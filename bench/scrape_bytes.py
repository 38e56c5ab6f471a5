"""How large and how slow are ``/metrics`` and ``/groups`` with long group ids? A real
``lagassign serve`` on 127.0.0.1, no broker.

``--groups`` groups (default 1,000) with ids of ``--id-chars`` characters (default
32,000, near Kafka's 32,767) each get one ``POST /assign``; then ``/metrics`` and
``/groups`` (JSON and HTML) are fetched once each, while ``/livez`` is asked every
20 ms. One JSON line: the bytes and seconds of each, the worst ``/livez`` latency
meanwhile, and the sidecar's peak RSS.

    .venv/bin/python -m bench.scrape_bytes [--groups 1000] [--id-chars 32000]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from bench.loop_stall import MIB, peak_rss_bytes
from harness.sidecar import start_sidecar

DEADLINE_S = 300.0


def body(group_id: str) -> bytes:
    return json.dumps(
        {
            "group_id": group_id,
            "members": [{"member_id": "a", "topics": ["t"]}, {"member_id": "b", "topics": ["t"]}],
            "partitions": {"t": 4},
            "lags": {"t": [4, 3, 2, 1]},
        }
    ).encode()


def timed_get(url: str, accept: str) -> dict[str, Any]:
    """Fetch ``url`` once while ``/livez`` is probed; bytes, seconds, worst probe."""
    base = url.rsplit("/", 1)[0]
    outcome: dict[str, Any] = {}

    def fetch() -> None:
        started = time.perf_counter()
        response = httpx.get(url, headers={"accept": accept}, timeout=DEADLINE_S)
        outcome["status"] = response.status_code
        outcome["bytes"] = len(response.content)
        outcome["seconds"] = round(time.perf_counter() - started, 3)

    worker = threading.Thread(target=fetch)
    worst = 0.0
    deadline = time.monotonic() + DEADLINE_S
    with httpx.Client(timeout=DEADLINE_S) as client:
        worker.start()
        while worker.is_alive() and time.monotonic() < deadline:
            started = time.perf_counter()
            client.get(f"{base}/livez")
            worst = max(worst, time.perf_counter() - started)
            worker.join(0.02)
    worker.join(max(0.0, deadline - time.monotonic()))
    return {**outcome, "worst_livez_s": round(worst, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=1_000)
    parser.add_argument("--id-chars", type=int, default=32_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="scrape-bytes-") as tmp:
        sidecar = start_sidecar(
            {"LAGASSIGN_BOOTSTRAP_SERVERS": "127.0.0.1:9", "LAGASSIGN_LOG_LEVEL": "warning"},
            Path(tmp) / "sidecar.log",
            wait_until_ready=False,
        )
        try:
            with httpx.Client(base_url=sidecar.url, timeout=60) as client:
                for i in range(args.groups):
                    group_id = f"{i:05d}-" + "g" * max(0, args.id_chars - 6)
                    client.post(
                        "/assign",
                        content=body(group_id),
                        headers={"content-type": "application/json"},
                    )
            line = {
                "groups": args.groups,
                "id_chars": args.id_chars,
                "metrics": timed_get(f"{sidecar.url}/metrics", "text/plain"),
                "groups_json": timed_get(f"{sidecar.url}/groups", "application/json"),
                "groups_html": timed_get(f"{sidecar.url}/groups", "text/html"),
                "peak_rss_mib": round(peak_rss_bytes(sidecar.pid) / MIB, 1),
            }
            print(json.dumps(line), flush=True)
        finally:
            sidecar.stop()


if __name__ == "__main__":
    main()
