"""Assignment benchmark: every strategy, and Kafka's CooperativeStickyAssignor, on seeded groups.

Prints one JSON line per scenario and strategy, then one summary line for the
bars of the ``balanced`` strategy. Run by ``make bench``; ``--quick`` runs a
small smoke set. Scenarios are built by :mod:`bench.scenarios` (seeded).

    .venv/bin/python -m bench.assign [--quick]

Per line:

- ``compute_seconds`` (wall clock) and ``compute_cpu_seconds`` (CPU time of the
  process) of one fresh assignment; for Kafka, the time its harness measured
  around ``assign`` in the JVM; ``compute_seconds_churn`` the same for the churn
  rebalance (one member left, one joined, the others owning the fresh answer);
  with ``--repeat N`` each is the fastest of N runs, Kafka's too (its JIT warmed);
- ``peak_memory_bytes``: tracemalloc's peak over a second, untimed run of the
  same fresh assignment (Python allocations made by the strategy; the input is
  built before); null for Kafka;
- quality of the fresh answer: ``max_member_lag``, ``mean_member_lag``,
  ``imbalance`` (max / mean), ``count_spread`` (most minus fewest partitions of a
  member), ``gap_to_lower_bound`` (max / bound - 1) against the count-aware
  lower bound (the mean member lag, or the largest partition plus the smallest
  partitions its member must also hold: floor(P / C) - 1 of them with identical
  subscriptions, per-topic floors with different ones): :mod:`bench.assign_quality`;
- stickiness, each run with members owning the fresh answer: ``moved_unchanged``
  (same lags), ``moved_perturbed`` (every lag times a seeded factor in
  [0.9, 1.1]) with ``max_lag_ratio_perturbed`` (against the strategy's own fresh
  answer on the perturbed lags), ``moved_churn`` (one member leaves, one joins).
  A partition counts as moved when its previous owner (still in the group) does
  not get it, so Kafka's withheld cooperative partitions count too;
- ``settled_by``: the stage of the balanced strategy that settled the fresh
  answer, and ``settled_by_by_input`` for the others (null for other
  strategies); the summary counts them over every balanced answer.

Every strategy runs with Python's cycle collector paused, as the service runs it.

Each strategy runs in a forked child with a time limit; one that exceeds it is
reported on a line with ``skipped``.
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Mapping
from multiprocessing.connection import Connection
from typing import Any

from bench.assign_quality import member_loads, moved, quality
from bench.scenarios import Scenario, build, churned, owning, perturbed
from lagassign.core.model import Assignment, AssignmentResult, Rebalance
from lagassign.core.strategies import STRATEGIES, run_strategy

KAFKA = "kafka-cooperative-sticky"
TIME_LIMIT_S = 300.0
PERTURB_SEED = 11
CHURN_SEED = 12

FULL = [
    Scenario("three-partitions", 2, 1, 3, "uniform"),
    Scenario("small-uniform", 10, 5, 20, "uniform"),
    Scenario("small-zipf-different", 10, 8, 12, "zipf", "different"),
    Scenario("small-hot", 6, 4, 9, "hot"),
    Scenario("medium-uniform", 100, 50, 100, "uniform"),
    Scenario("medium-zipf", 100, 50, 100, "zipf"),
    Scenario("medium-lognormal-different", 100, 40, 64, "lognormal", "different"),
    Scenario("medium-hot", 50, 20, 50, "hot"),
    Scenario("medium-zero", 100, 30, 70, "zero"),
    Scenario("medium-earliest", 60, 10, 120, "earliest"),
    Scenario("two-members-100k", 2, 1, 100_000, "uniform"),
    Scenario("large-zipf", 1_000, 100, 1_000, "zipf"),
    Scenario("large-lognormal", 200, 20, 5_000, "lognormal"),
    Scenario("large-uniform-different", 500, 200, 500, "uniform", "different"),
    Scenario("large-earliest", 1_000, 50, 2_000, "earliest"),
    Scenario("kafka-scale-1m", 2_000, 500, 2_000, "uniform"),
]
QUICK = [
    s
    for s in FULL
    if s.name in {"three-partitions", "small-zipf-different", "small-hot", "medium-earliest"}
]
LARGEST = "kafka-scale-1m"
# Kafka's general sticky algorithm (different subscriptions) is far from linear: on
# this scenario one assignment took 681 s on the 2-core bench machine.
KAFKA_SKIPS = {
    "large-uniform-different": "Kafka's sticky algorithm for different subscriptions "
    "takes over ten minutes at this size (681 s measured once); skipped to keep the run short",
}


class Inputs:
    """The rebalances of one scenario: fresh, and those built from a strategy's answer."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.fresh = build(scenario)
        self.fresh_perturbed = perturbed(self.fresh, PERTURB_SEED)

    def followers(self, answer: Assignment) -> dict[str, Rebalance]:
        unchanged = owning(self.fresh, answer)
        return {
            "unchanged": unchanged,
            "perturbed": perturbed(unchanged, PERTURB_SEED),
            "churn": churned(unchanged, CHURN_SEED),
        }


def answer_of(strategy: str, rebalance: Rebalance) -> AssignmentResult:
    """The strategy's answer, with the cycle collector paused around it as the service does."""
    gc.disable()
    try:
        return run_strategy(strategy, rebalance)
    finally:
        gc.enable()


def timed(
    strategy: str, rebalance: Rebalance, repeat: int
) -> tuple[AssignmentResult, float, float]:
    """The answer, and the fastest wall-clock and CPU seconds of ``repeat`` runs."""
    wall, cpu = float("inf"), float("inf")
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        result = answer_of(strategy, rebalance)
        cpu = min(cpu, time.process_time() - started_cpu)
        wall = min(wall, time.perf_counter() - started)
    return result, wall, cpu


def measure(inputs: Inputs, strategy: str, repeat: int = 1) -> dict[str, Any]:
    """Everything about one strategy on one scenario (runs in a child process)."""
    rebalance = inputs.fresh
    result, wall, cpu = timed(strategy, rebalance, repeat)
    answer = result.assignment
    tracemalloc.start()
    answer_of(strategy, rebalance)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    follow = inputs.followers(answer)
    churned, churn_wall, churn_cpu = timed(strategy, follow["churn"], repeat)
    results = {"churn": churned}
    results.update({name: answer_of(strategy, r) for name, r in follow.items() if name != "churn"})
    results["fresh perturbed"] = answer_of(strategy, inputs.fresh_perturbed)
    answers = {name: r.assignment for name, r in results.items()}
    return {
        "compute_seconds": round(wall, 4),
        "compute_cpu_seconds": round(cpu, 4),
        "compute_seconds_churn": round(churn_wall, 4),
        "compute_cpu_seconds_churn": round(churn_cpu, 4),
        "peak_memory_bytes": peak,
        "memory_method": "tracemalloc peak, second untimed run",
        **quality(rebalance, answer),
        **stickiness(inputs, follow, answers),
        "settled_by": result.settled_by,
        "settled_by_by_input": {name: r.settled_by for name, r in results.items()},
    }


def stickiness(
    inputs: Inputs, follow: dict[str, Rebalance], answers: dict[str, Assignment]
) -> dict[str, Any]:
    """Moves and lag of the answers to the follow-up rebalances of one fresh answer."""
    unchanged, shifted, churn = answers["unchanged"], answers["perturbed"], answers["churn"]
    fresh_shifted = answers["fresh perturbed"]
    shifted_top = max(member_loads(follow["perturbed"], shifted)[0])
    fresh_top = max(member_loads(inputs.fresh_perturbed, fresh_shifted)[0])
    partitions = inputs.fresh.partition_count()
    return {
        "moved_unchanged": moved(follow["unchanged"], unchanged),
        "moved_perturbed": moved(follow["perturbed"], shifted),
        "moved_perturbed_share": round(moved(follow["perturbed"], shifted) / partitions, 4),
        "max_lag_ratio_perturbed": round(shifted_top / fresh_top, 4) if fresh_top else 1.0,
        "moved_churn": moved(follow["churn"], churn),
        # the same inputs for every strategy: what balanced is compared with lag-aware on
        "max_member_lag_by_input": {
            "unchanged": max(member_loads(follow["unchanged"], unchanged)[0]),
            "perturbed": shifted_top,
            "churn": max(member_loads(follow["churn"], churn)[0]),
        },
    }


def in_child(
    inputs: Inputs, strategy: str, repeat: int = 1, time_limit: float = TIME_LIMIT_S
) -> dict[str, Any] | None:
    """``measure`` in a forked child; None when it runs past the time limit."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    def run(pipe: Connection) -> None:
        pipe.send(measure(inputs, strategy, repeat))

    child = context.Process(target=run, args=(send,))
    child.start()
    send.close()
    got: dict[str, Any] | None = None
    if receive.poll(time_limit):
        got = receive.recv()
    child.join(5)
    if child.is_alive():
        child.kill()
        child.join()
    return got


def describe(scenario: Scenario) -> dict[str, Any]:
    return {
        "scenario": scenario.name,
        "members": scenario.members,
        "partitions": scenario.partitions,
        "topics": scenario.topics,
        "subscriptions": scenario.subscriptions,
        "lag_distribution": scenario.lag,
    }


def kafka_lines(all_inputs: list[Inputs], repeat: int = 1) -> dict[str, dict[str, Any]]:
    """Kafka's CooperativeStickyAssignor on every scenario it can do quickly: two JVM batches.

    Kafka never reads lags, so the perturbed rebalances ask it exactly what the
    unchanged ones do (and the fresh perturbed one what the fresh one does):
    those answers are reused.
    """
    from tests.kafka_reference import request_of, run_kafka_assignors

    def run(rebalances: list[Rebalance]) -> list[tuple[Assignment, float]]:
        answers = run_kafka_assignors(
            [request_of(r, "cooperative-sticky", repeat) for r in rebalances], timeout_s=1_800
        )
        return [(a["assignment"], float(a["compute_seconds"])) for a in answers]

    fresh = run([i.fresh for i in all_inputs])
    follows = [i.followers(answer) for i, (answer, _) in zip(all_inputs, fresh, strict=True)]
    later = run([r for f in follows for r in (f["unchanged"], f["churn"])])
    lines = {}
    for n, inputs in enumerate(all_inputs):
        answer, seconds = fresh[n]
        unchanged, (churn, churn_seconds) = later[2 * n][0], later[2 * n + 1]
        answers = {
            "unchanged": unchanged,
            "perturbed": unchanged,
            "churn": churn,
            "fresh perturbed": answer,
        }
        lines[inputs.scenario.name] = {
            "compute_seconds": round(seconds, 4),
            "compute_cpu_seconds": None,
            "compute_seconds_churn": round(churn_seconds, 4),
            "compute_cpu_seconds_churn": None,
            "peak_memory_bytes": None,
            "memory_method": "not measured in the JVM",
            **quality(inputs.fresh, answer),
            **stickiness(inputs, follows[n], answers),
        }
    return lines


def summary(lines: list[dict[str, Any]], optimum_share: float | None) -> dict[str, Any]:
    by = {(line["scenario"], line["strategy"]): line for line in lines if "skipped" not in line}
    violations = 0
    compared = 0
    for (scenario, strategy), line in by.items():
        seed = by.get((scenario, "lag-aware"))
        if strategy != "balanced" or seed is None:
            continue
        pairs = [(line["max_member_lag"], seed["max_member_lag"])]
        pairs += [
            (line["max_member_lag_by_input"][k], seed["max_member_lag_by_input"][k])
            for k in ("unchanged", "perturbed", "churn")
        ]
        compared += len(pairs)
        violations += sum(ours > theirs for ours, theirs in pairs)
    balanced = [line for (_, s), line in by.items() if s == "balanced"]
    settled = Counter(line["settled_by"] for line in balanced)
    settled.update(s for line in balanced for s in line["settled_by_by_input"].values())
    gaps = sorted(line["gap_to_lower_bound"] for line in balanced)
    large = by.get((LARGEST, "balanced"), {})
    kafka_large = by.get((LARGEST, KAFKA), {})
    return {
        "summary": "balanced",
        "above_lag_aware": violations,
        "compared_with_lag_aware": compared,
        "gap_to_lower_bound_median": statistics.median(gaps) if gaps else None,
        "gap_to_lower_bound_p95": gaps[min(len(gaps) - 1, int(0.95 * len(gaps)))] if gaps else None,
        "moved_unchanged_max": max((b["moved_unchanged"] for b in balanced), default=None),
        "moved_perturbed_share_max": max(
            (b["moved_perturbed_share"] for b in balanced), default=None
        ),
        "max_lag_ratio_perturbed_max": max(
            (b["max_lag_ratio_perturbed"] for b in balanced), default=None
        ),
        "moved_churn_max": max((b["moved_churn"] for b in balanced), default=None),
        "settled_by_counts": dict(settled.most_common()),
        "within_1pct_of_optimum_share": optimum_share,
        "large_case": LARGEST,
        "large_compute_seconds": large.get("compute_seconds"),
        "large_compute_cpu_seconds": large.get("compute_cpu_seconds"),
        "large_peak_memory_bytes": large.get("peak_memory_bytes"),
        "large_compute_seconds_churn": large.get("compute_seconds_churn"),
        "kafka_large_compute_seconds": kafka_large.get("compute_seconds"),
        "kafka_large_compute_seconds_churn": kafka_large.get("compute_seconds_churn"),
        "kafka_large_peak_memory_bytes": kafka_large.get("peak_memory_bytes"),
    }


def optimum_share(cases: int) -> float:
    from tests.core.test_balanced_optimum import exact_optimum, largest_member_lag, small_case

    near = 0
    for seed in range(cases):
        rebalance = small_case(seed)
        near += largest_member_lag(rebalance) <= 1.01 * exact_optimum(rebalance)
    return round(near / cases, 4)


def emit(line: Mapping[str, Any]) -> None:
    print(json.dumps(line, separators=(", ", ": ")), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small smoke run")
    parser.add_argument("--no-kafka", action="store_true", help="skip Kafka's own assignor")
    parser.add_argument("--scenario", action="append", help="run only this scenario (repeatable)")
    parser.add_argument("--strategy", action="append", help="run only this strategy (repeatable)")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="time the fresh and churn answers as the fastest of this many runs (Kafka's too)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=TIME_LIMIT_S,
        help=f"seconds a strategy may take on one scenario (default {TIME_LIMIT_S:.0f})",
    )
    args = parser.parse_args(argv)
    scenarios = QUICK if args.quick else FULL
    if args.scenario:
        scenarios = [s for s in FULL if s.name in args.scenario]
    lines: list[dict[str, Any]] = []
    all_inputs = []
    for scenario in scenarios:
        inputs = Inputs(scenario)
        all_inputs.append(inputs)
        for strategy in args.strategy or STRATEGIES:
            got = in_child(inputs, strategy, args.repeat, args.time_limit)
            line = {**describe(scenario), "strategy": strategy}
            if got is None:
                line["skipped"] = f"took over {args.time_limit:.0f} s (time limit)"
            else:
                line.update(got)
            lines.append(line)
            emit(line)
    if not args.no_kafka:
        runnable = [i for i in all_inputs if i.scenario.name not in KAFKA_SKIPS]
        try:
            kafka = kafka_lines(runnable, args.repeat)
        except RuntimeError as e:
            emit({"strategy": KAFKA, "skipped": str(e)})
            kafka = {}
        for inputs in all_inputs:
            name = inputs.scenario.name
            line = {**describe(inputs.scenario), "strategy": KAFKA}
            if name in KAFKA_SKIPS:
                line["skipped"] = KAFKA_SKIPS[name]
            elif name not in kafka:
                continue
            else:
                line.update(kafka[name])
            lines.append(line)
            emit(line)
    emit(summary(lines, optimum_share(60 if args.quick else 300)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
