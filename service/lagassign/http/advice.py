"""``GET /groups/{group_id}/advice``: the rebalance advice of one group, cheap to poll.

It reads the advice the tracker computed at the last refresh
(:mod:`lagassign.groups.advice_tracker`): no strategy run, no Kafka read, so the
consumers' helpers may poll it every few seconds. 404 for a group the sidecar
does not track. Registered before ``GET /groups/{group_id}`` so that route does
not take ``.../advice`` for part of a group id.
"""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Depends
from fastapi.responses import Response

from lagassign.errors import UnknownGroup
from lagassign.groups.advice import AdvicePolicy, not_fresh
from lagassign.http.auth import require_token
from lagassign.http.parts import AdviceDep, LagViewDep
from lagassign.http.schemas import error_responses
from lagassign.http.schemas_advice import AdviceOut

router = APIRouter(tags=["groups"], dependencies=[Depends(require_token)])


@router.get(
    "/groups/{group_id:path}/advice",
    response_model=AdviceOut,
    responses=error_responses(
        {
            401: "A token is configured and the bearer token is missing or wrong",
            404: "The group is not tracked",
            422: "A path parameter is invalid",
        }
    ),
)
async def get_advice(group_id: str, view: LagViewDep, tracker: AdviceDep) -> Response:
    """Whether a rebalance of the group is advised now, why, and its figures."""
    advice = tracker.advice_of(group_id) if tracker is not None else None
    if advice is None:
        if view is None or view.snapshot(group_id) is None:
            raise UnknownGroup(f"group {group_id!r} is not tracked", {"group_id": group_id})
        policy = tracker.policy if tracker is not None else AdvicePolicy()
        reason = "no refresh has weighed this group yet"
        advice = not_fresh(group_id, reason, datetime.now(UTC), policy)
    body = AdviceOut.of(advice).model_dump_json()
    return Response(body, media_type="application/json", headers={"Cache-Control": "no-store"})
