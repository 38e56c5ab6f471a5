"""The lag view: cached, periodically refreshed lag of Kafka consumer groups.

Read from Kafka through aiokafka's connections (one admin client), with the large
requests written and read by the view itself (:mod:`lagassign.lagview.kafka`). The
public names:
:class:`~lagassign.lagview.snapshot.GroupSnapshot` and its parts, and
:class:`~lagassign.lagview.view.LagView`.
"""

from lagassign.lagview.snapshot import GroupSnapshot, MemberDescription, PartitionLag

__all__ = ["GroupSnapshot", "MemberDescription", "PartitionLag"]
