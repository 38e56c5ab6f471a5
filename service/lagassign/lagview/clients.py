"""The owner of the lag view's Kafka clients, and the two reads made through them.

:class:`KafkaClients` opens an admin client and two group-less consumers (one
per isolation level) on first use, shares them between the refresh loop and
on-demand reads, and drops them after an outage so the next read builds new
ones. :meth:`KafkaClients.read_group` reads one group (``DescribeGroups`` and
``OffsetFetch``); :meth:`KafkaClients.read_offsets` reads the log start and end
offsets of topics. Neither raises for a Kafka failure: the failure is in the
value they return.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aiokafka import AIOKafkaConsumer  # type: ignore[import-untyped]
from aiokafka.admin import AIOKafkaAdminClient  # type: ignore[import-untyped]
from aiokafka.errors import KafkaError  # type: ignore[import-untyped]

from lagassign.lagview.errors import InvalidLagViewSettings, LagViewError
from lagassign.lagview.groups import CommittedOffsets, GroupDescription, GroupReader
from lagassign.lagview.offsets import OffsetReader, TopicOffsets

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


def failure_text(exc: BaseException) -> str:
    """A one-line reason for an error: its type and message (never a credential)."""
    name = type(exc).__name__
    message = str(exc).strip()
    if not message:
        return name
    return message if message.startswith(name) else f"{name}: {message}"


@dataclass(slots=True)
class OpenClients:
    """The started clients and the readers over them."""

    admin: AIOKafkaAdminClient
    uncommitted: AIOKafkaConsumer
    committed: AIOKafkaConsumer
    groups: GroupReader
    offsets: OffsetReader


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
        if clients is not None:
            await _close_quietly(clients.admin, clients.uncommitted, clients.committed)

    async def read_group(self, clients: OpenClients, group_id: str) -> GroupRead:
        """One group's description and committed offsets, or the reason they could not be read."""
        try:
            description = await clients.groups.describe(group_id)
            committed = await clients.groups.committed(group_id)
        except KAFKA_FAILURES as exc:
            # Whatever failed, look the coordinator up again next time.
            clients.groups.forget_coordinator(group_id)
            return GroupRead(group_id, error=f"group {group_id!r}: {failure_text(exc)}")
        return GroupRead(group_id, description, committed)

    async def read_offsets(
        self, clients: OpenClients, topics: frozenset[str], stable: frozenset[str]
    ) -> dict[str, TopicOffsets]:
        """Every topic's offsets; a topic that could not be read keeps its last values, stale."""
        try:
            layouts = await clients.offsets.layout(sorted(topics))
            return await clients.offsets.read(layouts, stable)
        except KAFKA_FAILURES as exc:
            reason = f"topic metadata: {failure_text(exc)}"
            return {t: clients.offsets.stale(t, reason) for t in topics}

    async def _open(self) -> OpenClients:
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
        return OpenClients(
            admin,
            uncommitted,
            committed,
            GroupReader(admin, self.request_timeout_s),
            OffsetReader(
                admin._client, uncommitted, committed, self.request_timeout_s, self._topic_offsets
            ),
        )


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
