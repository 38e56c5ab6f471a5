"""``bench.broker_plugin --stickiness``: why a join after Kafka's ``uniform`` moves most partitions.

On the pure core, one member joining a group of ``--members`` on ten topics (ten hot
partitions per topic) whose previous assignment is Kafka's own ``uniform``'s or
``range``'s (computed by Kafka's assignors, ``UniformLayout``) or ``balanced``'s own:
partitions moved by ``balanced``, the stage that settled it, its time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time

from bench.broker_plugin import classpath
from bench.broker_plugin_real import HOT_PER_TOPIC, TOPICS


def stickiness(argv: list[str]) -> int:
    from lagassign.core.model import Member, make_rebalance
    from lagassign.core.strategies import balanced

    parser = argparse.ArgumentParser(prog="bench.broker_plugin --stickiness")
    parser.add_argument("--stickiness", action="store_true")
    parser.add_argument("--members", type=int, default=50)
    parser.add_argument("--partitions", type=int, default=10_000)
    args = parser.parse_args(argv)
    members_n, per_topic = args.members, args.partitions // TOPICS
    topics = [f"t{t}" for t in range(TOPICS)]
    lags = {t: [10_000 if p < HOT_PER_TOPIC else 100 for p in range(per_topic)] for t in topics}
    counts = {t: per_topic for t in topics}
    ids = [f"m-{i:05d}" for i in range(members_n + 1)]
    Assignment = dict[str, dict[str, list[int]]]

    def kafka_layout(assignor: str) -> Assignment:
        done = subprocess.run(
            [
                "java",
                "-cp",
                classpath(),
                "io.lagassign.broker.UniformLayout",
                str(members_n),
                str(TOPICS),
                str(per_topic),
                assignor,
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=600,
        )
        before: Assignment = json.loads(done.stdout)["before"]
        return before

    def settle_join(before: Assignment) -> tuple[int, str | None, float]:
        members = [Member(m, tuple(topics), owned=before.get(m, {})) for m in ids]
        started = time.perf_counter()
        result = balanced.settle(make_rebalance(members, counts, lags))
        took = (time.perf_counter() - started) * 1000
        owner = {(t, p): m for m, given in before.items() for t, ps in given.items() for p in ps}
        after = result.assignment
        moves = sum(
            1
            for m, given in after.items()
            for t, ps in given.items()
            for p in ps
            if owner.get((t, p)) != m
        )
        return moves, result.settled_by, took

    fresh = balanced.settle(
        make_rebalance([Member(m, tuple(topics)) for m in ids[:-1]], counts, lags)
    ).assignment
    for source, before in (
        ("balanced", fresh),
        ("uniform", kafka_layout("uniform")),
        ("range", kafka_layout("range")),
    ):
        moves, settled_by, took = settle_join(before)
        print(
            json.dumps(
                {
                    "bench": "broker_plugin_stickiness",
                    "members": members_n,
                    "partitions": per_topic * TOPICS,
                    "previous": source,
                    "moved_on_join": moves,
                    "min_moves_on_join": per_topic * TOPICS // (members_n + 1),
                    "settled_by": settled_by,
                    "compute_ms": round(took, 1),
                }
            ),
            flush=True,
        )
    return 0
