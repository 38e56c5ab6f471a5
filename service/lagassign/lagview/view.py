"""The lag view: the Kafka clients, the snapshot store and the refresh loop, put together.

:class:`LagView` is the :class:`~lagassign.lagview.refresh.RefreshLoop` over a
:class:`~lagassign.lagview.store.SnapshotStore` and the
:class:`~lagassign.lagview.kafka.clients.KafkaClients` it builds from plain values; it
answers reads from the store, so it is the
:class:`~lagassign.lagview.reader.LagReader` the HTTP service reads. It always runs on
an event loop of its own, in a thread of its own (:mod:`lagassign.lagview.own_loop`):
it refreshes there and hands there what asks Kafka, whatever loop calls it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection, Coroutine, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from lagassign.lagview.kafka.clients import KafkaClients
from lagassign.lagview.kafka.nudge import NudgeResult, Unless, nudge
from lagassign.lagview.listeners import RefreshListener
from lagassign.lagview.own_loop import STOP_S, KafkaLoop
from lagassign.lagview.refresh import RefreshLoop
from lagassign.lagview.rules import Isolation, ResetPolicy
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.lagview.store import SnapshotStore, utc_now

log = logging.getLogger(__name__)

T = TypeVar("T")


class LagView(RefreshLoop):
    """Cached, periodically refreshed lag of the tracked consumer groups.

    Arguments (all plain values):

    - ``bootstrap_servers``: ``"host:port,..."`` or a list;
    - ``client_kwargs``: aiokafka security and identity arguments
      (``security_protocol``, ``sasl_mechanism``, ``sasl_plain_username``,
      ``sasl_plain_password``, ``ssl_context``, ``client_id``, ...);
    - ``interval_s``: time between refresh starts;
    - ``groups`` and ``group_pattern``: the tracked groups (a list, and a regex
      that must match a whole group id of the cluster); ``/assign`` adds more
      with :meth:`track`;
    - ``reset_policy``/``isolation``: per group, with defaults ``latest`` and
      ``read_uncommitted``;
    - ``request_timeout_s``: the bound on each request (per group, per topic);
    - ``listeners``: told of every refresh (the history recorder, the metrics);
    - ``concurrency``: how many groups are read at once;
    - ``track_consumer_groups``: track every consumer-protocol group (KIP-848)
      of the cluster, so the broker plugin's requests resolve to them;
    - ``max_on_demand_groups``/``on_demand_idle_s``: groups tracked through
      :meth:`track` are capped (least recently used dropped first) and expire
      when unused this long;
    - ``own_loop``: the :class:`~lagassign.lagview.own_loop.KafkaLoop` (an event loop
      in a thread of its own) the refreshes, the Kafka clients and the listeners run
      on; a new one by default.
    """

    def __init__(
        self,
        bootstrap_servers: str | Sequence[str],
        *,
        client_kwargs: Mapping[str, Any] | None = None,
        interval_s: float = 5.0,
        groups: Iterable[str] = (),
        group_pattern: str | None = None,
        reset_policy: Mapping[str, ResetPolicy] | None = None,
        default_reset_policy: ResetPolicy = "latest",
        isolation: Mapping[str, Isolation] | None = None,
        default_isolation: Isolation = "read_uncommitted",
        request_timeout_s: float = 2.0,
        listeners: Sequence[RefreshListener] = (),
        concurrency: int = 32,
        track_consumer_groups: bool = False,
        clock: Callable[[], datetime] = utc_now,
        max_on_demand_groups: int = 1_000,
        on_demand_idle_s: float = 3_600.0,
        own_loop: KafkaLoop | None = None,
    ) -> None:
        clients = KafkaClients(
            bootstrap_servers, client_kwargs=client_kwargs, request_timeout_s=request_timeout_s
        )
        store = SnapshotStore(
            clients,
            groups=groups,
            group_pattern=group_pattern,
            reset_policy=reset_policy,
            default_reset_policy=default_reset_policy,
            isolation=isolation,
            default_isolation=default_isolation,
            offsets_max_age_s=interval_s,
            clock=clock,
            max_on_demand_groups=max_on_demand_groups,
            on_demand_idle_s=on_demand_idle_s,
        )
        super().__init__(
            store,
            clients,
            interval_s=interval_s,
            listeners=listeners,
            concurrency=concurrency,
            track_consumer_groups=track_consumer_groups,
        )
        self.request_timeout_s = request_timeout_s
        self.own_loop = KafkaLoop() if own_loop is None else own_loop

    async def _on_own_loop(self, work: Coroutine[Any, Any, T]) -> T:
        """``work`` run on the view's own loop."""
        return await self.own_loop.run(work)

    # --- handed to the own loop: what asks Kafka or changes what is tracked -------------

    async def start(self) -> None:
        await self._on_own_loop(super().start())

    async def stop(self) -> None:
        """Stop the refreshes, the clients and the listeners (on the own loop: within
        :data:`~lagassign.lagview.own_loop.STOP_S`), then the own loop's thread."""
        try:
            async with asyncio.timeout(STOP_S):
                await self.own_loop.run(super().stop())
        except TimeoutError:
            log.warning("the lag view did not stop within %.1f s; its loop is ended", STOP_S)
        finally:
            await self.own_loop.close()

    async def refresh(self) -> bool:
        return await self._on_own_loop(super().refresh())

    def reset_policy_of(self, group_id: str) -> ResetPolicy:
        """The reset policy the lags of ``group_id`` are computed with."""
        return self.store.reset_policy_of(group_id)

    def isolation_of(self, group_id: str) -> Isolation:
        """The isolation level (which end offset) the lags of ``group_id`` use."""
        return self.store.isolation_of(group_id)

    def snapshot(self, group_id: str) -> GroupSnapshot | None:
        """The cached snapshot of ``group_id`` (never waits on Kafka)."""
        return self.store.snapshot(group_id)

    def snapshots(self) -> Mapping[str, GroupSnapshot]:
        """Every cached snapshot, by group id (a read-only copy)."""
        return self.store.snapshots()

    def track(self, group_id: str, topics: Collection[str] = ()) -> None:
        """Track ``group_id`` from the next refresh on, with the ``topics`` its rebalance named."""
        self.own_loop.call(self.store.track, group_id, tuple(topics))

    @property
    def tracked_groups_evicted_total(self) -> int:
        """On-demand groups dropped so far (idle, or past the cap)."""
        return self.store.tracking.evicted_total

    async def fetch_group(
        self, group_id: str, budget_s: float, topics: Collection[str] = ()
    ) -> GroupSnapshot | None:
        """The snapshot of ``group_id`` listing ``topics``, read within ``budget_s`` if need be."""
        return await self._on_own_loop(self.store.fetch_group(group_id, budget_s, topics))

    async def nudge(
        self, group_id: str, wait_s: float = 10.0, unless: Unless | None = None
    ) -> NudgeResult:
        """Make the broker recompute ``group_id``'s target assignment (:mod:`.nudge`):
        the sidecar's own member joins and leaves, through the view's connection
        (``unless`` may skip it on the group as described just before the join)."""
        return await self._on_own_loop(self._nudge(group_id, wait_s, unless))

    async def _nudge(self, group_id: str, wait_s: float, unless: Unless | None) -> NudgeResult:
        clients = await self.clients.ensure()
        return await nudge(
            clients.groups,
            group_id,
            wait_s=wait_s,
            timeout_s=self.request_timeout_s,
            unless=unless,
        )
