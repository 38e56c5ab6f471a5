"""The shims' notes in the protocol user data, read leniently."""

from __future__ import annotations

import pytest

from lagassign.lagview.assignment_note import (
    AssignmentNote,
    SubscriptionNote,
    live_note,
    read_assignment_note,
    read_subscription_note,
)


def test_the_notes_the_shims_write_are_read() -> None:
    sidecar = read_assignment_note(b'{"v":1,"by":"sidecar","strategy":"balanced"}')
    assert sidecar == AssignmentNote("sidecar", None, "balanced")
    assert sidecar is not None
    assert (sidecar.fallback, sidecar.lag_blind) == (False, False)
    fallback = read_assignment_note(b'{"v":1,"by":"range","reason":"unreachable"}')
    assert fallback == AssignmentNote("range", "unreachable")
    assert fallback is not None
    assert (fallback.fallback, fallback.lag_blind) == (True, False)
    blind = read_assignment_note(b'{"v":1,"by":"sidecar","reason":"lag_partial"}')
    assert blind is not None
    assert (blind.fallback, blind.lag_blind) == (False, True)
    assert fallback.to_json() == {"by": "range", "reason": "unreachable", "strategy": None}
    # The Java CooperativeLagAssignor falls back to Kafka's CooperativeStickyAssignor.
    sticky = read_assignment_note(b'{"v":1,"by":"cooperative-sticky","reason":"invalid"}')
    assert sticky == AssignmentNote("cooperative-sticky", "invalid")
    assert sticky is not None
    assert sticky.fallback


@pytest.mark.parametrize(
    "raw", [None, b"", b"\xff\xfe", b"[1]", b'{"by":"roundrobin"}', b'{"v":1}', b"not json"]
)
def test_user_data_of_another_kind_reads_as_no_note(raw: bytes | None) -> None:
    assert read_assignment_note(raw) is None


def test_the_instance_id_and_generation_from_the_subscription_user_data() -> None:
    read = read_subscription_note
    assert read(b'{"v":1,"instance_id":"web-1","generation":7}') == SubscriptionNote("web-1", 7)
    assert read(b'{"v":1,"instance_id":null,"generation":null}') == SubscriptionNote()
    assert read(b'{"v":1,"instance_id":7,"generation":true}') == SubscriptionNote()
    assert read(b'{"v":1,"generation":-1}') == SubscriptionNote()
    assert read(b"\x00") == SubscriptionNote()
    assert read(None) == SubscriptionNote()


def test_the_group_note_is_the_one_most_members_carry() -> None:
    by_range = AssignmentNote("range", "timeout")
    by_sidecar = AssignmentNote("sidecar", None, "balanced")
    assert live_note([by_range, None, by_range, by_sidecar]) == by_range
    assert live_note([None, None]) is None
    assert live_note([]) is None
