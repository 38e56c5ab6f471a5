"""The synchronous ``POST /assign`` call, bounded by a hard total deadline.

aiokafka and kafka-python call ``assign()`` synchronously, on the thread that
also runs the consumer, so the call is synchronous too. httpx's timeouts bound
each network operation, not the whole exchange (a sidecar that trickles its
answer one byte at a time would never trip them), so the exchange runs on a
short-lived daemon thread and the leader waits for it until the deadline and
no longer. A thread left behind ends by itself: every operation it is still
waiting on has the same timeout.
"""

from __future__ import annotations

import math
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

import httpx

from lagassign_client.errors import SidecarStatus, SidecarTimeout, SidecarUnreachable

ASSIGN_PATH = "/assign"
ERROR_TEXT_LIMIT = 200


class Sidecar:
    """A client of one sidecar's ``POST /assign``.

    ``transport`` replaces the network (``httpx.MockTransport`` in tests).
    """

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float,
        token: str | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not math.isfinite(timeout_s) or timeout_s <= 0:
            raise ValueError(f"timeout_s must be a positive number of seconds, got {timeout_s!r}")
        parsed = httpx.URL(url)
        if parsed.scheme not in ("http", "https") or not parsed.host:
            raise ValueError(f"url must be an http:// or https:// URL, got {url!r}")
        self.url = str(parsed).rstrip("/") + ASSIGN_PATH
        self.timeout_s = timeout_s
        headers = {"content-type": "application/json", "accept": "application/json"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout_s),
            transport=transport,
            follow_redirects=False,
            trust_env=False,
        )

    def close(self) -> None:
        self._client.close()

    def _exchange(self, body: bytes, outcome: Future[httpx.Response]) -> None:
        try:
            response = self._client.post(self.url, content=body)
        except (httpx.HTTPError, httpx.StreamError) as exc:
            outcome.set_exception(exc)
        else:
            outcome.set_result(response)

    def post_assign(self, body: bytes, deadline: float) -> bytes:
        """Send one request; return the body of a 200 answer.

        ``deadline`` is a :func:`time.monotonic` instant. Raises
        :class:`SidecarTimeout`, :class:`SidecarUnreachable` or
        :class:`SidecarStatus`.
        """
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise SidecarTimeout("the deadline passed before the request was sent")
        outcome: Future[httpx.Response] = Future()
        threading.Thread(
            target=self._exchange, args=(body, outcome), name="lagassign-assign", daemon=True
        ).start()
        try:
            response = outcome.result(timeout=remaining)
        except FutureTimeout:
            raise SidecarTimeout(
                f"no answer from {self.url} within {self.timeout_s * 1000:.0f} ms"
            ) from None
        except httpx.TimeoutException as exc:
            raise SidecarTimeout(f"{self.url} timed out: {type(exc).__name__}") from None
        except (httpx.HTTPError, httpx.StreamError) as exc:
            raise SidecarUnreachable(f"{self.url}: {type(exc).__name__}: {exc}") from None
        if response.status_code != 200:
            text = response.text[:ERROR_TEXT_LIMIT].strip()
            raise SidecarStatus(
                f"{self.url} answered HTTP {response.status_code}: {text}", response.status_code
            )
        return response.content
