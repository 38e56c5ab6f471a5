"""The fast decoder (msgspec) and the pydantic schema say the same about every body.

The schema feeds ``/openapi.json`` and words the errors; the decoder answers the
requests. On the hostile corpus and on bodies drawn from the served schema, the
decoder accepts exactly what the schema accepts, into the same values.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from pydantic import ValidationError

from lagassign.assign.request_schema import AssignRequest, MemberIn
from lagassign.assign.request_wire import DECODER, DecodeFailure, MemberWire, RequestWire
from lagassign.http.app import create_app
from lagassign.settings import Settings
from tests.hostile import CORPUS, Case
from tests.service.json_schema import from_schema


def test_the_decoder_names_the_schema_fields() -> None:
    assert set(RequestWire.__struct_fields__) == set(AssignRequest.model_fields)
    assert set(MemberWire.__struct_fields__) == set(MemberIn.model_fields)


def verdicts(raw: bytes) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """What each side makes of ``raw``: the request as plain values, or None if refused."""
    try:
        wire: dict[str, Any] | None = msgspec.to_builtins(DECODER.decode(raw))
    except DecodeFailure:
        wire = None
    try:
        schema: dict[str, Any] | None = AssignRequest.model_validate_json(raw).model_dump()
    except ValidationError:
        schema = None
    return wire, schema


def same_values(wire: dict[str, Any], schema: dict[str, Any]) -> None:
    """The decoder leaves out unset fields; the schema lists them with their defaults."""
    members = wire.pop("members")
    for key, value in wire.items():
        assert schema[key] == value, key
    for sent, modelled in zip(members, schema["members"], strict=True):
        for key, value in sent.items():
            assert modelled[key] == value, key


@pytest.mark.parametrize("case", CORPUS, ids=str)
def test_the_hostile_corpus_is_judged_alike(case: Case) -> None:
    wire, schema = verdicts(case.body)
    assert (wire is None) == (schema is None)
    if wire is not None and schema is not None:
        same_values(wire, schema)


@settings(
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    body=from_schema(
        {"$ref": "#/components/schemas/AssignRequest"},
        create_app(Settings.from_environ({})).openapi(),
    )
)
def test_bodies_from_the_served_schema_are_judged_alike(body: dict[str, Any]) -> None:
    wire, schema = verdicts(json.dumps(body).encode())
    assert (wire is None) == (schema is None), body
    if wire is not None and schema is not None:
        same_values(wire, schema)
