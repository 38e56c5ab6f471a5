"""kafka-python's "blocking the event loop" warning, for the shim's own sidecar call.

kafka-python 3 runs JoinGroup, the leader's ``assign()`` and SyncGroup as one task on
its network thread, and calls ``assign()`` synchronously from it: an assignor cannot
give the thread back while it waits (kafka-python has no asynchronous assignor
interface). The leader's sidecar call therefore holds the consumer's network thread
for up to the shim's deadline, once per rebalance it leads, and kafka-python then warns
``Task ... ran for 0.403s (>0.100s threshold). It is blocking the event loop -- likely
a tight sync loop inside a coroutine``, which reads like the application's bug.

During that time the thread has nothing else of this consumer's to do (heartbeats are
off during a join, an eager rebalance has nothing to fetch); what it delays is the
poll's own timer, which the shim budgets for (:mod:`lagassign_client.assignor.kafka_python_poll`).
So the shim drops that one warning when the sidecar call was what made the step slow:
:func:`held` records the call's time on the network thread, and a filter on
kafka-python's ``kafka.net.selector`` logger drops the next slow-step warning of that
thread when the step without the call would not have warned. Any other slow step is
warned as before; the logger's level is left alone.
"""

from __future__ import annotations

import logging
import re
import threading

SELECTOR_LOGGER = "kafka.net.selector"
# kafka-python's NetworkSelector default (slow_task_threshold_secs).
THRESHOLD_S = 0.1
_RAN_FOR = re.compile(r"ran for (\d+(?:\.\d+)?)s")


class _Held(threading.local):
    seconds: float | None = None


_held = _Held()


class _ShimStep(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        seconds = _held.seconds
        if seconds is None or record.levelno != logging.WARNING:
            return True
        text = record.getMessage()
        if "blocking the event loop" not in text:
            return True
        _held.seconds = None
        ran = _RAN_FOR.search(text)
        return ran is None or float(ran.group(1)) - seconds >= THRESHOLD_S


_FILTER = _ShimStep()
_installed = threading.Lock()
_done = False


def held(seconds: float) -> None:
    """The shim's ``assign()`` held this (network) thread ``seconds``; its step's slow-task
    warning is dropped when the rest of the step was under kafka-python's threshold."""
    global _done
    with _installed:
        if not _done:
            logging.getLogger(SELECTOR_LOGGER).addFilter(_FILTER)
            _done = True
    _held.seconds = seconds if seconds >= THRESHOLD_S else None
