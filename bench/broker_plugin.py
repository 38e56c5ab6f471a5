"""Benchmark of the broker plugin (``broker/``): JSON lines on stdout.

``assign()`` of ``io.lagassign.broker.LagassignAssignor`` for 100 x 1,000,
1,000 x 10,000 and 2,000 x 100,000 (members x partitions, ten topics of equal size, every
member subscribed to all and owning a round-robin share), beside Kafka's own
``UniformAssignor`` in the same JVM and run, on the broker's own classpath
(``deploy/local-kafka/target/classpath.txt``):

- ``uniform``: Kafka's UniformAssignor alone;
- ``healthy``: the plugin against a healthy answerer (an HTTP server in the same JVM
  that returns a precomputed valid answer) with the longest deadline allowed (1 s):
  the plugin's own cost (encoding the request, the HTTP exchange, reading and checking
  the answer), not the sidecar's computation;
- ``healthy_default_deadline``: the same with the default 50 ms deadline
  (``answered`` says how many made it);
- ``fallback_down``: nothing listens at the sidecar's address (50 ms deadline);
- ``fallback_slow``: the sidecar answers 2 s late (50 ms deadline);
- ``fallback_breaker_open``: the circuit breaker is open, the sidecar is not asked.

Bars: healthy p99 within the deadline; the fallback no more than 5 ms past the
deadline plus UniformAssignor's own time (``past_deadline_ms`` = p99 - deadline -
uniform p99, reported for the fallback cases).

    .venv/bin/python -m bench.broker_plugin
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
POM = ROOT / "broker" / "pom.xml"
KAFKA_CLASSPATH = ROOT / "deploy" / "local-kafka" / "target" / "classpath.txt"
KAFKA_SCRIPT = ROOT / "deploy" / "local-kafka" / "kafka"
MAIN = "io.lagassign.broker.AssignBench"
RUN_TIMEOUT_S = 1800


def classpath() -> str:
    # Build output goes to stderr: stdout carries the JSON lines only.
    subprocess.run([str(KAFKA_SCRIPT), "fetch"], check=True, stdout=sys.stderr)
    subprocess.run(
        ["mvn", "-q", "-B", "-f", str(POM), "test-compile"], check=True, stdout=sys.stderr
    )
    target = ROOT / "broker" / "target"
    parts = [str(target / "classes"), str(target / "test-classes")]
    return os.pathsep.join([*parts, KAFKA_CLASSPATH.read_text().strip()])


def main() -> int:
    command = [
        "java",
        "-Xms1g",
        "-Xmx1g",
        "-XX:+UseG1GC",
        "-Dsun.net.httpserver.nodelay=true",
        f"-Dlog4j2.configurationFile={ROOT / 'deploy' / 'local-kafka' / 'log4j2-tools.properties'}",
        # The plugin logs one WARNING per fallback, as on a broker; keep them off the output.
        "-Dlog4j2.level=ERROR",
        "-cp",
        classpath(),
        MAIN,
    ]
    done = subprocess.run(
        command, check=True, capture_output=True, text=True, timeout=RUN_TIMEOUT_S
    )
    uniform_p99: dict[tuple[int, int], float] = {}
    for text in done.stdout.splitlines():
        line: dict[str, Any] = json.loads(text)
        shape = (int(line["members"]), int(line["partitions"]))
        if line["case"] == "uniform":
            uniform_p99[shape] = float(line["p99_ms"])
        elif line["case"].startswith("fallback_") and line["case"] != "fallback_breaker_open":
            past = float(line["p99_ms"]) - float(line["deadline_ms"]) - uniform_p99[shape]
            line["past_deadline_ms"] = round(past, 3)
        print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
