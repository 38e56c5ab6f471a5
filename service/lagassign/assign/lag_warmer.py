"""After each refresh of the lag view, each kept group's lag made ready for its next request.

A refresh listener (:mod:`lagassign.lagview.listeners`), told after the rate window
(it must come later in the view's listeners): for every group the refresh read afresh
that asked within :data:`~lagassign.assign.lag_cache.WARM_FOR_S`, the lag is computed
from the new snapshot and rate window for the group's last request, and for it with
one member more and one fewer (the drain model's horizon reads the member count: the
next rebalance is often a join or a leave), in a worker thread and a task of its own
(the refresh loop is not held), and kept in the
:class:`~lagassign.assign.lag_cache.LagCache`. The broker plugin's next call for the
group then finds it: a lookup instead of a walk of every partition. A request that
comes before it is ready computes it itself.

For a group the broker plugin asks about, the warmer then answers the group's next join
ahead (:mod:`lagassign.assign.answer_prepared`), over the lag it has just made ready.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import msgspec

from lagassign.assign.answer import compute_answer
from lagassign.assign.answer_prepared import PreparedJoins, next_join
from lagassign.assign.lag_cache import LagCache, LagInputs, LagModel, lag_inputs, snapshot_lag
from lagassign.assign.lag_sources import LagSource
from lagassign.assign.request import AssignRequest
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.reader import LagReader

log = logging.getLogger(__name__)


class LagWarmer:
    """Computes the kept groups' lags anew after each refresh (see the module docstring)."""

    def __init__(
        self,
        cache: LagCache,
        lag_view: LagReader,
        joins: PreparedJoins | None = None,
        default_strategy: str = "balanced",
    ) -> None:
        self.cache = cache
        self.lag_view = lag_view
        self.joins = joins
        self.default_strategy = default_strategy
        self._task: asyncio.Task[None] | None = None
        self.warmed = 0

    async def refreshed(self, refresh: Refresh) -> None:
        groups = [s.group_id for s in refresh.fresh if self.cache.warm(s.group_id) is not None]
        if not groups:
            return
        if self._task is not None and not self._task.done():
            return  # still warming from the last refresh; the next one takes over
        self._task = asyncio.create_task(self._warm(groups), name="lagassign-lag-warmer")

    async def ready(self) -> None:
        """Wait until the warming started by the last refresh is done."""
        if self._task is not None:
            await asyncio.shield(self._task)

    async def close(self) -> None:
        """Stop the warming under way; a second close, or one from another loop than the
        warming's (the lag view closes its listeners on its own loop), has nothing to do."""
        task, self._task = self._task, None
        if task is None or task.done() or task.get_loop() is not asyncio.get_running_loop():
            return
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    async def _warm(self, groups: Sequence[str]) -> None:
        for group_id in groups:
            asked = self.cache.warm(group_id)
            if asked is None:
                continue
            try:
                for request in around(asked.request):
                    await self._lag_of(group_id, request, asked.model)
                await self._prepare_join(group_id, asked.model)
            except Exception:  # a listener must not fail the refresh loop
                log.exception(
                    "the lag or next join of group %r could not be computed ahead", group_id
                )

    async def _lag_of(
        self, group_id: str, request: AssignRequest, model: LagModel | None
    ) -> tuple[LagSource, LagInputs] | None:
        """The lag of ``request`` (and its inputs) kept in the cache, computed (in a thread)
        when it is not; None when the lag view does not cover the request."""
        inputs = lag_inputs(request, self.lag_view, model)
        if inputs is None:
            return None
        lag = self.cache.get(group_id, inputs, counted=False)
        if lag is None:
            lag = await asyncio.to_thread(snapshot_lag, request, inputs, model)
            self.cache.put(group_id, inputs, lag)
            self.warmed += 1
        return lag, inputs

    async def _prepare_join(self, group_id: str, model: LagModel | None) -> None:
        """Answer the group's next join ahead, unless it is already answered over this lag."""
        joins = self.joins
        if joins is None:
            return
        last, snapshot = joins.last(group_id), self.lag_view.snapshot(group_id)
        request = None if last is None or snapshot is None else next_join(last, snapshot)
        if request is None:
            return
        found = await self._lag_of(group_id, request, model)
        if found is None or joins.is_prepared(request, found[1]):
            return
        lag, inputs = found
        answer = await asyncio.to_thread(compute_answer, request, lag, self.default_strategy)
        joins.put(request, inputs, self.default_strategy, answer)


def around(request: AssignRequest) -> list[AssignRequest]:
    """``request``, then with one member more (a copy of its last, under another id) and
    one fewer: the lags of the group's next join and leave."""
    members = request.members
    out = [request]
    if members:
        joiner = msgspec.structs.replace(members[-1], member_id=members[-1].member_id + "+")
        out.append(msgspec.structs.replace(request, members=[*members, joiner]))
    if len(members) > 1:
        out.append(msgspec.structs.replace(request, members=members[:-1]))
    return out
