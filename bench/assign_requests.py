"""``POST /assign`` bodies of the benchmark scenarios, in both request forms.

:func:`request_body` turns a scenario's :class:`Rebalance` (``bench.scenarios``)
into the JSON a leader would send: every member with its ``topics`` (the plain
form), or ``subscriptions`` given once and each member naming its index (the
compact form, ``compact=True``). Owned partitions and generations come along,
so a follow-up rebalance (``bench.scenarios.owning``/``churned``) is sent as the
leader would send it.
"""

from __future__ import annotations

from typing import Any

from lagassign.assign.request_schema import AnswerForm
from lagassign.core.model import Rebalance


def request_body(
    rebalance: Rebalance,
    group_id: str,
    *,
    compact: bool = False,
    answer_form: AnswerForm = "topics",
    strategy: str = "balanced",
    protocol: str = "eager",
) -> dict[str, Any]:
    """The request for ``rebalance``, lags included."""
    subscriptions: dict[tuple[str, ...], int] = {}
    members: list[dict[str, Any]] = []
    for m in rebalance.members:
        member: dict[str, Any] = {"member_id": m.member_id}
        if m.group_instance_id is not None:
            member["group_instance_id"] = m.group_instance_id
        if compact:
            member["subscription"] = subscriptions.setdefault(m.topics, len(subscriptions))
        else:
            member["topics"] = list(m.topics)
        if m.owned:
            member["owned"] = {t: list(ps) for t, ps in m.owned.items()}
        if m.generation is not None:
            member["generation"] = m.generation
        members.append(member)
    body: dict[str, Any] = {
        "group_id": group_id,
        "members": members,
        "partitions": dict(rebalance.partitions),
        "lags": {t: list(v) for t, v in rebalance.lags.items()},
        "strategy": strategy,
        "protocol": protocol,
    }
    if compact:
        body["subscriptions"] = [list(topics) for topics in subscriptions]
    if answer_form != "topics":
        body["answer_form"] = answer_form
    return body
