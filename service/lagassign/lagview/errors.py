"""Errors of the lag view.

    Exception
     └── LagViewError            something the view could not read from Kafka
          ├── GroupReadError     one group could not be listed, described or
          │    │                 its committed offsets fetched
          │    └── CoordinatorMoved  its coordinator moved, is loading or not
          │                          ready yet: worth asking again
          └── TopicOffsetsError  one topic's log start or end offsets could not
                                 be read within the per-request timeout
    ValueError
     └── InvalidLagViewSettings  the view was constructed with nonsense (an
                                 unknown reset policy, a bad regex, ...)

The refresh loop never lets these escape: it records them on the snapshot
(``error``) and on the view (``last_refresh_error``) and keeps the last good
values, marked stale.
"""

from __future__ import annotations


class LagViewError(Exception):
    """Kafka did not answer what the view asked for."""


class ReadError(LagViewError):
    """One thing the view reads could not be read: ``what`` it is (``group 'g'``) and why."""

    def __init__(self, what: str, reason: str) -> None:
        super().__init__(f"{what}: {reason}")
        self.reason = reason


class GroupReadError(ReadError):
    """One group could not be read; ``group_id`` names it."""

    def __init__(self, group_id: str, reason: str) -> None:
        super().__init__(f"group {group_id!r}", reason)
        self.group_id = group_id


class CoordinatorMoved(GroupReadError):
    """The group's coordinator answered that it is not (or not yet) the coordinator."""


class TopicOffsetsError(ReadError):
    """One topic's offsets could not be read; ``topic`` names it."""

    def __init__(self, topic: str, reason: str) -> None:
        super().__init__(f"topic {topic!r}", reason)
        self.topic = topic


class InvalidLagViewSettings(ValueError):
    """The lag view's arguments contradict themselves or name unknown values."""
