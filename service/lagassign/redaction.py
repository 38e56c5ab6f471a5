"""The sidecar's log handler: secrets never reach the logs, client floods are held back.

Every log line (message, arguments and traceback alike) passes through
:class:`RedactingFormatter`, which replaces each configured secret value (the
bearer token, the SASL password) with ``***``. The settings already keep
secrets in ``SecretStr``; this is the net under that rule.

While a broker is unreachable, aiokafka logs an ERROR for every failed connection
and metadata attempt: about 45 lines in 3 minutes for one sidecar, which buries
everything else. :class:`RateLimitedClientLogs`, a filter on the same handler, lets
the first line of each kind (logger and message template) through, drops the repeats
for ``interval_s`` (60 s), and appends to the next line of that kind how many were
dropped::

    ERROR aiokafka: Unable connect to node with id 1: ... (14 alike suppressed in 60 s)

Only loggers under ``aiokafka`` are limited; the sidecar's own lines (one WARNING when
an outage starts, one line when Kafka answers again) always pass. At
``LAGASSIGN_LOG_LEVEL=debug`` nothing is limited.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Iterable

REDACTED = "***"
CLIENT_LOGGERS = ("aiokafka",)
CLIENT_LOG_INTERVAL_S = 60.0
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def redact(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    return text


class RedactingFormatter(logging.Formatter):
    def __init__(self, secrets: Iterable[str], fmt: str = LOG_FORMAT) -> None:
        super().__init__(fmt)
        self._secrets = tuple(s for s in secrets if s)

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record), self._secrets)


class RateLimitedClientLogs(logging.Filter):
    """At most one record per client logger and message template per ``interval_s``."""

    def __init__(
        self,
        interval_s: float = CLIENT_LOG_INTERVAL_S,
        loggers: tuple[str, ...] = CLIENT_LOGGERS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        if interval_s <= 0:
            raise ValueError("interval_s must be positive")
        self.interval_s = interval_s
        self._prefixes = tuple(p + "." for p in loggers)
        self._loggers = loggers
        self._monotonic = monotonic
        self._last: dict[tuple[str, int, str], float] = {}
        self._suppressed: dict[tuple[str, int, str], int] = {}

    def _limited(self, name: str) -> bool:
        return name in self._loggers or name.startswith(self._prefixes)

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._limited(record.name):
            return True
        key = (record.name, record.levelno, str(record.msg))
        now = self._monotonic()
        last = self._last.get(key)
        if last is not None and now - last < self.interval_s:
            self._suppressed[key] = self._suppressed.get(key, 0) + 1
            return False
        self._last[key] = now
        dropped = self._suppressed.pop(key, 0)
        if dropped:
            record.msg = (
                f"{record.getMessage()} ({dropped} alike suppressed in {self.interval_s:g} s)"
            )
            record.args = None
        return True


def configure_logging(level: str, secrets: Iterable[str]) -> logging.Handler:
    """One stderr handler on the root logger; uvicorn's loggers propagate to it.

    Secrets are scrubbed from every line; the Kafka client's repeats are rate-limited
    unless ``level`` is debug.
    """
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter(secrets))
    if level.lower() != "debug":
        handler.addFilter(RateLimitedClientLogs())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers.clear()
        logging.getLogger(name).propagate = True
    return handler
