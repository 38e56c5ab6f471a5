"""Benchmark: what reading the members' protocol bytes and checking members costs.

Synthetic (no broker), each figure the best of ``--repeat`` runs, side by side in one
process so their ratios hold under load:

- ``describe``: one refresh's ``DescribeGroups`` answers of ``--groups`` groups of
  ``--members`` members each (each member subscribed to ``--topics`` topics of
  ``--partitions`` partitions, owning its share, lagassign user data in both byte
  strings) turned into member descriptions: with the subscription and assignment
  notes decoded (now) and with the assignment alone (``assignment_only``, what the
  view decoded before);
- ``member_check``: one ``POST /assign`` check against that many described groups,
  in its worst case (none of the request's members is in the named group, so every
  group is scanned) and its common case (the leader is in the named group).

    .venv/bin/python -m bench.member_reading            # prints JSON lines
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from bench.stable_group import stable_group
from lagassign.lagview.kafka.groups import decode_assignment, describe_answer
from lagassign.lagview.member_check import check_members
from lagassign.lagview.member_metadata import encode_member_assignment, encode_subscription
from lagassign.lagview.snapshot import MemberDescription

NOTE = b'{"v":1,"by":"sidecar","strategy":"balanced"}'


def raw_group(group: int, members: int, topics: int, partitions: int) -> tuple[Any, ...]:
    names = [f"topic-{group}-{t}" for t in range(topics)]
    rows = []
    for m in range(members):
        owned = {t: [p for p in range(partitions) if p % members == m] for t in names}
        user_data = json.dumps(
            {"v": 1, "owned": owned, "generation": 7, "instance_id": None, "rack": None}
        ).encode()
        rows.append(
            (
                f"member-{group}-{m}-0d6f3a2e-5b1c-4c8e-9a51-2f0e8f5b7c1d",
                None,
                f"client-{m}",
                "/10.0.0.1",
                encode_subscription(names, user_data, owned, generation=7),
                encode_member_assignment(owned, NOTE),
            )
        )
    return (0, f"group-{group}", "Stable", "consumer", "lagassign", rows)


def assignment_only(group_id: str, raw: tuple[Any, ...]) -> list[MemberDescription]:
    return [
        MemberDescription(member_id, instance_id, client_id, host, decode_assignment(given))
        for member_id, instance_id, client_id, host, _metadata, given in raw[5]
    ]


def best_s(work: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=1_000)
    parser.add_argument("--members", type=int, default=10)
    parser.add_argument("--topics", type=int, default=2)
    parser.add_argument("--partitions", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    raws = [raw_group(g, args.members, args.topics, args.partitions) for g in range(args.groups)]
    full_s = best_s(lambda: [describe_answer(raw[1], raw) for raw in raws], args.repeat)
    before_s = best_s(lambda: [assignment_only(raw[1], raw) for raw in raws], args.repeat)
    member_count = args.groups * args.members
    print(
        json.dumps(
            {
                "bench": "describe",
                "groups": args.groups,
                "members": member_count,
                "decoded_s": round(full_s, 4),
                "assignment_only_s": round(before_s, 4),
                "us_per_member": round(full_s / member_count * 1e6, 2),
                "ratio": round(full_s / before_s, 2),
            }
        )
    )
    as_of = datetime.now(UTC)
    snapshots = {
        raw[1]: stable_group(raw[1], as_of, (), describe_answer(raw[1], raw).members, "lagassign")
        for raw in raws
    }
    strangers = [f"new-{m}" for m in range(args.members)]
    leader = [raws[0][5][0][0], *strangers[1:]]
    worst_s = best_s(lambda: check_members("group-0", strangers, snapshots), args.repeat)
    common_s = best_s(lambda: check_members("group-0", leader, snapshots), args.repeat)
    print(
        json.dumps(
            {
                "bench": "member_check",
                "groups": args.groups,
                "members_described": member_count,
                "request_members": args.members,
                "worst_ms": round(worst_s * 1000, 3),
                "common_ms": round(common_s * 1000, 4),
            }
        )
    )


if __name__ == "__main__":
    main()
