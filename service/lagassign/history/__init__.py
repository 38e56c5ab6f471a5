"""The lag history: every refresh of the lag view, recorded for the pipeline.

:data:`~lagassign.history.schema.HISTORY_SCHEMA` is the contract with the
pipeline (``docs/history.md``); :class:`~lagassign.history.parquet.ParquetHistorySink`
writes it under ``<history_dir>/date=YYYY-MM-DD/``. Both need pyarrow (the
``history`` extra); :mod:`.recorder`, :mod:`.directory`, :mod:`.sink` and
:mod:`.errors` do not, so the sidecar imports them without it.
"""
