"""The owner of the lag view's Kafka client, and the two reads made through it.

:class:`KafkaClients` opens an admin client on first use (its connections carry
every request of the view), shares it between the refresh loop and on-demand
reads, and drops it after an outage so the next read builds a new one.
:meth:`KafkaClients.read_group` reads one group (``DescribeGroups`` and
``OffsetFetch``); :meth:`KafkaClients.read_offsets` reads the log start and end
offsets of topics (``ListOffsets``). Neither raises for a Kafka failure: the failure is in the
value they return.

Topic offsets are read once per topic however many readers want them at the same
time: a read of a topic already under way (for the refresh, or for an on-demand
read of another group) is joined, not repeated, and it runs to its end even when
the reader that started it gives up (its values are kept for the next reader).
An on-demand read may also take a topic's values from a read younger than
``max_age_s`` instead of reading it again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aiokafka.admin import AIOKafkaAdminClient  # type: ignore[import-untyped]
from aiokafka.errors import KafkaError  # type: ignore[import-untyped]

from lagassign.lagview.errors import CoordinatorMoved, InvalidLagViewSettings, LagViewError
from lagassign.lagview.kafka.groups import (
    COORDINATOR_BACKOFF_S,
    CommittedOffsets,
    GroupDescription,
    GroupReader,
)
from lagassign.lagview.kafka.offsets import OffsetReader, TopicOffsets
from lagassign.lagview.kafka.record_times import record_timestamps

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

# A group read whose coordinator moved or was not ready is asked again this often in all.
GROUP_READ_ATTEMPTS = 5


def failure_text(exc: BaseException) -> str:
    """A one-line reason for an error: its type and message (never a credential)."""
    name = type(exc).__name__
    message = str(exc).strip()
    if not message:
        return name
    return message if message.startswith(name) else f"{name}: {message}"


@dataclass(slots=True)
class OpenClients:
    """The started client and the readers over it."""

    admin: AIOKafkaAdminClient
    groups: GroupReader
    offsets: OffsetReader


@dataclass(frozen=True, slots=True)
class OffsetsRead:
    """One read of topic offsets under way, which several readers may wait for."""

    topics: frozenset[str]
    stable: frozenset[str]
    task: asyncio.Task[dict[str, TopicOffsets]]

    async def result(self, clients: OpenClients) -> dict[str, TopicOffsets]:
        """The read's values; a reader that gives up does not stop the read."""
        try:
            return await asyncio.shield(self.task)
        except asyncio.CancelledError:
            if not self.task.cancelled():
                raise
        # The read was abandoned because the clients were dropped (an outage, or stop).
        return {t: clients.offsets.stale(t, "the Kafka clients were closed") for t in self.topics}


@dataclass(frozen=True, slots=True)
class GroupRead:
    """What one read of a group found, or why it failed (``error``)."""

    group_id: str
    description: GroupDescription | None = None
    committed: CommittedOffsets | None = None
    error: str | None = None

    def topics(self) -> set[str]:
        found = set(self.committed or {})
        for member in self.description.members if self.description else ():
            found.update(member.assignment)
            found.update(member.subscribed_topics)
        return found


class KafkaClients:
    """Opens the clients on first use, shares them, drops them after an outage."""

    def __init__(
        self,
        bootstrap_servers: str | Sequence[str],
        *,
        client_kwargs: Mapping[str, Any] | None = None,
        request_timeout_s: float = 2.0,
    ) -> None:
        self._bootstrap = bootstrap_servers
        self._client_kwargs = dict(client_kwargs or {})
        unknown = sorted(set(self._client_kwargs) - CLIENT_KWARGS)
        if unknown:
            raise InvalidLagViewSettings(f"unknown Kafka client arguments: {', '.join(unknown)}")
        if not bootstrap_servers:
            raise InvalidLagViewSettings("bootstrap_servers must not be empty")
        if request_timeout_s <= 0:
            raise InvalidLagViewSettings("interval_s and request_timeout_s must be positive")
        self.request_timeout_s = request_timeout_s
        self._topic_offsets: dict[str, TopicOffsets] = {}
        # When each topic was last read well, and whether last stable offsets were read too.
        self._read_at: dict[str, tuple[float, bool]] = {}
        self._reading: dict[str, OffsetsRead] = {}
        self._clients: OpenClients | None = None
        self._lock = asyncio.Lock()

    async def ensure(self) -> OpenClients:
        """The open clients, opened now if there are none."""
        async with self._lock:
            if self._clients is None:
                self._clients = await self._open()
            return self._clients

    async def drop(self) -> None:
        """Close the clients; the next :meth:`ensure` opens new ones."""
        async with self._lock:
            clients, self._clients = self._clients, None
        for read in {id(r): r for r in self._reading.values()}.values():
            read.task.cancel()
        self._reading.clear()
        if clients is not None:
            await _close_quietly(clients.admin)

    async def read_group(self, clients: OpenClients, group_id: str) -> GroupRead:
        """One group's description and committed offsets, or the reason they could not be read.

        A coordinator that moved or is still loading (a cluster's first group, a
        broker just restarted) is looked up and asked again after a short backoff,
        at most ``GROUP_READ_ATTEMPTS`` times in all; the caller's time limit applies.
        """
        try:
            for attempt in range(1, GROUP_READ_ATTEMPTS + 1):
                try:
                    description = await clients.groups.describe(group_id)
                    committed = await clients.groups.committed(group_id)
                    break
                except CoordinatorMoved:
                    if attempt == GROUP_READ_ATTEMPTS:
                        raise
                    await asyncio.sleep(COORDINATOR_BACKOFF_S)
        except KAFKA_FAILURES as exc:
            # Whatever failed, look the coordinator up again next time.
            clients.groups.forget_coordinator(group_id)
            return GroupRead(group_id, error=f"group {group_id!r}: {failure_text(exc)}")
        return GroupRead(group_id, description, committed)

    def known_offsets(self, topic: str) -> TopicOffsets | None:
        """The last values read for ``topic``, if it was ever read."""
        return self._topic_offsets.get(topic)

    async def read_offsets(
        self,
        clients: OpenClients,
        topics: frozenset[str],
        stable: frozenset[str],
        max_age_s: float | None = None,
    ) -> dict[str, TopicOffsets]:
        """Every topic's offsets; a topic that could not be read keeps its last values, stale.

        A read of a topic already under way is joined. With ``max_age_s``, a topic
        read well less than ``max_age_s`` seconds ago is not read again.
        """
        out: dict[str, TopicOffsets] = {}
        if max_age_s is not None:
            out = {t: o for t in topics if (o := self._young(t, t in stable, max_age_s))}
        joined: dict[int, OffsetsRead] = {}
        missing: set[str] = set()
        for topic in topics - out.keys():
            under_way = self._reading.get(topic)
            if under_way is not None and (topic not in stable or topic in under_way.stable):
                joined[id(under_way)] = under_way
            else:
                missing.add(topic)
        if missing:
            started = self._start_read(clients, frozenset(missing), stable & missing)
            joined[id(started)] = started
        for read in joined.values():
            values = await read.result(clients)
            out.update((t, values[t]) for t in topics & read.topics)
        return out

    def _young(self, topic: str, stable: bool, max_age_s: float) -> TopicOffsets | None:
        read_at = self._read_at.get(topic)
        if read_at is None or (stable and not read_at[1]):
            return None
        if time.monotonic() - read_at[0] > max_age_s:
            return None
        return self._topic_offsets.get(topic)

    def _start_read(
        self, clients: OpenClients, topics: frozenset[str], stable: frozenset[str]
    ) -> OffsetsRead:
        task = asyncio.create_task(self._read(clients, topics, stable), name="lagassign-offsets")
        read = OffsetsRead(topics, stable, task)
        for topic in topics:
            self._reading[topic] = read

        def done(_: asyncio.Task[dict[str, TopicOffsets]]) -> None:
            for topic in topics:
                if self._reading.get(topic) is read:
                    del self._reading[topic]

        task.add_done_callback(done)
        return read

    async def _read(
        self, clients: OpenClients, topics: frozenset[str], stable: frozenset[str]
    ) -> dict[str, TopicOffsets]:
        try:
            layouts = await clients.offsets.layout(sorted(topics))
            values = await clients.offsets.read(layouts, stable)
        except KAFKA_FAILURES as exc:
            reason = f"topic metadata: {failure_text(exc)}"
            return {t: clients.offsets.stale(t, reason) for t in topics}
        now = time.monotonic()
        for topic, offsets in values.items():
            if offsets.error is None and not any(p.stale for p in offsets.partitions.values()):
                self._read_at[topic] = (now, topic in stable)
        return values

    async def record_timestamps(
        self, wanted: Mapping[tuple[str, int], int]
    ) -> dict[tuple[str, int], int]:
        """Timestamps (ms) of the records at ``wanted`` offsets (:mod:`.record_times`)."""
        return await record_timestamps(self._common(), wanted, 2 * self.request_timeout_s)

    def _common(self) -> dict[str, Any]:
        return {
            "bootstrap_servers": self._bootstrap,
            "request_timeout_ms": int(self.request_timeout_s * 1000) + 1000,
            **self._client_kwargs,
        }

    async def _open(self) -> OpenClients:
        admin = AIOKafkaAdminClient(**self._common())
        try:
            async with asyncio.timeout(self.request_timeout_s * 3):
                await admin.start()
        except BaseException:
            await _close_quietly(admin)
            raise
        return OpenClients(
            admin,
            GroupReader(admin, self.request_timeout_s),
            OffsetReader(admin._client, self.request_timeout_s, self._topic_offsets),
        )


async def _close_quietly(admin: AIOKafkaAdminClient) -> None:
    """Close a client that may be half-started; a failure to close is only logged."""
    try:
        await admin.close()
    except KAFKA_FAILURES as exc:
        log.debug("closing the admin client failed: %s", exc)
