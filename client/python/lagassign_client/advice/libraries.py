"""How the rebalance advisor reads a consumer's generation and asks it to rejoin, per library.

Neither aiokafka nor kafka-python has a public call to start a rebalance (Kafka's
Java consumer has ``enforceRebalance``). Both have an internal rejoin request, the one
they use themselves when a subscription's metadata changes:

- aiokafka: ``consumer._coordinator.request_rejoin()``; the generation is
  ``consumer._coordinator.generation``, not counted while a rejoin is pending.
- kafka-python: ``consumer._coordinator.request_rejoin()``; the generation is
  ``consumer._coordinator.generation_if_stable()`` (None while the group rebalances).

These are private and may change in any release, so the advisor acts only on the
versions in :data:`TESTED_VERSIONS`; on any other it logs one WARNING and does
nothing (the consumer is unaffected).
"""

from __future__ import annotations

import logging
from importlib import metadata
from typing import Any

log = logging.getLogger("lagassign_client")

#: The library versions the advisor is tested with (``tests/client/test_advice_python_kafka.py``).
TESTED_VERSIONS = {"aiokafka": ("0.14.0",), "kafka-python": ("3.0.12",)}


def _tested(library: str, coordinator: Any) -> bool:
    try:
        version = metadata.version(library)
    except metadata.PackageNotFoundError:
        version = "unknown"
    tested = TESTED_VERSIONS[library]
    if version not in tested:
        log.warning(
            "lagassign: the rebalance advisor is tested with %s %s, not %s: it will not ask"
            " for rebalances",
            library,
            " or ".join(tested),
            version,
        )
        return False
    if not callable(getattr(coordinator, "request_rejoin", None)):
        log.warning(
            "lagassign: this %s consumer has no group coordinator with a rejoin request (no"
            " group_id, or not subscribed): the rebalance advisor will not ask for rebalances",
            library,
        )
        return False
    return True


class AiokafkaGroup:
    """An ``AIOKafkaConsumer``'s membership; call from its event loop."""

    def __init__(self, consumer: Any) -> None:
        self._consumer = consumer

    def generation(self) -> int | None:
        coordinator = self._consumer._coordinator
        if coordinator is None or coordinator._rejoin_needed_fut.done():
            return None
        generation = coordinator.generation
        return generation if isinstance(generation, int) and generation >= 0 else None

    def request_rejoin(self, reason: str) -> None:
        self._consumer._coordinator.request_rejoin()


class KafkaPythonGroup:
    """A kafka-python ``KafkaConsumer``'s membership; call from the thread that polls."""

    def __init__(self, consumer: Any) -> None:
        self._consumer = consumer

    def generation(self) -> int | None:
        stable = self._consumer._coordinator.generation_if_stable()
        if stable is None:
            return None
        generation = stable.generation_id
        return generation if isinstance(generation, int) and generation >= 0 else None

    def request_rejoin(self, reason: str) -> None:
        self._consumer._coordinator.request_rejoin()


def aiokafka_group(consumer: Any) -> AiokafkaGroup | None:
    """The membership of a started ``AIOKafkaConsumer``, or None when the advisor cannot act."""
    if not _tested("aiokafka", getattr(consumer, "_coordinator", None)):
        return None
    return AiokafkaGroup(consumer)


def kafka_python_group(consumer: Any) -> KafkaPythonGroup | None:
    """The membership of a kafka-python ``KafkaConsumer``, or None when the advisor cannot act."""
    if not _tested("kafka-python", getattr(consumer, "_coordinator", None)):
        return None
    return KafkaPythonGroup(consumer)
