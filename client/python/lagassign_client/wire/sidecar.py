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

import json
import math
import socket
import threading
import time
import weakref
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

import httpx

from lagassign_client.errors import (
    SidecarRefused,
    SidecarStatus,
    SidecarTimeout,
    SidecarUnknownHost,
    SidecarUnreachable,
)
from lagassign_client.wire import httpx_log

ASSIGN_PATH = "/assign"
# A non-200 body is shown as one line of at most this many characters.
ERROR_TEXT_LIMIT = 120
# An idle connection is kept this long, well under the sidecar's keep-alive timeout
# (5 s by default): a request sent on a connection the sidecar is closing at that
# moment fails, and the leader would fall back (or the advisor miss a check) for nothing.
KEEPALIVE_EXPIRY_S = 1.0
# A deadline longer than this is a unit mistake (milliseconds given as seconds): no
# rebalance should wait a minute for the sidecar.
MAX_TIMEOUT_S = 60.0


def _base_url(url: str) -> str:
    parsed = httpx.URL(url)
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ValueError(f"url must be an http:// or https:// URL, got {url!r}")
    base = str(parsed.copy_with(query=None, fragment=None)).rstrip("/")
    if base.endswith(ASSIGN_PATH):
        raise ValueError(
            f"url is the sidecar's base URL and the shim adds {ASSIGN_PATH} itself; "
            f"got {url!r}, give {base[: -len(ASSIGN_PATH)]!r}"
        )
    return base


def sidecar_client(
    headers: dict[str, str],
    token: str | None,
    timeout_s: float,
    transport: httpx.BaseTransport | None,
) -> httpx.Client:
    """An HTTP client of the sidecar, as every call of the shim makes one: JSON answers,
    the bearer token if any, ``headers`` besides; an idle connection dropped after
    ``KEEPALIVE_EXPIRY_S``; no redirect followed, no proxy or certificate settings read
    from the environment."""
    auth = {"authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(
        headers={"accept": "application/json", **headers, **auth},
        timeout=httpx.Timeout(timeout_s),
        transport=transport,
        follow_redirects=False,
        trust_env=False,
        limits=httpx.Limits(keepalive_expiry=KEEPALIVE_EXPIRY_S),
    )


def _check_timeout(timeout_s: float) -> None:
    if not math.isfinite(timeout_s) or timeout_s <= 0:
        raise ValueError(f"timeout_s must be a positive number of seconds, got {timeout_s!r}")
    if timeout_s > MAX_TIMEOUT_S:
        raise ValueError(
            f"timeout_s is in seconds and must be at most {MAX_TIMEOUT_S:g}; got {timeout_s!r}"
            f" (milliseconds? {timeout_s!r} ms is timeout_s={timeout_s / 1000:g})"
        )


def _default_port(url: httpx.URL) -> int:
    return 443 if url.scheme == "https" else 80


def _connection_error(url: str, exc: httpx.HTTPError | httpx.StreamError) -> SidecarUnreachable:
    """The reason a connection failed: unknown host, refused, or anything else."""
    cause: BaseException | None = exc
    seen = 0
    while cause is not None and seen < 10:
        if isinstance(cause, socket.gaierror):
            return SidecarUnknownHost(f"{url}: unknown host: {cause}")
        if isinstance(cause, ConnectionRefusedError):
            where = httpx.URL(url)
            return SidecarRefused(
                f"connection refused by {where.host}:{where.port or _default_port(where)}"
                f" ({url}): is the sidecar running there?"
            )
        cause = cause.__cause__ or cause.__context__
        seen += 1
    return SidecarUnreachable(f"{url}: {type(exc).__name__}: {exc}")


def status_text(response: httpx.Response) -> str:
    """One short line for a non-200 answer: the sidecar's error message, or the body's start.

    A proxy's or another server's HTML error page becomes its first characters with
    the white space (new lines included) collapsed.
    """
    content_type = response.headers.get("content-type", "")
    if content_type.startswith("application/json"):
        try:
            body = json.loads(response.content)
        except (UnicodeDecodeError, ValueError):
            body = None
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return " ".join(error["message"].split())[:ERROR_TEXT_LIMIT]
    text = " ".join(response.content[: ERROR_TEXT_LIMIT * 4].decode("utf-8", "replace").split())
    if len(text) > ERROR_TEXT_LIMIT:
        text = text[:ERROR_TEXT_LIMIT] + "…"
    kind = content_type.split(";")[0].strip() or "no content-type"
    return f"({kind}) {text}" if text else f"({kind}, empty body)"


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
        _check_timeout(timeout_s)
        #: The sidecar's base URL, and the bearer token (the advisor asks the same sidecar).
        self.base_url = _base_url(url)
        self.token = token
        self.url = self.base_url + ASSIGN_PATH
        self.timeout_s = timeout_s
        httpx_log.quiet(self.url)
        self._client = sidecar_client(
            {"content-type": "application/json"}, token, timeout_s, transport
        )
        # aiokafka and kafka-python never call an assignor's close(): when this client is
        # dropped, its kept-alive connection is closed with it, not left to the collector.
        self._closing = weakref.finalize(self, self._client.close)

    def close(self) -> None:
        self._closing()

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
        :class:`SidecarTimeout`, :class:`SidecarUnreachable` (or its
        :class:`SidecarUnknownHost`, :class:`SidecarRefused`) or
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
                f"no answer from {self.url} within {remaining * 1000:.0f} ms"
            ) from None
        except httpx.TimeoutException as exc:
            raise SidecarTimeout(f"{self.url} timed out: {type(exc).__name__}") from None
        except (httpx.HTTPError, httpx.StreamError) as exc:
            raise _connection_error(self.url, exc) from None
        if response.status_code != 200:
            raise SidecarStatus(
                f"{self.url} answered HTTP {response.status_code}: {status_text(response)}",
                response.status_code,
            )
        return response.content
