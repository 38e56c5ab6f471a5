"""The lag history schema (``docs/history.md``) and the rows of one refresh.

One row per group and partition:

==================  =====================  ========
column              type                   nullable
==================  =====================  ========
ts                  timestamp[ms, UTC]     no
cluster             string                 no
group               string                 no
topic               string                 no
partition           int32                  no
log_start_offset    int64                  no
log_end_offset      int64                  no
committed_offset    int64                  yes
lag                 int64                  no
consumer_id         string                 yes
client_id           string                 yes
host                string                 yes
==================  =====================  ========

``ts`` is the time the snapshot was read (``GroupSnapshot.as_of``, to the
millisecond). Only measurements are recorded: a partition whose offsets or lag
are unknown, or whose values are stale (kept from an earlier refresh), has no
row in that refresh; a group whose read failed has none either.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

import pyarrow as pa  # type: ignore[import-untyped]

from lagassign.lagview.snapshot import GroupSnapshot

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ONE_MS = timedelta(milliseconds=1)

HISTORY_SCHEMA = pa.schema(
    [
        pa.field("ts", pa.timestamp("ms", tz="UTC"), nullable=False),
        pa.field("cluster", pa.string(), nullable=False),
        pa.field("group", pa.string(), nullable=False),
        pa.field("topic", pa.string(), nullable=False),
        pa.field("partition", pa.int32(), nullable=False),
        pa.field("log_start_offset", pa.int64(), nullable=False),
        pa.field("log_end_offset", pa.int64(), nullable=False),
        pa.field("committed_offset", pa.int64(), nullable=True),
        pa.field("lag", pa.int64(), nullable=False),
        pa.field("consumer_id", pa.string(), nullable=True),
        pa.field("client_id", pa.string(), nullable=True),
        pa.field("host", pa.string(), nullable=True),
    ]
)


def history_table(snapshots: Iterable[GroupSnapshot], cluster: str) -> pa.Table:
    """The history rows of ``snapshots`` as an Arrow table with :data:`HISTORY_SCHEMA`."""
    columns: dict[str, list[object]] = {name: [] for name in HISTORY_SCHEMA.names}
    ts, clusters, groups = columns["ts"], columns["cluster"], columns["group"]
    topics, partitions = columns["topic"], columns["partition"]
    starts, ends, committed = (
        columns["log_start_offset"],
        columns["log_end_offset"],
        columns["committed_offset"],
    )
    lags, consumers, clients, hosts = (
        columns["lag"],
        columns["consumer_id"],
        columns["client_id"],
        columns["host"],
    )
    for snapshot in snapshots:
        if snapshot.error is not None:
            continue
        # Milliseconds since the epoch: the column's unit, exactly.
        millis = (snapshot.as_of - EPOCH) // ONE_MS
        for p in snapshot.partitions:
            if p.stale or p.lag is None or p.log_end_offset is None or p.log_start_offset is None:
                continue
            ts.append(millis)
            clusters.append(cluster)
            groups.append(snapshot.group_id)
            topics.append(p.topic)
            partitions.append(p.partition)
            starts.append(p.log_start_offset)
            ends.append(p.log_end_offset)
            committed.append(p.current_offset)
            lags.append(p.lag)
            consumers.append(p.consumer_id)
            clients.append(p.client_id)
            hosts.append(p.host)
    return pa.Table.from_pydict(columns, schema=HISTORY_SCHEMA)
