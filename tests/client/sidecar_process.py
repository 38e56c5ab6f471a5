"""A real ``lagassign serve`` in a subprocess on a free 127.0.0.1 port, stopped by its pid."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx

START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 20.0
LAGASSIGN = Path(sys.executable).parent / "lagassign"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class SidecarProcess:
    """One running sidecar; ``url`` is its base URL, its output goes to ``log_path``."""

    url: str
    process: subprocess.Popen[bytes]
    log_path: Path
    log: IO[bytes]

    def group(self, group_id: str) -> dict[str, Any] | None:
        """``GET /groups/{group_id}`` as JSON; None while the group is unknown (404)."""
        response = httpx.get(
            f"{self.url}/groups/{group_id}", timeout=10.0, headers={"accept": "application/json"}
        )
        if response.status_code == 404:
            return None
        response.raise_for_status()
        body: dict[str, Any] = response.json()
        return body

    def stop(self) -> None:
        """SIGTERM to its pid, SIGKILL to the same pid if it does not end in time."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait(STOP_TIMEOUT_S)
        self.log.close()


def start_sidecar(
    log_path: Path, settings: Mapping[str, str], port: int | None = None
) -> SidecarProcess:
    """Start ``lagassign serve`` with ``LAGASSIGN_*`` settings; return once ``/readyz`` is 200.

    ``port``: a port chosen beforehand (a broker that calls the sidecar is told it first).
    """
    port = port or free_port()
    env = {**os.environ, **settings, "LAGASSIGN_HOST": "127.0.0.1", "LAGASSIGN_PORT": str(port)}
    log = log_path.open("wb")
    process = subprocess.Popen(
        [str(LAGASSIGN), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    sidecar = SidecarProcess(f"http://127.0.0.1:{port}", process, log_path, log)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sidecar.stop()
            raise RuntimeError(f"lagassign serve exited: {log_path.read_text()[-2000:]}")
        try:
            if httpx.get(f"{sidecar.url}/readyz", timeout=2.0).status_code == 200:
                return sidecar
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    sidecar.stop()
    raise RuntimeError(
        f"lagassign serve not ready in {START_TIMEOUT_S} s: {log_path.read_text()[-2000:]}"
    )
