"""The member index and topic names that resolve the broker plugin's requests."""

from __future__ import annotations

from lagassign.lagview.consumer_index import ConsumerGroupIndex, Resolution


def test_members_resolve_through_the_ones_the_index_knows() -> None:
    index = ConsumerGroupIndex()
    index.rebuild({"orders": ["m-1", "m-2"], "audit": ["a-1"]}, {"id-0": "t0"})
    assert index.resolve(["m-2", "new"]) == Resolution("orders", 1, ("orders",))
    assert index.resolve(["new"]) == Resolution(None, 0, ())
    assert index.resolve(["m-1", "a-1"]) == Resolution(None, 2, ("audit", "orders"))
    assert index.topic_name("id-0") == "t0"
    assert index.topic_name("id-1") is None
    assert index.members == 3


def test_a_rebuild_replaces_the_index_whole() -> None:
    index = ConsumerGroupIndex()
    index.rebuild({"orders": ["m-1"]}, {"id-0": "t0"})
    index.rebuild({"orders": ["m-2"]}, {})
    assert index.group_of("m-1") is None  # left the group
    assert index.group_of("m-2") == "orders"
    assert index.topic_name("id-0") is None


def test_an_id_asked_and_not_known_is_told_once() -> None:
    index = ConsumerGroupIndex()
    index.rebuild({"orders": ["m-1"]}, {"id-0": "t0"})
    assert index.topic_name("id-0") == "t0"
    assert not index.unknown_id_asked()
    assert index.topic_name("id-new") is None
    assert index.unknown_id_asked()
    assert not index.unknown_id_asked()
