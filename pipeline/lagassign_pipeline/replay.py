"""Replay every strategy over one group's ordered snapshots: the grouped-map function.

The backtest hands this function all the snapshots of one consumer group at once
(``applyInPandas``), so each strategy's answer at one snapshot becomes the ``owned``
partitions of the next: stickiness and moves are those the service would have
produced, computed by the same assignment core (no second implementation).

Per snapshot the members are the distinct consumers owning a partition in it, each
subscribed to every topic of the group in it (the history records owners, not
subscriptions). Each strategy runs twice, on two timelines of its own: on the lags
of that instant (``weights = "lag"``) and on the forecast lags (``"forecast"``). Both
are measured on the lags of that instant (max member lag, imbalance, moves) and on
the lags one horizon later, when the history reaches that far (``realised_*``).

Example: two members and lags ``[9, 1, 1]`` at one snapshot; ``lag-aware`` gives
``c-1 = [0]`` and ``c-2 = [1, 2]``: max lag 9, mean 5.5, imbalance 1.64, no moves.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd  # type: ignore[import-untyped]

from lagassign.core.model import Assignment, Member, Rebalance, make_rebalance
from lagassign.core.stats import assignment_stats
from lagassign.core.strategies import run_strategy

WEIGHTS = ("lag", "forecast")

# The grouped-map input: one row per partition and replayed snapshot.
REPLAY_INPUT_COLUMNS = (
    "cluster",
    "group",
    "ts_ms",
    "horizon_ts_ms",
    "topic",
    "partition",
    "consumer_id",
    "lag",
    "forecast_lag",
    "lag_at_horizon",
)

# The grouped-map output, as a Spark DDL schema.
REPLAY_SCHEMA = (
    "cluster string, group string, ts_ms long, strategy string, weights string, "
    "members int, partitions int, max_lag long, mean_lag double, imbalance double, "
    "lower_bound double, moved int, realised_max_lag long, realised_imbalance double, "
    "compute_ms double"
)
REPLAY_COLUMNS = tuple(part.split()[0] for part in REPLAY_SCHEMA.split(", "))

Lags = dict[str, list[int]]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One group at one refresh, shaped for the assignment core."""

    ts_ms: int
    members: tuple[str, ...]
    partitions: dict[str, int]
    lags: Lags
    forecast: Lags
    later: Lags | None  # lags one horizon later, or None past the end of the history


def snapshots_of(rows: pd.DataFrame) -> Iterator[Snapshot]:
    """The group's snapshots in time order, from its rows (one per partition and refresh).

    A partition without a row in a refresh counts with lag 0; lags and forecasts are
    rounded to whole messages and never negative.
    """
    ordered = rows.sort_values(["ts_ms", "topic", "partition"], kind="stable")
    ts = ordered["ts_ms"].to_numpy(dtype=np.int64)
    horizon = ordered["horizon_ts_ms"].to_numpy(dtype=np.float64, na_value=np.nan)
    topics: list[str] = ordered["topic"].tolist()
    partition: list[int] = ordered["partition"].to_numpy(dtype=np.int64).tolist()
    consumers: list[object] = ordered["consumer_id"].tolist()
    lag, forecast, later = (
        _whole(ordered[name]) for name in ("lag", "forecast_lag", "lag_at_horizon")
    )
    starts = np.flatnonzero(np.r_[True, ts[1:] != ts[:-1]]).tolist()
    for a, b in zip(starts, [*starts[1:], len(ts)], strict=True):
        counts: dict[str, int] = {}
        for i in range(a, b):
            counts[topics[i]] = max(counts.get(topics[i], 0), partition[i] + 1)
        partitions = dict(sorted(counts.items()))
        keys = list(zip(topics[a:b], partition[a:b], strict=True))
        members = sorted({c for c in consumers[a:b] if isinstance(c, str)})
        yield Snapshot(
            ts_ms=int(ts[a]),
            members=tuple(members),
            partitions=partitions,
            lags=_spread(partitions, keys, lag[a:b]),
            forecast=_spread(partitions, keys, forecast[a:b]),
            later=None if np.isnan(horizon[a]) else _spread(partitions, keys, later[a:b]),
        )


def replay_group(rows: pd.DataFrame, strategies: Sequence[str]) -> pd.DataFrame:
    """Replay ``strategies`` over the group's snapshots in time order (``REPLAY_COLUMNS``)."""
    if rows.empty:
        return pd.DataFrame({name: [] for name in REPLAY_COLUMNS})
    cluster, group = str(rows["cluster"].iat[0]), str(rows["group"].iat[0])
    previous: dict[tuple[str, str], Assignment] = {}
    out: list[dict[str, object]] = []
    for snapshot in snapshots_of(rows):
        if not snapshot.members:
            continue  # nobody consumes: there is no rebalance to replay
        later = None
        if snapshot.later is not None:
            plain = [Member(m, tuple(snapshot.partitions)) for m in snapshot.members]
            later = make_rebalance(plain, snapshot.partitions, snapshot.later)
        for strategy in strategies:
            for weights in WEIGHTS:
                timeline = (strategy, weights)
                figures, answer = _replay_one(
                    snapshot, later, strategy, weights, previous.get(timeline, {})
                )
                previous[timeline] = answer
                out.append({"cluster": cluster, "group": group, "ts_ms": snapshot.ts_ms, **figures})
    table = pd.DataFrame(out, columns=list(REPLAY_COLUMNS))
    # Nullable integers, so a snapshot without a horizon gives null, not NaN.
    return table.astype({"realised_max_lag": "Int64", "realised_imbalance": "Float64"})


def _replay_one(
    snapshot: Snapshot,
    later: Rebalance | None,
    strategy: str,
    weights: str,
    before: Assignment,
) -> tuple[dict[str, object], Assignment]:
    """One strategy on one timeline at one snapshot: its figures and its answer."""
    members = _members(snapshot, before)
    now = make_rebalance(members, snapshot.partitions, snapshot.lags)
    decided = (
        now if weights == "lag" else make_rebalance(members, snapshot.partitions, snapshot.forecast)
    )
    started = time.perf_counter()
    result = run_strategy(strategy, decided)
    compute_ms = (time.perf_counter() - started) * 1000
    stats = assignment_stats(now, result)
    realised = None if later is None else assignment_stats(later, result)
    figures: dict[str, object] = {
        "strategy": strategy,
        "weights": weights,
        "members": stats.members,
        "partitions": stats.partitions,
        "max_lag": stats.max_lag,
        "mean_lag": stats.mean_lag,
        "imbalance": stats.imbalance,
        "lower_bound": stats.lower_bound,
        "moved": stats.moved,
        "realised_max_lag": None if realised is None else realised.max_lag,
        "realised_imbalance": None if realised is None else realised.imbalance,
        "compute_ms": compute_ms,
    }
    return figures, result.assignment


def _members(snapshot: Snapshot, before: Assignment) -> list[Member]:
    """The snapshot's members, each owning what the previous answer gave it (still valid)."""
    topics = tuple(snapshot.partitions)
    return [
        Member(
            member_id, topics, owned=_still_owned(before.get(member_id, {}), snapshot.partitions)
        )
        for member_id in snapshot.members
    ]


def _whole(values: pd.Series) -> list[int]:
    """Whole, non-negative message counts (null and NaN count 0)."""
    numbers = values.to_numpy(dtype=np.float64, na_value=np.nan)
    whole: list[int] = (
        np.nan_to_num(np.clip(np.rint(numbers), 0, None), nan=0.0).astype(np.int64).tolist()
    )
    return whole


def _spread(partitions: Mapping[str, int], keys: list[tuple[str, int]], values: list[int]) -> Lags:
    """Per topic, one value per partition id (0 where a partition has no row)."""
    out = {t: [0] * n for t, n in partitions.items()}
    for (topic, p), value in zip(keys, values, strict=True):
        out[topic][p] = value
    return out


def _still_owned(
    owned: Mapping[str, list[int]], partitions: Mapping[str, int]
) -> dict[str, tuple[int, ...]]:
    return {
        topic: tuple(p for p in parts if p < partitions[topic])
        for topic, parts in owned.items()
        if topic in partitions
    }
