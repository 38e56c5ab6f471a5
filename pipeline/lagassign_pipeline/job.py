"""The pipeline job: read the history, compute, write tables, weights and the report.

``python -m lagassign_pipeline`` (``make pipeline``). The job only reads, calls the
transforms and writes; every figure comes from :mod:`~lagassign_pipeline.rates`,
:mod:`~lagassign_pipeline.weights` and :mod:`~lagassign_pipeline.backtest`.

Writes, under ``--report`` (default ``var/report``):

- ``report.html``: the self-contained report;
- ``tables/rate_windows``, ``tables/forecasts``, ``tables/backtest``,
  ``tables/backtest_summary``: Parquet tables;

and the weights file (``--weights``, default ``var/forecast-weights.json``) for the
service's ``LAGASSIGN_WEIGHTS_PATH``.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from lagassign.forecast.weights import write_forecast_weights
from lagassign_pipeline.backtest import BacktestSpec, backtest
from lagassign_pipeline.charts import Series
from lagassign_pipeline.history import history_files, read_history
from lagassign_pipeline.kafka_source import KAFKA_PACKAGES, read_history_topic
from lagassign_pipeline.progress import Progress
from lagassign_pipeline.rates import RateSpec, partition_rates, rate_windows
from lagassign_pipeline.report_page import HistoryFacts, ReportPage, render_report
from lagassign_pipeline.report_tables import max_lag_distribution, over_time, strategy_summary
from lagassign_pipeline.session import local_session
from lagassign_pipeline.synthetic import SyntheticSpec, synthetic_history, write_history
from lagassign_pipeline.weights import forecast_weights, latest_forecasts

STEPS = ("history", "rates", "weights", "backtest", "report")
HOTTEST = 20


#: The command's forecast horizon, also the weights' freshness in the sidecar by default:
#: longer than one run of the job (121-284 s measured on 2 cores), a history roll interval
#: (300 s) and a 5-minute schedule together, so the weights are not stale on arrival. The
#: library's own default (``RateSpec.horizon_s``, 60 s) is for tests and notebooks.
COMMAND_HORIZON_S = 900.0


@dataclass(frozen=True, slots=True)
class JobSettings:
    """Where to read and write, and the specs of the transforms."""

    history: Path = Path("var/history")
    kafka_bootstrap: str | None = None
    kafka_topic: str | None = None
    use_synthetic: bool = False
    synthetic_dir: Path = Path("var/synthetic-history")
    synthetic: SyntheticSpec = field(default_factory=SyntheticSpec)
    report: Path = Path("var/report")
    weights: Path = Path("var/forecast-weights.json")
    rates: RateSpec = field(default_factory=RateSpec)
    backtest: BacktestSpec = field(default_factory=BacktestSpec)


@dataclass(frozen=True, slots=True)
class JobResult:
    report_html: Path
    weights: Path
    tables: dict[str, Path]
    facts: HistoryFacts
    seconds: dict[str, float]


def run(spark: SparkSession, settings: JobSettings, progress: Progress) -> JobResult:
    """Run every step; the figures land in files, and their paths in the result."""
    tables = {
        name: settings.report / "tables" / name
        for name in ("rate_windows", "forecasts", "backtest", "backtest_summary")
    }
    with progress.step("history"):
        history, source = _history(spark, settings, progress)

    with progress.step("rates"):
        rates = partition_rates(history, settings.rates).persist(StorageLevel.MEMORY_AND_DISK)
        facts = _facts(rates, source)
        _write(rate_windows(rates, settings.rates.window_s), tables["rate_windows"])

    with progress.step("weights"):
        _write(latest_forecasts(rates, settings.rates), tables["forecasts"])
        forecasts = spark.read.parquet(os.fspath(tables["forecasts"]))
        write_forecast_weights(settings.weights, forecast_weights(forecasts, settings.rates))

    with progress.step("backtest"):
        _write(backtest(rates, settings.backtest), tables["backtest"])
        rates.unpersist()

    with progress.step("report"):
        replayed = spark.read.parquet(os.fspath(tables["backtest"]))
        _write(strategy_summary(replayed), tables["backtest_summary"])
        summary = spark.read.parquet(os.fspath(tables["backtest_summary"]))
        groups_replayed, groups_with_one_member = _group_sizes(replayed)
        page = ReportPage(
            generated_at=datetime.now(UTC),
            history=facts,
            settings=_settings_facts(settings),
            summary=[row.asDict() for row in summary.orderBy("strategy", "weights").collect()],
            imbalance=_series(over_time(replayed), "imbalance"),
            moves=_series(over_time(replayed), "moved_cumulative"),
            max_lag_quantiles={
                row["strategy"]: [float(v) for v in row["max_lag"]]
                for row in max_lag_distribution(replayed).collect()
            },
            hottest=[
                row.asDict()
                for row in forecasts.orderBy(F.desc("forecast_lag"), "group", "topic", "partition")
                .drop("ts", "as_of")
                .limit(HOTTEST)
                .collect()
            ],
            files={
                "weights file": os.fspath(settings.weights),
                **{f"table {name}": os.fspath(path) for name, path in tables.items()},
            },
            groups_replayed=groups_replayed,
            groups_with_one_member=groups_with_one_member,
        )
        report_html = settings.report / "report.html"
        report_html.parent.mkdir(parents=True, exist_ok=True)
        report_html.write_text(render_report(page), encoding="utf-8")
    return JobResult(
        report_html=report_html,
        weights=settings.weights,
        tables=tables,
        facts=facts,
        seconds=dict(progress.seconds),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, start a local session, run, print where things are."""
    arguments = _parser().parse_args(argv)
    settings = _settings(arguments)
    from_kafka = settings.kafka_bootstrap is not None
    spark = local_session(
        master=arguments.master,
        driver_memory=arguments.driver_memory,
        packages=tuple(arguments.kafka_package) if from_kafka else (),
    )
    try:
        progress = Progress(len(STEPS), spark=spark.sparkContext)
        result = run(spark, settings, progress)
    finally:
        spark.stop()
    print(f"report:  {result.report_html}")
    print(f"weights: {result.weights}  (LAGASSIGN_WEIGHTS_PATH)")
    print(f"tables:  {result.report_html.parent / 'tables'}")
    return 0


def _history(
    spark: SparkSession, settings: JobSettings, progress: Progress
) -> tuple[DataFrame, str]:
    if settings.kafka_bootstrap is not None and settings.kafka_topic is not None:
        rows = read_history_topic(spark, settings.kafka_bootstrap, settings.kafka_topic)
        rows = rows.persist(StorageLevel.MEMORY_AND_DISK)  # read the topic once
        return rows, f"Kafka topic {settings.kafka_topic} at {settings.kafka_bootstrap}"
    if not settings.use_synthetic:
        files = history_files(settings.history)
        if not files.readable:
            raise SystemExit(
                f"no history to read: {files.why_unreadable()}. "
                "(--synthetic runs on a seeded synthetic history instead.)"
            )
        if files.in_progress:
            progress.note(
                f"reading the {files.finished} finished file(s) in {settings.history}; "
                f"{files.in_progress} in-progress file(s) of a running sidecar join once "
                "finished (LAGASSIGN_HISTORY_ROLL_INTERVAL_S)"
            )
        return read_history(spark, settings.history), f"Parquet history in {settings.history}"
    spec = settings.synthetic
    progress.note(
        f"--synthetic: writing a synthetic history (seed {spec.seed}, "
        f"{spec.rows:,} rows) to {settings.synthetic_dir}"
    )
    write_history(synthetic_history(spark, spec), settings.synthetic_dir)
    source = f"synthetic history (seed {spec.seed}) in {settings.synthetic_dir}"
    return read_history(spark, settings.synthetic_dir), source


def _facts(rates: DataFrame, source: str) -> HistoryFacts:
    row = rates.agg(
        F.count(F.lit(1)).alias("rows"),
        F.count_distinct("cluster", "group").alias("groups"),
        F.count_distinct("cluster", "group", "topic", "partition").alias("partitions"),
        F.min(F.unix_millis("ts")).alias("first_ms"),
        F.max(F.unix_millis("ts")).alias("last_ms"),
    ).collect()[0]
    return HistoryFacts(
        source=source,
        rows=row["rows"],
        groups=row["groups"],
        partitions=row["partitions"],
        first=_moment(row["first_ms"]),
        last=_moment(row["last_ms"]),
    )


def _group_sizes(replayed: DataFrame) -> tuple[int, int]:
    """Replayed groups, and those with at most one member in every replayed snapshot."""
    row = (
        replayed.groupBy("cluster", "group")
        .agg(F.max("members").alias("most"))
        .agg(
            F.count(F.lit(1)).alias("groups"),
            F.count(F.when(F.col("most") <= 1, True)).alias("single"),
        )
        .collect()[0]
    )
    return int(row["groups"]), int(row["single"])


def _series(table: DataFrame, column: str) -> list[Series]:
    points: dict[str, list[tuple[float, float]]] = {}
    for row in table.select("strategy", F.unix_millis("ts").alias("ts_ms"), column).collect():
        points.setdefault(row["strategy"], []).append((row["ts_ms"] / 1000, float(row[column])))
    return [Series(name, tuple(sorted(pts))) for name, pts in sorted(points.items())]


def _settings_facts(settings: JobSettings) -> dict[str, str]:
    spec, replay = settings.rates, settings.backtest
    replayed = f"every {replay.every} snapshot(s)" + (
        f", the newest {replay.last} per group" if replay.last is not None else ""
    )
    return {
        "rate window": f"{spec.window_s:g} s",
        "largest gap a step spans": f"{spec.max_gap_s:g} s",
        "forecast horizon": f"{spec.horizon_s:g} s",
        "backtest": replayed,
        "strategies": ", ".join(replay.strategy_names),
    }


def _write(table: DataFrame, path: Path) -> None:
    table.write.mode("overwrite").parquet(os.fspath(path))


def _moment(epoch_ms: int | None) -> datetime | None:
    return None if epoch_ms is None else datetime.fromtimestamp(epoch_ms / 1000, UTC)


def _parser() -> argparse.ArgumentParser:
    defaults = JobSettings()
    parser = argparse.ArgumentParser(
        prog="python -m lagassign_pipeline",
        description="Lag history -> rates, forecasts, forecast weights and a backtest report.",
    )
    add = parser.add_argument
    add(
        "--history",
        type=Path,
        default=defaults.history,
        help="the sidecar's Parquet history directory (LAGASSIGN_HISTORY_DIR); default %(default)s",
    )
    add("--kafka-bootstrap", help="read the history from a Kafka topic at this address")
    add("--kafka-topic", help="the Kafka topic holding history rows as JSON")
    add(
        "--kafka-package",
        action="append",
        help=f"Maven coordinates of Spark's Kafka connector (default {KAFKA_PACKAGES[0]})",
    )
    add(
        "--synthetic",
        action="store_true",
        help="run on a seeded synthetic history instead of --history (never done unasked)",
    )
    add(
        "--synthetic-dir",
        type=Path,
        default=defaults.synthetic_dir,
        help="where --synthetic writes its history; default %(default)s",
    )
    add(
        "--report",
        type=Path,
        default=defaults.report,
        help="report and tables directory; default %(default)s",
    )
    add(
        "--weights",
        type=Path,
        default=defaults.weights,
        help="forecast weights file to write (LAGASSIGN_WEIGHTS_PATH); default %(default)s",
    )
    add(
        "--window-seconds",
        type=float,
        default=defaults.rates.window_s,
        help="trailing window the rates are measured over; default %(default)g",
    )
    add(
        "--max-gap-seconds",
        type=float,
        default=defaults.rates.max_gap_s,
        help="largest gap between two refreshes a rate step spans; default %(default)g",
    )
    add(
        "--horizon-seconds",
        type=float,
        default=COMMAND_HORIZON_S,
        help="how far ahead the lag is forecast, which is also how long the sidecar takes "
        "the weights as fresh by default; default %(default)g",
    )
    add(
        "--backtest-every",
        type=int,
        default=defaults.backtest.every,
        help="replay every n-th snapshot; default %(default)s",
    )
    add(
        "--backtest-last",
        type=int,
        help="replay only the newest n (sampled) snapshots; default all",
    )
    add("--strategies", help="comma-separated strategies to replay; default all")
    add("--master", default="local[2]", help="Spark master; default %(default)s")
    add("--driver-memory", default="2g", help="Spark driver memory; default %(default)s")
    return parser


def _settings(arguments: argparse.Namespace) -> JobSettings:
    if (arguments.kafka_bootstrap is None) != (arguments.kafka_topic is None):
        raise SystemExit("--kafka-bootstrap and --kafka-topic go together")
    if arguments.kafka_package is None:
        arguments.kafka_package = list(KAFKA_PACKAGES)
    try:
        rates = RateSpec(
            window_s=arguments.window_seconds,
            max_gap_s=arguments.max_gap_seconds,
            horizon_s=arguments.horizon_seconds,
        )
        strategies = tuple(s for s in (arguments.strategies or "").split(",") if s)
        replay = BacktestSpec(
            horizon_s=rates.horizon_s,
            every=arguments.backtest_every,
            last=arguments.backtest_last,
            strategies=strategies,
        )
    except ValueError as exc:
        raise SystemExit(f"error: {exc}") from exc
    return JobSettings(
        history=arguments.history,
        kafka_bootstrap=arguments.kafka_bootstrap,
        kafka_topic=arguments.kafka_topic,
        use_synthetic=arguments.synthetic,
        synthetic_dir=arguments.synthetic_dir,
        report=arguments.report,
        weights=arguments.weights,
        rates=rates,
        backtest=replay,
    )
