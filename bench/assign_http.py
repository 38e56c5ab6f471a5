"""End-to-end ``POST /assign`` at Kafka's largest group size, through a real ``lagassign serve``.

The sidecar runs without a broker (``harness.lone_sidecar``): every request carries
its lags. For each wire form, side by side in one run:

- ``topics``: the plain form, every member lists its topics, the answer nested by topic
  name (the form for people);
- ``packed``: the compact form, ``subscriptions`` given once, with the answer's partitions
  in base64 arrays by topic index (the form for machines: what the shims ask for).

Cases, each ``--runs`` times on one sidecar per form (its peak RSS is the form's):

- ``fresh-1m``: 2,000 members x 1,000,000 partitions (500 topics x 2,000, identical
  subscriptions, uniform lags: ``kafka-scale-1m``), nobody owning anything;
- ``churn-1m``: the same group owning the first answer, one member gone and a new one
  joined (the sticky path); ``moved`` is the answer's own count;
- ``fresh-100k``: 1,000 members x 100,000 partitions (100 topics x 1,000);
- ``cli-1m``: ``lagassign assign --input`` on the fresh 1M request, a new process each run.

One JSON line per case and form: wall seconds at the client from the first byte sent
to the last byte of the answer received (p50, p95, max), the answer's own
``stats.compute_ms`` (the strategy's share), the sidecar's CPU seconds per request, its
peak RSS, request and answer bytes, the 1-minute load average. Bars (issue 12): 1M p50
<= 1.5 s and p95 <= 2 s and RSS <= 2 GiB, 100k p50 <= 0.15 s, CLI <= 3 s.

    .venv/bin/python -m bench.assign_http [--runs 7] [--cli-runs 3] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench.assign_requests import request_body
from bench.percentiles import percentile
from bench.scenarios import Scenario, build, churned, owning
from harness.lone_sidecar import start_lone_sidecar
from harness.sidecar import SidecarProcess
from lagassign.assign.request_schema import AnswerForm
from lagassign.core.model import Assignment, Rebalance
from tests.client.answers import unpacked

SCALE_1M = Scenario("kafka-scale-1m", 2_000, 500, 2_000, "uniform")
SCALE_100K = Scenario("service-100k", 1_000, 100, 1_000, "uniform")
FORMS: tuple[AnswerForm, ...] = ("topics", "packed")
BARS = {"fresh-1m": (1.5, 2.0), "churn-1m": (1.5, 2.0), "fresh-100k": (0.15, None)}
CLI_BAR_S = 3.0
RSS_BAR_MIB = 2048
REQUEST_TIMEOUT_S = 300.0
TICKS = os.sysconf("SC_CLK_TCK")


def emit(line: dict[str, Any]) -> None:
    print(json.dumps(line), flush=True)


def encoded(rebalance: Rebalance, group_id: str, form: AnswerForm) -> bytes:
    """The request in ``form``: the compact request asks for the packed answer."""
    compact = form != "topics"
    body = request_body(rebalance, group_id, compact=compact, answer_form=form)
    return json.dumps(body, separators=(",", ":")).encode()


def topics_assignment(answer: dict[str, Any]) -> Assignment:
    """The answer's assignment by topic name, whatever its form."""
    if "topics" not in answer:
        by_name: Assignment = answer["assignment"]
        return by_name
    names = answer["topics"]
    out: Assignment = {}
    for member, given in answer["assignment"].items():  # packed: two base64 arrays
        member_topics = out[member] = {}
        for i, p in unpacked(given):
            member_topics.setdefault(names[i], []).append(p)
    return out


def check_complete(rebalance: Rebalance, assignment: Assignment) -> None:
    """Every partition given exactly once, every member listed: the bench's sanity check."""
    counted = sum(len(ps) for topics in assignment.values() for ps in topics.values())
    given = {(t, p) for topics in assignment.values() for t, ps in topics.items() for p in ps}
    if counted != rebalance.partition_count() or len(given) != counted:
        raise SystemExit(f"invalid answer: {counted} given, {len(given)} distinct")
    if set(assignment) != {m.member_id for m in rebalance.members}:
        raise SystemExit("invalid answer: the members differ")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def post_runs(
    client: httpx.Client, sidecar: SidecarProcess, raw: bytes, runs: int
) -> tuple[list[float], list[float], list[float], bytes]:
    """Wall seconds, compute ms and sidecar CPU seconds of each run; the last answer."""
    walls, computes, cpus = [], [], []
    body = b""
    for _ in range(runs):
        cpu_before = cpu_seconds(sidecar.pid)
        started = time.perf_counter()
        response = client.post("/assign", content=raw)
        body = response.content
        walls.append(time.perf_counter() - started)
        cpus.append(cpu_seconds(sidecar.pid) - cpu_before)
        if response.status_code != 200:
            raise SystemExit(f"POST /assign answered {response.status_code}: {body[:500]!r}")
        stats_at = body.rfind(b'"compute_ms":')
        computes.append(float(body[stats_at + 13 :].split(b"}", 1)[0]))
    return walls, computes, cpus, body


def summary(
    case: str, form: str, walls: list[float], computes: list[float], cpus: list[float]
) -> dict[str, Any]:
    p50, p95 = percentile(walls, 0.5), percentile(walls, 0.95)
    bar50, bar95 = BARS.get(case, (None, None))
    compute_p50_s = percentile(computes, 0.5) / 1000
    return {
        "bench": "assign_http",
        "case": case,
        "form": form,
        "runs": len(walls),
        "p50_s": round(p50, 3),
        "p95_s": round(p95, 3),
        "max_s": round(max(walls), 3),
        "compute_p50_s": round(compute_p50_s, 3),
        "compute_share_p50": round(compute_p50_s / p50, 3) if p50 else None,
        "sidecar_cpu_p50_s": round(percentile(cpus, 0.5), 3),
        "bar_p50_s": bar50,
        "bar_p95_s": bar95,
        "meets_bar": (bar50 is None or p50 <= bar50) and (bar95 is None or p95 <= bar95),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


@contextmanager
def sidecar_for(log: Path) -> Iterator[SidecarProcess]:
    sidecar = start_lone_sidecar({"LAGASSIGN_LOG_LEVEL": "warning"}, log)
    try:
        yield sidecar
    finally:
        sidecar.stop()


def http_cases(
    form: AnswerForm, big: Rebalance, small: Rebalance, runs: int, scratch: Path
) -> Iterator[dict[str, Any]]:
    with (
        sidecar_for(scratch / f"sidecar-{form}.log") as sidecar,
        httpx.Client(
            base_url=sidecar.url,
            timeout=REQUEST_TIMEOUT_S,
            headers={"content-type": "application/json"},
        ) as client,
    ):
        raw = encoded(big, "bench-1m", form)
        walls, computes, cpus, body = post_runs(client, sidecar, raw, runs)
        first = topics_assignment(json.loads(body))
        check_complete(big, first)
        yield summary("fresh-1m", form, walls, computes, cpus) | {
            "request_bytes": len(raw),
            "answer_bytes": len(body),
        }

        churn = churned(owning(big, first), seed=1)
        raw = encoded(churn, "bench-1m", form)
        walls, computes, cpus, body = post_runs(client, sidecar, raw, runs)
        answer = json.loads(body)
        check_complete(churn, topics_assignment(answer))
        yield summary("churn-1m", form, walls, computes, cpus) | {
            "request_bytes": len(raw),
            "answer_bytes": len(body),
            "moved": answer["stats"]["moved"],
        }

        raw = encoded(small, "bench-100k", form)
        walls, computes, cpus, body = post_runs(client, sidecar, raw, runs)
        check_complete(small, topics_assignment(json.loads(body)))
        yield summary("fresh-100k", form, walls, computes, cpus) | {
            "request_bytes": len(raw),
            "answer_bytes": len(body),
        }
        yield {
            "bench": "assign_http",
            "case": "sidecar",
            "form": form,
            "peak_rss_mib": peak_rss_mib(sidecar.pid),
            "bar_rss_mib": RSS_BAR_MIB,
            "meets_bar": peak_rss_mib(sidecar.pid) <= RSS_BAR_MIB,
        }


def cli_case(form: AnswerForm, big: Rebalance, runs: int, scratch: Path) -> dict[str, Any]:
    """``lagassign assign --input`` on the 1M request: a new process each run."""
    path = scratch / f"request-1m-{form}.json"
    path.write_bytes(encoded(big, "bench-1m", form))
    environ = {k: v for k, v in os.environ.items() if not k.upper().startswith("LAGASSIGN_")}
    walls = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "lagassign.cli", "assign", "--input", str(path)],
            env=environ,
            capture_output=True,
            timeout=REQUEST_TIMEOUT_S,
            check=False,
        )
        walls.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"lagassign assign exited {done.returncode}: {done.stderr[:500]!r}")
    check_complete(big, topics_assignment(json.loads(done.stdout)))
    p50 = percentile(walls, 0.5)
    return {
        "bench": "assign_http",
        "case": "cli-1m",
        "form": form,
        "runs": runs,
        "p50_s": round(p50, 3),
        "max_s": round(max(walls), 3),
        "bar_s": CLI_BAR_S,
        "meets_bar": p50 <= CLI_BAR_S,
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="requests per HTTP case")
    parser.add_argument("--cli-runs", type=int, default=3, help="processes per CLI case")
    parser.add_argument("--quick", action="store_true", help="one run of each case")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.cli_runs = 1, 1
    big, small = build(SCALE_1M), build(SCALE_100K)
    with tempfile.TemporaryDirectory() as scratch:
        for form in FORMS:
            for line in http_cases(form, big, small, args.runs, Path(scratch)):
                emit(line)
        for form in FORMS:
            emit(cli_case(form, big, args.cli_runs, Path(scratch)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
