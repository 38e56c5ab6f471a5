"""The demos' sidecar: ``lagassign serve`` tracking the demo group, and its view of a group."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import httpx

from deploy.demo.group import DEADLINE_S, GROUP
from harness.poll import eventually_async
from harness.sidecar import SidecarProcess
from harness.sidecar import start_sidecar as start_lagassign


def start_sidecar(bootstrap: str, port: int, work_dir: Path) -> SidecarProcess:
    """``lagassign serve`` tracking the demo group, its history in ``work_dir/history``.

    A ``LAGASSIGN_TOKEN`` (or any other ``LAGASSIGN_*`` setting) exported by the user
    applies to it.
    """
    work_dir.mkdir(parents=True, exist_ok=True)
    settings = {
        "LAGASSIGN_BOOTSTRAP_SERVERS": bootstrap,
        "LAGASSIGN_GROUPS": GROUP,
        "LAGASSIGN_REFRESH_INTERVAL_S": "2",
        "LAGASSIGN_HISTORY_DIR": str(work_dir / "history"),
    }
    return start_lagassign(
        settings,
        work_dir / "sidecar.log",
        port=port,
        inherit_settings=True,
        ready_timeout_s=DEADLINE_S,
    )


async def group_json(client: httpx.AsyncClient, group: str) -> dict[str, Any] | None:
    """``GET /groups/{group}``'s body, or None while the sidecar does not answer it."""
    with contextlib.suppress(httpx.HTTPError):
        response = await client.get(f"/groups/{group}")
        if response.status_code == 200:
            body: dict[str, Any] = response.json()
            return body
    return None


async def group_once(
    client: httpx.AsyncClient,
    group: str,
    holds: Callable[[Mapping[str, Any]], bool],
    what: str,
    sidecar: SidecarProcess | None = None,
) -> dict[str, Any]:
    """The sidecar's view of ``group`` once ``holds`` it; the demo ends, saying ``what``
    it waited for, after the deadline or as soon as ``sidecar`` has exited."""

    async def seen() -> dict[str, Any] | None:
        if sidecar is not None and sidecar.process.poll() is not None:
            raise SystemExit(
                f"the sidecar exited ({sidecar.process.returncode}):\n{sidecar.log_tail()}"
            )
        body = await group_json(client, group)
        return body if body is not None and holds(body) else None

    try:
        return await eventually_async(seen, DEADLINE_S, what, 0.5)
    except TimeoutError as late:
        raise SystemExit(str(late)) from None
