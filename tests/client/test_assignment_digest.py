"""The digest of a library's assignment is the one of its (member, topic, partition) lines."""

from __future__ import annotations

from typing import Any

from aiokafka.coordinator.protocol import (  # type: ignore[import-untyped]
    ConsumerProtocolMemberAssignment,
)
from hypothesis import given
from hypothesis import strategies as st
from kafka.protocol.consumer.metadata import (  # type: ignore[import-untyped]
    ConsumerProtocolAssignment,
)

from lagassign_client.assignor.assignment_digest import (
    NUMERALS_MAX,
    assignment_digest,
    digest_of_assignments,
)

MEMBERS = st.sampled_from(["c-1", "c-2", "c-10", "{c}", "ü"])
TOPICS = st.sampled_from(["t0", "t1", "t10", "a b", "ö"])
# Ids the shared table of decimal texts writes (below NUMERALS_MAX), ids beyond it, and a
# negative one (written without the table).
IDS = st.one_of(
    st.integers(0, 40), st.sampled_from([NUMERALS_MAX - 1, NUMERALS_MAX, 2**31 - 1, -1])
)
# Pairs as a client library may hold them: topics in any order, a topic twice, ids unsorted,
# a topic with no ids, one id per topic (the usual case at scale).
PAIRS = st.one_of(
    st.lists(st.tuples(TOPICS, st.lists(IDS, max_size=6)), max_size=6),
    st.lists(st.tuples(TOPICS, st.lists(IDS, min_size=1, max_size=1)), max_size=6),
)
ASSIGNMENTS = st.dictionaries(MEMBERS, PAIRS, max_size=5)


def lines(assignment: dict[str, list[tuple[str, list[int]]]]) -> list[tuple[str, str, int]]:
    return [(m, t, p) for m, pairs in assignment.items() for t, ids in pairs for p in ids]


@given(ASSIGNMENTS)
def test_aiokafka_assignments_digest_as_their_lines(assignment: Any) -> None:
    library = {
        m: ConsumerProtocolMemberAssignment(0, pairs, b"") for m, pairs in assignment.items()
    }
    assert digest_of_assignments(library) == assignment_digest(lines(assignment))


@given(ASSIGNMENTS)
def test_kafka_python_assignments_digest_as_their_lines(assignment: Any) -> None:
    library = {m: ConsumerProtocolAssignment(0, pairs, b"") for m, pairs in assignment.items()}
    assert digest_of_assignments(library) == assignment_digest(lines(assignment))


def test_the_digest_of_nothing_is_the_empty_texts() -> None:
    assert digest_of_assignments({}) == assignment_digest([]) == "e3b0c44298fc1c14"
