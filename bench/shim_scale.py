"""The shims' own time at Kafka's largest group: JSON lines on stdout.

2,000 members x 1,000,000 partitions (500 topics x 2,000, identical subscriptions, nothing
owned: Kafka's own large-scale assignor test). For each shim, the median and the worst of
``--runs`` runs (after warm-up runs) of:

- ``build_request_s``: from the client library's view of the group (aiokafka's decoded
  member metadata; Kafka's ``Cluster`` and ``Subscription`` for Java) to the bytes of the
  ``POST /assign`` request;
- ``check_answer_s``: from the bytes of the sidecar's answer to the checked assignment
  (Python: aiokafka's member assignments; Java: member -> ``TopicPartition`` list);
- ``leader_digest_s``: the digest of that assignment the leader keeps for the rebalance
  advice, in the same ``assign()`` call (not under the bar).

Each figure in wall-clock seconds, the thread's CPU seconds (``_cpu_s``) and the garbage
collector's seconds within it (``_gc_s``: Python's cyclic collector; the JVM's collectors).

The answer is the sidecar's own, made once per answer form by ``lagassign assign`` (the
service's code) for the Python shim's request with seeded uniform lags (0 to 100,000) added,
so its shape is ``balanced``'s at that size; the Java shim checks the same ``packed`` bytes
against its own view of the same group. The Java figures are measured in the JVM
(``client/java/src/test/java/io/lagassign/ShimScaleBench.java``). The Python shim runs as
with its ``fast`` extra (msgspec and NumPy's step) and as without it (the standard ``json``
and the standard library's step), both on the ``packed`` answer. Bar (issue 12): at most
0.3 s each, build and check, per shim (the Python one with its ``fast`` extra, the form for
huge groups). No broker and no sidecar process are needed.

    .venv/bin/python -m bench.shim_scale [--runs 5]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from lagassign_client import LagAssignor
from lagassign_client.assignor.aiokafka import member_assignments, subscribers_of
from lagassign_client.assignor.assignment_digest import digest_of_assignments
from lagassign_client.wire import answer_arrays
from lagassign_client.wire import codec as wire
from lagassign_client.wire.answer import read_answer
from lagassign_client.wire.group import GroupView
from lagassign_client.wire.userdata import AssignmentUserData
from tests.client.cluster_stub import PartitionsByTopic
from tests.client.java_build import java_member_classpath

MEMBERS, TOPICS, PER_TOPIC = 2_000, 500, 2_000
BAR_S = 0.3
BARRED = ("build_request", "check_answer")
WARMUP = 2
#: The answer form the shims ask for.
FORMS = ("packed",)
LAG_SEED = 12
CLI_TIMEOUT_S = 1800
JAVA_TIMEOUT_S = 1800
JAVA_MAIN = "io.lagassign.ShimScaleBench"


def emit(line: dict[str, Any]) -> None:
    print(json.dumps(line), flush=True)


def group() -> tuple[LagAssignor, PartitionsByTopic, dict[str, Any]]:
    """The leader's shim, the cluster metadata and aiokafka's decoded member metadata."""
    from aiokafka.coordinator.protocol import ConsumerProtocol  # type: ignore[import-untyped]

    topics = [f"topic-{t:03d}" for t in range(TOPICS)]
    leader = LagAssignor(url="http://127.0.0.1:9", group_id="bench-shim.scale", strategy="balanced")
    metadata = leader.metadata(topics).encode()
    joined = {
        f"consumer-{m:04d}": ConsumerProtocol.METADATA.decode(metadata) for m in range(MEMBERS)
    }
    return leader, PartitionsByTopic(dict.fromkeys(topics, PER_TOPIC)), joined


def sidecar_answer(request: bytes, work: Path, answer_form: str) -> bytes:
    """The service's answer to ``request`` (with seeded lags added) in ``answer_form``, by
    ``lagassign assign``."""
    body = json.loads(request) | {"answer_form": answer_form}
    rng = random.Random(LAG_SEED)
    body["lags"] = {
        t: [rng.randrange(100_001) for _ in range(n)] for t, n in body["partitions"].items()
    }
    path = work / "request.json"
    path.write_text(json.dumps(body, separators=(",", ":")))
    done = subprocess.run(
        [sys.executable, "-m", "lagassign.cli", "assign", "--input", str(path)],
        capture_output=True,
        timeout=CLI_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"lagassign assign failed: {done.stderr.decode()[:500]}")
    answer = done.stdout.strip()
    if "topics" not in json.loads(answer):
        raise RuntimeError(f"lagassign assign did not answer in the {answer_form} form")
    return answer


class CollectorTime:
    """The seconds the cyclic garbage collector has run since this was installed in
    ``gc.callbacks``."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._started


Times = tuple[list[float], list[float], list[float]]


def timed(runs: int, step: Callable[[], Any]) -> tuple[Times, Any]:
    """Wall-clock, this thread's CPU and the garbage collector's seconds of ``runs`` calls
    (after warm-up), and the last result. On a shared machine the CPU seconds are the steadier
    figure. Freeing the previous call's result is not part of a call's time."""
    wall: list[float] = []
    cpu: list[float] = []
    collector: list[float] = []
    result: Any = None
    clock = CollectorTime()
    gc.callbacks.append(clock)
    try:
        for i in range(WARMUP + runs):
            result = None  # the previous run's objects are freed here, not in the timed step
            started, started_cpu, started_gc = (
                time.perf_counter(),
                time.thread_time(),
                clock.seconds,
            )
            result = step()
            if i >= WARMUP:
                wall.append(time.perf_counter() - started)
                cpu.append(time.thread_time() - started_cpu)
                collector.append(clock.seconds - started_gc)
    finally:
        gc.callbacks.remove(clock)
    return (wall, cpu, collector), result


def figures(shim: str, times: dict[str, Times], **extra: Any) -> dict[str, Any]:
    """The JSON line: per step (``build_request``, ``check_answer``) wall, CPU and garbage
    collector p50 and max."""
    line: dict[str, Any] = {
        "bench": "shim.scale",
        "shim": shim,
        "members": MEMBERS,
        "partitions": TOPICS * PER_TOPIC,
        **extra,
    }
    for step, (wall, cpu, collector) in times.items():
        line["runs"] = len(wall)
        line[f"{step}_s_p50"] = round(statistics.median(wall), 4)
        line[f"{step}_s_max"] = round(max(wall), 4)
        line[f"{step}_cpu_s_p50"] = round(statistics.median(cpu), 4)
        line[f"{step}_cpu_s_max"] = round(max(cpu), 4)
        line[f"{step}_gc_s_p50"] = round(statistics.median(collector), 4)
        line[f"{step}_gc_s_max"] = round(max(collector), 4)
    line["bar_s"] = BAR_S
    line["ok"] = all(line[f"{step}_s_p50"] <= BAR_S for step in BARRED)
    return line


def check(answer: bytes, view: GroupView, note: bytes) -> dict[str, Any]:
    """What the aiokafka shim does with an answer: read, check, convert."""
    return member_assignments(read_answer(answer, view).assignment, note)


def bench_python(
    leader: LagAssignor,
    cluster: PartitionsByTopic,
    joined: dict[str, Any],
    answers: dict[str, bytes],
    runs: int,
) -> None:
    """With the fast extra (msgspec, the NumPy step) and as without it (the standard json and
    the standard library's step): both read the packed answer."""
    note = AssignmentUserData(by="sidecar", strategy="balanced").encode()
    form = wire.ANSWER_FORM
    codecs = {
        "msgspec": (wire.CODEC, wire.dumps, wire.loads, answer_arrays.AVAILABLE),
        "json": ("json", wire.json_dumps, wire.json_loads, False),
    }
    if wire.CODEC != "msgspec":
        del codecs["msgspec"]
    for codec, (name, dumps, loads, arrays) in codecs.items():
        wire.CODEC, wire.dumps, wire.loads, answer_arrays.AVAILABLE = name, dumps, loads, arrays
        answer = answers[form]
        build, (view, request) = timed(
            runs,
            lambda: leader.leader.request(
                tuple(subscribers_of(joined)), cluster.partitions_for_topic
            ),
        )
        checked, assigned = timed(runs, partial(check, answer, view, note))
        digested, _ = timed(runs, partial(digest_of_assignments, assigned))
        partitions = sum(len(ps) for a in assigned.values() for _, ps in a.assignment)
        times = {"build_request": build, "check_answer": checked, "leader_digest": digested}
        emit(
            figures(
                "python",
                times,
                codec=codec,
                numpy_step=arrays,
                answer_form=form,
                request_bytes=len(request),
                answer_bytes=len(answer),
                assigned=partitions,
            )
        )


def bench_java(answer: bytes, work: Path, runs: int) -> None:
    """The Java shim's figures, measured in the JVM: its JSON line as it prints it."""
    path = work / "answer.json"
    path.write_bytes(answer)
    command = [
        "java",
        "-Xms2g",
        "-Xmx2g",
        "-cp",
        java_member_classpath(),
        JAVA_MAIN,
        str(MEMBERS),
        str(TOPICS),
        str(PER_TOPIC),
        str(path),
        str(runs),
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=JAVA_TIMEOUT_S, check=True
    )
    line = json.loads(done.stdout.strip().splitlines()[-1])
    line["ok"] = line["build_request_s_p50"] <= BAR_S and line["check_answer_s_p50"] <= BAR_S
    emit({"bench": "shim.scale", "shim": "java", **line, "bar_s": BAR_S})


def run(runs: int) -> None:
    leader, cluster, joined = group()
    _, request = leader.leader.request(tuple(subscribers_of(joined)), cluster.partitions_for_topic)
    with tempfile.TemporaryDirectory(prefix="lagassign-bench-shim-scale-") as work:
        answers = {form: sidecar_answer(request, Path(work), form) for form in FORMS}
        emit({"bench": "shim.scale.load", "uptime_load_1m": round(os.getloadavg()[0], 2)})
        bench_python(leader, cluster, joined, answers, runs)
        bench_java(answers["packed"], Path(work), runs)
    leader.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="measured runs per figure")
    args = parser.parse_args(argv)
    run(args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
