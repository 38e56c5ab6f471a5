"""The error of a refused ``POST /assign`` body, worded from the request schema.

msgspec stops at the first problem and says where it is as a path
(``$.members[0].owned[...][1]``); the field is named the same way the rest of
the service names fields: ``members[0].owned.orders[1]``, the key of an object's
bad value found by checking each value against the schema's type for it. Two
problems are reworded after the field they name: a required field missing
(``members[0].member_id: Field required``) and a field outside the schema
(``colour: unknown field``); a value outside a fixed set names the set
(``answer_form: must be 'topics' or 'packed', not 'indexed'``).
"""

from __future__ import annotations

import contextlib
import re
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import msgspec

from lagassign.assign.request_schema import AssignRequest
from lagassign.errors import BadRequest, InvalidJson

#: What decoding a body raises when it refuses it (bytes that are not UTF-8, and nesting
#: too deep, included).
DecodeFailure = (msgspec.DecodeError, UnicodeDecodeError, RecursionError)

_STEP = re.compile(r"\.(\w+)|\[(\d+|\.\.\.)\]")
_FIELD = re.compile(r"Object (missing required|contains unknown) field `(.+)`")
_ENUM = re.compile(r"Invalid enum value (.+)")
_NOT_READ = object()
FIELDS = msgspec.json.Decoder(dict[str, msgspec.Raw])


def refusal(exc: Exception, raw: bytes | bytearray | str, *, keys: bool = True) -> BadRequest:
    """The 400 of a body the decoder refused with ``exc``: ``invalid_json`` for a body that
    is not JSON, else ``invalid_request`` naming the field and its problem (the key of an
    object's bad value too, unless ``keys`` is false: then it is ``[*]``, and nothing of
    the body is decoded)."""
    if not isinstance(exc, msgspec.ValidationError):
        return InvalidJson(f"the body is not valid JSON: {exc}")
    try:
        # read to its end, building nothing: a body malformed past the problem is not JSON
        msgspec.json.decode(raw, type=msgspec.Raw)
    except DecodeFailure as malformed:
        return InvalidJson(f"the body is not valid JSON: {malformed}")
    problem, _, where = str(exc).partition(" - at `")
    where = where.removesuffix("`")
    if where.startswith("key` in `"):
        where, problem = where.removeprefix("key` in `"), f"a key: {problem}"
    field, kind = located(_STEP.findall(where), raw if keys else None)
    named = _FIELD.fullmatch(problem)
    enum = _ENUM.fullmatch(problem)
    if named:
        field = f"{field}.{named[2]}" if field else named[2]
        problem = "Field required" if named[1] == "missing required" else "unknown field"
    elif enum and get_origin(kind) is Literal:
        *others, last = map(repr, get_args(kind))
        choices = (
            f"{', '.join(others)} or {last}"
            if len(others) < 2
            else f"one of {', '.join(others)}, {last}"
        )
        problem = f"must be {choices}, not {enum[1]}"
    return bad_field(field or "body", problem)


def bad_field(field: str, problem: str) -> BadRequest:
    return BadRequest(f"{field}: {problem}", [{"field": field, "problem": problem}])


def located(steps: list[tuple[str, str]], raw: bytes | bytearray | str | None) -> tuple[str, Any]:
    """The field the path ``steps`` names in the body ``raw``, and the schema's type there.

    The body's fields are kept as their bytes; only the one the path enters is decoded.
    """
    field = ""
    kind: Any = AssignRequest
    value: Any = _NOT_READ
    if steps and raw is not None:
        with contextlib.suppress(msgspec.ValidationError):
            value = FIELDS.decode(raw)
    for name, index in steps:
        kind = bare(kind)
        if name:
            kind = get_type_hints(kind, include_extras=True).get(name, Any)
            field = f"{field}.{name}" if field else name
            value = value.get(name) if isinstance(value, dict) else _NOT_READ
            if isinstance(value, msgspec.Raw):
                value = msgspec.json.decode(value)
        elif index == "...":
            kind = get_args(kind)[1] if get_origin(kind) is dict else Any
            key = bad_key(value, kind)
            field += "[*]" if key is None else f".{key}"
            value = _NOT_READ if key is None else value[key]
        else:
            kind = get_args(kind)[0] if get_origin(kind) is list else Any
            field += f"[{index}]"
            value = value[int(index)] if isinstance(value, list) else _NOT_READ
    return field, bare(kind)


def bad_key(value: Any, kind: Any) -> str | None:
    """The first key of the object ``value`` whose value is not of the type ``kind``."""
    if not isinstance(value, dict) or kind is Any:
        return None
    for key, item in value.items():
        try:
            msgspec.convert(item, kind)
        except msgspec.ValidationError:
            return str(key)
    return None


def bare(kind: Any) -> Any:
    """``kind`` without ``Annotated`` and without ``| None`` or ``| UnsetType``."""
    while True:
        if get_origin(kind) is Annotated:
            kind = get_args(kind)[0]
        elif get_origin(kind) in (Union, types.UnionType):
            kept = [a for a in get_args(kind) if a not in (type(None), msgspec.UnsetType)]
            if len(kept) != 1:
                return kind
            kind = kept[0]
        else:
            return kind
