"""``bench.broker_plugin --real-broker``: the broker plugin where it runs (``make bench-plugin``).

A local broker with the plugin calling a real ``lagassign serve``, real confluent-kafka
members (``group.protocol=consumer``, ``group.remote.assignor=lagassign``) of one group
subscribed to ten topics with a skewed backlog (ten hot partitions per topic). One JSON
line per deadline tried, one for a hung sidecar and one for the sidecar's event loop
(:mod:`bench.broker_plugin_probe`); the fields are listed in :mod:`bench.broker_plugin`.

Every wait is bounded, and the broker is stopped however the run ends (an error,
Ctrl-C, SIGTERM): the sidecar and the broker are stopped by their pids, the broker's
directory (tens of thousands of files at 10,000 partitions) is removed by a detached
``rm`` so the run does not wait on the disk, and the process then ends without closing
the members (see :func:`real_broker`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from bench.broker_plugin import KAFKA_SCRIPT
from bench.percentiles import percentile

TOPICS = 10
HOT_PER_TOPIC = 10
HOT_RECORDS = 50
SETTLE_S = 300.0
#: Owners unchanged this long are settled: three of the bench's 500 ms heartbeats.
STABLE_S = 1.5
CYCLES = 3
#: The broker's own stop (SIGKILL after this).
BROKER_STOP_S = 60.0
REFRESH_INTERVAL_S = 2.0
#: The niceness of the bench's process and its session by default (see :func:`yield_cores`).
MEMBERS_NICE = 10
#: The members' fetch.wait.max.ms by default: librdkafka's own.
FETCH_WAIT_MS = 500
COMPUTED = re.compile(
    r"\[GroupId (?P<group>[^\]]+)\] Computed a new target assignment for epoch \d+"
    r" with '(?P<assignor>[^']+)' assignor in (?P<ms>\d+)ms"
)
#: The steps of one call in the plugin's log (its DEBUG line of an answered call, its WARN of
#: a timeout): each finished step with its time (and its CPU, for building and reading), or
#: the step it never finished.
STEP = re.compile(
    r"(waited for the plugin's thread|request built|sidecar answered|answer read) ([\d.]+) ms"
    r"(?: \(([\d.]+) ms CPU\))?"
    r"|(the plugin's thread had not taken the call|the request was not built"
    r"|the sidecar had not answered|the answer was not read)"
)
STEPS = re.compile(r"waited for the plugin's thread[^\n]*")
#: The sidecar's own steps of an answered call, from its Server-Timing, as the plugin logs them.
SIDECAR_STEPS = re.compile(r"its own steps: ([^)]*) ms\)")
FALLBACK = re.compile(
    r"lagassign: a group of \d+ members gets '\w+' \((?P<reason>\w+)\)"
    r"(?: after (?P<ms>\d+) ms(?: \(the fallback's answer: (?P<fallback_ms>[\d.]+) ms\))?)?"
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
        member = consumer.memberid()
        for tp in consumer.assignment():
            out[(tp.topic, tp.partition)] = member
    return out


def settle(members: list[Any], partitions: int) -> dict[tuple[str, int], str]:
    """Poll every member until each partition has one owner, every member some, and the
    owners have not changed for :data:`STABLE_S` (bounded).

    A member hands partitions over one heartbeat at a time, so the counts add up in the
    middle of a handover too; only owners that stay put for a few heartbeats are the
    settled ones. The members stand in for consumers on other machines, so the loop must
    not take a core from the broker and the sidecar while the plugin's call it waits for
    runs: each round reads the members' partition counts only, and the owners (a
    dictionary entry per partition) once the counts add up.
    """
    deadline = time.monotonic() + SETTLE_S
    seen: dict[tuple[str, int], str] | None = None
    since = 0.0
    while time.monotonic() < deadline:
        for consumer in members:
            consumer.poll(0.002)
        held = [len(c.assignment()) for c in members]
        if sum(held) != partitions or not all(held):
            seen = None
            continue
        state = owners(members)
        if len(state) != partitions or state != seen:
            seen, since = state, time.monotonic()
        elif time.monotonic() - since >= STABLE_S:
            return state
    raise TimeoutError(f"{len(members)} members did not settle on {partitions} partitions")


def moved(before: dict[tuple[str, int], str], after: dict[tuple[str, int], str]) -> int:
    return sum(1 for tp, owner in after.items() if before.get(tp) != owner)


def scraped(url: str) -> dict[str, float]:
    """The sidecar's ``/metrics`` samples of the answers' and refreshes' histograms, and of
    its prepared joins."""
    import httpx

    wanted = (
        "lagassign_assign_duration_seconds",
        "lagassign_lag_refresh_duration_seconds",
        "lagassign_prepared_joins_total",
    )
    out: dict[str, float] = {}
    for line in httpx.get(f"{url}/metrics", timeout=30.0).text.splitlines():
        if line.startswith(wanted):
            name, _, value = line.rpartition(" ")
            out[name] = out.get(name, 0.0) + float(value)
    return out


def plugin_steps(text: str) -> dict[str, Any]:
    """The plugin's own account of its calls in ``text`` (its DEBUG line for an answered
    call, its WARN for a timeout): each step's p50 over the calls that finished it, and
    for the abandoned ones the step they were in; and the sidecar's own steps' p50 over
    the answered calls (the abandoned ones' answers never reach the plugin); and each
    call's steps, in the order of the log (``plugin_calls``)."""
    sidecar: dict[str, list[float]] = {}
    taken: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    stuck: dict[str, int] = {}
    calls: list[dict[str, float | str]] = []
    for steps in STEPS.finditer(text):
        call: dict[str, float | str] = {}
        calls.append(call)
        own = SIDECAR_STEPS.search(steps[0])
        if own is not None:
            call["its own steps"] = own[1]
            for part in own[1].split(", "):
                name, _, value = part.partition(" ")
                if value.replace(".", "", 1).isdigit():
                    sidecar.setdefault(name, []).append(float(value))
        for found in STEP.finditer(steps[0]):
            if found[4] is not None:
                stuck[found[4]] = stuck.get(found[4], 0) + 1
                call["abandoned"] = found[4]
                continue
            call[found[1]] = float(found[2])
            taken.setdefault(found[1], []).append(float(found[2]))
            if found[3] is not None:
                cpu.setdefault(found[1], []).append(float(found[3]))
    return {
        "plugin_answered": len(taken.get("answer read", [])),
        "plugin_steps_ms_p50": {k: percentile(v, 0.5) for k, v in taken.items()},
        "plugin_steps_cpu_ms_p50": {k: percentile(v, 0.5) for k, v in cpu.items()},
        "plugin_abandoned_in": stuck,
        "sidecar_steps_ms_p50": {k: percentile(v, 0.5) for k, v in sidecar.items()},
        "plugin_calls": calls,
    }


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
        "sidecar_joins_prepared": round(
            delta('lagassign_prepared_joins_total{outcome="prepared"}')
        ),
        "sidecar_joins_served": round(delta('lagassign_prepared_joins_total{outcome="served"}')),
    }


def fallback_times(
    kafka: Any,
    log: Path,
    group: str,
    url: str,
    members: list[Any],
    member: Callable[[], Any],
    partitions: int,
) -> list[dict[str, Any]]:
    """A member joins and leaves, :data:`CYCLES` times, with the plugin pointed at ``url``
    (50 ms deadline): for each assignment, the coordinator's time (``ms``) and the plugin's
    own before it fell back (``plugin_ms``) and the fallback assignor's after it
    (``fallback_ms``), each None when the plugin's line does not say."""
    configs(kafka, "--add-config", f"lagassign.url={url},lagassign.timeout.ms=50")
    start = len(log.read_text(errors="replace"))
    settle(members, partitions)
    for _ in range(CYCLES):
        joiner = member()
        settle([*members, joiner], partitions)
        joiner.close()
        settle(members, partitions)
    text = log.read_text(errors="replace")[start:]
    times = [int(m["ms"]) for m in COMPUTED.finditer(text) if m["group"] == group]
    plugin = [
        (int(m["ms"]) if m["ms"] else None, float(m["fallback_ms"]) if m["fallback_ms"] else None)
        for m in FALLBACK.finditer(text)
    ]
    plugin += [(None, None)] * (len(times) - len(plugin))
    return [
        {"ms": ms, "plugin_ms": own, "fallback_ms": fallback}
        for ms, (own, fallback) in zip(times, plugin, strict=False)
    ]


def interrupted(signum: int, frame: FrameType | None) -> None:
    """SIGTERM ends the run as Ctrl-C does: through every ``finally`` (the broker stopped)."""
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def bench_broker(sidecar_port: int, keep: bool = False) -> Iterator[Any]:
    """A fresh local broker whose plugin calls ``sidecar_port``; stopped however the run ends,
    its logs and the sidecar's kept when the run fails or ``keep``."""
    from harness.broker import LocalKafka

    directory = Path(tempfile.mkdtemp(prefix="lagassign-bench-plugin-"))
    kafka = LocalKafka(
        directory / "kafka",
        heap_opts="-Xms512m -Xmx1g",
        start_args=(
            "--lagassign-url",
            f"http://127.0.0.1:{sidecar_port}",
            "--set",
            "lagassign.breaker.failures=1000",
            "--set",
            "group.consumer.min.heartbeat.interval.ms=500",
            "--set",
            "group.consumer.heartbeat.interval.ms=500",
        ),
    )
    (directory / "kafka").mkdir()
    try:
        kafka.start(fresh=True, timeout_s=240.0)
        yield kafka
    except BaseException:
        keep_logs(directory, "the run failed")
        raise
    else:
        if keep:
            keep_logs(directory, "--keep-logs")
    finally:
        # A second signal must not cut the stop short.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        try:
            kafka.stop(BROKER_STOP_S)
        finally:
            subprocess.Popen(["rm", "-rf", str(directory)], start_new_session=True)


def keep_logs(directory: Path, why: str) -> None:
    """The broker's and the sidecar's logs copied out of the run's directory (removed after)."""
    kept = Path(tempfile.mkdtemp(prefix="lagassign-bench-plugin-logs-"))
    for log in (directory / "kafka" / "kafka.log", directory / "sidecar.log"):
        if log.exists():
            shutil.copy2(log, kept / log.name)
    print(f"bench.broker_plugin: {why}: the logs are kept in {kept}", file=sys.stderr)


def yield_cores(nice: int) -> dict[str, Any]:
    """This process (the members and the bench's loop) at CPU priority ``nice`` from now on,
    so that it yields the cores to the broker and the sidecar: in a deployment the
    consumers do not run on the broker's cores. The threads made from now on inherit the
    main thread's niceness; where the kernel shares the cores between sessions first
    (autogroup), the session's own niceness is what counts between this process and the
    broker (and the sidecar, each in a session of its own). Says what it could set."""
    os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
    return {"members_nice": nice, "members_session_nice": session_nice(nice)}


def take_cores_back(niced: dict[str, Any]) -> dict[str, Any]:
    """Back to niceness 0 where this process may lower it again (root, CAP_SYS_NICE);
    else ``niced``, as it stays."""
    try:
        return yield_cores(0)
    except PermissionError:
        return niced


def session_nice(nice: int) -> int | None:
    """Sets this session's niceness (Linux's ``/proc/self/autogroup``); what it is now, or
    None where there is none to set or lowering it is refused."""
    path = Path("/proc/self/autogroup")
    try:
        path.write_text(str(nice))
        found = re.search(r"nice (-?\d+)", path.read_text())
    except OSError:
        return None
    return int(found[1]) if found else None


def configs(kafka: Any, *more: str) -> None:
    """Change the brokers' default dynamic configuration (``kafka-configs --alter``)."""
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


def real_broker(argv: list[str]) -> NoReturn:
    from harness.sidecar import free_port

    parser = argparse.ArgumentParser(prog="bench.broker_plugin --real-broker")
    parser.add_argument("--real-broker", action="store_true")
    parser.add_argument("--members", type=int, default=50)
    parser.add_argument("--partitions", type=int, default=10_000)
    parser.add_argument("--deadlines", default="50,1000", help="lagassign.timeout.ms to try")
    parser.add_argument("--probe-s", type=float, default=30.0, help="the loop probe's length")
    parser.add_argument(
        "--fetch-wait-ms",
        type=int,
        default=FETCH_WAIT_MS,
        help="the members' fetch.wait.max.ms: how long the broker holds an empty fetch",
    )
    parser.add_argument(
        "--members-nice",
        type=int,
        default=MEMBERS_NICE,
        help="the CPU priority (niceness) of the members' threads; 0: the same as the broker's",
    )
    parser.add_argument(
        "--keep-logs",
        action="store_true",
        help="keep the broker's and the sidecar's logs (always kept when the run fails)",
    )
    parser.add_argument(
        "--refresh-interval-s",
        type=float,
        default=REFRESH_INTERVAL_S,
        help="the sidecar's LAGASSIGN_REFRESH_INTERVAL_S",
    )
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, interrupted)
    # The plugin's line per answered call, with its steps' times (plugin_steps).
    os.environ["LAGASSIGN_PLUGIN_LOG_LEVEL"] = "DEBUG"
    port = free_port()
    code = 0
    try:
        with bench_broker(port, args.keep_logs) as kafka:
            cases(kafka, port, args)
    except BaseException:  # noqa: BLE001 - any end, Ctrl-C included, is printed and ends the process below
        traceback.print_exc()
        code = 1
    # The members are not closed: the broker is gone, and closing 51 confluent-kafka
    # consumers at once in threads hung the process for good in two runs (a new thread
    # never started), as their destructors may at the interpreter's exit. So the process
    # ends here, without running them.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def cases(kafka: Any, port: int, args: argparse.Namespace) -> None:
    """The deadlines, the hung sidecar and the loop probe, on one group of ``args.members``."""
    from confluent_kafka import Consumer, Producer
    from confluent_kafka.admin import AdminClient
    from confluent_kafka.cimpl import NewTopic

    from bench.broker_plugin_probe import probe
    from harness.poll import eventually
    from harness.sidecar import free_port, start_sidecar

    members_n, partitions = args.members, args.partitions
    per_topic = partitions // TOPICS
    log = kafka.directory / "kafka.log"
    sidecar = None
    try:
        sidecar = start_sidecar(
            {
                "LAGASSIGN_BOOTSTRAP_SERVERS": kafka.bootstrap,
                "LAGASSIGN_REFRESH_INTERVAL_S": str(args.refresh_interval_s),
                "LAGASSIGN_RESET_POLICY": "earliest",
            },
            kafka.directory.parent / "sidecar.log",
            port=port,
            own_session=True,
        )
        niced = yield_cores(args.members_nice)
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
                    "fetch.wait.max.ms": args.fetch_wait_ms,
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
            configs(kafka, "--add-config", f"lagassign.timeout.ms={deadline_ms}")
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
                        "refresh_interval_s": args.refresh_interval_s,
                        "fetch_wait_ms": args.fetch_wait_ms,
                        **niced,
                        "assignments": len(times),
                        "assign_ms_p50": percentile(times, 0.5),
                        "assign_ms_p99": percentile(times, 0.99),
                        "answered_share": round(1 - fallbacks / max(1, len(times)), 3),
                        "fallback_reasons": sorted(set(reasons)),
                        "moved_from_previous": joins[0],
                        "moved_on_join": joins[-1],
                        "moved_on_joins": joins,
                        "min_moves_on_join": share,
                        **plugin_steps(text),
                        **sidecar_figures(metrics_before, scraped(sidecar.url)),
                    }
                ),
                flush=True,
            )
        # The coordinator's time around the plugin's call (building the spec, the records of
        # the new target assignment) is Kafka's own: measured on the same changes with nothing
        # listening at the sidecar's address (the plugin falls back within a few milliseconds),
        # less the plugin's own time before it fell back (the fallback's answer prepared in it).
        nowhere = f"http://127.0.0.1:{free_port()}"
        down = [
            c["ms"] - (c["plugin_ms"] or 0)
            for c in fallback_times(kafka, log, group, nowhere, members, member, partitions)
        ]
        hung = Hung()
        try:
            hung_cases = fallback_times(kafka, log, group, hung.url, members, member, partitions)
        finally:
            hung.close()
        held = [case["ms"] for case in hung_cases]
        plugin_ms = [case["plugin_ms"] for case in hung_cases if case["plugin_ms"] is not None]
        print(
            json.dumps(
                {
                    "bench": "broker_plugin_real",
                    "case": "hung_sidecar",
                    "members": members_n,
                    "partitions": partitions,
                    "deadline_ms": 50,
                    "assignments": len(held),
                    "held_ms_max": max(held),
                    "held_ms": held,
                    "plugin_ms_max": max(plugin_ms, default=None),
                    "fallback_ms": [case["fallback_ms"] for case in hung_cases],
                    "kafka_own_ms": down,
                    "held_past_deadline_ms": max(held) - 50 - percentile(down, 0.5),
                }
            ),
            flush=True,
        )
        # The sidecar's event loop, in this process, with the subprocess one stopped, at the
        # sidecar's own priority again where this process may take it back.
        sidecar.stop()
        restored = take_cores_back(niced) if args.members_nice > 0 else niced
        line = probe(kafka.bootstrap, args.refresh_interval_s, args.probe_s)
        print(
            json.dumps(
                {
                    "members": members_n,
                    "partitions": partitions,
                    **line,
                    "probe_nice": restored["members_nice"],
                    "probe_session_nice": restored["members_session_nice"],
                }
            ),
            flush=True,
        )
    finally:
        if sidecar is not None:
            sidecar.stop()
