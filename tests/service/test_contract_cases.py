"""The service against ``contract/``: the folder the shims' and the broker plugin's tests read too.

Every valid request is answered, and its answer is valid for it; every invalid
request gets its status and error code (and a message naming its ``field`` first);
every stored valid answer decodes to its ``assignment`` (and ``revoked``) and every
stored invalid one is refused, by the
contract's reader (:mod:`tests.service.contract_reader`). The stored answers were
written by the service (``python -m tests.service.contract_cases``); they are
checked against today's answers by shape, not value, so a change of strategy does
not need them rewritten, while a change of the wire does.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.service.contract_cases import FAULTS, cases, contract_service, packed_member
from tests.service.contract_reader import RefusedAnswer, member_topics, read_packed

pytestmark = pytest.mark.anyio

VALID_REQUESTS = cases("requests/valid")
INVALID_REQUESTS = cases("requests/invalid")
VALID_ANSWERS = cases("answers/valid")
INVALID_ANSWERS = cases("answers/invalid")


def as_packed(request: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """A ``topics``-form answer rewritten in the packed form, for the one reader."""
    topics = list(request["partitions"])
    index = {topic: i for i, topic in enumerate(topics)}

    def packed(nested: dict[str, dict[str, list[int]]]) -> dict[str, Any]:
        out = {}
        for member, given in nested.items():
            pairs = sorted((index[t], p) for t, ps in given.items() for p in ps)
            out[member] = packed_member([t for t, _ in pairs], [p for _, p in pairs])
        return out

    assert "topics" not in answer
    return {
        **answer,
        "topics": topics,
        "assignment": packed(answer["assignment"]),
        "revoked": packed(answer["revoked"]),
    }


def test_the_folder_holds_every_kind_of_case() -> None:
    assert {"eager", "cooperative", "compact", "member_given_nothing", "several_topics"} <= set(
        VALID_ANSWERS
    )
    assert {"topic_ids", "large"} <= set(VALID_ANSWERS)
    assert any(case["revoked"] for case in VALID_ANSWERS.values() if any(case["revoked"].values()))
    assert any({} in case["assignment"].values() for case in VALID_ANSWERS.values())
    assert sum(VALID_ANSWERS["large"]["request"]["partitions"].values()) >= 1_000
    # Beside the generated faults, readers' own cases written by hand (their "why" says so).
    hand_written = {n for n, case in INVALID_ANSWERS.items() if "(hand-written" in case["why"]}
    assert set(INVALID_ANSWERS) - hand_written == set(FAULTS)


async def test_every_valid_request_is_answered_validly() -> None:
    async with contract_service() as client:
        for name, request in VALID_REQUESTS.items():
            response = await client.post("/assign", content=json.dumps(request))
            assert response.status_code == 200, (name, response.text)
            answer = response.json()
            form = request.get("answer_form", "topics")
            assignment, _ = read_packed(
                request, answer if form == "packed" else as_packed(request, answer)
            )
            assert set(assignment) == set(member_topics(request)), name
            stored = VALID_ANSWERS.get(name)
            if stored is not None:
                assert stored["request"] == request, f"{name}: the answer's request drifted"
                assert set(stored["answer"]) == set(answer), name
                assert set(stored["answer"]["lag"]) == set(answer["lag"]), name
                assert set(stored["answer"]["stats"]) == set(answer["stats"]), name


async def test_every_invalid_request_gets_its_status_and_code() -> None:
    async with contract_service() as client:
        for name, case in INVALID_REQUESTS.items():
            response = await client.post("/assign", content=json.dumps(case["request"]))
            error = response.json()["error"]
            assert (response.status_code, error["code"]) == (case["status"], case["code"]), (
                name,
                error,
            )
            if "field" in case:  # the message names the field first, in the schema's words
                assert error["message"].startswith(case["field"]), (name, error["message"])


@pytest.mark.parametrize("name", sorted(VALID_ANSWERS))
def test_every_valid_answer_decodes_to_its_assignment(name: str) -> None:
    case = VALID_ANSWERS[name]
    assignment, revoked = read_packed(case["request"], case["answer"])
    assert assignment == case["assignment"]
    assert revoked == case["revoked"]


@pytest.mark.parametrize("name", sorted(INVALID_ANSWERS))
def test_every_invalid_answer_is_refused(name: str) -> None:
    case = INVALID_ANSWERS[name]
    assert case["why"]
    with pytest.raises(RefusedAnswer):
        read_packed(case["request"], case["answer"])
