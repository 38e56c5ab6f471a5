"""The lag rules of one partition (``docs/lag-rules.md``), as pure functions.

- ``lag = max(0, end - committed)``, where ``end`` is the high watermark, or the
  last stable offset for a group configured ``read_committed``;
- no committed offset: the consumer's reset policy decides, ``latest`` -> 0,
  ``earliest`` -> ``end - log_start``, ``none`` -> unknown (the consumer would
  fail rather than pick a start);
- committed below ``log_start`` (records deleted): ``end - log_start``, flagged
  ``out_of_range``;
- anything the rules need but the view does not know gives ``None`` (unknown),
  never 0 or -1.

Worked example: end 100, log start 40, committed 25 -> lag 60, out of range;
committed 70 -> lag 30; no commit with ``earliest`` -> 60, with ``latest`` -> 0.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

ResetPolicy = Literal["latest", "earliest"]
# What a consumer's ``auto.offset.reset`` may say; ``none`` is not a group setting of the view.
ConsumerResetPolicy = Literal["latest", "earliest", "none"]
Isolation = Literal["read_uncommitted", "read_committed"]

RESET_POLICIES: tuple[ResetPolicy, ...] = ("latest", "earliest")
ISOLATION_LEVELS: tuple[Isolation, ...] = ("read_uncommitted", "read_committed")


class LagReading(NamedTuple):
    """The lag of one partition and whether the committed offset fell below log start.

    A named tuple, not a dataclass: a refresh makes one per partition (100,000
    for a large fleet) and a tuple is the cheapest value Python builds.
    """

    lag: int | None
    out_of_range: bool = False


def partition_lag(
    committed: int | None,
    log_start: int | None,
    end: int | None,
    reset: ResetPolicy = "latest",
) -> LagReading:
    """Apply the lag rules to one partition's offsets (``None`` = not known)."""
    if committed is None:
        return LagReading(lag_without_commit(reset, log_start, end))
    if end is None:
        return LagReading(None)
    if log_start is not None and committed < log_start:
        return LagReading(max(0, end - log_start), out_of_range=True)
    return LagReading(max(0, end - committed))


def lag_without_commit(
    reset: ConsumerResetPolicy, log_start: int | None, end: int | None
) -> int | None:
    """The lag of a partition the group has no committed offset on, or ``None`` if unknown.

    >>> lag_without_commit("earliest", 40, 100), lag_without_commit("latest", None, None)
    (60, 0)
    >>> lag_without_commit("earliest", None, 100) is None, lag_without_commit("none", 40, 100)
    (True, None)
    """
    if reset == "latest":
        return 0
    if reset == "none" or end is None or log_start is None:
        return None
    return max(0, end - log_start)


def lag_by_reset(reset: ResetPolicy, log_start: int | None, end: int | None) -> int:
    """The lag to assume for a partition whose lag is unknown, by the reset policy.

    ``latest`` assumes the consumer would start at the end (0). ``earliest``
    assumes it would read the whole retained log, when both ends are known,
    and 0 otherwise (nothing better is known).
    """
    if reset == "earliest" and log_start is not None and end is not None:
        return max(0, end - log_start)
    return 0
