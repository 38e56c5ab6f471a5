"""The soak's faults: a client that sends half a request and vanishes, and a broker restart.

Both run beside the load as tasks until the soak's ``stop`` event. The restart
stops the local broker for ``outage_s`` seconds, starts it again in the same
directory (same port) and measures how long the sidecar's ``/readyz`` takes to answer 200 again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass

import httpx

from harness.broker import LocalKafka

READY_AGAIN_S = 120.0
HALF_REQUEST_EVERY_S = 5.0


@dataclass
class Broker:
    down: bool = False
    down_at: float | None = None
    back_at: float | None = None
    ready_again_s: float | None = None


async def disconnecting_client(
    url: str, body: bytes, stop: asyncio.Event, disconnected: Callable[[], None]
) -> None:
    """Every 5 s: half a ``POST /assign`` of ``body``, then gone (``disconnected`` counts it)."""
    host, _, port = url.removeprefix("http://").partition(":")
    while not stop.is_set():
        try:
            _, writer = await asyncio.open_connection(host, int(port))
            head = (
                f"POST /assign HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
            writer.write(head + body[: len(body) // 2])
            await writer.drain()
            await asyncio.sleep(0.1)
            writer.close()
            disconnected()
        except OSError:
            pass
        with suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), HALF_REQUEST_EVERY_S)


async def restart_broker(
    kafka: LocalKafka, url: str, at_s: float, outage_s: float, state: Broker, t0: float
) -> None:
    """At ``at_s`` after ``t0`` stop the broker, start it ``outage_s`` later, time ``/readyz``."""
    await asyncio.sleep(max(0.0, t0 + at_s - time.perf_counter()))
    state.down, state.down_at = True, time.perf_counter() - t0
    await asyncio.to_thread(kafka.stop)
    await asyncio.sleep(outage_s)
    await asyncio.to_thread(kafka.start)
    state.down, state.back_at = False, time.perf_counter() - t0
    back = time.perf_counter()
    async with httpx.AsyncClient(base_url=url, timeout=5) as client:
        deadline = back + READY_AGAIN_S
        while time.perf_counter() < deadline:
            try:
                if (await client.get("/readyz")).status_code == 200:
                    state.ready_again_s = round(time.perf_counter() - back, 2)
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
