"""The one place the sidecar is put together: every long-lived part, from :class:`Settings`.

:func:`build_sidecar` runs in the app's lifespan (:mod:`lagassign.http.app`).
It makes the metrics, the lag view (the real one over the configured cluster,
which runs its Kafka clients and refresh listeners on an event loop of its own in a
thread of its own, :mod:`lagassign.lagview.own_loop`; the one a test passes in;
or none), its refresh listeners (the metrics, the
history recorder when ``LAGASSIGN_HISTORY_DIR`` is set, and the live rate
window), the forecast source when ``LAGASSIGN_WEIGHTS_PATH`` is set, and the
answer log, the lag model of ``POST /assign`` and what it keeps between rebalances
(the lag cache, its warmer, the last answers). Routes receive the
parts through the typed dependencies of :mod:`lagassign.http.parts`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lagassign.assign.answer_log import AnswerLog
from lagassign.assign.caches import AssignCaches
from lagassign.assign.lag_cache import LagModel
from lagassign.assign.lag_warmer import LagWarmer
from lagassign.forecast.source import ForecastSource
from lagassign.groups.advice import AdvicePolicy
from lagassign.groups.advice_tracker import AdviceTracker
from lagassign.groups.live_match import live_status
from lagassign.groups.nudger import GroupNudger
from lagassign.history.recorder import HistoryRecorder
from lagassign.http.heavy import HeavyWork
from lagassign.lagview.listeners import RefreshListener
from lagassign.lagview.outage_log import OutageLog
from lagassign.lagview.reader import LagReader
from lagassign.lagview.refresh import RefreshLoop
from lagassign.lagview.rules import Isolation
from lagassign.lagview.view import LagView
from lagassign.metrics import ServiceMetrics, service_metrics
from lagassign.metrics.advice import AdviceCollector
from lagassign.metrics.nudge import NudgeCollector
from lagassign.metrics.prepared import PreparedJoinsCollector
from lagassign.rates.lag_models import lag_model_of
from lagassign.rates.window import RateWindow
from lagassign.settings import Settings

CLIENT_ID = "lagassign"
# A snapshot older than this many refresh intervals counts as stale (as on /groups).
STALE_AFTER_INTERVALS = 3


@dataclass(frozen=True, slots=True)
class Sidecar:
    """Everything a route reads: settings, lag view, answer log, metrics, forecast."""

    settings: Settings
    lag_view: LagReader | None
    answers: AnswerLog
    metrics: ServiceMetrics
    forecast: ForecastSource | None
    #: The live rate window (with the real lag view only).
    rates: RateWindow | None = None
    advice: AdviceTracker | None = None
    #: The bound on heavy /assign work at once (LAGASSIGN_MAX_HEAVY_REQUESTS).
    heavy: HeavyWork | None = None
    #: What /assign balances besides the lag (LAGASSIGN_LAG_MODEL), with the rate window.
    lag_model: LagModel | None = None
    #: The lags and last answers kept between rebalances (with a lag view only).
    caches: AssignCaches | None = None
    #: Makes the kept lags ready after each refresh (with a refreshing lag view only).
    warmer: LagWarmer | None = None


def build_sidecar(settings: Settings, *, lag_view: LagReader | None, kafka: bool) -> Sidecar:
    """The parts of one app; with ``kafka`` the real lag view of the configured cluster."""
    metrics = service_metrics(
        partition_metrics=settings.partition_metrics,
        max_groups=settings.max_tracked_groups,
        group_idle_s=settings.tracked_group_idle_s,
    )
    rates: RateWindow | None = None
    advice = advice_tracker(settings)
    nudger: GroupNudger | None = None
    if kafka:
        rates = rate_window(settings)
        listeners = [*refresh_listeners(settings, metrics), rates, advice]
        lag_view = kafka_lag_view(settings, listeners=listeners)
        if settings.nudge_consumer_groups:
            # After the advice: it acts on the advice this refresh computed.
            nudger = GroupNudger(advice, lag_view.nudge)
            lag_view.listeners.append(nudger)
    elif isinstance(lag_view, RefreshLoop):
        lag_view.listeners.extend((advice, metrics.assignments))
    caches = AssignCaches() if lag_view is not None else None
    warmer: LagWarmer | None = None
    if caches is not None and isinstance(lag_view, RefreshLoop):
        # Last: it reads the rate window this refresh has just filled.
        warmer = LagWarmer(caches.lags, lag_view, caches.joins, settings.default_strategy)
        lag_view.listeners.append(warmer)
        metrics.registry.register(PreparedJoinsCollector(caches.joins))
    if lag_view is not None:
        metrics.collect_lag_of(lag_view)
        advice.watch(lag_view)
    if lag_view is not None and rates is not None:
        metrics.collect_rates_of(lag_view, rates)
    metrics.registry.register(AdviceCollector(advice))
    metrics.registry.register(NudgeCollector(nudger.counts if nudger is not None else dict))
    forecast = ForecastSource.from_settings(settings)
    if forecast is not None:
        metrics.collect_weights_of(forecast)
    # The advice weighs what /assign balances: forecast first, then the lag model's weights.
    advice.weigh_with(
        forecast,
        rates,
        settings.lag_model,
        load_horizon_s=settings.load_horizon_s,
        member_capacity=settings.member_capacity,
    )
    metrics.assign.track_groups(settings.groups)
    answers = AnswerLog(
        max_groups=settings.max_tracked_groups, max_bytes=settings.answer_log_max_bytes
    )
    if lag_view is not None:
        metrics.collect_live_match_of(lag_view, answers, live_status)
    heavy = HeavyWork(settings.max_heavy_requests, settings.heavy_wait_s)
    return Sidecar(
        settings,
        lag_view,
        answers,
        metrics,
        forecast,
        rates,
        advice,
        heavy,
        lag_model_of(settings, rates, lag_view),
        caches,
        warmer,
    )


def rate_window(settings: Settings) -> RateWindow:
    """The live rate window, a refresh listener of the lag view."""
    return RateWindow(
        window_s=settings.rate_window_s,
        max_points=settings.rate_window_points,
        refresh_interval_s=settings.refresh_interval_s,
    )


def advice_tracker(settings: Settings) -> AdviceTracker:
    """The rebalance advice of the tracked groups, by the ``LAGASSIGN_ADVICE_*`` settings."""
    policy = AdvicePolicy(
        min_gain=settings.advice_min_gain,
        hold_s=settings.advice_hold_s,
        cooldown_s=settings.advice_cooldown_s,
        strategy=settings.default_strategy,
        stale_after_s=STALE_AFTER_INTERVALS * float(settings.refresh_interval_s),
        rebalance_cost_s=settings.advice_rebalance_cost_s,
        # at least three refreshes: a gain seen once is not yet a gain that lasts
        min_wait_s=3 * float(settings.refresh_interval_s),
        consumer_groups=settings.nudge_consumer_groups,
    )
    return AdviceTracker(policy)


def refresh_listeners(settings: Settings, metrics: ServiceMetrics) -> list[RefreshListener]:
    """Who hears of each refresh: the refresh metrics, the answer counters (a tracked
    group's counters start at 0), the outage log, and the history when it is recorded."""
    listeners: list[RefreshListener] = [
        metrics.refresh,
        metrics.assign,
        metrics.assignments,
        OutageLog(),
    ]
    if settings.history_dir is not None:
        # Imported here: pyarrow comes with the history extra only (history/directory.py).
        from lagassign.history.parquet import ParquetHistorySink

        sink = ParquetHistorySink(
            settings.history_dir,
            settings.cluster,
            max_file_bytes=settings.history_max_file_bytes,
            roll_interval_s=settings.history_roll_interval_s,
        )
        listeners.append(HistoryRecorder(sink))
    return listeners


def kafka_lag_view(settings: Settings, *, listeners: list[RefreshListener]) -> LagView:
    """The lag view of the configured cluster (not started), on a loop of its own: its
    refreshes do not hold the routes' loop (the broker plugin's call has 50 ms)."""
    read_committed: dict[str, Isolation] = {
        g: "read_committed" for g in settings.read_committed_groups
    }
    return LagView(
        list(settings.bootstrap_servers),
        client_kwargs=kafka_client_kwargs(settings),
        interval_s=settings.refresh_interval_s,
        groups=settings.groups,
        group_pattern=settings.group_pattern,
        reset_policy=dict(settings.group_reset_policies),
        default_reset_policy=settings.reset_policy,
        isolation=read_committed,
        request_timeout_s=settings.kafka_timeout_ms / 1000,
        listeners=listeners,
        track_consumer_groups=settings.track_consumer_groups,
        max_on_demand_groups=settings.max_tracked_groups,
        on_demand_idle_s=settings.tracked_group_idle_s,
    )


def kafka_client_kwargs(settings: Settings) -> dict[str, Any]:
    """aiokafka's security and identity arguments from the settings."""
    kwargs: dict[str, Any] = {
        "client_id": CLIENT_ID,
        "security_protocol": settings.security_protocol,
    }
    if settings.security_protocol.startswith("SASL_"):
        assert settings.sasl_password is not None  # checked by Settings
        kwargs["sasl_mechanism"] = settings.sasl_mechanism
        kwargs["sasl_plain_username"] = settings.sasl_username
        kwargs["sasl_plain_password"] = settings.sasl_password.get_secret_value()
    if settings.security_protocol.endswith("SSL"):
        from aiokafka.helpers import create_ssl_context  # type: ignore[import-untyped]

        cafile = str(settings.ssl_cafile) if settings.ssl_cafile else None
        kwargs["ssl_context"] = create_ssl_context(cafile=cafile)
    return kwargs
