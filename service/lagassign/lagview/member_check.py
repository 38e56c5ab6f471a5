"""Do a rebalance request's members belong to the group it names?

A consumer whose shim is given another ``group_id`` than the consumer's own (a
typo) sends its group's members under the wrong name; the sidecar would answer
with the other group's lag (often a ``Dead`` group with none) and the answer would
look like a success. The check uses the lag view's cached descriptions only
(never Kafka during a request):

- some member of the request is a member of the named group as last described:
  nothing to say (members that joined since the last refresh are not known yet);
- none is, and some are members of other tracked groups: the request is refused
  with ``400 wrong_group``, naming those groups, so the leader falls back to its
  range assignor with the reason in its log and the sidecar counts it;
- otherwise (a new group not described yet, a sidecar that has just restarted and
  described nothing, members nobody knows yet): no check.

Member ids are made by the group coordinator, unique to one membership, so a
member id the view saw in group B cannot be a member of group A: the refusal
has no false positive from timing, only a missed check when the view has not
described the other group (it tracks the groups in its settings and those
``/assign`` asked for).

>>> from datetime import UTC, datetime
>>> from lagassign.lagview.snapshot import GroupSnapshot, MemberDescription
>>> orders = GroupSnapshot("orders", datetime.now(UTC), "Stable", "classic", "lagassign",
...                        (MemberDescription("m-1", None, "c", "/h"),), ())
>>> check_members("order", ["m-1"], {"orders": orders})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
lagassign.errors.WrongGroup: the members belong to group 'orders', not 'order': ...
>>> check_members("orders", ["m-1", "m-new"], {"orders": orders})
>>> check_members("new-group", ["m-7"], {"orders": orders})
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lagassign.errors import WrongGroup
from lagassign.lagview.snapshot import GroupSnapshot

#: How many member ids the refusal names.
NAMED_MEMBERS = 3


def check_members(
    group_id: str, member_ids: Iterable[str], snapshots: Mapping[str, GroupSnapshot]
) -> None:
    """Raise :class:`~lagassign.errors.WrongGroup` when the members are known elsewhere only."""
    requested = set(member_ids)
    own = snapshots.get(group_id)
    if own is not None and any(m.member_id in requested for m in own.members):
        return
    elsewhere: dict[str, list[str]] = {}
    for other_id, snapshot in snapshots.items():
        if other_id == group_id:
            continue
        found = sorted(m.member_id for m in snapshot.members if m.member_id in requested)
        if found:
            elsewhere[other_id] = found
    if not elsewhere:
        return
    groups = sorted(elsewhere)
    first = groups[0]
    raise WrongGroup(
        # The shims log the first 120 characters: the groups first, the ids last.
        f"the members belong to group {first!r}, not {group_id!r}: the group_id given to "
        "lagassign's assignor differs from the consumer's group.id (members "
        f"{', '.join(elsewhere[first][:NAMED_MEMBERS])})",
        {
            "group_id": group_id,
            "member_groups": {g: elsewhere[g] for g in groups},
            "known_members_of_group": len(own.members) if own is not None else 0,
        },
    )
