"""The lag view: cached, periodically refreshed lag of Kafka consumer groups.

Read from Kafka with aiokafka only (admin client for groups and committed
offsets, a group-less consumer for log start and end offsets). The public names:
:class:`~lagassign.lagview.snapshot.GroupSnapshot` and its parts, and
:class:`~lagassign.lagview.view.LagView`.
"""

from lagassign.lagview.snapshot import GroupSnapshot, MemberDescription, PartitionLag

__all__ = ["GroupSnapshot", "MemberDescription", "PartitionLag"]
