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

``--real-broker`` (``make bench-plugin``) measures the plugin where it runs instead: a
local broker with the plugin calling a real ``lagassign serve``, real confluent-kafka
members (``group.protocol=consumer``, ``group.remote.assignor=lagassign``) of one group
subscribed to ten topics with a skewed backlog (ten hot partitions per topic), see
:mod:`bench.broker_plugin_real`. One JSON line per deadline tried and one for a hung sidecar:
``members``, ``partitions``, ``deadline_ms``, ``assign_ms_p50``/``assign_ms_p99`` (the
coordinator's own "Computed a new target assignment ... in N ms", for every member
joining or leaving), ``answered_share`` (of those assignments, the share the sidecar
answered), ``moved_on_join`` (partitions that changed owner when one member joined a
group on lagassign's answer), ``min_moves_on_join`` (the joiner's share: what any
count-balanced assignment must move), ``moved_from_uniform`` (the same, for the first
lagassign answer after ``uniform``'s), and ``held_ms_max`` (the longest assignment while
the sidecar accepts connections and never answers), beside ``plugin_ms_max`` (the plugin's
own time before it fell back), ``fallback_ms`` (the fallback assignor's own time in each,
prepared while the sidecar was asked), ``kafka_own_ms`` (Kafka's own time on the same changes:
the coordinator's time with nothing listening at the sidecar's address, less the plugin's)
and ``held_past_deadline_ms`` (``held_ms_max`` less the deadline and the median of
``kafka_own_ms``: what the plugin held past its deadline). The sidecar's own side of the same
calls, from its ``/metrics`` over the case: ``sidecar_answers``, ``sidecar_answer_ms_mean``
and ``sidecar_answers_within_ms`` (how many ``lagassign_assign_duration_seconds`` saw
within each bucket bound, from the body's arrival to the answer's bytes), and
``sidecar_refresh_ms_mean`` (the lag refreshes meanwhile, every 2 s unless
``--refresh-interval-s`` says otherwise), ``sidecar_joins_prepared`` and
``sidecar_joins_served`` (its joins answered ahead, and those a call took). The plugin's own
account of the same calls (its steps, logged at DEBUG): ``plugin_answered``,
``plugin_steps_ms_p50`` (each step's p50 over the calls that finished it: the wait for the
plugin's thread, building the request, the sidecar's answer, reading it),
``plugin_steps_cpu_ms_p50`` (the plugin thread's own CPU in building and reading),
``plugin_abandoned_in`` (the step each timed-out call was in), ``plugin_calls`` (each
call's steps, in the order of the log) and ``sidecar_steps_ms_p50`` (the sidecar's own
steps of the answered calls, from its ``Server-Timing``: read, turn, parse, lag, answer,
total). ``fetch_wait_ms`` is the members' ``fetch.wait.max.ms`` (``--fetch-wait-ms``,
librdkafka's 500 by default); ``members_nice`` and ``members_session_nice`` the CPU
priority the members and the bench's own loop ran at (``--members-nice``, 10 by default,
the session's where the kernel shares the cores by session first; None where it could not
be set): in a deployment the consumers do not share the broker's cores, and on a small
machine their 51 clients otherwise take a core from the broker and the sidecar. Then one
line for the sidecar's event loop (:mod:`bench.broker_plugin_probe`): the sidecar's parts
built in the bench's own process over the same broker and group, and how late a 5 ms
sleep on the loop the routes run on wakes while the lag view refreshes (``--probe-s``
long), with ``probe_nice`` and ``probe_session_nice`` (back to 0 where the process may
take its priority back). ``--keep-logs`` keeps the broker's and the sidecar's logs (kept
anyway when a run fails; the path is printed on stderr).

    .venv/bin/python -m bench.broker_plugin --real-broker [--members 50 --partitions 10000]
        [--deadlines 50,1000 --refresh-interval-s 2]

``--sidecar`` times the sidecar's side of the plugin's call in-process, without HTTP
(:mod:`bench.broker_plugin_sidecar`): a join and an unchanged group, with nothing kept,
with the group's lag kept, and with the last answer reused.

    .venv/bin/python -m bench.broker_plugin --sidecar [--members 50 --partitions 10000 --runs 20]

``--stickiness`` (:mod:`bench.broker_plugin_stickiness`): on the pure core, partitions
moved when one member joins a group laid out by Kafka's ``uniform`` or ``range`` or by
``balanced`` itself.

    .venv/bin/python -m bench.broker_plugin --stickiness [--members 50 --partitions 10000]
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
    if "--real-broker" in sys.argv[1:]:
        from bench.broker_plugin_real import real_broker

        return real_broker(sys.argv[1:])
    if "--stickiness" in sys.argv[1:]:
        from bench.broker_plugin_stickiness import stickiness

        return stickiness(sys.argv[1:])
    if "--sidecar" in sys.argv[1:]:
        from bench.broker_plugin_sidecar import sidecar

        return sidecar(sys.argv[1:])
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
        *sys.argv[1:],  # MEMBERS PARTITIONS RUNS ...: other sizes than the default ones
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
