"""A topic with a backlog and a group committed on it, on the session broker: how the
real-broker rate and time-lag tests begin."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from harness.broker import LocalKafka
from harness.builders import commit, create_topic, produce


async def committed_backlog(
    kafka_broker: LocalKafka,
    kafka_names: Callable[[str], str],
    records: Sequence[int],
    committed: Sequence[int],
) -> tuple[str, str, str]:
    """A new topic with ``records`` per partition and a new group committed at ``committed``
    (one offset per partition); the broker's bootstrap, the topic and the group."""
    bootstrap = kafka_broker.bootstrap
    topic, group = kafka_names("t"), kafka_names("g")
    await create_topic(bootstrap, topic, len(records))
    await produce(bootstrap, topic, records)
    await commit(bootstrap, group, {(topic, p): offset for p, offset in enumerate(committed)})
    return bootstrap, topic, group
