"""Why the group leader did not use the sidecar's answer.

    Exception
     └── FallbackReason                 reason: the label the fallback is counted by
          ├── SidecarTimeout            "timeout"     no answer within the deadline
          ├── SidecarUnreachable        "unreachable" connection refused, reset, DNS …
          ├── SidecarStatus             "status"      an HTTP status other than 200
          ├── MalformedAnswer           "malformed"   not JSON, or not the answer's shape
          ├── InvalidAnswer             "invalid"     breaks the leader's own metadata
          └── IncompleteMetadata        "metadata"    the leader's metadata has gaps

The leader catches exactly this tree, logs one WARNING and uses the client
library's own range assignor instead. Nothing here reaches the consumer.
"""

from __future__ import annotations


class FallbackReason(Exception):
    """Base of every reason to fall back; ``reason`` is the counter's label."""

    reason = "fallback"


class SidecarTimeout(FallbackReason):
    reason = "timeout"


class SidecarUnreachable(FallbackReason):
    reason = "unreachable"


class SidecarStatus(FallbackReason):
    reason = "status"

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class MalformedAnswer(FallbackReason):
    reason = "malformed"


class InvalidAnswer(FallbackReason):
    reason = "invalid"


class IncompleteMetadata(FallbackReason):
    reason = "metadata"


FALLBACK_REASONS: tuple[str, ...] = tuple(
    cls.reason
    for cls in (
        SidecarTimeout,
        SidecarUnreachable,
        SidecarStatus,
        MalformedAnswer,
        InvalidAnswer,
        IncompleteMetadata,
    )
)
