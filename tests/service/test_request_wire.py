"""One request schema: what ``/openapi.json`` says of a ``POST /assign`` body is what the
service decodes.

The document is generated from the structs the body is decoded into
(:mod:`lagassign.assign.request_schema`); these tests hold the two together from the
outside: every body drawn from the served schema is accepted, and every body of the
hostile corpus the service accepts is valid against the served schema (the document
is never stricter than the service; the service may be stricter, e.g. ``2.0`` is a
JSON Schema integer but not a Kafka one).
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings

from lagassign.assign.request import parse_assign_request
from lagassign.assign.request_schema import DECODER
from lagassign.errors import BadRequest
from lagassign.http.app import create_app
from lagassign.settings import Settings
from tests.hostile import CORPUS, Case
from tests.service.json_schema import from_schema

DOCUMENT = create_app(Settings.from_environ({})).openapi()
BODY = {"$ref": "#/components/schemas/AssignRequest", "components": DOCUMENT["components"]}


def served_schema_accepts(body: Any) -> bool:
    try:
        jsonschema.validate(body, BODY)
    except jsonschema.ValidationError:
        return False
    return True


@pytest.mark.parametrize("case", CORPUS, ids=str)
def test_what_the_service_decodes_the_served_schema_accepts(case: Case) -> None:
    try:
        DECODER.decode(case.body)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return
    assert served_schema_accepts(json.loads(case.body))


@settings(
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(body=from_schema({"$ref": "#/components/schemas/AssignRequest"}, DOCUMENT))
def test_bodies_from_the_served_schema_are_decoded(body: dict[str, Any]) -> None:
    try:
        request = parse_assign_request(json.dumps(body))
    except BadRequest as refused:
        # Past the schema: the compact form's pairing, and a group_id outside topic ids.
        message = refused.message
        assert "subscription" in message or "topics" in message or "group_id" in message, message
        return
    assert [m.member_id for m in request.members] == [m["member_id"] for m in body["members"]]
    assert request.partitions == body["partitions"]
