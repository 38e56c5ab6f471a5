"""Kafka's own assignors, run in one JVM from the harness that ``make harness`` builds.

The harness (``tests/kafka_reference``) reads JSON lines, one request per line, with the
fields of ``POST /assign`` (``members``, ``partitions``) plus ``assignor`` (``range``,
``roundrobin`` or ``cooperative-sticky``) and an optional ``repeat``, and answers each with
``{"assignment": {member: {topic: [partitions]}}, "compute_seconds": float}``. The tests use
it to prove the project's ``range`` and ``roundrobin`` exact; the benchmark uses it to time
Kafka's assignors on the same inputs.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lagassign.core.model import Rebalance

HARNESS = Path(__file__).resolve().parent / "kafka_reference"
JAVA_OPTIONS = ("-Xmx4g",)


def reference_jar() -> Path:
    """The harness's runnable jar; a clear error when it has not been built."""
    jar = HARNESS / "target" / "kafka-reference.jar"
    if not jar.is_file():
        raise RuntimeError(
            f"{jar} is missing: build Kafka's reference assignors with `make harness`"
        )
    return jar


def request_of(rebalance: Rebalance, assignor: str, repeat: int = 1) -> dict[str, Any]:
    """The harness request for ``rebalance`` (racks are never passed)."""
    members = [
        {
            "member_id": m.member_id,
            "group_instance_id": m.group_instance_id,
            "topics": list(m.topics),
            "owned": {t: list(ps) for t, ps in m.owned.items()},
            "generation": m.generation,
        }
        for m in rebalance.members
    ]
    request: dict[str, Any] = {
        "members": members,
        "partitions": dict(rebalance.partitions),
        "assignor": assignor,
    }
    if repeat != 1:
        request["repeat"] = repeat
    return request


def run_kafka_assignors(
    requests: Sequence[Mapping[str, Any]], timeout_s: float = 600
) -> list[dict[str, Any]]:
    """Run every request in one JVM, in order; the parsed answers, one per request.

    Raises RuntimeError when Java is missing, the JVM fails or times out, or the harness
    answers a request with an error.
    """
    java = shutil.which("java")
    if java is None:
        raise RuntimeError("java is not on PATH: the Kafka reference harness needs a JDK")
    command = [java, *JAVA_OPTIONS, "-jar", str(reference_jar())]
    payload = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in requests)
    try:
        done = subprocess.run(
            command,
            input=payload,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired as e:  # subprocess.run kills the JVM it started
        raise RuntimeError(f"the Kafka reference harness took over {timeout_s} s") from e
    if done.returncode != 0:
        raise RuntimeError(
            f"the Kafka reference harness exited with {done.returncode}: {done.stderr[-2000:]}"
        )
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    if len(answers) != len(requests):
        raise RuntimeError(
            f"the Kafka reference harness answered {len(answers)} of {len(requests)} requests: "
            f"{done.stderr[-2000:]}"
        )
    for i, answer in enumerate(answers):
        if "error" in answer:
            raise RuntimeError(
                f"request {i} failed in the Kafka reference harness: {answer['error']}"
            )
    return answers
