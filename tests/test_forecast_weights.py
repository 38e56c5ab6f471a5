"""The forecast weights file: format round trip, staleness, unknown partitions, bad files."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from lagassign.forecast.weights import (
    ForecastWeights,
    GroupForecast,
    InvalidForecastWeights,
    dump_forecast_weights,
    load_forecast_weights,
    parse_forecast_weights,
    write_forecast_weights,
)

AS_OF = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def weights(*groups: GroupForecast) -> ForecastWeights:
    return ForecastWeights(
        generated_at=AS_OF + timedelta(seconds=30),
        horizon_seconds=60.0,
        window_seconds=300.0,
        groups=groups,
    )


@contextmanager
def umask(mask: int) -> Iterator[None]:
    """The process's umask is ``mask`` inside the block, what it was after."""
    before = os.umask(mask)
    try:
        yield
    finally:
        os.umask(before)


def orders(as_of: datetime = AS_OF, cluster: str = "prod") -> GroupForecast:
    return GroupForecast(cluster, "orders", as_of, {"t0": (1_200, 80, None), "t1": (5,)})


def test_a_written_file_loads_back_equal(tmp_path: Path) -> None:
    path = tmp_path / "weights" / "forecast-weights.json"
    written = weights(orders(), GroupForecast("prod", "audit", AS_OF, {"a": (0, 7)}))
    write_forecast_weights(path, written)
    loaded = load_forecast_weights(path, now=AS_OF + timedelta(seconds=10), max_age_s=60)
    assert loaded is not None
    assert sorted(loaded.groups, key=lambda g: g.group) == sorted(
        written.groups, key=lambda g: g.group
    )
    assert (loaded.horizon_seconds, loaded.window_seconds) == (60.0, 300.0)
    assert loaded.generated_at == written.generated_at
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


def test_the_documented_example_reads_as_documented() -> None:
    document = {
        "format": "lagassign-forecast-weights",
        "version": 1,
        "generated_at": "2026-03-01T12:00:30.000Z",
        "horizon_seconds": 60,
        "window_seconds": 300,
        "groups": [
            {
                "cluster": "prod",
                "group": "orders",
                "as_of": "2026-03-01T12:00:00.000Z",
                "topics": {"t0": [1200, 80, None]},
            }
        ],
    }
    parsed = parse_forecast_weights(document)
    group = parsed.for_group("orders")
    assert group is not None
    lags = group.lags({"t0": 4})
    assert lags.lags == {"t0": [1_200, 80, 0, 0]}
    assert (lags.unknown_partitions, lags.complete) == (2, False)
    assert json.loads(dump_forecast_weights(parsed)) == document


def test_lags_for_a_topic_the_forecast_never_saw_are_unknown() -> None:
    lags = orders().lags({"t0": 2, "t9": 3})
    assert lags.lags == {"t0": [1_200, 80], "t9": [0, 0, 0]}
    assert lags.unknown_partitions == 3
    assert orders().lags({"t1": 1}).complete


def test_stale_groups_are_dropped_and_an_all_stale_file_is_none(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    old = GroupForecast("prod", "audit", AS_OF - timedelta(hours=2), {"a": (1,)})
    write_forecast_weights(path, weights(orders(), old))
    fresh = load_forecast_weights(path, now=AS_OF + timedelta(minutes=5), max_age_s=600)
    assert fresh is not None
    assert [g.group for g in fresh.groups] == ["orders"]
    assert fresh.as_of == AS_OF
    assert load_forecast_weights(path, now=AS_OF + timedelta(seconds=601), max_age_s=600) is None
    # exactly max_age_s old is still fresh
    assert load_forecast_weights(path, now=AS_OF + timedelta(seconds=600), max_age_s=600)


def test_a_missing_file_is_none_and_now_must_carry_a_zone(tmp_path: Path) -> None:
    assert load_forecast_weights(tmp_path / "absent.json", AS_OF, 60) is None
    with pytest.raises(ValueError, match="time zone"):
        load_forecast_weights(tmp_path / "absent.json", AS_OF.replace(tzinfo=None), 60)


def test_a_group_in_two_clusters_needs_the_cluster() -> None:
    both = weights(orders(cluster="east"), orders(cluster="west"))
    assert both.for_group("orders") is None
    west = both.for_group("orders", cluster="west")
    assert west is not None
    assert west.cluster == "west"
    assert both.for_group("payments") is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not JSON"),
        ("[]", "JSON object"),
        ('{"format": "other"}', "format"),
        ('{"format": "lagassign-forecast-weights", "version": 2}', "version 2"),
    ],
)
def test_an_unreadable_file_raises(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "w.json"
    path.write_text(text)
    with pytest.raises(InvalidForecastWeights, match=message):
        load_forecast_weights(path, AS_OF, 60)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"topics": {"t0": [-1]}}, r"topics\['t0'\]\[0\] must be a non-negative integer"),
        ({"topics": {"t0": [1.5]}}, "non-negative integer"),
        ({"topics": {"t0": [True]}}, "non-negative integer"),
        ({"as_of": "2026-03-01T12:00:00"}, "time zone"),
        ({"as_of": "yesterday"}, "ISO 8601"),
        ({"group": ""}, "group must be a non-empty string"),
        ({"topics": [1]}, "topics must be an object"),
    ],
)
def test_a_bad_group_entry_is_named(change: dict[str, object], message: str) -> None:
    document = json.loads(dump_forecast_weights(weights(orders())))
    document["groups"][0].update(change)
    with pytest.raises(InvalidForecastWeights, match=message):
        parse_forecast_weights(document)


def test_a_repeated_group_and_a_bad_horizon_are_refused() -> None:
    document = json.loads(dump_forecast_weights(weights(orders(), orders())))
    with pytest.raises(InvalidForecastWeights, match="repeats group 'orders'"):
        parse_forecast_weights(document)
    document = json.loads(dump_forecast_weights(weights(orders())))
    document["horizon_seconds"] = 0
    with pytest.raises(InvalidForecastWeights, match="horizon_seconds"):
        parse_forecast_weights(document)


def test_by_default_freshness_is_the_forecast_horizon(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    write_forecast_weights(path, weights(orders()))  # horizon 60 s
    assert load_forecast_weights(path, now=AS_OF + timedelta(seconds=60)) is not None
    # An hour-old history is not fresh for a 60 s forecast.
    assert load_forecast_weights(path, now=AS_OF + timedelta(seconds=61)) is None
    assert load_forecast_weights(path, now=AS_OF + timedelta(hours=1)) is None
    # A configured maximum age overrides the horizon.
    assert load_forecast_weights(path, now=AS_OF + timedelta(hours=1), max_age_s=3_600)


def test_the_written_file_is_0644_whatever_the_umask(tmp_path: Path) -> None:
    path = tmp_path / "forecast-weights.json"
    with umask(0o077):
        write_forecast_weights(path, weights(orders()))
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv"
)
def test_the_image_user_reads_a_file_written_by_another_user() -> None:
    """The sidecar's user (uid 10001 in the image) reads what root's pipeline wrote."""
    shared = Path(tempfile.mkdtemp(prefix="lagassign-weights-", dir="/tmp"))
    try:
        shared.chmod(0o755)
        path = shared / "forecast-weights.json"
        with umask(0o077):
            write_forecast_weights(path, weights(orders()))
        setpriv = shutil.which("setpriv")
        assert setpriv is not None
        done = subprocess.run(
            [setpriv, "--reuid=10001", "--regid=10001", "--clear-groups", "cat", str(path)],
            capture_output=True,
            timeout=30,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["groups"][0]["group"] == "orders"
    finally:
        shutil.rmtree(shared)
