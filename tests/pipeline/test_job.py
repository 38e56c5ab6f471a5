"""The job end to end on a small synthetic history: tables, weights file, report page."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from lagassign.core.strategies import STRATEGIES
from lagassign.forecast.weights import load_forecast_weights
from lagassign_pipeline.backtest import BACKTEST_COLUMNS, BacktestSpec
from lagassign_pipeline.job import STEPS, JobSettings, _parser, _settings, run
from lagassign_pipeline.progress import Progress
from lagassign_pipeline.rates import RateSpec
from lagassign_pipeline.synthetic import SyntheticSpec, synthetic_history, write_history

SPEC = SyntheticSpec(
    groups=2, topics_per_group=2, partitions_per_topic=3, members_per_group=2, snapshots=30
)


def settings_in(root: Path, **changes: object) -> JobSettings:
    values: dict[str, object] = {
        "history": root / "history",
        "use_synthetic": True,
        "synthetic_dir": root / "synthetic",
        "synthetic": SPEC,
        "report": root / "report",
        "weights": root / "forecast-weights.json",
        "rates": RateSpec(window_s=60, max_gap_s=30, horizon_s=60),
        "backtest": BacktestSpec(horizon_s=60, every=2),
    }
    values.update(changes)
    return JobSettings(**values)  # type: ignore[arg-type]


@pytest.mark.spark
def test_the_job_writes_tables_weights_and_the_report(spark: SparkSession, tmp_path: Path) -> None:
    out = io.StringIO()
    result = run(spark, settings_in(tmp_path), Progress(len(STEPS), stream=out))

    log = out.getvalue()
    assert "--synthetic: writing a synthetic history (seed 7, 360 rows)" in log
    for step in STEPS:
        assert f"{step} done in" in log
    assert set(result.seconds) == set(STEPS)
    assert (result.facts.rows, result.facts.groups, result.facts.partitions) == (360, 2, 12)

    replayed = spark.read.parquet(str(result.tables["backtest"]))
    assert tuple(replayed.columns) == BACKTEST_COLUMNS
    # 15 snapshots per group (every 2nd of 30) x 6 strategies x 2 weights
    assert replayed.count() == 2 * 15 * len(STRATEGIES) * 2
    summary = spark.read.parquet(str(result.tables["backtest_summary"]))
    assert summary.count() == len(STRATEGIES) * 2
    assert spark.read.parquet(str(result.tables["forecasts"])).count() == 12
    assert spark.read.parquet(str(result.tables["rate_windows"])).count() >= 12

    assert result.facts.last is not None
    weights = load_forecast_weights(
        result.weights, now=result.facts.last + timedelta(seconds=5), max_age_s=60
    )
    assert weights is not None
    assert [g.group for g in weights.groups] == ["group-00", "group-01"]
    group = weights.for_group("group-00", cluster="local")
    assert group is not None
    assert group.lags({"g00-topic-0": 3, "g00-topic-1": 3}).complete

    html = result.report_html.read_text(encoding="utf-8")
    for strategy in STRATEGIES:
        assert f"<td>{strategy}</td>" in html
    assert html.count("<svg") == 5
    assert "one member" not in html  # two members per group


@pytest.mark.spark
def test_recorded_history_is_used_without_synthetic_data(
    spark: SparkSession, tmp_path: Path
) -> None:
    recorded = tmp_path / "recorded"
    # One member per group: the report says why every strategy shows imbalance 1.0.
    write_history(synthetic_history(spark, replace(SPEC, members_per_group=1)), recorded)
    out = io.StringIO()
    settings = settings_in(
        tmp_path,
        history=recorded,
        use_synthetic=False,
        backtest=BacktestSpec(horizon_s=60, every=10, strategies=("range",)),
    )
    result = run(spark, settings, Progress(len(STEPS), stream=out))
    assert "synthetic" not in out.getvalue()
    assert not (tmp_path / "synthetic").exists()
    assert result.facts.rows == SPEC.rows
    assert result.facts.source == f"Parquet history in {recorded}"
    assert "Every replayed group has one member" in result.report_html.read_text(encoding="utf-8")


@pytest.mark.spark
@pytest.mark.parametrize(
    ("files", "message"),
    [
        (None, "does not exist"),
        ([], "holds no Parquet history file"),
        ([".part-1.parquet.inprogress"], "only 1 in-progress file.* LAGASSIGN_HISTORY_ROLL"),
    ],
)
def test_a_history_that_cannot_be_read_is_refused_never_replaced(
    spark: SparkSession, tmp_path: Path, files: list[str] | None, message: str
) -> None:
    history = tmp_path / "history"
    if files is not None:
        (history / "date=2026-01-01").mkdir(parents=True)
        for name in files:
            (history / "date=2026-01-01" / name).write_bytes(b"PAR1")
    settings = settings_in(tmp_path, history=history, use_synthetic=False)
    with pytest.raises(SystemExit, match=message):
        run(spark, settings, Progress(len(STEPS), stream=io.StringIO()))
    assert not (tmp_path / "synthetic").exists()


def test_help_shows_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # no line breaks inside the paths
    text = _parser().format_help()
    for default in ("var/history", "var/report", "var/forecast-weights.json", "local[2]", "2g"):
        assert default in text
    assert "default 300" in text
    assert "default 60" in text


def test_the_commands_horizon_outlasts_a_run_a_roll_and_a_schedule() -> None:
    settings = _settings(_parser().parse_args([]))
    assert settings.rates.horizon_s == settings.backtest.horizon_s == 900
    assert settings.rates.horizon_s > 284 + 300 + 300  # slowest run seen, roll, period


def test_the_command_line_builds_the_settings() -> None:
    arguments = _parser().parse_args(
        ["--horizon-seconds", "120", "--backtest-every", "5", "--strategies", "range,balanced"]
    )
    settings = _settings(arguments)
    assert settings.rates.horizon_s == settings.backtest.horizon_s == 120
    assert settings.backtest.every == 5
    assert settings.backtest.strategies == ("range", "balanced")
    assert settings.history == Path("var/history")
    assert settings.weights == Path("var/forecast-weights.json")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--kafka-topic", "history"], "go together"),
        (["--strategies", "nope"], "unknown strategies"),
        (["--window-seconds", "0"], "window_s must be positive"),
        (["--backtest-every", "0"], "every must be at least 1"),
    ],
)
def test_nonsense_on_the_command_line_is_refused(argv: list[str], message: str) -> None:
    with pytest.raises(SystemExit, match=message):
        _settings(_parser().parse_args(argv))
