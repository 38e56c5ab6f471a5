"""The compiled answer writer beside the Python path it replaces: JSON lines on stdout.

At Kafka's largest group, 2,000 members x 1,000,000 partitions (500 topics x 2,000), each
partition owned by a member drawn at random (fixed seed), for each answer form, the median
and the worst of ``--runs`` runs (after one warm-up run) of:

- ``native_s``: ``lagassign._native.assignment_json`` from the owner array to the
  ``assignment`` JSON bytes; ``keys_s``: encoding its member and topic keys (msgspec);
- ``python_build_s``: the dict of lists built from the same owner array by Python loops
  (``{member: {topic: [p, ...]}}``, or ``[[topic_index, [p, ...]], ...]`` indexed);
  ``python_encode_s``: ``msgspec.json.encode`` of it; ``python_s``: both.

Each run checks that both paths give the same bytes. No broker, no sidecar.

    .venv/bin/python -m bench.native_answer [--runs 5]
        [--members 2000 --topics 500 --per-topic 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import msgspec
import numpy as np
import numpy.typing as npt

from lagassign._native import assignment_json

MEMBERS, TOPICS, PER_TOPIC = 2_000, 500, 2_000
SEED = 12
Form = Literal["topics", "indexed"]
T = TypeVar("T")


def emit(line: dict[str, Any]) -> None:
    print(json.dumps(line), flush=True)


def timed(run: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    value = run()
    return time.perf_counter() - start, value


def python_assignment(
    owner: npt.NDArray[np.int32],
    starts: list[int],
    topics: list[str],
    members: list[str],
    form: Form,
) -> dict[str, Any]:
    """The dict of lists the sidecar encodes today, from the owner array."""
    owners = owner.tolist()
    out: dict[str, Any] = {member: {} if form == "topics" else [] for member in members}
    for t, topic in enumerate(topics):
        first = starts[t]
        runs: dict[int, list[int]] = {}
        for x in range(first, starts[t + 1]):
            m = owners[x]
            if m >= 0:
                mine = runs.get(m)
                if mine is None:
                    runs[m] = mine = []
                mine.append(x - first)
        for m, partitions in runs.items():
            if form == "topics":
                out[members[m]][topic] = partitions
            else:
                out[members[m]].append((t, partitions))
    return out


def measure(
    owner: npt.NDArray[np.int32], topics: list[str], members: list[str], form: Form
) -> dict[str, float]:
    per_topic = len(owner) // len(topics)
    starts = list(range(0, len(owner) + 1, per_topic))
    keys_s, (topic_keys, member_keys) = timed(
        lambda: (
            [msgspec.json.encode(k) for k in (topics if form == "topics" else range(len(topics)))],
            [msgspec.json.encode(m) for m in members],
        )
    )
    native_s, native = timed(lambda: assignment_json(owner, starts, topic_keys, member_keys, form))
    build_s, value = timed(lambda: python_assignment(owner, starts, topics, members, form))
    encode_s, python = timed(lambda: msgspec.json.encode(value))
    if native != python:
        raise SystemExit(f"{form}: the compiled and the Python answers differ")
    return {
        "keys_s": keys_s,
        "native_s": native_s,
        "python_build_s": build_s,
        "python_encode_s": encode_s,
        "python_s": build_s + encode_s,
        "bytes": float(len(native)),
    }


def lines(members: int, topics: int, per_topic: int, runs: int) -> list[dict[str, Any]]:
    """One JSON line per answer form: medians and worsts of ``runs`` runs after a warm-up."""
    rng = np.random.default_rng(SEED)
    owner = rng.integers(0, members, size=topics * per_topic, dtype=np.int32)
    topic_names = [f"topic-{t:03d}" for t in range(topics)]
    member_ids = [f"consumer-{m}-{m * 7919 % 10007:05d}" for m in range(members)]
    forms: tuple[Form, ...] = ("topics", "indexed")
    out = []
    for form in forms:
        measure(owner, topic_names, member_ids, form)
        measured = [measure(owner, topic_names, member_ids, form) for _ in range(runs)]
        line: dict[str, Any] = {
            "bench": "native_answer",
            "form": form,
            "members": members,
            "partitions": len(owner),
            "topics": topics,
            "runs": runs,
            "bytes": int(measured[0]["bytes"]),
        }
        for key in ("native_s", "keys_s", "python_build_s", "python_encode_s", "python_s"):
            values = [run[key] for run in measured]
            line[f"{key.removesuffix('_s')}_median_s"] = round(statistics.median(values), 4)
            line[f"{key.removesuffix('_s')}_max_s"] = round(max(values), 4)
        native = statistics.median(run["native_s"] for run in measured)
        python = statistics.median(run["python_s"] for run in measured)
        line["python_over_native"] = round(python / native, 1)
        line["load_average"] = round(os.getloadavg()[0], 2)
        out.append(line)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--members", type=int, default=MEMBERS)
    parser.add_argument("--topics", type=int, default=TOPICS)
    parser.add_argument("--per-topic", type=int, default=PER_TOPIC)
    args = parser.parse_args()
    for line in lines(args.members, args.topics, args.per_topic, args.runs):
        emit(line)


if __name__ == "__main__":
    main()
