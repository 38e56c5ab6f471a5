"""A real ``lagassign serve`` with no broker: for requests that carry their own lags.

Its lag view points at a free port nothing listens on, so the sidecar is alive
(``/livez`` 200) but never ready; ``POST /assign`` answers from the requests'
``lags``. Stopped by its pid (:meth:`~harness.sidecar.SidecarProcess.stop`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from harness.sidecar import SidecarProcess, free_port, start_sidecar


def start_lone_sidecar(settings: Mapping[str, str], log_path: Path) -> SidecarProcess:
    """Start ``lagassign serve`` without Kafka; return once ``/livez`` answers 200."""
    no_broker = {"LAGASSIGN_BOOTSTRAP_SERVERS": f"127.0.0.1:{free_port()}"}
    return start_sidecar({**no_broker, **settings}, log_path, wait_until_ready=False)
