"""The lag history: every refresh of the lag view, recorded for the pipeline.

:data:`~lagassign.history.schema.HISTORY_SCHEMA` is the contract with the
pipeline (``docs/history.md``); :class:`~lagassign.history.parquet.ParquetHistorySink`
writes it under ``<history_dir>/date=YYYY-MM-DD/``.
"""

from lagassign.history.errors import HistoryWriteError
from lagassign.history.parquet import ParquetHistorySink
from lagassign.history.schema import HISTORY_SCHEMA, history_table
from lagassign.history.sink import HistorySink

__all__ = [
    "HISTORY_SCHEMA",
    "HistorySink",
    "HistoryWriteError",
    "ParquetHistorySink",
    "history_table",
]
