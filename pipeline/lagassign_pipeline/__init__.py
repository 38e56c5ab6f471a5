"""The lag history pipeline: rates, forecasts, forecast weights and a backtest report.

The service records one history row per group, partition and lag refresh. This
package reads those rows with PySpark and

- computes per partition the produce rate, consume rate, lag trend, seconds of lag
  and a forecast of lag at a horizon (:mod:`lagassign_pipeline.rates`);
- writes the newest forecasts as the weights file the service loads
  (:mod:`lagassign_pipeline.weights`, format in ``docs/forecast-weights.md``);
- replays every strategy of the assignment core over each group's snapshots
  (:mod:`lagassign_pipeline.backtest`) and renders a self-contained HTML report.

Transforms take and return DataFrames and end in a ``select`` that is their schema
contract; :mod:`lagassign_pipeline.job` is the thin entry point that reads, calls
and writes (``python -m lagassign_pipeline``).
"""

__version__ = "0.1.0"
