"""What the sidecar keeps between a group's rebalances over its lag view.

The lag an answer balanced, per group and member count (:mod:`lagassign.assign.lag_cache`,
made ready after each refresh by :mod:`lagassign.assign.lag_warmer`), each group's
last answer for the same body over the same lag (:mod:`lagassign.assign.answer_reuse`),
and the broker plugin's groups' next join answered ahead
(:mod:`lagassign.assign.answer_prepared`).
Built once, with the lag view, in the sidecar's composition root.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lagassign.assign.answer_prepared import PreparedJoins
from lagassign.assign.answer_reuse import AnswerReuse
from lagassign.assign.lag_cache import LagCache


@dataclass(frozen=True, slots=True)
class AssignCaches:
    """The lags and last answers kept over one lag view's snapshots."""

    lags: LagCache = field(default_factory=LagCache)
    answers: AnswerReuse = field(default_factory=AnswerReuse)
    joins: PreparedJoins = field(default_factory=PreparedJoins)
