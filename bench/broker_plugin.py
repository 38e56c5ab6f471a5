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
:func:`real_broker`. One JSON line per deadline tried and one for a hung sidecar:
``members``, ``partitions``, ``deadline_ms``, ``assign_ms_p50``/``assign_ms_p99`` (the
coordinator's own "Computed a new target assignment ... in N ms", for every member
joining or leaving), ``answered_share`` (of those assignments, the share the sidecar
answered), ``moved_on_join`` (partitions that changed owner when one member joined a
group on lagassign's answer), ``min_moves_on_join`` (the joiner's share: what any
count-balanced assignment must move), ``moved_from_uniform`` (the same, for the first
lagassign answer after ``uniform``'s), and ``held_ms_max`` (the longest assignment while
the sidecar accepts connections and never answers). The sidecar's own side of the same
calls, from its ``/metrics`` over the case: ``sidecar_answers``, ``sidecar_answer_ms_mean``
and ``sidecar_answers_within_ms`` (how many ``lagassign_assign_duration_seconds`` saw
within each bucket bound, from the body's arrival to the answer's bytes), and
``sidecar_refresh_ms_mean`` (the lag refreshes meanwhile, every 2 s here).

    .venv/bin/python -m bench.broker_plugin --real-broker [--members 50 --partitions 10000]

``--sidecar`` times the sidecar's side of the plugin's call in-process, without HTTP
(:mod:`bench.broker_plugin_sidecar`): a join and an unchanged group, with nothing kept,
with the group's lag kept, and with the last answer reused.

    .venv/bin/python -m bench.broker_plugin --sidecar [--members 50 --partitions 10000 --runs 20]

``--stickiness`` replays, on the pure core, one member joining a group of ``--members``
on ten topics (ten hot partitions per topic) whose previous assignment is Kafka's own
``uniform``'s or ``range``'s (computed by Kafka's assignors, ``UniformLayout``) or
``balanced``'s own: partitions moved by ``balanced``, the stage that settled it, its time.

    .venv/bin/python -m bench.broker_plugin --stickiness [--members 50 --partitions 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
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
        return real_broker(sys.argv[1:])
    if "--stickiness" in sys.argv[1:]:
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


# --- on a real broker (make bench-plugin) ---------------------------------------------

TOPICS = 10
HOT_PER_TOPIC = 10
HOT_RECORDS = 50
SETTLE_S = 300.0
CYCLES = 3
COMPUTED = re.compile(
    r"\[GroupId (?P<group>[^\]]+)\] Computed a new target assignment for epoch \d+"
    r" with '(?P<assignor>[^']+)' assignor in (?P<ms>\d+)ms"
)
FALLBACK = re.compile(
    r"lagassign: a group of \d+ members gets '\w+' \((?P<reason>\w+)\)(?: after (?P<ms>\d+) ms)?"
)


class Hung:
    """A sidecar that accepts connections and never answers (127.0.0.1)."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.held: list[socket.socket] = []
        self.stopping = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.getsockname()[1]}"

    def _accept(self) -> None:
        self.server.settimeout(0.2)
        while not self.stopping.is_set():
            try:
                connection, _ = self.server.accept()
            except (TimeoutError, OSError):
                continue
            self.held.append(connection)

    def close(self) -> None:
        self.stopping.set()
        for connection in self.held:
            connection.close()
        self.server.close()


def owners(members: list[Any]) -> dict[tuple[str, int], str]:
    out: dict[tuple[str, int], str] = {}
    for consumer in members:
        for tp in consumer.assignment():
            out[(tp.topic, tp.partition)] = consumer.memberid()
    return out


def settle(members: list[Any], partitions: int) -> dict[tuple[str, int], str]:
    """Poll every member until each partition has one owner and every member some (bounded)."""
    deadline = time.monotonic() + SETTLE_S
    while time.monotonic() < deadline:
        for consumer in members:
            consumer.poll(0.002)
        state = owners(members)
        held = sum(len(c.assignment()) for c in members)
        if len(state) == partitions == held and all(c.assignment() for c in members):
            return state
    raise TimeoutError(f"{len(members)} members did not settle on {partitions} partitions")


def moved(before: dict[tuple[str, int], str], after: dict[tuple[str, int], str]) -> int:
    return sum(1 for tp, owner in after.items() if before.get(tp) != owner)


def scraped(url: str) -> dict[str, float]:
    """The sidecar's ``/metrics`` samples of the answers' and refreshes' histograms."""
    import httpx

    wanted = ("lagassign_assign_duration_seconds", "lagassign_lag_refresh_duration_seconds")
    out: dict[str, float] = {}
    for line in httpx.get(f"{url}/metrics", timeout=30.0).text.splitlines():
        if line.startswith(wanted):
            name, _, value = line.rpartition(" ")
            out[name] = out.get(name, 0.0) + float(value)
    return out


def sidecar_figures(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """What the sidecar measured between two scrapes (``scraped``)."""

    def delta(name: str) -> float:
        return after.get(name, 0.0) - before.get(name, 0.0)

    answers = delta("lagassign_assign_duration_seconds_count")
    refreshes = delta("lagassign_lag_refresh_duration_seconds_count")
    within: dict[str, int] = {}
    bound = re.compile(r'lagassign_assign_duration_seconds_bucket\{.*le="([^"]+)"')
    for name in after:
        found = bound.match(name)
        if found and found[1] != "+Inf" and float(found[1]) <= 0.25:
            within[f"{float(found[1]) * 1000:g}"] = round(delta(name))
    return {
        "sidecar_answers": round(answers),
        "sidecar_answer_ms_mean": round(
            1000 * delta("lagassign_assign_duration_seconds_sum") / max(1.0, answers), 1
        ),
        "sidecar_answers_within_ms": within,
        "sidecar_refresh_ms_mean": round(
            1000 * delta("lagassign_lag_refresh_duration_seconds_sum") / max(1.0, refreshes), 1
        ),
    }


def percentile(values: list[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, int(-(-q * len(ordered) // 1)) - 1))]


def real_broker(argv: list[str]) -> int:
    from confluent_kafka import Consumer, Producer
    from confluent_kafka.admin import AdminClient
    from confluent_kafka.cimpl import NewTopic

    from harness.broker import LocalKafka
    from harness.poll import eventually
    from harness.sidecar import free_port, start_sidecar

    parser = argparse.ArgumentParser(prog="bench.broker_plugin --real-broker")
    parser.add_argument("--real-broker", action="store_true")
    parser.add_argument("--members", type=int, default=50)
    parser.add_argument("--partitions", type=int, default=10_000)
    parser.add_argument("--deadlines", default="50,1000", help="lagassign.timeout.ms to try")
    args = parser.parse_args(argv)
    members_n, partitions = args.members, args.partitions
    per_topic = partitions // TOPICS
    with tempfile.TemporaryDirectory(prefix="lagassign-bench-plugin-") as tmp:
        directory = Path(tmp)
        port = free_port()
        kafka = LocalKafka(
            directory / "kafka",
            heap_opts="-Xms512m -Xmx1g",
            start_args=(
                "--lagassign-url",
                f"http://127.0.0.1:{port}",
                "--set",
                "lagassign.breaker.failures=1000",
                "--set",
                "group.consumer.min.heartbeat.interval.ms=500",
                "--set",
                "group.consumer.heartbeat.interval.ms=500",
            ),
        )
        (directory / "kafka").mkdir()
        kafka.start(fresh=True, timeout_s=240.0)
        log = directory / "kafka" / "kafka.log"

        def configs(*more: str) -> None:
            subprocess.run(
                [
                    str(KAFKA_SCRIPT),
                    "run",
                    "kafka.admin.ConfigCommand",
                    "--bootstrap-server",
                    kafka.bootstrap,
                    "--entity-type",
                    "brokers",
                    "--entity-default",
                    "--alter",
                    *more,
                ],
                check=True,
                capture_output=True,
                timeout=180,
            )

        sidecar = None
        members: list[Any] = []
        try:
            sidecar = start_sidecar(
                {
                    "LAGASSIGN_BOOTSTRAP_SERVERS": kafka.bootstrap,
                    "LAGASSIGN_REFRESH_INTERVAL_S": "2",
                    "LAGASSIGN_RESET_POLICY": "earliest",
                },
                directory / "sidecar.log",
                port=port,
            )
            admin = AdminClient({"bootstrap.servers": kafka.bootstrap})
            topics = [f"bench-plugin-{t}" for t in range(TOPICS)]
            for topic in topics:  # one at a time: the controller refuses too large a batch
                for future in admin.create_topics([NewTopic(topic, per_topic, 1)]).values():
                    future.result(timeout=300)
            producer = Producer({"bootstrap.servers": kafka.bootstrap, "linger.ms": 20})
            for topic in topics:
                for p in range(HOT_PER_TOPIC):
                    for _ in range(HOT_RECORDS):
                        producer.produce(topic, value=b"x" * 16, partition=p)
                producer.poll(0)
            if producer.flush(120) != 0:
                raise RuntimeError("the backlog was not all sent")
            group = "bench-plugin"

            def member() -> Any:
                consumer = Consumer(
                    {
                        "bootstrap.servers": kafka.bootstrap,
                        "group.id": group,
                        "group.protocol": "consumer",
                        "group.remote.assignor": "lagassign",
                        "auto.offset.reset": "earliest",
                        "enable.auto.commit": False,
                        "fetch.max.bytes": 1_000_000,
                    }
                )
                consumer.subscribe(topics)
                return consumer

            members = [member() for _ in range(members_n)]
            settle(members, partitions)
            eventually(
                lambda: (
                    (body := sidecar.group(group)) is not None and len(body["members"]) == members_n
                ),
                120,
                "the sidecar indexes the group",
            )
            share = partitions // (members_n + 1)
            for deadline_ms in [int(d) for d in args.deadlines.split(",")]:
                configs("--add-config", f"lagassign.timeout.ms={deadline_ms}")
                start = len(log.read_text(errors="replace"))
                metrics_before = scraped(sidecar.url)
                joins: list[int] = []
                state = settle(members, partitions)
                for _ in range(CYCLES):
                    joiner = member()
                    after = settle([*members, joiner], partitions)
                    joins.append(moved(state, after))
                    joiner.close()
                    state = settle(members, partitions)
                text = log.read_text(errors="replace")[start:]
                times = [int(m["ms"]) for m in COMPUTED.finditer(text) if m["group"] == group]
                reasons = [m["reason"] for m in FALLBACK.finditer(text)]
                fallbacks = len(reasons)
                print(
                    json.dumps(
                        {
                            "bench": "broker_plugin_real",
                            "members": members_n,
                            "partitions": partitions,
                            "deadline_ms": deadline_ms,
                            "assignments": len(times),
                            "assign_ms_p50": percentile(times, 0.5),
                            "assign_ms_p99": percentile(times, 0.99),
                            "answered_share": round(1 - fallbacks / max(1, len(times)), 3),
                            "fallback_reasons": sorted(set(reasons)),
                            "moved_from_previous": joins[0],
                            "moved_on_join": joins[-1],
                            "moved_on_joins": joins,
                            "min_moves_on_join": share,
                            **sidecar_figures(metrics_before, scraped(sidecar.url)),
                        }
                    ),
                    flush=True,
                )
            hung = Hung()
            try:
                configs("--add-config", f"lagassign.url={hung.url},lagassign.timeout.ms=50")
                start = len(log.read_text(errors="replace"))
                state = settle(members, partitions)
                joiner = member()
                settle([*members, joiner], partitions)
                joiner.close()
                settle(members, partitions)
                text = log.read_text(errors="replace")[start:]
                times = [int(m["ms"]) for m in COMPUTED.finditer(text) if m["group"] == group]
                plugin_ms = [int(m["ms"]) for m in FALLBACK.finditer(text) if m["ms"]]
                print(
                    json.dumps(
                        {
                            "bench": "broker_plugin_real",
                            "case": "hung_sidecar",
                            "plugin_ms_max": max(plugin_ms, default=None),
                            "members": members_n,
                            "partitions": partitions,
                            "deadline_ms": 50,
                            "assignments": len(times),
                            "held_ms_max": max(times),
                            "held_ms": times,
                        }
                    ),
                    flush=True,
                )
            finally:
                hung.close()
        finally:
            for consumer in members:
                consumer.close()
            if sidecar is not None:
                sidecar.stop()
            kafka.stop(120.0)
    return 0


# --- stickiness on the pure core (why a join after uniform moves most partitions) -------


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


if __name__ == "__main__":
    sys.exit(main())
