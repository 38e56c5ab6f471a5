"""A classic consumer group member's metadata and assignment bytes, decoded.

``DescribeGroups`` returns, for each member of a classic group whose protocol
type is ``consumer``, two opaque byte strings of Kafka's consumer protocol:

- the member's *subscription* (what it sent in ``JoinGroup`` for the chosen
  protocol): version (int16), topics (array of string), user data (nullable
  bytes), from v1 its owned partitions (array of topic, array of int32), from v2
  the generation they came from (int32), from v3 its rack (nullable string);
- its *assignment* (what the leader gave it in ``SyncGroup``): version (int16),
  partitions (array of topic, array of int32), user data (nullable bytes).

All integers are big-endian; a string is an int16 length and UTF-8 bytes
(-1: null); bytes are an int32 length (-1: null). A higher version than 3 is
read by its version-3 fields, as Kafka's own clients read newer versions.

>>> raw = encode_subscription(["t0", "t1"], b"hi", {"t0": (2, 0)}, generation=7, rack="r1")
>>> decode_subscription(raw)
Subscription(topics=('t0', 't1'), user_data=b'hi', owned={'t0': (0, 2)}, generation=7, rack='r1')
>>> decode_member_assignment(encode_member_assignment({"t0": (1,)}, b"note"))
MemberAssignment(partitions={'t0': (1,)}, user_data=b'note')
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")


@dataclass(frozen=True, slots=True)
class Subscription:
    """A member's consumer-protocol subscription; fields of later versions are empty."""

    topics: tuple[str, ...]
    user_data: bytes | None
    owned: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    generation: int | None = None
    rack: str | None = None


@dataclass(frozen=True, slots=True)
class MemberAssignment:
    """A member's consumer-protocol assignment: topic -> sorted partitions, and user data."""

    partitions: Mapping[str, tuple[int, ...]]
    user_data: bytes | None


class _Reader:
    """Reads the consumer protocol's primitive types from ``data``; ``ValueError`` past its end."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._at = 0

    def _take(self, size: int) -> bytes:
        end = self._at + size
        if size < 0 or end > len(self._data):
            raise ValueError(f"truncated at byte {self._at} of {len(self._data)}")
        chunk = self._data[self._at : end]
        self._at = end
        return chunk

    def int16(self) -> int:
        value: int = _INT16.unpack(self._take(2))[0]
        return value

    def int32(self) -> int:
        value: int = _INT32.unpack(self._take(4))[0]
        return value

    def string(self) -> str | None:
        size = self.int16()
        if size < 0:
            return None
        return self._take(size).decode("utf-8")

    def bytes(self) -> bytes | None:
        size = self.int32()
        if size < 0:
            return None
        return self._take(size)

    def count(self) -> int:
        size = self.int32()
        # An array of n elements needs at least n bytes: a count past that is garbage.
        if size > len(self._data) - self._at:
            raise ValueError(f"an array of {size} elements in {len(self._data)} bytes")
        return max(size, 0)

    def int32s(self) -> tuple[int, ...]:
        """An array of int32, unpacked at once."""
        size = self.count()
        values: tuple[int, ...] = struct.unpack(f">{size}i", self._take(4 * size))
        return values

    def partitions(self) -> dict[str, tuple[int, ...]]:
        out: dict[str, set[int]] = {}
        for _ in range(self.count()):
            topic = self.string()
            if topic is None:
                raise ValueError("a null topic name")
            out.setdefault(topic, set()).update(self.int32s())
        return {t: tuple(sorted(ps)) for t, ps in sorted(out.items()) if ps}


def decode_subscription(data: bytes) -> Subscription:
    """A member's subscription bytes -> :class:`Subscription`; ``ValueError`` if they are not."""
    try:
        reader = _Reader(data)
        version = reader.int16()
        if version < 0:
            raise ValueError(f"version {version}")
        topics = []
        for _ in range(reader.count()):
            topic = reader.string()
            if topic is None:
                raise ValueError("a null topic name")
            topics.append(topic)
        user_data = reader.bytes()
        owned = reader.partitions() if version >= 1 else {}
        generation = reader.int32() if version >= 2 else None
        rack = reader.string() if version >= 3 else None
    except (struct.error, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        raise ValueError(f"not a consumer-protocol subscription: {exc}") from exc
    return Subscription(
        topics=tuple(sorted(set(topics))),
        user_data=user_data,
        owned=owned,
        generation=generation if generation is not None and generation >= 0 else None,
        rack=rack or None,
    )


def decode_member_assignment(data: bytes) -> MemberAssignment:
    """A member's assignment bytes -> :class:`MemberAssignment`; ``ValueError`` if they are not."""
    try:
        reader = _Reader(data)
        if reader.int16() < 0:
            raise ValueError("a negative version")
        partitions = reader.partitions()
        user_data = reader.bytes()
    except (struct.error, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        raise ValueError(f"not a consumer-protocol assignment: {exc}") from exc
    return MemberAssignment(partitions=partitions, user_data=user_data)


# --- encoding, for tests and examples ------------------------------------------------


def _string(value: str | None) -> bytes:
    if value is None:
        return _INT16.pack(-1)
    raw = value.encode("utf-8")
    return _INT16.pack(len(raw)) + raw


def _bytes(value: bytes | None) -> bytes:
    return _INT32.pack(-1) if value is None else _INT32.pack(len(value)) + value


def _partitions(partitions: Mapping[str, Iterable[int]]) -> bytes:
    out = [_INT32.pack(len(partitions))]
    for topic, parts in partitions.items():
        numbers = list(parts)
        out += [_string(topic), _INT32.pack(len(numbers)), *(_INT32.pack(p) for p in numbers)]
    return b"".join(out)


def encode_subscription(
    topics: Iterable[str],
    user_data: bytes | None,
    owned: Mapping[str, Iterable[int]] | None = None,
    *,
    generation: int = -1,
    rack: str | None = None,
    version: int = 3,
) -> bytes:
    """Subscription bytes of ``version`` (0 to 3), as a consumer sends them."""
    names = list(topics)
    out = [_INT16.pack(version), _INT32.pack(len(names)), *(_string(t) for t in names)]
    out.append(_bytes(user_data))
    if version >= 1:
        out.append(_partitions(owned or {}))
    if version >= 2:
        out.append(_INT32.pack(generation))
    if version >= 3:
        out.append(_string(rack))
    return b"".join(out)


def encode_member_assignment(
    partitions: Mapping[str, Iterable[int]], user_data: bytes | None, version: int = 0
) -> bytes:
    """Assignment bytes, as a group leader sends them."""
    return _INT16.pack(version) + _partitions(partitions) + _bytes(user_data)
