"""Type stubs of ``lagassign._native``, the sidecar's compiled half (Rust, ``native/``)."""

from collections.abc import Sequence
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt
from typing_extensions import Buffer

__all__ = ["assignment_json", "by_lag_order", "deal_rounds", "lower_max_lag"]

# numpy's arrays declare the buffer protocol (__buffer__) to type checkers from Python 3.12 on.
def assignment_json(
    owner: npt.NDArray[np.int32] | Buffer,
    topic_starts: npt.NDArray[np.int64] | Buffer | Sequence[int],
    topic_keys: list[bytes],
    member_keys: list[bytes],
    form: Literal["topics", "indexed"],
) -> bytes:
    """The JSON bytes of an answer's ``assignment``, written from the owner array.

    ``owner`` (int32, one per flat partition: topic after topic in the order of
    ``topic_starts``, partition ids ascending within a topic) holds the member number
    (index into ``member_keys``) of each partition, or -1 for nobody (left out).
    ``topic_starts`` (int64 buffer or list of int) has one entry per topic plus one:
    0, ascending, ending at ``len(owner)``; flat ``x`` of topic ``t`` is partition
    ``x - topic_starts[t]``. ``topic_keys`` and ``member_keys`` are each topic's and
    each member's JSON text, written verbatim. The bytes are exactly
    ``msgspec.json.encode`` of ``{member: {topic: [p, ...]}}`` (``"topics"``) or
    ``{member: [[topic_key, [p, ...]], ...]}`` (``"indexed"``), every member present
    in ``member_keys`` order, a member's topics in flat order.

    Raises TypeError for an argument of the wrong type (``owner`` not an int32 buffer,
    a key not bytes) and ValueError for wrong values (an owner that is neither a member
    number nor -1, ``topic_starts`` not matching ``owner`` or ``topic_keys``, an unknown
    ``form``).
    """

def by_lag_order(
    lags: npt.NDArray[np.int64] | Buffer,
    topic_starts: npt.NDArray[np.int64] | Buffer | Sequence[int],
    out: npt.NDArray[np.int64] | Buffer,
) -> None:
    """Each topic's flat partitions by lag, largest first, into ``out``.

    Topic by topic (``topic_starts``: T + 1 ints from 0 to len(lags)), each topic's flat
    partition numbers ordered by lag, largest first, equal lags by the lower number (as a
    stable sort of the negated lags). ``lags`` is an int64 buffer, ``out`` a writable int64
    buffer of the same length. Raises ValueError for starts that do not cover the lags or
    an ``out`` of another length, TypeError for arguments of the wrong type.
    """

def deal_rounds(
    lags: npt.NDArray[np.int64] | Buffer | Sequence[int],
    load: npt.NDArray[np.int64] | Buffer | Sequence[int],
    sizes: npt.NDArray[np.int64] | Buffer,
    members: npt.NDArray[np.int64] | Buffer,
    parts: npt.NDArray[np.int64] | Buffer,
    sorted: npt.NDArray[np.uint8] | Buffer,
    takers: npt.NDArray[np.int64] | Buffer,
) -> None:
    """The balanced strategy's deal in rounds: fills ``takers`` with who takes each partition.

    The rounds come concatenated in the order they are dealt: round ``r`` is the next
    ``sizes[r]`` entries of ``members`` (ascending member numbers) and of ``parts`` (flat
    partitions, largest lag first). In a round with ``sorted[r]`` set, the largest
    partition goes to the member with the least ``load`` so far (equal loads: the lower
    member number), the next to the next member, and so on; otherwise in member order.
    ``lags`` is per flat partition, ``load`` per member (int64 buffers, or sequences of
    int up to 2**127). ``takers`` (a writable int64 buffer, one entry per dealt
    partition) receives each partition's member. Raises ValueError for sizes, members or
    partitions out of range, TypeError for arguments of the wrong type.
    """

class MoveTuning(Protocol):
    """The constants :func:`lower_max_lag` reads (``balanced``'s ``Tuning`` has them)."""

    @property
    def partners(self) -> int: ...
    @property
    def topic_work(self) -> int: ...
    @property
    def evening_rounds(self) -> int: ...
    @property
    def evening_work(self) -> int: ...
    @property
    def stall_steps(self) -> int: ...
    @property
    def stall_gain(self) -> float: ...
    @property
    def split_max_partitions(self) -> int: ...
    @property
    def split_max_tries(self) -> int: ...
    @property
    def split_work(self) -> int: ...

def lower_max_lag(
    lags: npt.NDArray[np.int64] | Buffer | Sequence[int],
    topic_starts: npt.NDArray[np.int64] | Buffer | Sequence[int],
    subscriptions: Sequence[tuple[Sequence[int], Sequence[int]]],
    base: npt.NDArray[np.int64] | Buffer | Sequence[int],
    previous: npt.NDArray[np.int64] | Buffer | Sequence[int] | None,
    members: int,
    owner: npt.NDArray[np.int64] | Buffer,
    stamp: npt.NDArray[np.int64] | Buffer,
    next_stamp: int,
    stop_at: float,
    work: int,
    frugal: bool,
    uneven: bool,
    tuning: MoveTuning,
) -> tuple[list[int], list[int], int]:
    """The balanced strategy's local moves, made in place on ``owner`` and ``stamp``.

    The placement: ``lags`` per flat partition (int64 buffer, or a sequence of int64s),
    ``topic_starts`` (one entry per topic plus one, 0 to ``len(lags)``), the
    ``subscriptions`` as ``(topics, members)`` (every member in one), ``base`` (per
    topic, P // C), ``previous`` (per flat partition, its previous owner or -1; None
    when nobody owned anything), ``members`` (how many), and per flat partition its
    ``owner`` (-1: nobody) and ``stamp`` (writable int64 buffers): a member's
    partitions, in order, are its partitions by ascending stamp. The moves lower the
    largest member lag toward ``stop_at`` (an int within ±2**100 or a float, compared
    exactly), looking at ``work`` partitions at most; ``frugal`` and ``uneven`` are the
    rule set's flags. ``owner`` and ``stamp`` are updated: the partitions of every member
    that changed get new stamps in their order, counting from ``next_stamp``. Returns
    ``(members, loads, next_stamp)``: the members whose partitions changed (ascending),
    each one's lag, and the next free stamp.

    Raises TypeError for an argument of the wrong type (``owner`` or ``stamp`` not a
    writable int64 buffer) and ValueError for wrong values (a member number out of
    range, ``owner`` or ``stamp`` not one per partition, a member in no subscription or
    in two, ``topic_starts`` not matching ``lags``, a lag beyond int64, a tuning constant
    out of range).
    """
