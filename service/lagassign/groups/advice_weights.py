"""What the rebalance advice weighs partitions by: the lag ``POST /assign`` would balance.

The advice asks whether the default strategy's answer would lower the worst
member's lag; when ``/assign`` balances something else than the backlog, the advice
weighs the same thing, so it never advises a rebalance whose answer would balance
differently. In order of preference, as ``/assign`` takes its lags:

1. ``forecast``: fresh forecast weights for the group, when they give a value for
   every partition the snapshot lists (a partial forecast is not used here: the
   advice never guesses);
2. ``kafka-drain``: with ``LAGASSIGN_LAG_MODEL=drain``, each partition's drain
   weight (:mod:`lagassign.rates.drain`: lag plus recent produce rate x the group's
   catch-up horizon), exactly as ``/assign`` computes it;
3. ``kafka-load``: with ``LAGASSIGN_LAG_MODEL=load``, each partition's lag plus its
   produce rate x ``LAGASSIGN_LOAD_HORIZON_S`` (rounded), where the rate is known;
4. ``kafka``: the lag view's lag.

A partition whose lag is unknown stays unknown whatever the source (the advice
refuses unknown lag). Pure: the forecast and the rates come in as values.

The advice never acts on a forecast that the live lag contradicts
(:func:`contradicted`): a partition whose live lag is growing (its produce rate over
the rate window above its consume rate) cannot be below that lag at the forecast's
horizon unless the group reads it faster, and a forecast saying so is set aside. The
advice is then not to rebalance, since ``POST /assign`` would still balance that
forecast. Example: a 600 s forecast of 0 for a partition at lag 2,022 that gains
3 records/s: contradicted.

Example: lags ``[900, 800, 10, 10]`` with produce rates ``[0, 0, 20, 20]`` records/s
at a 60 s horizon weigh ``[900, 800, 1210, 1210]`` (``kafka-load``); a forecast of
``[100, 100, 2000, 2000]`` for all four partitions weighs those (``forecast``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from lagassign.assign.lag_sources import Horizon, LagOrigin, LagSource
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.rates.drain_lags import live_of, with_drain
from lagassign.rates.window import RateWindow

#: Topic, partition -> produce rate in records/s, or None when not known.
ProduceRate = Callable[[str, int], float | None]
#: Topic, partition -> (produce rate, consume rate) in records/s, each None when not known.
FlowRates = Callable[[str, int], tuple[float | None, float | None]]


def contradicted(
    snapshot: GroupSnapshot, forecast: Mapping[str, Sequence[int | None]], rates: FlowRates
) -> str | None:
    """Why the live lag contradicts ``forecast``, ``None`` when it does not.

    A partition's forecast contradicts its live lag when it is below the lag while the
    lag grows (produce rate above consume rate, both known). The reason names the
    partition whose live lag is furthest above its forecast, and how many there are.

    Example: lags ``[2022, 10]``, a forecast of ``[0, 0]`` and both partitions gaining
    3 records/s: "the forecast of t-0 (0) is below its live lag (2,022, growing 3.0
    records/s), 2 partition(s) so: no advice on that forecast".
    """
    worst: tuple[int, str, int, int, float] | None = None
    count = 0
    for p in snapshot.partitions:
        values = forecast.get(p.topic, ())
        if p.lag is None or p.partition >= len(values):
            continue
        expected = values[p.partition]
        if expected is None or expected >= p.lag:
            continue
        produce, consume = rates(p.topic, p.partition)
        if produce is None or consume is None or produce <= consume:
            continue
        count += 1
        gap = p.lag - expected
        if worst is None or gap > worst[0]:
            worst = (gap, f"{p.topic}-{p.partition}", expected, p.lag, produce - consume)
    if worst is None:
        return None
    _, name, expected, lag, growth = worst
    return (
        f"the forecast of {name} ({expected:,}) is below its live lag ({lag:,}, growing "
        f"{growth:.1f} records/s), {count} partition(s) so: no advice on that forecast"
    )


def forecast_covers(snapshot: GroupSnapshot, forecast: Mapping[str, Sequence[int | None]]) -> bool:
    """Whether ``forecast`` has a value for every partition the snapshot lists."""
    for p in snapshot.partitions:
        values = forecast.get(p.topic, ())
        if p.partition >= len(values) or values[p.partition] is None:
            return False
    return True


def weighed(
    snapshot: GroupSnapshot,
    *,
    forecast: Mapping[str, Sequence[int | None]] | None = None,
    produce_rate: ProduceRate | None = None,
    horizon_s: float = 0.0,
) -> tuple[GroupSnapshot, LagOrigin]:
    """The snapshot with every known lag replaced by its weight, and the weight's source.

    ``forecast`` is the group's fresh forecast (None: none fresh); ``produce_rate``
    is given only with the ``load`` lag model (the ``drain`` model's weights are
    :func:`drained`'s).
    """
    if forecast is not None and snapshot.partitions and forecast_covers(snapshot, forecast):
        rows = tuple(
            p if p.lag is None else replace(p, lag=forecast[p.topic][p.partition])
            for p in snapshot.partitions
        )
        return replace(snapshot, partitions=rows), "forecast"
    if produce_rate is not None:
        loaded = []
        for p in snapshot.partitions:
            rate = produce_rate(p.topic, p.partition) if p.lag is not None else None
            if p.lag is None or rate is None:
                loaded.append(p)
            else:
                loaded.append(replace(p, lag=p.lag + round(rate * horizon_s)))
        return replace(snapshot, partitions=tuple(loaded)), "kafka-load"
    return snapshot, "kafka"


def drained(
    snapshot: GroupSnapshot, rates: RateWindow, capacity: float | None
) -> tuple[GroupSnapshot, Horizon]:
    """The snapshot's known lags as drain weights, and the horizon from this group's figures."""
    counts: dict[str, int] = {}
    for p in snapshot.partitions:
        counts[p.topic] = max(counts.get(p.topic, 0), p.partition + 1)
    lags = {t: [0] * n for t, n in counts.items()}
    for p in snapshot.partitions:
        if p.lag is not None:
            lags[p.topic][p.partition] = p.lag
    members = max(1, len(snapshot.members))
    source = LagSource("kafka", lags=lags)
    drain = with_drain(
        source,
        snapshot.group_id,
        rates,
        live_of(snapshot),
        members=members,
        capacity_setting=capacity,
    )
    rows = tuple(
        p if p.lag is None else replace(p, lag=drain.lags[p.topic][p.partition])
        for p in snapshot.partitions
    )
    if drain.horizon is None:
        raise AssertionError("a kafka lag source always gets a drain horizon")
    return replace(snapshot, partitions=rows), drain.horizon
