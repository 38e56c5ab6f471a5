"""The lag models of ``POST /assign``, chosen by ``LAGASSIGN_LAG_MODEL``.

Each turns the lag the use case read into what it balances
(:class:`~lagassign.assign.lag_cache.LagModel`): ``load`` adds each partition's
produce rate x a fixed horizon (:mod:`lagassign.rates.load`), ``drain`` the rate x the
group's own catch-up horizon (:mod:`lagassign.rates.drain_lags`); ``backlog`` is the
lag alone (no model). ``inputs`` names what the weights depend on besides the
snapshot: the group's rate windows, replaced by each refresh.
"""

from __future__ import annotations

from dataclasses import dataclass

from lagassign.assign.lag_cache import LagModel
from lagassign.assign.lag_sources import LagSource
from lagassign.assign.request import AssignRequest
from lagassign.lagview.reader import LagReader
from lagassign.rates.drain_lags import live_of, with_drain
from lagassign.rates.load import with_load
from lagassign.rates.window import RateWindow
from lagassign.settings import Settings


def lag_model_of(
    settings: Settings, rates: RateWindow | None, lag_view: LagReader | None
) -> LagModel | None:
    """The lag model ``LAGASSIGN_LAG_MODEL`` names, over the live rate window (none without)."""
    if rates is None:
        return None
    if settings.lag_model == "load":
        return LoadModel(rates, settings.load_horizon_s)
    if settings.lag_model == "drain" and lag_view is not None:
        return DrainModel(rates, lag_view, settings.member_capacity)
    return None


@dataclass(frozen=True, slots=True)
class RatesModel:
    """A lag model over the live rate window: its weights read the group's windows."""

    rates: RateWindow

    def inputs(self, group_id: str) -> object:
        return self.rates.group_windows(group_id)


@dataclass(frozen=True, slots=True)
class LoadModel(RatesModel):
    """``load``: the lag plus each partition's produce rate x a fixed horizon."""

    horizon_s: float

    def __call__(self, lag: LagSource, request: AssignRequest) -> LagSource:
        return with_load(lag, request.group_id, self.rates, self.horizon_s)


@dataclass(frozen=True, slots=True)
class DrainModel(RatesModel):
    """``drain``: the lag plus each partition's produce rate x the group's catch-up horizon."""

    lag_view: LagReader
    capacity_setting: float | None

    def __call__(self, lag: LagSource, request: AssignRequest) -> LagSource:
        return with_drain(
            lag,
            request.group_id,
            self.rates,
            live_of(self.lag_view.snapshot(request.group_id)),
            members=len(request.members),
            capacity_setting=self.capacity_setting,
        )
