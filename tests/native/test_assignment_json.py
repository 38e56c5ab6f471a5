"""``lagassign._native.assignment_json`` against a plain-loop Python reference.

The reference builds the answer's ``assignment`` as Python values by walking the flat
partitions one by one; the compiled writer must give the same JSON value and exactly the
bytes ``msgspec.json.encode`` gives for it, in both answer forms.
"""

from __future__ import annotations

import array
import json
import random
from dataclasses import dataclass
from typing import Any, Literal

import msgspec
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lagassign._native import assignment_json

Form = Literal["topics", "indexed"]
FORMS: tuple[Form, ...] = ("topics", "indexed")


@dataclass(frozen=True)
class Group:
    """One group's owner array: every partition of ``topics`` in flat order."""

    members: list[str]
    topics: list[str]
    topic_starts: list[int]
    owner: list[int]

    def owner_array(self) -> npt.NDArray[np.int32]:
        return np.array(self.owner, dtype=np.int32)

    def member_keys(self) -> list[bytes]:
        return [msgspec.json.encode(member) for member in self.members]

    def topic_keys(self, form: Form) -> list[bytes]:
        if form == "topics":
            return [msgspec.json.encode(topic) for topic in self.topics]
        return [msgspec.json.encode(t) for t in range(len(self.topics))]

    def written(self, form: Form) -> bytes:
        return assignment_json(
            self.owner_array(), self.topic_starts, self.topic_keys(form), self.member_keys(), form
        )


def reference(group: Group, form: Form) -> dict[str, Any]:
    """The assignment as Python values, by plain loops over the flat partitions."""
    out: dict[str, Any] = {member: {} if form == "topics" else [] for member in group.members}
    for t, topic in enumerate(group.topics):
        for x in range(group.topic_starts[t], group.topic_starts[t + 1]):
            m = group.owner[x]
            if m == -1:
                continue
            partition = x - group.topic_starts[t]
            mine = out[group.members[m]]
            if form == "topics":
                mine.setdefault(topic, []).append(partition)
            elif mine and mine[-1][0] == t:
                mine[-1][1].append(partition)
            else:
                mine.append([t, [partition]])
    return out


def starts_of(sizes: list[int]) -> list[int]:
    starts = [0]
    for size in sizes:
        starts.append(starts[-1] + size)
    return starts


@st.composite
def groups(draw: st.DrawFn) -> Group:
    members = draw(st.lists(st.text(max_size=6), unique=True, max_size=7))
    sizes = draw(st.lists(st.integers(0, 9), max_size=6))
    names = st.text(min_size=1, max_size=5)
    topics = draw(st.lists(names, unique=True, min_size=len(sizes), max_size=len(sizes)))
    n = sum(sizes)
    owners = st.integers(-1, len(members) - 1)
    owner = draw(st.lists(owners, min_size=n, max_size=n))
    return Group(members, topics, starts_of(sizes), owner)


@given(groups(), st.sampled_from(FORMS))
def test_same_value_and_bytes_as_msgspec_of_the_reference(group: Group, form: Form) -> None:
    expected = reference(group, form)
    written = group.written(form)
    assert json.loads(written) == expected
    assert written == msgspec.json.encode(expected)


@pytest.mark.parametrize("form", FORMS)
def test_large_seeded_group_matches_the_reference(form: Form) -> None:
    rng = random.Random(12)
    members = [f"consumer-{i}-{rng.randrange(10**6)}" for i in range(150)]
    sizes = [rng.randint(1, 400) for _ in range(120)]
    owner = [rng.randrange(-1, len(members)) for _ in range(sum(sizes))]
    group = Group(members, [f"topic-{t}" for t in range(len(sizes))], starts_of(sizes), owner)
    assert group.written(form) == msgspec.json.encode(reference(group, form))


@pytest.mark.parametrize(("form", "empty"), [("topics", {}), ("indexed", [])])
def test_members_with_nothing_are_present_and_empty(form: Form, empty: Any) -> None:
    group = Group(["a", "b", "c"], ["t"], [0, 3], [2, -1, 2])
    assert json.loads(group.written(form)) == {
        "a": empty,
        "b": empty,
        "c": {"t": [0, 2]} if form == "topics" else [[0, [0, 2]]],
    }


@pytest.mark.parametrize("form", FORMS)
def test_no_partitions(form: Form) -> None:
    group = Group(["a", "b"], [], [0], [])
    assert group.written(form) == msgspec.json.encode(reference(group, form))
    nobody = Group([], [], [0], [])
    assert nobody.written(form) == b"{}"


@pytest.mark.parametrize("form", FORMS)
def test_all_withheld(form: Form) -> None:
    group = Group(["a", "b"], ["x", "y"], [0, 2, 5], [-1] * 5)
    expected: dict[str, Any] = {"a": {}, "b": {}} if form == "topics" else {"a": [], "b": []}
    assert json.loads(group.written(form)) == expected


def test_unicode_and_escaped_member_ids_and_topics() -> None:
    members = ['quote"d', "back\\slash", "new\nline", "ünïcødé-🚀", "\x00ctl", ""]
    topics = ['t"1', "ü/2"]
    group = Group(members, topics, [0, 3, 6], [0, 1, 2, 3, 4, 5])
    for form in FORMS:
        written = group.written(form)
        assert written == msgspec.json.encode(reference(group, form))
        assert list(json.loads(written)) == members


def test_indexed_example_of_the_answer_forms() -> None:
    # partitions {"b": 2, "a": 3}: m1 gets a-0, a-2, b-1; m2 gets a-1, b-0.
    group = Group(["m1", "m2"], ["b", "a"], [0, 2, 5], [1, 0, 0, 1, 0])
    assert group.written("indexed") == b'{"m1":[[0,[1]],[1,[0,2]]],"m2":[[0,[0]],[1,[1]]]}'
    assert group.written("topics") == b'{"m1":{"b":[1],"a":[0,2]},"m2":{"b":[0],"a":[1]}}'


def test_other_int32_buffers_and_starts_forms() -> None:
    group = Group(["m1", "m2"], ["b", "a"], [0, 2, 5], [1, 0, 0, 1, 0])
    expected = group.written("topics")
    keys = group.topic_keys("topics"), group.member_keys()
    assert assignment_json(array.array("i", group.owner), [0, 2, 5], *keys, "topics") == expected
    starts = np.array([0, 2, 5], dtype=np.int64)
    assert assignment_json(group.owner_array(), starts, *keys, "topics") == expected
    assert assignment_json(group.owner_array(), (0, 2, 5), *keys, "topics") == expected
    read_only = group.owner_array()
    read_only.flags.writeable = False
    assert assignment_json(read_only, starts, *keys, "topics") == expected
    as_bytes = memoryview(group.owner_array().tobytes()).cast("i")
    assert assignment_json(as_bytes, starts, *keys, "topics") == expected
    # Not contiguous: a strided view reads its own items, not the memory around them.
    strided = np.array([x for m in group.owner for x in (m, 7)], dtype=np.int32)[::2]
    assert assignment_json(strided, starts, *keys, "topics") == expected


GOOD_KEYS = ([b'"t"'], [b'"m1"', b'"m2"'])


@pytest.mark.parametrize(
    ("owner", "argument"),
    [
        (np.array([0, 1], dtype=np.int64), "owner"),
        (np.array([0, 1], dtype=np.uint32), "owner"),
        (np.array([0.0, 1.0]), "owner"),
        (np.array([0, 1], dtype=">i4"), "owner must be an int32 buffer in this machine's byte"),
        ([0, 1], "owner"),
        (b"\x00\x01", "owner"),
        (None, "owner"),
    ],
)
def test_owner_of_another_type_is_a_type_error(owner: Any, argument: str) -> None:
    with pytest.raises(TypeError, match=argument):
        assignment_json(owner, [0, 2], *GOOD_KEYS, "topics")


def test_two_dimensional_owner_is_a_type_error() -> None:
    owner = np.zeros((1, 2), dtype=np.int32)
    with pytest.raises(TypeError, match="owner must be a one-dimensional int32"):
        assignment_json(owner, [0, 2], *GOOD_KEYS, "topics")


@pytest.mark.parametrize(("value", "at"), [(2, 1), (-2, 0), (2**31 - 1, 1)])
def test_owner_out_of_range_is_a_value_error(value: int, at: int) -> None:
    owner = np.zeros(2, dtype=np.int32)
    owner[at] = value
    with pytest.raises(ValueError, match=rf"owner\[{at}\] is {value}: not a member number"):
        assignment_json(owner, [0, 2], *GOOD_KEYS, "topics")


@pytest.mark.parametrize(
    ("starts", "message"),
    [
        ([0, 3], "topic_starts ends at 3 but owner has 2 partitions"),
        ([0, 1], "topic_starts ends at 1 but owner has 2 partitions"),
        ([1, 2], r"topic_starts\[0\] is 1, not 0"),
        ([0], "topic_starts has 1 entries but topic_keys names 1 topics"),
        ([0, 1, 2], "topic_starts has 3 entries but topic_keys names 1 topics"),
    ],
)
def test_starts_not_matching_is_a_value_error(starts: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        assignment_json(np.zeros(2, dtype=np.int32), starts, *GOOD_KEYS, "topics")


def test_descending_starts_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="topic_starts is not ascending"):
        assignment_json(
            np.zeros(2, dtype=np.int32), [0, 3, 2], [b'"a"', b'"b"'], [b'"m"'], "topics"
        )


@pytest.mark.parametrize(
    "starts",
    [
        np.array([0, 2], dtype=np.int32),
        np.array([0, 2], dtype=">i8"),
        "02",
        [0, "2"],
        [0, 2.0],
        {0: 0},
    ],
)
def test_starts_of_another_type_is_a_type_error(starts: Any) -> None:
    with pytest.raises(TypeError, match="topic_starts"):
        assignment_json(np.zeros(2, dtype=np.int32), starts, *GOOD_KEYS, "topics")


def test_keys_must_be_lists_of_nonempty_bytes() -> None:
    owner = np.zeros(2, dtype=np.int32)
    with pytest.raises(TypeError, match=r"topic_keys\[0\] must be bytes"):
        assignment_json(owner, [0, 2], ['"t"'], GOOD_KEYS[1], "topics")  # type: ignore[list-item]
    with pytest.raises(TypeError, match="member_keys must be a list of bytes"):
        assignment_json(owner, [0, 2], GOOD_KEYS[0], (b'"m1"',), "topics")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"member_keys\[1\] is empty"):
        assignment_json(owner, [0, 2], GOOD_KEYS[0], [b'"m1"', b""], "topics")


def test_unknown_form_is_a_value_error_and_not_a_str_a_type_error() -> None:
    owner = np.zeros(2, dtype=np.int32)
    with pytest.raises(ValueError, match='form must be "topics" or "indexed", got "compact"'):
        assignment_json(owner, [0, 2], *GOOD_KEYS, "compact")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match='form must be the str "topics" or "indexed", got int'):
        assignment_json(owner, [0, 2], *GOOD_KEYS, 1)  # type: ignore[arg-type]
