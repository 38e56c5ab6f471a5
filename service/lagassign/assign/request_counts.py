"""The counts of a ``POST /assign`` body, checked before the body is decoded into values.

Decoding JSON into Python values costs far more memory than the JSON's bytes: a
member of 30 bytes becomes about a kilobyte of objects, an empty list of 3 bytes
64, a small integer of 2 bytes a list slot of 8. Checking the caps only on the
decoded request (as :func:`lagassign.assign.request.check_request_limits` does)
lets one 64 MiB body hold gigabytes before its 413. So a large body is first
counted, in two cheap passes of the same C decoder that keep almost nothing:

1. the members as a list of empty objects (16 bytes each; their fields are skipped
   without being built), and every other large field as a slice of the body
   (``msgspec.Raw``, no copy): members over ``max_members`` are refused at once;
2. with at most ``max_members`` members, each member's ``topics`` and ``owned`` as
   slices too.

A slice's elements are counted by its commas (one C scan of its bytes): exact for
lists of numbers, an upper bound where a string holds a comma, which only errs
towards refusing, and Kafka's topic names hold none. The bounds follow from the
caps (P = ``max_partitions``):

| what | bound |
| --- | --- |
| members | ``max_members`` |
| topics in ``partitions`` | P |
| lag values in ``lags``, in all | 2P (a lag per partition, a separator per topic) |
| topic names listed by members and ``subscriptions``, in all | 2P |
| partition numbers in ``owned``, in all members | 2P |
| per-partition lists in ``partition_racks`` | 2P |
| rack names in ``partition_racks`` | 8P |

What is over gets 413 ``too_large`` naming the field. A body the counting pass
cannot read is refused with 400 by the decoder's own message, never decoded further:
``invalid_json`` when it is not JSON, ``invalid_request`` when its members are not objects.
"""

from __future__ import annotations

import msgspec

from lagassign.assign.request_errors import refusal
from lagassign.errors import TooLarge
from lagassign.limits import RequestLimits

#: Bodies up to this size are decoded directly: their values cannot outgrow a few MB.
COUNT_BODY_BYTES = 64 * 1024


class Skipped(msgspec.Struct, gc=False):
    """Any JSON object; its fields are skipped, not built."""


class Shape(msgspec.Struct, gc=False):
    members: list[Skipped] = []
    partitions: msgspec.Raw = msgspec.Raw()
    lags: msgspec.Raw = msgspec.Raw()
    subscriptions: msgspec.Raw = msgspec.Raw()
    partition_racks: msgspec.Raw = msgspec.Raw()


class MemberShape(msgspec.Struct, gc=False):
    topics: msgspec.Raw = msgspec.Raw()
    owned: msgspec.Raw = msgspec.Raw()


class MembersShape(msgspec.Struct, gc=False):
    members: list[MemberShape] = []


SHAPE = msgspec.json.Decoder(Shape)
MEMBERS = msgspec.json.Decoder(MembersShape)

Body = bytes | bytearray


def commas(raw: msgspec.Raw) -> int:
    """How many commas the slice holds (its elements, less one, when it is a flat list)."""
    return bytes(raw).count(b",") if raw else 0


def elements(raw: msgspec.Raw) -> int:
    """An upper bound of the elements of a flat JSON list or object slice."""
    if not raw:
        return 0
    text = bytes(raw)
    empty = text.strip() in (b"[]", b"{}", b"null")
    return 0 if empty else text.count(b",") + 1


def check_body_counts(raw: Body, limits: RequestLimits) -> None:
    """TooLarge (413) when the body holds more than ``limits`` allow; BadRequest when unreadable.

    Bodies of at most :data:`COUNT_BODY_BYTES` are not counted (nothing to fear).
    """
    if len(raw) <= COUNT_BODY_BYTES:
        return
    try:
        shape = SHAPE.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise refusal(exc, raw, keys=False) from None
    members = len(shape.members)
    del shape.members  # free the placeholders before the next pass
    if members > limits.max_members:
        too_large("members", members, limits.max_members, "LAGASSIGN_MAX_MEMBERS")
    partitions = limits.max_partitions
    over(
        "partitions",
        "topics",
        elements(shape.partitions),
        partitions,
    )
    over("lags", "lag values", commas(shape.lags), 2 * partitions)
    over(
        "partition_racks",
        "partition lists",
        bytes(shape.partition_racks).count(b"["),
        2 * partitions,
    )
    over("partition_racks", "rack names", commas(shape.partition_racks), 8 * partitions)
    listed = commas(shape.subscriptions)
    owned = 0
    try:
        member_shapes = MEMBERS.decode(raw).members
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise refusal(exc, raw, keys=False) from None
    for member in member_shapes:
        listed += elements(member.topics)
        owned += commas(member.owned) + (1 if member.owned else 0)
    over("members[*].topics", "topic names listed", listed, 2 * partitions)
    over("members[*].owned", "owned partition numbers", owned, 2 * partitions)


def over(field: str, what: str, count: int, bound: int) -> None:
    if count > bound:
        raise TooLarge(
            f"{field}: {count} {what} exceed the limit of {bound} "
            "(derived from LAGASSIGN_MAX_PARTITIONS)"
        )


def too_large(field: str, count: int, bound: int, setting: str) -> None:
    raise TooLarge(f"{field}: {count} {field} exceed the limit of {bound} ({setting})")
