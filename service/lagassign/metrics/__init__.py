"""The sidecar's Prometheus metrics, in the app's own registry (never the global one).

Answers (:mod:`lagassign.metrics.assign`), recorded as ``POST /assign`` answers:

- ``lagassign_assign_requests_total{group,strategy}``
- ``lagassign_assign_failures_total{reason}`` (reason = the error code)
- ``lagassign_assign_duration_seconds`` (histogram, 1 ms to 5 s)
- ``lagassign_assignment_imbalance_ratio{group}``
- ``lagassign_assignment_moved_partitions_total{group}``

Lag (:mod:`lagassign.metrics.lag_view`), read from the lag view's cached
snapshots at scrape time, so a scrape never waits on Kafka:

- ``lagassign_group_lag_sum{group}``, ``lagassign_group_lag_max{group}``
- ``lagassign_partition_lag{group,topic,partition}`` (switchable off)
- ``lagassign_lag_snapshot_timestamp_seconds{group}``
- ``lagassign_lag_refresh_duration_seconds`` (histogram, fed after each refresh)
- ``lagassign_lag_refresh_errors_total``, ``lagassign_kafka_up``
- ``lagassign_tracked_groups_evicted_total`` (groups tracked on demand, then dropped)

Live rates and time lag (:mod:`lagassign.metrics.rates`), read from the rate window:

- ``lagassign_group_lag_seconds_max{group}``, ``lagassign_group_produce_rate{group}``,
  ``lagassign_group_consume_rate{group}``
- ``lagassign_partition_lag_seconds``, ``lagassign_partition_produce_rate``,
  ``lagassign_partition_consume_rate`` ``{group,topic,partition}`` (same switch)

Rebalance advice (:mod:`lagassign.metrics.advice`), read from the advice tracker:

- ``lagassign_rebalance_advised{group}``, ``lagassign_advised_rebalances_total{group}``

And ``lagassign_build_info{version}`` (:mod:`lagassign.metrics.registry`).
"""

from lagassign.metrics.assign import AssignMetrics
from lagassign.metrics.lag_view import LagViewCollector, RefreshMetrics
from lagassign.metrics.registry import ServiceMetrics, service_metrics

__all__ = [
    "AssignMetrics",
    "LagViewCollector",
    "RefreshMetrics",
    "ServiceMetrics",
    "service_metrics",
]
