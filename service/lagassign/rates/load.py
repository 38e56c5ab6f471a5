"""The ``load`` lag model of ``POST /assign``: the backlog plus what will arrive meanwhile.

With ``LAGASSIGN_LAG_MODEL=load``, lags read from the lag view (source ``kafka``)
become, per partition, ``lag + produce rate x LAGASSIGN_LOAD_HORIZON_S`` (rounded
to whole records), and the answer's ``lag.source`` says ``kafka-load``. A
partition whose produce rate is not known (a new partition, a window of gaps)
keeps its lag. Request lags and fresh forecast weights are left as they are:
the forecast, when fresh, still comes first.

Example: lag 400 and a produce rate of 10 records/s at a 60 s horizon weigh
400 + 600 = 1,000; an idle partition with lag 900 still weighs 900.
"""

from __future__ import annotations

from dataclasses import replace

from lagassign.assign.lag_sources import LagSource
from lagassign.rates.window import RateWindow


def with_load(lag: LagSource, group_id: str, rates: RateWindow, horizon_s: float) -> LagSource:
    """``lag`` (source ``kafka``) with each partition's expected arrivals over the horizon added."""
    if lag.source != "kafka":
        return lag
    with rates.lock:
        loaded: dict[str, list[int]] = {}
        for topic, lags in lag.lags.items():
            row = list(lags)
            for partition, backlog in enumerate(row):
                window = rates.partition_window(group_id, topic, partition)
                produce = window.produce_rate() if window is not None else None
                if produce is not None:
                    row[partition] = backlog + round(produce * horizon_s)
            loaded[topic] = row
    return replace(lag, source="kafka-load", lags=loaded)
