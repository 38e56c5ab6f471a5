"""A real ``lagassign serve`` in a subprocess on 127.0.0.1, stopped by its pid.

:func:`start_sidecar` starts it with the given ``LAGASSIGN_*`` settings and
returns once ``/readyz`` answers 200 (or raises with the tail of its log if it
exits or is not ready in time); ``with start_sidecar(...) as sidecar:`` stops it on
the way out. The caller's own ``LAGASSIGN_*`` environment is
left out unless ``inherit_settings`` (the demo keeps a ``LAGASSIGN_TOKEN`` the
user exported).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from harness.owned import owned_by_this_process
from harness.poll import eventually

START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 20.0


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class SidecarProcess:
    """One running sidecar: its base ``url``, the ``headers`` it wants, its log file."""

    url: str
    process: subprocess.Popen[bytes]
    log_path: Path
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def pid(self) -> int:
        return self.process.pid

    def log_tail(self, chars: int = 2000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:]

    def group(self, group_id: str) -> dict[str, Any] | None:
        """``GET /groups/{group_id}`` as JSON; None while the group is unknown (404)."""
        response = httpx.get(
            f"{self.url}/groups/{group_id}",
            timeout=10.0,
            headers={**self.headers, "accept": "application/json"},
        )
        if response.status_code == 404:
            return None
        response.raise_for_status()
        body: dict[str, Any] = response.json()
        return body

    def is_ready(self) -> bool:
        """``/readyz`` answers 200; raises if the process has exited."""
        return self._answers_200("/readyz")

    def is_alive(self) -> bool:
        """``/livez`` answers 200; raises if the process has exited."""
        return self._answers_200("/livez")

    def _answers_200(self, path: str) -> bool:
        if self.process.poll() is not None:
            raise RuntimeError(
                f"lagassign serve exited ({self.process.returncode}):\n{self.log_tail()}"
            )
        try:
            return httpx.get(f"{self.url}{path}", timeout=2.0).status_code == 200
        except httpx.TransportError:
            return False

    def __enter__(self) -> SidecarProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """SIGTERM to its pid, SIGKILL to the same pid if it does not end in time."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait(STOP_TIMEOUT_S)


def start_sidecar(
    settings: Mapping[str, str],
    log_path: Path,
    *,
    port: int | None = None,
    inherit_settings: bool = False,
    ready_timeout_s: float = START_TIMEOUT_S,
    wait_until_ready: bool = True,
    own_session: bool = False,
) -> SidecarProcess:
    """Start ``lagassign serve`` with ``settings`` (``LAGASSIGN_*``); return once it is ready.

    With ``wait_until_ready=False``, return once it is alive (``/livez``): for a
    sidecar that is never ready, such as one without a broker. With ``own_session``, in
    a session of its own (and so, where the kernel groups CPU time by session, with a
    share of the cores of its own).
    """
    port = free_port() if port is None else port
    inherited = {
        k: v
        for k, v in os.environ.items()
        if inherit_settings or not k.upper().startswith("LAGASSIGN_")
    }
    environ = {
        **inherited,
        **settings,
        "LAGASSIGN_HOST": "127.0.0.1",
        "LAGASSIGN_PORT": str(port),
    }
    token = environ.get("LAGASSIGN_TOKEN")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "lagassign.cli", "serve"],
            env=environ,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=own_session,
        )
    owned_by_this_process(process)
    sidecar = SidecarProcess(
        f"http://127.0.0.1:{port}",
        process,
        log_path,
        {"authorization": f"Bearer {token}"} if token else {},
    )
    waited, state = (sidecar.is_ready, "ready") if wait_until_ready else (sidecar.is_alive, "alive")
    try:
        eventually(waited, ready_timeout_s, f"lagassign serve {state} on port {port}")
    except TimeoutError as not_ready:
        sidecar.stop()
        raise RuntimeError(f"{not_ready}\n{sidecar.log_tail()}") from None
    except RuntimeError:
        sidecar.stop()
        raise
    return sidecar
