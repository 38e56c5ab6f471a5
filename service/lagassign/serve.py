"""``lagassign serve``: the sidecar on uvicorn, one worker, settings from the environment.

One worker per process because the lag cache lives in the process; scale with
replicas. Refused settings are printed (one line per variable) and the command
exits 2 without a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, TextIO

import prometheus_client
import uvicorn
from fastapi import FastAPI

from lagassign.history.parquet import ParquetHistorySink
from lagassign.http.app import create_app
from lagassign.lagview.refresh import LagView
from lagassign.lagview.rules import Isolation
from lagassign.metrics import service_metrics
from lagassign.redaction import configure_logging
from lagassign.settings import Settings, SettingsError

EXIT_BAD_SETTINGS = 2
CLIENT_ID = "lagassign"

log = logging.getLogger(__name__)


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


def kafka_app(settings: Settings) -> FastAPI:
    """The app over a real lag view of the configured cluster (started by the lifespan)."""
    metrics = service_metrics(partition_metrics=settings.partition_metrics)
    read_committed: dict[str, Isolation] = {
        g: "read_committed" for g in settings.read_committed_groups
    }
    history = (
        ParquetHistorySink(settings.history_dir, settings.cluster)
        if settings.history_dir is not None
        else None
    )
    lag_view = LagView(
        list(settings.bootstrap_servers),
        client_kwargs=kafka_client_kwargs(settings),
        interval_s=settings.refresh_interval_s,
        groups=settings.groups,
        group_pattern=settings.group_pattern,
        reset_policy=dict(settings.group_reset_policies),
        default_reset_policy=settings.reset_policy,
        isolation=read_committed,
        request_timeout_s=settings.kafka_timeout_ms / 1000,
        history=history,
        on_refresh=metrics.refresh.observe_refresh,
    )
    metrics.collect_lag_of(lag_view)
    return create_app(settings, lag_view=lag_view, metrics=metrics)


def serve(environ: Mapping[str, str], stderr: TextIO) -> int:
    """Run until SIGINT/SIGTERM; 0 after a clean shutdown, 2 for refused settings."""
    try:
        settings = Settings.from_environ(environ)
    except SettingsError as exc:
        stderr.write(f"lagassign serve: {exc}\n")
        return EXIT_BAD_SETTINGS

    prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]
    configure_logging(settings.log_level, settings.secrets())
    app = kafka_app(settings)
    log.info(
        "lagassign serving on %s:%d, Kafka %s (%s), token %s",
        settings.host,
        settings.port,
        ",".join(settings.bootstrap_servers),
        settings.security_protocol,
        "required" if settings.token is not None else "off",
    )
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        workers=1,
        log_config=None,
        log_level=settings.log_level,
        access_log=settings.access_log,
        server_header=False,
        proxy_headers=False,
        lifespan="on",
    )
    return 0
