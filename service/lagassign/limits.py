"""The limits of one assignment request: one definition, for the CLI and the service alike.

Kafka's own widths bound every number a request carries: partition counts,
partition numbers and generations are 32-bit signed integers in Kafka's
protocol, offsets and lags 64-bit signed. Group ids, member ids, instance
ids, topic names and racks are Kafka strings, at most 32,767 characters.

On top of those, a request's size is capped (413 ``too_large`` beyond): its
members, its partitions in all, and its body in bytes. The service reads the
caps from ``LAGASSIGN_MAX_MEMBERS``, ``LAGASSIGN_MAX_PARTITIONS`` and
``LAGASSIGN_MAX_BODY_BYTES`` (defaults below); ``lagassign assign`` applies
the same variables, so a request the service refuses the CLI refuses too.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Kafka's INT32: partition counts, partition numbers, generations.
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
#: Kafka's INT64: offsets and lags.
INT64_MAX = 2**63 - 1
#: Kafka's STRING: at most this many characters (a signed 16-bit length).
KAFKA_STRING_MAX = 32_767

#: Default caps of one request.
DEFAULT_MAX_MEMBERS = 5_000
DEFAULT_MAX_PARTITIONS = 2_000_000
DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class RequestLimits:
    """The caps of one request: members, partitions in all, body bytes."""

    max_members: int = DEFAULT_MAX_MEMBERS
    max_partitions: int = DEFAULT_MAX_PARTITIONS
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
