"""A forecast weights file holding one group's forecast, as the pipeline writes it."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from lagassign.forecast.weights import ForecastWeights, GroupForecast, write_forecast_weights


def one_group_weights(
    path: Path,
    group_id: str,
    topics: Mapping[str, tuple[int | None, ...]],
    *,
    as_of: datetime,
    horizon_s: float = 300.0,
    window_s: float = 900.0,
    cluster: str = "default",
) -> Path:
    """Write ``path``: ``group_id``'s forecast lags per topic, of the history ``as_of``."""
    write_forecast_weights(
        path,
        ForecastWeights(
            generated_at=as_of,
            horizon_seconds=horizon_s,
            window_seconds=window_s,
            groups=(GroupForecast(cluster, group_id, as_of, topics),),
        ),
    )
    return path
