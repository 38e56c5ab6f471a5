"""Catch-up benchmark: how long real consumers need to drain a skewed backlog, per assignor.

One JSON line per scenario and assignor on stdout (``scenario``, ``assignor``,
``catch_up_s``, ``lower_bound_s``, ``ratio_to_lower_bound``, ``worst_member_lag_max``,
``worst_member_lag_mean``, ``records_per_member``, ``rebalances``, ``rebalance_s``,
``load_avg``, ...); an assignor that cannot run here gets a line with ``skipped``
saying why. A plot per scenario (SVG) and the samples behind it go to ``--out``.

- a real broker (``deploy/local-kafka/kafka``, started in a temporary directory
  unless ``--bootstrap`` names one) and a real ``lagassign serve`` sidecar;
- members that process each record at a fixed cost (``rate`` records a second
  each) and commit after every batch, started together;
- each assignor on its own copy of the backlog (a fresh group at the same
  offsets): aiokafka's ``range``, Kafka's ``CooperativeStickyAssignor`` (Java
  consumers), lagassign's ``lag-aware`` and ``balanced`` (the Python shim), and on
  the consumer group protocol (KIP-848, Java consumers) the broker's ``uniform`` and
  lagassign's broker plugin (``lagassign-broker``: the broker is started with
  ``--lagassign-url`` pointing at the sidecar; a paused scout forms the group and the
  members join together once the sidecar knows it, see ``ConsumerProtocolGroup``);
- lag read from the broker every 0.5 s (committed offsets against the log end); for a
  consumer-protocol group also its group epoch, whose moves the line lists
  (``epoch_moves_s``: seconds since the first record, and the epoch; a nudge shows as
  its join's and its leave's epochs close together).

    .venv/bin/python -m bench.catchup [--quick] [--seed 7] [--out var/catchup]
        [--scenario NAME ...] [--assignor NAME ...] [--start existing-group|new-group|both]
        [--bootstrap HOST:PORT] [--plugin-timeout-ms MS] [--lag-model MODEL]
        [--nudge] [--member-capacity N] [--advice-hold-s S] [--advice-cooldown-s S]

``--quick`` (``make catchup-quick``): the ``hot-per-topic`` scenario, an existing
group (offsets committed at the start of the backlog), the four classic assignors.

``--nudge``: the sidecar nudges the consumer-protocol groups on the plugin when its
advice says a rebalance pays (``LAGASSIGN_NUDGE_CONSUMER_GROUPS=true``; it acts on
``lagassign-broker`` only: the other groups are classic or on ``uniform``).

``--member-capacity N``: the sidecar's ``LAGASSIGN_MEMBER_CAPACITY`` (records/s one
member reads; unset by default, so the sidecar measures it). The bench's members read
exactly ``rate`` records/s, so this shows what the advice does with the capacity known
from the start.

``--assignor balanced+advice``: ``balanced`` with every member's
``RebalanceAdvisor`` acting on the sidecar's rebalance advice (``--advice-hold-s``,
``--advice-cooldown-s``; unset by default, so the sidecar's own defaults apply: in
proportion to the projected catch-up with the ``drain`` model), e.g. on
``hot-per-topic+moving-production`` beside ``--assignor balanced``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.catchup.assignors import (
    ADVISED,
    ASSIGNORS,
    CLASSIC,
    CONSUMER_PROTOCOL,
    cannot_run,
    group_maker,
)
from bench.catchup.plot import plot
from bench.catchup.run import RunResult, Start, backlog_topics, run_one, timeline
from bench.catchup.scenarios import QUICK, Scenario, all_scenarios, lower_bound_s
from harness.broker import local_broker
from harness.sidecar import SidecarProcess, free_port, start_sidecar

ROOT = Path(__file__).resolve().parents[2]

STARTS: tuple[Start, ...] = ("existing-group", "new-group")
# The plugin's deadline on the bench's broker: its longest, since this measures catch-up,
# not the plugin's latency, on a machine the broker shares with every member and the
# sidecar (bench/broker_plugin.py measures the plugin's time).
PLUGIN_TIMEOUT_MS = 1000
# A run that has not caught up by then is cut off (catch_up_s null).
CAP_FACTOR, CAP_MARGIN_S = 5.0, 30.0


def emit(line: dict[str, Any]) -> None:
    print(json.dumps(line), flush=True)


def skip_line(scenario: str, assignor: str, why: str) -> dict[str, Any]:
    return {
        "scenario": scenario,
        "assignor": assignor,
        "catch_up_s": None,
        "lower_bound_s": None,
        "worst_member_lag_max": None,
        "skipped": why,
    }


async def bench_scenario(
    bootstrap: str,
    sidecar: SidecarProcess,
    scenario: Scenario,
    assignors: Sequence[str],
    starts: Sequence[Start],
    seed: int,
    run_id: str,
    out: Path,
    plugin: bool,
) -> None:
    # Topic names allow only letters, digits, '.', '_' and '-'.
    name = scenario.name.replace("+", "_")
    topics = await backlog_topics(bootstrap, scenario, f"catchup.{run_id}.{name}.")
    nominal = lower_bound_s(scenario.backlog, scenario.members, scenario.rate, scenario.production)
    for start in starts:
        if start == "new-group" and scenario.production is not None:
            for assignor in assignors:
                why = (
                    "a new group needs the topics to hold the backlog only;"
                    " this scenario produces while it drains"
                )
                emit({**skip_line(scenario.name, assignor, why), "start": start})
            continue
        results: dict[str, RunResult] = {}
        for assignor in assignors:
            missing = cannot_run(assignor, plugin)
            if missing is not None:
                emit({**skip_line(scenario.name, assignor, missing), "start": start})
                continue
            group = f"catchup.{run_id}.{name}.{start}.{assignor}"
            started = time.monotonic()
            result = await run_one(
                bootstrap=bootstrap,
                scenario=scenario,
                topics=topics,
                group_id=group,
                assignor=assignor,
                start=start,
                make_group=group_maker(assignor, sidecar, start, out),
                cap_s=max(CAP_FACTOR * nominal, scenario.hold_s or 0.0) + CAP_MARGIN_S,
                consumer_protocol=assignor in CONSUMER_PROTOCOL,
            )
            result.line["seed"] = seed
            result.line["wall_s"] = round(time.monotonic() - started, 1)
            emit(result.line)
            results[assignor] = result
        if results:
            stem = f"{scenario.name}.{start}"
            timelines = {a: timeline(r) for a, r in results.items()}
            (out / f"{stem}.json").write_text(
                json.dumps(
                    {"lines": {a: r.line for a, r in results.items()}, "timelines": timelines}
                )
            )
            title = (
                f"{scenario.name} ({start}): {scenario.description}; {scenario.members} members"
                f" x {scenario.rate:.0f} records/s"
            )
            plot(out / f"{stem}.svg", title, timelines, {a: r.line for a, r in results.items()})


async def bench(
    bootstrap: str,
    scenarios: Sequence[Scenario],
    assignors: Sequence[str],
    starts: Sequence[Start],
    seed: int,
    out: Path,
    lag_model: str = "drain",
    port: int | None = None,
    plugin: bool = False,
    advice: tuple[float | None, float | None] = (None, None),
    nudge: bool = False,
    member_capacity: float | None = None,
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    run_id = f"{seed}-{int(time.time())}"
    sidecar = start_sidecar(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": bootstrap,
            "LAGASSIGN_REFRESH_INTERVAL_S": "1",
            "LAGASSIGN_GROUP_PATTERN": r"catchup\..*",
            # Every member starts from the earliest offset; a shim that sends its own
            # reset_policy overrides this default.
            "LAGASSIGN_RESET_POLICY": "earliest",
            "LAGASSIGN_LOG_LEVEL": "warning",
            "LAGASSIGN_LAG_MODEL": lag_model,
            # The benchmark runs at a tenth of the default refresh interval, so its rate
            # window is scaled with it: 120 s of 64 points keeps a point every ~2 s (the
            # default 900 s keeps one every 14 s, as long as a whole catch-up here).
            "LAGASSIGN_RATE_WINDOW_S": "120",
            # Unset unless given: the sidecar's defaults, in proportion to the catch-up.
            **({"LAGASSIGN_ADVICE_HOLD_S": str(advice[0])} if advice[0] is not None else {}),
            **({"LAGASSIGN_ADVICE_COOLDOWN_S": str(advice[1])} if advice[1] is not None else {}),
            "LAGASSIGN_NUDGE_CONSUMER_GROUPS": "true" if nudge else "false",
            **(
                {"LAGASSIGN_MEMBER_CAPACITY": str(member_capacity)}
                if member_capacity is not None
                else {}
            ),
        },
        out / "sidecar.log",
        port=port,
    )
    try:
        for scenario in scenarios:
            await bench_scenario(
                bootstrap, sidecar, scenario, assignors, starts, seed, run_id, out, plugin
            )
    finally:
        sidecar.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.catchup", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--quick", action="store_true", help="one scenario, the classic assignors")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "catchup")
    parser.add_argument("--scenario", action="append", help="only these scenarios")
    parser.add_argument(
        "--lag-model",
        choices=("backlog", "load", "drain"),
        default="drain",
        help="the sidecar's LAGASSIGN_LAG_MODEL (drain, its default: lag + produce rate x "
        "the group's catch-up horizon; load: x a fixed horizon; backlog: the lag alone)",
    )
    parser.add_argument(
        "--assignor", action="append", choices=(*ASSIGNORS, ADVISED), help="only these"
    )
    parser.add_argument(
        "--advice-hold-s",
        type=float,
        default=None,
        help="the sidecar's LAGASSIGN_ADVICE_HOLD_S (default: unset, the sidecar's own)",
    )
    parser.add_argument(
        "--advice-cooldown-s",
        type=float,
        default=None,
        help="the sidecar's LAGASSIGN_ADVICE_COOLDOWN_S (default: unset, the sidecar's own)",
    )
    parser.add_argument(
        "--nudge",
        action="store_true",
        help="the sidecar nudges consumer-protocol groups on its advice (lagassign-broker)",
    )
    parser.add_argument(
        "--member-capacity",
        type=float,
        default=None,
        help="the sidecar's LAGASSIGN_MEMBER_CAPACITY (default: unset, measured)",
    )
    parser.add_argument(
        "--start",
        choices=("existing-group", "new-group", "both"),
        default=None,
        help="committed offsets before joining, a new group from earliest, or both",
    )
    parser.add_argument("--bootstrap", help="a running broker (default: start one)")
    parser.add_argument(
        "--plugin-timeout-ms",
        type=int,
        default=PLUGIN_TIMEOUT_MS,
        help="lagassign.timeout.ms of the bench's broker (the plugin's deadline)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s", stream=sys.stderr)
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)

    scenarios = all_scenarios(args.seed)
    wanted = args.scenario or ([QUICK] if args.quick else [s.name for s in scenarios])
    unknown = sorted(set(wanted) - {s.name for s in scenarios})
    if unknown:
        parser.error(f"unknown scenario {unknown}; known: {[s.name for s in scenarios]}")
    chosen = [s for s in scenarios if s.name in wanted]
    assignors = args.assignor or list(CLASSIC if args.quick else ASSIGNORS)
    start = args.start or ("existing-group" if args.quick else "both")
    starts: list[Start] = [s for s in STARTS if start in (s, "both")]
    # SIGTERM ends the run like Ctrl-C: the members, the sidecar and the broker stop.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    began = time.monotonic()
    # The bench's own broker runs lagassign's plugin, calling the sidecar started on `port`.
    port = free_port()
    plugin_args = (
        "--lagassign-url",
        f"http://127.0.0.1:{port}",
        "--lagassign-timeout-ms",
        str(args.plugin_timeout_ms),
        # Consumer-protocol members learn a new assignment on their next heartbeat.
        "--set",
        "group.consumer.heartbeat.interval.ms=500",
        "--set",
        "group.consumer.min.heartbeat.interval.ms=500",
    )
    with local_broker(
        args.bootstrap, prefix="lagassign-catchup-", start_args=plugin_args
    ) as bootstrap:
        asyncio.run(
            bench(
                bootstrap,
                chosen,
                assignors,
                starts,
                args.seed,
                args.out,
                args.lag_model,
                port,
                plugin=args.bootstrap is None,
                advice=(args.advice_hold_s, args.advice_cooldown_s),
                nudge=args.nudge,
                member_capacity=args.member_capacity,
            )
        )
    print(
        f"catch-up benchmark: {time.monotonic() - began:.0f} s wall,"
        f" load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; plots in {args.out}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
