"""A real ``lagassign serve`` with no broker: for requests that carry their own lags.

Its lag view points at a free port nothing listens on, so the sidecar is alive
(``/livez`` 200) but never ready; ``POST /assign`` answers from the requests'
``lags``. Stopped by its pid (:meth:`~harness.sidecar.SidecarProcess.stop`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import httpx

from harness.poll import eventually
from harness.sidecar import START_TIMEOUT_S, SidecarProcess, free_port


def start_lone_sidecar(settings: Mapping[str, str], log_path: Path) -> SidecarProcess:
    """Start ``lagassign serve`` without Kafka; return once ``/livez`` answers 200."""
    port = free_port()
    environ = {
        **{k: v for k, v in os.environ.items() if not k.upper().startswith("LAGASSIGN_")},
        "LAGASSIGN_BOOTSTRAP_SERVERS": f"127.0.0.1:{free_port()}",
        **settings,
        "LAGASSIGN_HOST": "127.0.0.1",
        "LAGASSIGN_PORT": str(port),
    }
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "lagassign.cli", "serve"],
            env=environ,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    sidecar = SidecarProcess(f"http://127.0.0.1:{port}", process, log_path)

    def alive() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"lagassign serve exited:\n{sidecar.log_tail()}")
        try:
            return httpx.get(f"{sidecar.url}/livez", timeout=2.0).status_code == 200
        except httpx.TransportError:
            return False

    try:
        eventually(alive, START_TIMEOUT_S, f"lagassign serve alive on port {port}")
    except TimeoutError as not_alive:
        sidecar.stop()
        raise RuntimeError(f"{not_alive}\n{sidecar.log_tail()}") from None
    except RuntimeError:
        sidecar.stop()
        raise
    return sidecar
