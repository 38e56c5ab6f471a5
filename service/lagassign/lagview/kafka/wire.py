"""Reading Kafka protocol answers straight from their bytes, for the view's own decoders.

The large answers (one row per partition) are decoded by hand instead of through
aiokafka's generic field-by-field decoding: :class:`Reader` reads the classic
big-endian fields, :class:`CompactReader` adds the flexible encodings of KIP-482
(varints, compact strings and arrays, tagged fields). The requests are declared
with :func:`request_struct` (and the answers aiokafka decodes with
:func:`response_struct`), and sent as :class:`OneVersion`: one version of a
request, which the broker must offer.
"""

from __future__ import annotations

import base64
import struct
import types
from io import BytesIO
from typing import Any

from aiokafka.errors import IncompatibleBrokerVersion  # type: ignore[import-untyped]
from aiokafka.protocol.api import Request, RequestStruct, Response  # type: ignore[import-untyped]
from aiokafka.protocol.types import Schema  # type: ignore[import-untyped]

INT16 = struct.Struct(">h")
INT32 = struct.Struct(">i")


class Reader:
    """Reads big-endian Kafka protocol fields from a buffer, front to back."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def int16(self) -> int:
        (value,) = INT16.unpack_from(self.data, self.pos)
        self.pos += 2
        return int(value)

    def int32(self) -> int:
        (value,) = INT32.unpack_from(self.data, self.pos)
        self.pos += 4
        return int(value)

    def string(self) -> str | None:
        return self._text(self.int16())

    def _text(self, length: int) -> str | None:
        if length < 0:
            return None
        start, self.pos = self.pos, self.pos + length
        return self.data[start : self.pos].decode("utf-8")

    def length(self) -> int:
        """An array's element count (0 for a null array)."""
        return max(0, self.int32())

    def skip_int32_array(self) -> None:
        count = self.length()  # read before pos is: it moves pos
        self.pos += 4 * count

    def skip_tags(self) -> None:
        """Tagged fields: none before the flexible versions (:class:`CompactReader`)."""


def rest(data: BytesIO) -> bytes:
    """What is left of a response buffer after the header aiokafka has read."""
    return data.read()


class CompactReader(Reader):
    """Reads the flexible (compact) encodings of KIP-482: varints, compact strings and
    arrays, tagged fields (the same methods as :class:`Reader`, for the other encoding)."""

    __slots__ = ()

    def uvarint(self) -> int:
        value = shift = 0
        while True:
            byte = self.data[self.pos]
            self.pos += 1
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7

    def int8(self) -> int:
        value = self.data[self.pos]
        self.pos += 1
        return value - 256 if value > 127 else value

    def boolean(self) -> bool:
        return self.int8() != 0

    def string(self) -> str | None:
        return self._text(self.uvarint() - 1)

    def length(self) -> int:
        return max(0, self.uvarint() - 1)

    def int32_array(self) -> list[int]:
        return [self.int32() for _ in range(self.length())]

    def uuid(self) -> str:
        """A Kafka ``Uuid`` as ``Uuid.toString()`` prints it: URL-safe base64, unpadded."""
        start, self.pos = self.pos, self.pos + 16
        return base64.urlsafe_b64encode(self.data[start : self.pos]).rstrip(b"=").decode("ascii")

    def skip_tags(self) -> None:
        for _ in range(self.uvarint()):
            self.uvarint()  # tag
            self.pos += self.uvarint()  # size, then the value skipped


class OneVersion(Request[RequestStruct]):  # type: ignore[misc]
    """One version of a request (``struct``), with its field values, in field order.

    Sent through aiokafka's connection, which knows the versions the broker offers:
    when the broker does not offer this one, sending it raises ``NotImplementedError``
    (``IncompatibleBrokerVersion`` when it does not know the request at all), and the
    caller falls back to aiokafka's own request.
    """

    API_KEY = -1  # each request's own is its struct's

    def __init__(self, struct: type[RequestStruct], *fields: object) -> None:
        self.struct = struct
        self.fields = fields

    def prepare(self, versions: dict[int, tuple[int, int]]) -> RequestStruct:
        struct = self.struct
        if struct.API_KEY not in versions:
            raise IncompatibleBrokerVersion(f"the broker does not know {struct.__name__}")
        low, high = versions[struct.API_KEY]
        if not low <= struct.API_VERSION <= high:
            raise NotImplementedError(f"{struct.__name__}: the broker offers v{low} to v{high}")
        return self.build(struct)

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        return request_struct_class(*self.fields)


def response_struct(api_key: int, version: int, *fields: tuple[str, Any]) -> type[Response]:
    """An answer aiokafka decodes itself: its API key, version and fields, in order."""
    body = {"API_KEY": api_key, "API_VERSION": version, "SCHEMA": Schema(*fields)}
    name = f"Response{api_key}V{version}"
    return types.new_class(name, (Response,), exec_body=lambda ns: ns.update(body))


def request_struct(
    response: Any, *fields: tuple[str, Any], flexible: bool = False
) -> type[RequestStruct]:
    """The request ``response`` answers (its API key and version): its fields, in order;
    ``flexible`` for the flexible versions of KIP-482 (tagged fields, compact encodings)."""
    body = {
        "FLEXIBLE_VERSION": flexible,
        "API_KEY": response.API_KEY,
        "API_VERSION": response.API_VERSION,
        "RESPONSE_TYPE": response,
        "SCHEMA": Schema(*fields),
    }
    name = f"Request{response.API_KEY}V{response.API_VERSION}"
    return types.new_class(name, (RequestStruct,), exec_body=lambda ns: ns.update(body))
