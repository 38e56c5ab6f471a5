"""One real local SparkSession for the whole test session (two cores, small settings).

The session carries Spark's Kafka connector (fetched from Maven Central once, then
cached by Ivy) so the Kafka-topic input can be tested in the same session.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest
from pyspark.sql import SparkSession

from lagassign_pipeline.kafka_source import KAFKA_PACKAGES
from lagassign_pipeline.session import local_session


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """The test session's SparkSession; grouped-map workers run this interpreter."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = local_session(
        app_name="lagassign-pipeline-tests",
        driver_memory="1g",
        packages=KAFKA_PACKAGES,
        log_level="ERROR",
    )
    try:
        yield session
    finally:
        session.stop()
