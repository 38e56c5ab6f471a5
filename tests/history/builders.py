"""Snapshots for history tests, built from plain values."""

from __future__ import annotations

from datetime import datetime

from lagassign.lagview.snapshot import GroupSnapshot, PartitionLag


def partition(
    topic: str,
    p: int,
    committed: int | None,
    start: int | None,
    end: int | None,
    lag: int | None,
    member: str | None = None,
    stale: bool = False,
) -> PartitionLag:
    owner = (member, "/10.0.0.1", f"client-{member}") if member else (None, None, None)
    consumer_id, host, client_id = owner
    return PartitionLag(
        topic, p, committed, end, start, lag, consumer_id, host, client_id, stale=stale
    )


def group(
    group_id: str, as_of: datetime, rows: list[PartitionLag], error: str | None = None
) -> GroupSnapshot:
    return GroupSnapshot(
        group_id, as_of, "Stable", "classic", "range", (), tuple(rows), error=error
    )
