"""Acting on the sidecar's rebalance advice from the application's poll loop, in one line,
placed last: after the batch is processed and committed.

aiokafka (with :class:`lagassign_client.aiokafka_commit.SafePoint` as the consumer's
rebalance listener, since aiokafka rebalances in the background)::

    advisor = RebalanceAdvisor.for_aiokafka(consumer, assignor)  # the assignor's sidecar
    while True:
        batch = await consumer.getmany(timeout_ms=500)
        async with safe.batch():
            process(batch)
            await consumer.commit()
        advisor.maybe_rebalance()

kafka-python: ``RebalanceAdvisor.for_kafka_python(consumer, assignor)`` and
``advisor.maybe_rebalance()`` after the batch's ``consumer.commit()``, before the next
``consumer.poll(...)`` (kafka-python rejoins inside ``poll()``).

:meth:`RebalanceAdvisor.maybe_rebalance` never blocks and never raises for the
sidecar: on the member that led the group's current generation (its assignor's
``assign()`` ran for it) it starts at most one ``GET /groups/{group}/advice`` every
``every_s`` (default 5 s) on a background thread and, when the last answer for this
generation says ``advised``, asks the library to rejoin the group once, logging the
sidecar's reason, provided the advice weighed the assignment this member made
(``assignment_digest``, :mod:`lagassign_client.assignor.assignment_digest`): advice computed
before the last rebalance is never acted on. Every other member does nothing and
sends nothing. When the
sidecar cannot be reached or answers wrongly, it does nothing and logs one WARNING
until the sidecar answers again. The sidecar's hold time and cooldown keep the group
from rebalancing in a loop; the advisor adds that it forces at most one rebalance per
generation.

Neither library has a public call to start a rebalance: the advisor uses each one's
rejoin request (:mod:`lagassign_client.advice.libraries`), only on the versions it is
tested with; on any other it logs one WARNING and never acts.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.parse
import weakref
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from lagassign_client.advice.leadership import Leadership
from lagassign_client.wire import httpx_log
from lagassign_client.wire.sidecar import sidecar_client

log = logging.getLogger("lagassign_client")

DEFAULT_EVERY_S = 5.0
REQUEST_TIMEOUT_S = 2.0


class GroupHandle(Protocol):
    """What the advisor needs of one consumer's group membership."""

    def generation(self) -> int | None:
        """The generation of the current, completed assignment; None while it rebalances."""
        ...

    def request_rejoin(self, reason: str) -> None:
        """Make the member rejoin the group at its next poll (a rebalance of the whole group)."""
        ...


@dataclass(frozen=True, slots=True)
class Seen:
    """One answer of the sidecar, for the generation the member was in when it asked, with
    the digest of the assignment the sidecar weighed (``assignment_digest``)."""

    advised: bool
    reason: str
    generation: int
    digest: str | None


class RebalanceAdvisor:
    """One consumer's advisor; call :meth:`maybe_rebalance` from the thread that polls."""

    def __init__(
        self,
        group: GroupHandle | None,
        leadership: Leadership,
        *,
        url: str,
        group_id: str,
        token: str | None = None,
        every_s: float = DEFAULT_EVERY_S,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not group_id:
            raise ValueError("group_id must name the consumer group")
        if not every_s > 0:
            raise ValueError(f"every_s must be positive; got {every_s!r}")
        self.group_id = group_id
        self.advice_url = (
            url.rstrip("/") + "/groups/" + urllib.parse.quote(group_id, safe="") + "/advice"
        )
        httpx_log.quiet(self.advice_url)
        self.every_s = every_s
        self._group = group
        self._leadership = leadership
        self._client = sidecar_client({}, token, REQUEST_TIMEOUT_S, transport)
        # An advisor that is dropped without close() closes its connection with it.
        self._closing = weakref.finalize(self, self._client.close)
        self._lock = threading.Lock()
        self._latest: Seen | None = None
        self._warned = False
        self._in_flight = False
        self._next_check = float("-inf")
        self._enforced_generation: int | None = None
        #: Requests sent, WARNING lines logged, rebalances asked for.
        self.requests = 0
        self.warnings = 0
        self.enforced = 0

    @classmethod
    def for_aiokafka(cls, consumer: Any, assignor: Any, **kw: Any) -> RebalanceAdvisor:
        """The advisor of an ``AIOKafkaConsumer`` using ``assignor`` (a :class:`LagAssignor`).

        The group id, and unless given (``url``, ``token``) the sidecar's URL and token, are
        the assignor's; the other keyword arguments are the constructor's.
        """
        from lagassign_client.advice.libraries import aiokafka_group

        return cls._of_assignor(aiokafka_group(consumer), assignor, **kw)

    @classmethod
    def for_kafka_python(cls, consumer: Any, assignor: Any, **kw: Any) -> RebalanceAdvisor:
        """The advisor of a kafka-python ``KafkaConsumer`` using a ``KafkaPythonLagAssignor``,
        as :meth:`for_aiokafka` makes one."""
        from lagassign_client.advice.libraries import kafka_python_group

        return cls._of_assignor(kafka_python_group(consumer), assignor, **kw)

    @classmethod
    def _of_assignor(
        cls,
        group: GroupHandle | None,
        assignor: Any,
        *,
        url: str | None = None,
        token: str | None = None,
        **kw: Any,
    ) -> RebalanceAdvisor:
        """The advisor of ``group``, on the assignor's sidecar and group unless given."""
        sidecar = assignor.leader.sidecar
        return cls(
            group,
            assignor.leadership,
            url=sidecar.base_url if url is None else url,
            group_id=assignor.leader.group_id,
            token=sidecar.token if token is None else token,
            **kw,
        )

    def maybe_rebalance(self) -> bool:
        """Ask for a rebalance when the sidecar advises one and this member led the current
        generation; otherwise at most start a check in the background. True when it asked.

        Call it last in the poll loop, after the batch is committed: the rebalance it asks
        for then never falls between a batch and its commit.
        """
        if self._group is None or not self._leadership.led_last:
            return False
        generation = self._group.generation()
        if generation is None or generation < 0 or generation == self._enforced_generation:
            return False
        with self._lock:
            seen = self._latest
            made = self._leadership.digest
            if (
                seen is not None
                and seen.advised
                and seen.generation == generation
                and made is not None
                and seen.digest == made
            ):
                self._latest = None
                self._enforced_generation = generation
                self.enforced += 1
                act = True
            else:
                act = False
                now = time.monotonic()
                start = not self._in_flight and now >= self._next_check
                if start:
                    self._in_flight = True
                    self._next_check = now + self.every_s
                    self.requests += 1
        if act:
            assert seen is not None
            log.info(
                "lagassign: group %s generation %d: the sidecar advises a rebalance,"
                " asking for it: %s",
                self.group_id,
                generation,
                seen.reason,
            )
            self._group.request_rejoin(f"lagassign advice: {seen.reason}")
            return True
        if start:
            threading.Thread(
                target=self._check, args=(generation,), name="lagassign-advice", daemon=True
            ).start()
        return False

    def _check(self, generation: int) -> None:
        try:
            response = self._client.get(self.advice_url)
        except (httpx.HTTPError, httpx.StreamError) as exc:
            self._unreachable(f"{type(exc).__name__}: {exc}")
            return
        finally:
            with self._lock:
                self._in_flight = False
        if response.status_code != 200:
            self._unreachable(f"HTTP {response.status_code}")
            return
        try:
            body = json.loads(response.content)
        except (UnicodeDecodeError, ValueError):
            self._unreachable("malformed JSON")
            return
        advised = body.get("advised") if isinstance(body, dict) else None
        if not isinstance(advised, bool):
            self._unreachable('an answer without "advised"')
            return
        reason = body.get("reason")
        digest = body.get("assignment_digest")
        with self._lock:
            again = self._warned
            self._warned = False
            self._latest = Seen(
                advised,
                reason if isinstance(reason, str) else "",
                generation,
                digest if isinstance(digest, str) else None,
            )
        if again:
            log.info("lagassign: group %s: the sidecar answers the advice again", self.group_id)

    def _unreachable(self, why: str) -> None:
        with self._lock:
            self._latest = None
            first = not self._warned
            self._warned = True
            if first:
                self.warnings += 1
        if first:
            log.warning(
                "lagassign: group %s: cannot read the rebalance advice at %s (%s); no"
                " rebalance is asked for until it answers",
                self.group_id,
                self.advice_url,
                why,
            )

    def close(self) -> None:
        """Release the HTTP connections now (a dropped advisor releases them too)."""
        self._closing()
