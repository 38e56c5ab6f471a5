"""A new group on a backlog: no committed offsets, members reading from ``earliest``.

The consumers' reset policy travels with every ``POST /assign`` (the sidecar counts
the lag of a partition without a committed offset by it), for aiokafka and
kafka-python alike, and a healthy start counts no fallback. The members start cold:
a new group, nothing committed, and they do not commit, so the group stays without
offsets.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.builders import create_topic, produce
from harness.sidecar import SidecarProcess
from tests.client.backlog import SKEW
from tests.client.faulty_sidecar import FaultySidecar
from tests.client.group_waits import settled
from tests.client.member import NO_COMMIT
from tests.client.members import NewGroup, started

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]


@pytest.fixture
def recording(sidecar: SidecarProcess) -> Iterator[FaultySidecar]:
    """The real sidecar behind a proxy that keeps every request body."""
    front = FaultySidecar(upstream=sidecar.url).start()
    try:
        yield front
    finally:
        front.stop()


@pytest.mark.parametrize(
    "kinds",
    [
        pytest.param(("aiokafka", "aiokafka"), id="aiokafka"),
        pytest.param(("kafka-python", "aiokafka"), id="kafka-python-leads"),
    ],
)
async def test_a_new_group_tells_the_sidecar_it_reads_from_earliest(
    kinds: tuple[str, str], recording: FaultySidecar, new_group: NewGroup
) -> None:
    topics = new_group.topics(2)
    for topic in topics:
        await create_topic(new_group.bootstrap, topic, len(SKEW))
        await produce(new_group.bootstrap, topic, SKEW)
    members = new_group.members(kinds, new_group.membership(topics, recording.url), NO_COMMIT)
    async with started(members):
        await settled(members, {(t, p) for t in topics for p in range(len(SKEW))})
        notes = [m.note() for m in members]
        fallbacks = [m.fallbacks() for m in members]
    assert recording.bodies, "the leader never asked the sidecar"
    assert {body["group_id"] for body in recording.bodies} == {new_group.group}
    assert [body.get("reset_policy") for body in recording.bodies] == ["earliest"] * len(
        recording.bodies
    )
    assert all(note is not None and note["by"] == "sidecar" for note in notes), notes
    # Joining before the topics' metadata came is not a fallback (kafka-python did count
    # one "metadata" fallback, with a WARNING, on every start).
    assert fallbacks == [{}] * len(members)
