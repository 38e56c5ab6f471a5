"""Hypothesis strategies from the JSON schemas of an OpenAPI document (the subset it uses).

Covers what pydantic writes for the request models: ``$ref`` to
``#/components/schemas/...``, ``anyOf``, ``enum``, ``null``, ``boolean``,
objects (``properties``, ``required``, ``additionalProperties``,
``propertyNames``), arrays (``items``, ``minItems``, ``maxItems``), strings
(``minLength``, ``maxLength``) and integers (``minimum``, ``maximum``).
Integers favour the bounds; strings favour a few shared names so that topics,
members and partition maps meet often enough for the service to compute.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

NAMES = ("t0", "t1", "t2", "c-1", "c-2", "orders")
MAX_COLLECTION = 6


def from_schema(schema: dict[str, Any], document: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values valid against ``schema``, resolving ``$ref`` in ``document``."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/components/schemas/")
        return st.deferred(lambda: from_schema(document["components"]["schemas"][name], document))
    if "anyOf" in schema:
        return st.one_of([from_schema(s, document) for s in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "string":
        return strings(schema.get("minLength", 0), schema.get("maxLength"))
    if kind == "array":
        return st.lists(
            from_schema(schema.get("items", {}), document),
            min_size=schema.get("minItems", 0),
            max_size=min(schema.get("maxItems", MAX_COLLECTION), MAX_COLLECTION),
        )
    if kind == "object":
        return objects(schema, document)
    raise NotImplementedError(f"no strategy for the schema {schema}")


def integers(low: int | None, high: int | None) -> st.SearchStrategy[int]:
    low = -(2**63) if low is None else low
    high = 2**63 - 1 if high is None else high
    small = st.integers(max(low, 0), min(high, max(low, 0) + 20))
    bounds = st.sampled_from(sorted({low, high, min(max(0, low), high)}))
    return st.one_of(small, bounds, st.integers(low, high))


def strings(min_size: int, max_size: int | None) -> st.SearchStrategy[str]:
    high = 12 if max_size is None else min(max_size, 12)
    shared = st.sampled_from([n for n in NAMES if min_size <= len(n) <= high])
    return st.one_of(shared, st.text(min_size=min_size, max_size=max(high, min_size)))


def objects(schema: dict[str, Any], document: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    if properties:
        return st.fixed_dictionaries(
            {k: from_schema(v, document) for k, v in properties.items() if k in required},
            optional={
                k: from_schema(v, document) for k, v in properties.items() if k not in required
            },
        )
    names = schema.get("propertyNames", {})
    values = schema.get("additionalProperties", {})
    return st.dictionaries(
        strings(names.get("minLength", 0), names.get("maxLength")),
        from_schema(values if isinstance(values, dict) else {}, document),
        max_size=MAX_COLLECTION,
    )
