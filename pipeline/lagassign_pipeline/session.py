"""A SparkSession sized for a small machine (two cores, local mode).

Grouped-map workers run the interpreter in ``PYSPARK_PYTHON``; when it is unset
the session uses this interpreter, so the workers import the same pandas and the
same assignment core as the driver.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

from pyspark.sql import SparkSession

SMALL_MACHINE_CONF: Mapping[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "4",
    "spark.default.parallelism": "4",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MILLIS",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
}


def local_session(
    *,
    master: str = "local[2]",
    app_name: str = "lagassign-pipeline",
    driver_memory: str = "2g",
    packages: Sequence[str] = (),
    conf: Mapping[str, str] | None = None,
    log_level: str = "WARN",
) -> SparkSession:
    """Start (or return the running) local SparkSession with the small-machine settings.

    ``packages`` are Maven coordinates fetched from Maven Central at start-up
    (``spark.jars.packages``); ``conf`` adds or overrides settings.
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = SparkSession.builder.master(master).appName(app_name)
    settings = dict(SMALL_MACHINE_CONF)
    settings["spark.driver.memory"] = driver_memory
    if packages:
        settings["spark.jars.packages"] = ",".join(packages)
    settings.update(conf or {})
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(log_level)
    return spark
