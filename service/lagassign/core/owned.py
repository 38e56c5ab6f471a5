"""Members' owned partitions, checked and found in canonical order over every member at once.

:func:`~lagassign.core.model.make_rebalance` refuses an owned partition id outside
its topic and keeps each member's ``owned`` in canonical order: topics by name,
each topic's ids ascending and each once, no empty list, no topic the group does
not subscribe to. Leaders send it that way already, and a large group owns a
million partitions, so the check runs on arrays over all members together; only
a member whose map is not canonical is then put in order one partition at a time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, repeat

import numpy as np
import numpy.typing as npt

from lagassign.core.errors import InvalidRebalance

# An owned topic that ``partitions`` does not know has no upper bound on its ids
# (only negative ones are refused); the topic is dropped later.
_UNBOUNDED = np.iinfo(np.int64).max

Owned = Mapping[str, Sequence[int]]


@dataclass(frozen=True, slots=True)
class OwnedArrays:
    """Every member's owned map read into arrays, members in the caller's order.

    An *entry* is one (member, topic) of the maps; ``topic_no`` numbers topics in
    the order of ``sorted(partitions)`` (-1: a topic ``partitions`` does not know).
    """

    in_order: list[bool]  # per member: its map is canonical already
    entries: npt.NDArray[np.int64]  # per member: the topics its map names
    topic_no: npt.NDArray[np.int64]  # per entry
    sizes: npt.NDArray[np.int64]  # per entry: its partition ids
    parts: npt.NDArray[np.int64]  # every id, entry after entry


def read_owned(owned_maps: Sequence[Owned], partitions: Mapping[str, int]) -> OwnedArrays:
    """Read every member's map (``owned_maps`` in the caller's member order) into arrays.

    Raises :class:`InvalidRebalance` for the first owned id outside ``0..count - 1``
    of its topic, naming it as ``members[i].owned[topic]``.
    """
    entries = np.fromiter(map(len, owned_maps), dtype=np.int64, count=len(owned_maps))
    total = int(entries.sum())
    if total == 0:
        nothing = np.zeros(0, dtype=np.int64)
        return OwnedArrays([True] * len(owned_maps), entries, nothing, nothing, nothing)
    keys: list[str] = list(chain.from_iterable(owned_maps))
    values: list[Sequence[int]] = list(chain.from_iterable(m.values() for m in owned_maps))
    names = sorted(partitions)
    number = {topic: t for t, topic in enumerate(names)}
    topic_no = np.fromiter(map(number.get, keys, repeat(-1)), dtype=np.int64, count=total)
    bound = np.array([*map(partitions.__getitem__, names), _UNBOUNDED], dtype=np.int64)
    sizes = np.fromiter(map(len, values), dtype=np.int64, count=total)
    try:
        parts = np.fromiter(chain.from_iterable(values), dtype=np.int64, count=int(sizes.sum()))
    except OverflowError:
        refuse_out_of_range(owned_maps, partitions)
        raise AssertionError("an id beyond int64 is out of range") from None
    # unknown topics (-1) read the last bound: none
    if ((parts < 0) | (parts >= np.repeat(bound[topic_no], sizes))).any():
        refuse_out_of_range(owned_maps, partitions)
    member_of_entry = np.repeat(np.arange(len(owned_maps)), entries)
    entry_of_part = np.repeat(np.arange(total), sizes)
    first_part = np.zeros(len(parts), dtype=bool)
    first_part[(np.cumsum(sizes) - sizes)[sizes > 0]] = True
    first_entry = np.zeros(total, dtype=bool)
    first_entry[(np.cumsum(entries) - entries)[entries > 0]] = True
    bad_entry = (sizes == 0) | (topic_no < 0)
    unordered = (np.diff(parts) <= 0) & ~first_part[1:]
    bad_entry[entry_of_part[1:][unordered]] = True
    misplaced = (np.diff(topic_no) <= 0) & ~first_entry[1:]
    bad_entry[1:] |= misplaced
    bad: npt.NDArray[np.int64] = np.bincount(member_of_entry[bad_entry], minlength=len(owned_maps))
    in_order: list[bool] = (bad == 0).tolist()
    return OwnedArrays(in_order, entries, topic_no, sizes, parts)


#: The ``Rebalance.derived`` key of a :class:`SentOwned`.
SENT_OWNED = "sent_owned"


@dataclass(frozen=True, slots=True)
class SentOwned:
    """The owned maps as make_rebalance read them, kept when the rebalance's maps are those
    very maps (every map canonical as sent) and its topics are numbered as ``topic_no``
    numbers them (every topic subscribed): the previous owners are then read off these
    arrays instead of the maps again.
    """

    arrays: OwnedArrays
    position: npt.NDArray[np.int64]  # per member in the caller's order: its position now


def refuse_out_of_range(owned_maps: Sequence[Owned], partitions: Mapping[str, int]) -> None:
    """Raise for the first owned id outside its topic, walking one id at a time: the rule the
    array check of :func:`read_owned` applies to every member at once."""
    for i, owned in enumerate(owned_maps):
        for topic, ids in owned.items():
            count = partitions.get(topic)
            for p in ids:
                if p < 0 or (count is not None and p >= count):
                    raise InvalidRebalance(
                        f"members[{i}].owned[{topic!r}] names partition {p}, "
                        f"outside 0..{(count or 0) - 1}"
                    )
