"""The lag view: a cached snapshot per tracked group, refreshed on an interval.

Every ``interval_s`` the refresh loop lists the cluster's groups (one
``ListGroups``), reads each tracked group (``DescribeGroups`` and ``OffsetFetch``,
one group per call, a bounded number at a time), then reads the log start and
end offsets of every topic those groups read, once per topic whatever the
number of groups, and publishes one :class:`GroupSnapshot` per group.

Readers (``/assign``, ``/groups``, ``/metrics``) only ever read the cache: they
never wait on Kafka. When Kafka is down the view keeps its last snapshots, marks
them stale, records the error, drops its clients and builds new ones on the next
refresh, so it recovers by itself when the broker returns.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any

from aiokafka import AIOKafkaConsumer  # type: ignore[import-untyped]
from aiokafka.admin import AIOKafkaAdminClient  # type: ignore[import-untyped]
from aiokafka.errors import KafkaError  # type: ignore[import-untyped]

from lagassign.history.errors import HistoryWriteError
from lagassign.history.sink import HistorySink
from lagassign.lagview.describe import describe_lag, kept_stale, unread
from lagassign.lagview.errors import InvalidLagViewSettings, LagViewError
from lagassign.lagview.groups import CommittedOffsets, GroupDescription, GroupReader, ListedGroup
from lagassign.lagview.offsets import OffsetReader, TopicOffsets
from lagassign.lagview.rules import ISOLATION_LEVELS, RESET_POLICIES, Isolation, ResetPolicy
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.lagview.tracking import GroupTracking

log = logging.getLogger(__name__)

# What a read from Kafka may raise; anything else is a bug and is not caught.
KAFKA_FAILURES: tuple[type[BaseException], ...] = (KafkaError, LagViewError, TimeoutError, OSError)

# aiokafka client arguments the view passes through (security and identity only).
CLIENT_KWARGS = frozenset(
    {
        "client_id",
        "security_protocol",
        "ssl_context",
        "sasl_mechanism",
        "sasl_plain_username",
        "sasl_plain_password",
        "sasl_kerberos_service_name",
        "sasl_kerberos_domain_name",
        "sasl_oauth_token_provider",
    }
)

RefreshObserver = Callable[[float, bool], None]


def utc_now() -> datetime:
    return datetime.now(UTC)


def failure_text(exc: BaseException) -> str:
    """A one-line reason for an error: its type and message (never a credential)."""
    name = type(exc).__name__
    message = str(exc).strip()
    if not message:
        return name
    return message if message.startswith(name) else f"{name}: {message}"


@dataclass(slots=True)
class _Clients:
    admin: AIOKafkaAdminClient
    uncommitted: AIOKafkaConsumer
    committed: AIOKafkaConsumer
    groups: GroupReader
    offsets: OffsetReader


@dataclass(frozen=True, slots=True)
class _GroupRead:
    group_id: str
    description: GroupDescription | None = None
    committed: CommittedOffsets | None = None
    error: str | None = None

    def topics(self) -> set[str]:
        found = set(self.committed or {})
        for member in self.description.members if self.description else ():
            found.update(member.assignment)
        return found


class LagView:
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
    - ``history``: a sink that receives every refresh, or ``None``;
    - ``on_refresh``: called after every refresh with its duration (seconds)
      and whether it read everything it tried (for metrics);
    - ``concurrency``: how many groups are read at once.

    Health, for ``/readyz`` and ``/metrics``: :attr:`first_snapshot_loaded`,
    :attr:`kafka_up`, :attr:`last_refresh_ok`, :attr:`last_refresh_error`,
    :attr:`last_refresh_seconds`, :attr:`refresh_errors_total`.
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
        history: HistorySink | None = None,
        on_refresh: RefreshObserver | None = None,
        concurrency: int = 32,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self._bootstrap = bootstrap_servers
        self._client_kwargs = dict(client_kwargs or {})
        unknown = sorted(set(self._client_kwargs) - CLIENT_KWARGS)
        if unknown:
            raise InvalidLagViewSettings(f"unknown Kafka client arguments: {', '.join(unknown)}")
        if not bootstrap_servers:
            raise InvalidLagViewSettings("bootstrap_servers must not be empty")
        if interval_s <= 0 or request_timeout_s <= 0:
            raise InvalidLagViewSettings("interval_s and request_timeout_s must be positive")
        if concurrency < 1:
            raise InvalidLagViewSettings("concurrency must be at least 1")
        self._reset = dict(reset_policy or {})
        self._isolation = dict(isolation or {})
        for policy in [default_reset_policy, *self._reset.values()]:
            if policy not in RESET_POLICIES:
                raise InvalidLagViewSettings(
                    f"reset policy {policy!r} is not one of {', '.join(RESET_POLICIES)}"
                )
        for level in [default_isolation, *self._isolation.values()]:
            if level not in ISOLATION_LEVELS:
                raise InvalidLagViewSettings(
                    f"isolation {level!r} is not one of {', '.join(ISOLATION_LEVELS)}"
                )
        self._default_reset: ResetPolicy = default_reset_policy
        self._default_isolation: Isolation = default_isolation
        self._tracking = GroupTracking(groups, group_pattern)
        self.interval_s = interval_s
        self.request_timeout_s = request_timeout_s
        self._history = history
        self._on_refresh = on_refresh
        self._concurrency = concurrency
        self._clock = clock

        self._snapshots: dict[str, GroupSnapshot] = {}
        self._listed: dict[str, ListedGroup] = {}
        self._topic_offsets: dict[str, TopicOffsets] = {}
        self._group_topics: dict[str, frozenset[str]] = {}
        self._clients: _Clients | None = None
        self._clients_lock = asyncio.Lock()
        self._refresh_lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._history_task: asyncio.Task[None] | None = None

        #: True once a refresh has reached Kafka (even if it found no groups).
        self.first_snapshot_loaded = False
        #: True when the last refresh reached Kafka.
        self.kafka_up = False
        #: When the last refresh that reached Kafka finished (partial errors allowed).
        self.last_refresh_ok: datetime | None = None
        #: Why the last refresh was not complete (``None`` when it read everything).
        self.last_refresh_error: str | None = None
        #: How long the last refresh took.
        self.last_refresh_seconds: float | None = None
        #: Refreshes that failed or were incomplete.
        self.refresh_errors_total = 0
        #: Every refresh so far.
        self.refreshes_total = 0
        #: History appends that failed.
        self.history_errors_total = 0

    # --- configuration ------------------------------------------------------------

    def reset_policy_of(self, group_id: str) -> ResetPolicy:
        """The reset policy the lags of ``group_id`` are computed with."""
        return self._reset.get(group_id, self._default_reset)

    def isolation_of(self, group_id: str) -> Isolation:
        """The isolation level (which end offset) the lags of ``group_id`` use."""
        return self._isolation.get(group_id, self._default_isolation)

    # --- reading the cache ----------------------------------------------------------

    def snapshot(self, group_id: str) -> GroupSnapshot | None:
        """The cached snapshot of ``group_id`` (never waits on Kafka)."""
        return self._snapshots.get(group_id)

    def snapshots(self) -> Mapping[str, GroupSnapshot]:
        """Every cached snapshot, by group id (a read-only copy)."""
        return MappingProxyType(dict(self._snapshots))

    def track(self, group_id: str) -> None:
        """Track ``group_id`` from the next refresh on."""
        self._tracking.register(group_id)

    # --- lifecycle ----------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True while the refresh loop runs (it only ends through :meth:`stop`)."""
        return self._task is not None and not self._task.done()

    async def start(self) -> None:
        """Start the refresh loop; returns at once (the first refresh runs in the background)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._loop(), name="lagassign-lag-refresh")

    async def stop(self) -> None:
        """Stop the refresh loop, close the Kafka clients and finish the history files."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                if not task.cancelled():
                    raise
        await self._drop_clients()
        await self._history_written()
        if self._history is not None:
            try:
                await asyncio.to_thread(self._history.close)
            except HistoryWriteError as exc:
                self.history_errors_total += 1
                log.warning("closing the lag history failed: %s", exc)

    async def _loop(self) -> None:
        while True:
            started = time.monotonic()
            await self.refresh()
            await asyncio.sleep(max(0.0, self.interval_s - (time.monotonic() - started)))

    # --- refreshing ---------------------------------------------------------------

    async def refresh(self) -> bool:
        """Refresh every tracked group now; True if everything was read.

        Never raises for a Kafka failure: the failure is recorded on the view
        and on the snapshots it left stale.
        """
        async with self._refresh_lock:
            started = time.perf_counter()
            errors = await self._refresh()
            duration = time.perf_counter() - started
        ok = not errors
        self.refreshes_total += 1
        self.last_refresh_seconds = duration
        self.last_refresh_error = None if ok else "; ".join(errors[:5])
        if not ok:
            self.refresh_errors_total += 1
        if self._on_refresh is not None:
            self._on_refresh(duration, ok)
        return ok

    async def _refresh(self) -> list[str]:
        as_of = self._clock()
        try:
            clients = await self._ensure_clients()
            listed = await clients.groups.list_groups()
        except KAFKA_FAILURES as exc:
            reason = f"Kafka unreachable: {failure_text(exc)}"
            self._mark_outage(reason)
            await self._drop_clients()
            return [reason]
        self._listed = {g.group_id: g for g in listed}
        group_ids = self._tracking.select(self._listed)
        # The offsets of the topics these groups read last time are read while
        # the groups are; a topic new to this refresh is read once they are done.
        expected = self._topics_of(group_ids)
        early = asyncio.create_task(self._read_offsets(clients, *expected))
        try:
            reads = await self._read_groups(clients, group_ids)
        except BaseException:
            early.cancel()
            raise
        offsets = await early
        for read in reads:
            if read.error is None:
                self._group_topics[read.group_id] = frozenset(read.topics())
        topics, stable = self._topics_of(group_ids)
        late = (topics - expected[0]) | (stable - expected[1])
        if late:
            offsets.update(await self._read_offsets(clients, late, stable & late))
        errors = [r.error for r in reads if r.error is not None]
        # A topic that does not exist is a fact about the cluster, not a failed read.
        errors += [
            f"topic {t!r}: {offsets[t].error}"
            for t in sorted(topics)
            if t in offsets and offsets[t].error and offsets[t].exists
        ]

        fresh: list[GroupSnapshot] = []
        for read in reads:
            snapshot = self._snapshot_of(read, offsets, as_of)
            self._snapshots[read.group_id] = snapshot
            if snapshot.error is None:
                fresh.append(snapshot)
        self._forget_untracked(set(group_ids))
        self.kafka_up = True
        self.first_snapshot_loaded = True
        self.last_refresh_ok = self._clock()
        await self._record(fresh)
        return errors

    async def _read_groups(self, clients: _Clients, group_ids: list[str]) -> list[_GroupRead]:
        gate = asyncio.Semaphore(self._concurrency)

        async def read(group_id: str) -> _GroupRead:
            async with gate:
                return await self._read_group(clients, group_id)

        return list(await asyncio.gather(*(read(g) for g in group_ids)))

    async def _read_group(self, clients: _Clients, group_id: str) -> _GroupRead:
        try:
            description = await clients.groups.describe(group_id)
            committed = await clients.groups.committed(group_id)
        except KAFKA_FAILURES as exc:
            # Whatever failed, look the coordinator up again next time.
            clients.groups.forget_coordinator(group_id)
            return _GroupRead(group_id, error=f"group {group_id!r}: {failure_text(exc)}")
        return _GroupRead(group_id, description, committed)

    def _topics_of(self, group_ids: list[str]) -> tuple[frozenset[str], frozenset[str]]:
        """The topics ``group_ids`` read when last read, and those read by a read_committed one."""
        topics: set[str] = set()
        stable: set[str] = set()
        for group_id in group_ids:
            read = self._group_topics.get(group_id, frozenset())
            topics |= read
            if self.isolation_of(group_id) == "read_committed":
                stable |= read
        return frozenset(topics), frozenset(stable)

    async def _read_offsets(
        self, clients: _Clients, topics: frozenset[str], stable: frozenset[str]
    ) -> dict[str, TopicOffsets]:
        """Every topic's offsets; a topic that could not be read keeps its last values, stale."""
        try:
            layouts = await clients.offsets.layout(sorted(topics))
            return await clients.offsets.read(layouts, stable)
        except KAFKA_FAILURES as exc:
            reason = f"topic metadata: {failure_text(exc)}"
            return {t: clients.offsets.stale(t, reason) for t in topics}

    def _snapshot_of(
        self, read: _GroupRead, offsets: Mapping[str, TopicOffsets], as_of: datetime
    ) -> GroupSnapshot:
        reset = self.reset_policy_of(read.group_id)
        isolation = self.isolation_of(read.group_id)
        if read.description is None or read.committed is None:
            error = read.error or "not read"
            previous = self._snapshots.get(read.group_id)
            if previous is not None and previous.partitions:
                return kept_stale(previous, error)
            return unread(read.group_id, error, as_of, reset, isolation)
        return describe_lag(
            read.description,
            self._listed.get(read.group_id),
            read.committed,
            offsets,
            reset,
            isolation,
            as_of,
        )

    def _mark_outage(self, reason: str) -> None:
        if self.kafka_up or self.refreshes_total == 0:
            log.warning("lag refresh failed, keeping the last snapshots: %s", reason)
        self.kafka_up = False
        for group_id, previous in list(self._snapshots.items()):
            if previous.error != reason:
                self._snapshots[group_id] = kept_stale(previous, reason)

    def _forget_untracked(self, tracked: set[str]) -> None:
        for group_id in [g for g in self._snapshots if g not in tracked]:
            del self._snapshots[group_id]
        for group_id in [g for g in self._group_topics if g not in tracked]:
            del self._group_topics[group_id]

    async def _record(self, fresh: list[GroupSnapshot]) -> None:
        """Hand the refresh to the history sink, in a worker thread, one refresh at a time.

        The write overlaps the wait for the next refresh; if the previous one
        is still running, this refresh waits for it (the history never falls
        behind by more than one refresh).
        """
        if self._history is None or not fresh:
            return
        await self._history_written()
        self._history_task = asyncio.create_task(
            self._append_history(self._history, fresh), name="lagassign-lag-history"
        )

    async def _append_history(self, history: HistorySink, fresh: list[GroupSnapshot]) -> None:
        try:
            await asyncio.to_thread(history.append, fresh)
        except HistoryWriteError as exc:
            self.history_errors_total += 1
            log.warning("lag history append failed: %s", exc)

    async def _history_written(self) -> None:
        """Wait until the last history append has finished.

        Shielded: a waiter that is cancelled (the loop, on :meth:`stop`) leaves
        the append running, and :meth:`stop` waits for it before closing the sink.
        """
        task = self._history_task
        if task is not None:
            await asyncio.shield(task)
            if self._history_task is task:
                self._history_task = None

    # --- on demand ----------------------------------------------------------------

    async def fetch_group(self, group_id: str, budget_s: float) -> GroupSnapshot | None:
        """The snapshot of ``group_id`` now, reading it from Kafka if it is not cached.

        The group is tracked from now on. Returns ``None`` when Kafka does not
        answer within ``budget_s`` seconds (the caller then goes on without lag).
        """
        self.track(group_id)
        cached = self._snapshots.get(group_id)
        if cached is not None and cached.error is None:
            return cached
        try:
            async with asyncio.timeout(budget_s):
                clients = await self._ensure_clients()
                read = await self._read_group(clients, group_id)
                if read.error is not None:
                    return None
                self._group_topics[group_id] = frozenset(read.topics())
                topics = frozenset(read.topics())
                committed = self.isolation_of(group_id) == "read_committed"
                offsets = await self._read_offsets(
                    clients, topics, topics if committed else frozenset()
                )
        except KAFKA_FAILURES as exc:
            log.info("on-demand read of group %r failed: %s", group_id, failure_text(exc))
            return None
        snapshot = self._snapshot_of(read, offsets, self._clock())
        self._snapshots[group_id] = snapshot
        return snapshot

    # --- clients ------------------------------------------------------------------

    async def _ensure_clients(self) -> _Clients:
        async with self._clients_lock:
            if self._clients is None:
                self._clients = await self._open_clients()
            return self._clients

    async def _open_clients(self) -> _Clients:
        timeout_ms = int(self.request_timeout_s * 1000) + 1000
        common: dict[str, Any] = {
            "bootstrap_servers": self._bootstrap,
            "request_timeout_ms": timeout_ms,
            **self._client_kwargs,
        }
        admin = AIOKafkaAdminClient(**common)
        uncommitted = AIOKafkaConsumer(
            **common, enable_auto_commit=False, isolation_level="read_uncommitted"
        )
        committed = AIOKafkaConsumer(
            **common, enable_auto_commit=False, isolation_level="read_committed"
        )
        try:
            async with asyncio.timeout(self.request_timeout_s * 3):
                await admin.start()
                await uncommitted.start()
                await committed.start()
        except BaseException:
            await _close_quietly(admin, uncommitted, committed)
            raise
        return _Clients(
            admin,
            uncommitted,
            committed,
            GroupReader(admin, self.request_timeout_s),
            OffsetReader(
                admin._client, uncommitted, committed, self.request_timeout_s, self._topic_offsets
            ),
        )

    async def _drop_clients(self) -> None:
        async with self._clients_lock:
            clients, self._clients = self._clients, None
        if clients is not None:
            await _close_quietly(clients.admin, clients.uncommitted, clients.committed)


async def _close_quietly(admin: AIOKafkaAdminClient, *consumers: AIOKafkaConsumer) -> None:
    """Close clients that may be half-started; a failure to close is only logged."""
    try:
        await admin.close()
    except KAFKA_FAILURES as exc:
        log.debug("closing the admin client failed: %s", exc)
    for consumer in consumers:
        try:
            await consumer.stop()
        except KAFKA_FAILURES as exc:
            log.debug("stopping a consumer failed: %s", exc)
