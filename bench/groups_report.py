"""Benchmark: ``GET /groups/{group_id}`` of a large group, JSON and page, without HTTP.

A synthetic group (no broker): ``--members`` live members holding ``--partitions``
partitions of one topic round-robin, lags from the partition numbers (no
randomness). Times, best of ``--repeat`` runs, the three steps the route runs in
its thread pool: the report (with the default strategy's what-if run), the JSON
body (the wire model built and encoded), and the HTML page (the Jinja2 templates,
which cut the partition table at 2,000 rows). Prints one JSON line per step.

    .venv/bin/python -m bench.groups_report
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.stable_group import stable_group
from lagassign.groups.page import render_group
from lagassign.groups.report import GroupReport, group_report
from lagassign.http.schemas_group import GroupOut
from lagassign.lagview.snapshot import GroupSnapshot, MemberDescription, PartitionLag

AS_OF = datetime(2026, 11, 23, tzinfo=UTC)


def emit(**fields: Any) -> None:
    print(json.dumps({"bench": "groups_report", **fields}), flush=True)


def snapshot(members: int, partitions: int) -> GroupSnapshot:
    owner = [f"member-{p % members:04}" for p in range(partitions)]
    rows = tuple(
        PartitionLag(
            topic="t",
            partition=p,
            current_offset=1_000,
            log_end_offset=1_000 + (p * 37) % 5_000,
            log_start_offset=0,
            lag=(p * 37) % 5_000,
            consumer_id=owner[p],
            host="/10.0.0.1",
            client_id=f"client-{owner[p]}",
        )
        for p in range(partitions)
    )
    described = tuple(
        MemberDescription(
            member_id=f"member-{m:04}",
            group_instance_id=None,
            client_id=f"client-member-{m:04}",
            host="/10.0.0.1",
            assignment={"t": tuple(range(m, partitions, members))},
        )
        for m in range(members)
    )
    return stable_group("large", AS_OF, rows, described)


def best_ms(step: Callable[[], object], repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = step()
        times.append((time.perf_counter() - started) * 1000)
    return round(min(times), 1), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=100)
    parser.add_argument("--partitions", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    group = snapshot(args.members, args.partitions)
    now = AS_OF + timedelta(seconds=1)
    shape = {"members": args.members, "partitions": args.partitions}

    def report() -> GroupReport:
        return group_report("large", group, [], default_strategy="balanced", now=now)

    ms, built = best_ms(report, args.repeat)
    assert isinstance(built, GroupReport)
    emit(step="report", best_ms=ms, **shape)
    ms, body = best_ms(lambda: GroupOut.of(built, None).model_dump_json(), args.repeat)
    emit(step="json", best_ms=ms, bytes=len(str(body)), **shape)
    ms, page = best_ms(lambda: render_group(built), args.repeat)
    emit(step="page", best_ms=ms, bytes=len(str(page)), **shape)


if __name__ == "__main__":
    main()
