"""``lagassign serve``: the sidecar on uvicorn, one worker, settings from the environment.

One worker per process because the lag cache lives in the process; scale with
replicas. Refused settings are printed (one line per variable) and the command
exits 2 without a traceback; so is a ``LAGASSIGN_HISTORY_DIR`` it cannot write, or
that needs pyarrow where the ``history`` extra is not installed.

Before serving, the garbage collector is set for a process whose lag view rebuilds
tens of thousands of objects every refresh (:func:`settle_collector`): a full
collection stops every thread, the broker plugin's call with it.
"""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import Mapping
from typing import TextIO

import prometheus_client
import uvicorn

from lagassign.history.directory import check_history_dir
from lagassign.history.errors import HistoryWriteError
from lagassign.http.app import create_app
from lagassign.http.connections import protocol_with_header_deadline
from lagassign.redaction import configure_logging
from lagassign.settings import Settings, SettingsError

EXIT_BAD_SETTINGS = 2

log = logging.getLogger(__name__)

#: The collector's thresholds once the sidecar is built (Python's own: 700, 10, 10).
#: Young collections every 10,000 new objects instead of 700 (each still a millisecond
#: or two), and the oldest generation considered after 100 middle ones instead of 10:
#: a refresh at 10,000 partitions makes and drops a few hundred thousand objects, which
#: with Python's thresholds set off a full collection (every object of the process
#: walked, every thread stopped) about once a refresh.
GC_THRESHOLDS = (10_000, 10, 100)


#: How long a thread keeps the interpreter while another waits for it (Python's default:
#: 5 ms). A lag refresh keeps the lag view's thread busy for hundreds of milliseconds at
#: 10,000 partitions, and a request waits for the interpreter each time it passes between
#: the event loop and a worker thread: up to 5 ms a time by default.
SWITCH_INTERVAL_S = 0.0005


def share_interpreter() -> None:
    """Hand the interpreter to a waiting thread after :data:`SWITCH_INTERVAL_S`."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)


def settle_collector() -> None:
    """Freeze what start-up made (modules, settings, the app: they live as long as the
    process, so no collection walks them again) and make full collections rare."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def history_line(settings: Settings) -> str:
    """Where the lag history goes, for the start-up log."""
    if settings.history_dir is None:
        return "lag history off (LAGASSIGN_HISTORY_DIR unset)"
    return (
        f"lag history in {settings.history_dir.resolve()} "
        f"(files finished every {settings.history_roll_interval_s:g} s)"
    )


def weights_line(settings: Settings) -> str:
    """Which forecast weights file is read, for the start-up log."""
    if settings.weights_path is None:
        return "forecast weights off (LAGASSIGN_WEIGHTS_PATH unset)"
    path = settings.weights_path.resolve()
    found = "" if path.is_file() else ", not there yet"
    return f"forecast weights from {path}{found}"


def serve(environ: Mapping[str, str], stderr: TextIO) -> int:
    """Run until SIGINT/SIGTERM; 0 after a clean shutdown, 2 for refused settings."""
    try:
        settings = Settings.from_environ(environ)
    except SettingsError as exc:
        stderr.write(f"lagassign serve: {exc}\n")
        return EXIT_BAD_SETTINGS
    if settings.history_dir is not None:
        # Refused now rather than failing every refresh later, unseen.
        try:
            check_history_dir(settings.history_dir)
        except HistoryWriteError as exc:
            stderr.write(f"lagassign serve: LAGASSIGN_HISTORY_DIR: {exc}\n")
            return EXIT_BAD_SETTINGS

    prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]
    configure_logging(settings.log_level, settings.secrets())
    app = create_app(settings, kafka=True)
    settle_collector()
    share_interpreter()
    log.info(
        "lagassign serving on %s:%d, Kafka %s (%s), token %s",
        settings.host,
        settings.port,
        ",".join(settings.bootstrap_servers),
        settings.security_protocol,
        "required" if settings.token is not None else "off",
    )
    log.info("%s; %s", history_line(settings), weights_line(settings))
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
        # The connection cap is the protocol's (503 in the error shape), not limit_concurrency.
        http=protocol_with_header_deadline(settings.header_timeout_s, settings.max_connections),
        timeout_keep_alive=settings.keep_alive_timeout_s,
        h11_max_incomplete_event_size=settings.max_header_bytes,
    )
    return 0
