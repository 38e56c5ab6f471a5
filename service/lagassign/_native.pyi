"""Type stubs of ``lagassign._native``, the sidecar's compiled half (Rust, ``native/``)."""

from collections.abc import Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt
from typing_extensions import Buffer

# The local moves' one input is balanced's own value (the compiled module reads its
# attributes by name and imports nothing of the package; only this stub names it).
from lagassign.core.strategies.balanced.local_moves import MovesRequest

__all__ = ["Moved", "assignment_json", "by_lag_order", "deal_rounds", "lower_max_lag"]

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
    lags: npt.NDArray[np.int64],
    topic_starts: Sequence[int],
) -> npt.NDArray[np.int64]:
    """Each topic's flat partitions by lag, largest first.

    Topic by topic (``topic_starts``: T + 1 ints from 0 to len(lags)), each topic's flat
    partition numbers ordered by lag, largest first, equal lags by the lower number (as a
    stable sort of the negated lags). ``lags`` is a contiguous int64 array. Raises
    ValueError for starts that do not cover the lags, TypeError for arguments of the
    wrong type.
    """

def deal_rounds(
    lags: npt.NDArray[np.int64],
    load: Sequence[int],
    sizes: npt.NDArray[np.int64],
    members: npt.NDArray[np.int64],
    parts: npt.NDArray[np.int64],
    sorted: npt.NDArray[np.uint8],
) -> npt.NDArray[np.int64]:
    """The balanced strategy's deal in rounds: who takes each dealt partition, in order.

    The rounds come concatenated in the order they are dealt: round ``r`` is the next
    ``sizes[r]`` entries of ``members`` (ascending member numbers) and of ``parts`` (flat
    partitions, largest lag first). In a round with ``sorted[r]`` set, the largest
    partition goes to the member with the least ``load`` so far (equal loads: the lower
    member number), the next to the next member, and so on; otherwise in member order.
    ``lags`` is per flat partition (contiguous int64 array), ``load`` per member (ints up
    to 2**127). Raises ValueError for sizes, members or partitions out of range,
    TypeError for arguments of the wrong type.
    """

class Moved:
    """What the local moves changed: ``partitions[i]`` went to ``owners[i]``;
    ``restamped[i]`` (every partition of a member that changed, in its order) has stamp
    ``stamps[i]``; ``members`` (ascending) are those whose partitions changed, ``loads``
    their lags; ``next_stamp`` is the next free stamp."""

    @property
    def partitions(self) -> npt.NDArray[np.int64]: ...
    @property
    def owners(self) -> npt.NDArray[np.int64]: ...
    @property
    def restamped(self) -> npt.NDArray[np.int64]: ...
    @property
    def stamps(self) -> npt.NDArray[np.int64]: ...
    @property
    def members(self) -> list[int]: ...
    @property
    def loads(self) -> list[int]: ...
    @property
    def next_stamp(self) -> int: ...

def lower_max_lag(request: MovesRequest) -> Moved:
    """The balanced strategy's local moves (Rust: ``native/src/moves.rs``) on one placement.

    ``request``'s attributes are read by name: int64 NumPy arrays (one-dimensional,
    contiguous) per flat partition for ``lags``, ``owner`` (-1: nobody), ``stamp`` (a
    member's partitions, in order, are its partitions by ascending stamp) and
    ``previous`` (or None); ``topic_starts`` (one entry per topic plus one, 0 to
    ``len(lags)``), ``subscriptions`` as ``(topics, members)`` (every member in one),
    ``base`` (per topic, P // C), ``members`` (how many), ``next_stamp`` (the first stamp
    to give), ``stop_at`` (the goal, a whole lag within ±2**100), ``work`` (partitions
    looked at at most), the rule flags ``frugal`` and ``uneven``, ``by_totals`` (the
    layout keeps the totals within one, not each topic's counts: a change may trade
    partitions of any two topics), and ``tuning`` (``balanced``'s ``Tuning``: its
    ``partners``, ``topic_work``, ``evening_*``, ``stall_*`` and ``split_*``). The
    arrays are read, not changed: the answer is what changed.

    Raises TypeError for an attribute of the wrong type (an array not int64, a negative
    tuning count) and ValueError for wrong values (a member number out of range, arrays
    not one per partition, a member in no subscription or in two, ``topic_starts`` not
    matching ``lags``, ``stall_steps`` below 1).
    """
