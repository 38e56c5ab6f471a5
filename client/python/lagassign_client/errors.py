"""Why the group leader did not use the sidecar's answer.

    Exception
     └── FallbackReason                 reason: the label the fallback is counted by
          ├── SidecarTimeout            "timeout"            no answer within the deadline
          ├── SidecarUnreachable        "unreachable"        reset, TLS, protocol error …
          │    ├── SidecarUnknownHost   "unknown_host"       the host name does not resolve
          │    └── SidecarRefused       "connection_refused" nothing listens on the port
          ├── SidecarStatus             "status"             an HTTP status other than 200
          ├── MalformedAnswer           "malformed"          not JSON, or not the answer's shape
          ├── InvalidAnswer             "invalid"            breaks the leader's own metadata
          └── IncompleteMetadata        "metadata"           the leader's metadata has gaps
               └── NoMetadataYet        (not counted)        none at all yet: a first join

The leader catches exactly this tree, logs one WARNING and uses the client
library's own range assignor instead. Nothing here reaches the consumer.

An answer that is used but was computed without (all of) the group's lag is not
a fallback: it is counted under :data:`BLIND_REASONS`.
"""

from __future__ import annotations


class FallbackReason(Exception):
    """Base of every reason to fall back; ``reason`` is the counter's label, named where
    the subclass is declared (``class SidecarTimeout(FallbackReason, reason="timeout")``)."""

    reason = "fallback"

    def __init_subclass__(cls, *, reason: str | None = None) -> None:
        super().__init_subclass__()
        if reason is not None:
            cls.reason = reason


class SidecarTimeout(FallbackReason, reason="timeout"): ...


class SidecarUnreachable(FallbackReason, reason="unreachable"): ...


class SidecarUnknownHost(SidecarUnreachable, reason="unknown_host"): ...


class SidecarRefused(SidecarUnreachable, reason="connection_refused"): ...


class SidecarStatus(FallbackReason, reason="status"):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


WITHHELD = "the answer withholds partitions in 'revoked' in an eager rebalance"
"""Why an eager rebalance refuses an answer that lists partitions in ``revoked``."""


class MalformedAnswer(FallbackReason, reason="malformed"): ...


class InvalidAnswer(FallbackReason, reason="invalid"): ...


class IncompleteMetadata(FallbackReason, reason="metadata"): ...


class NoMetadataYet(IncompleteMetadata):
    """No subscribed topic has metadata yet: a consumer's first join, nothing to assign.

    The client library assigns nothing and rejoins once its metadata arrives; it
    is logged at INFO and not counted as a fallback.
    """


FALLBACK_REASONS: tuple[str, ...] = tuple(
    cls.reason
    for cls in (
        SidecarTimeout,
        SidecarUnknownHost,
        SidecarRefused,
        SidecarUnreachable,
        SidecarStatus,
        MalformedAnswer,
        InvalidAnswer,
        IncompleteMetadata,
    )
)

# An answer used although the sidecar saw no lag at all (``lag.source == "none"``), or
# only part of it (``lag.complete`` false or ``unknown_partitions`` above 0).
LAG_BLIND = "lag_blind"
LAG_PARTIAL = "lag_partial"
BLIND_REASONS: tuple[str, ...] = (LAG_BLIND, LAG_PARTIAL)
