"""The synthetic groups the benchmarks build without a broker: a Stable classic group."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from lagassign.lagview.snapshot import GroupSnapshot, MemberDescription, PartitionLag


def stable_group(
    group_id: str,
    as_of: datetime,
    partitions: Sequence[PartitionLag],
    members: Sequence[MemberDescription] = (),
    strategy: str = "range",
) -> GroupSnapshot:
    """``group_id`` as the lag view snapshots a Stable classic group on ``strategy``."""
    return GroupSnapshot(
        group_id=group_id,
        as_of=as_of,
        state="Stable",
        protocol_type="classic",
        assignment_strategy=strategy,
        members=tuple(members),
        partitions=tuple(partitions),
    )
