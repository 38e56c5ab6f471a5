"""lagassign_client: the consumer-side shim of lagassign.

The group leader's assignor asks the lagassign sidecar (``POST /assign``) for a
lag-balanced assignment, checks it against its own metadata, and uses it; on a
timeout, a connection error, a non-200, malformed JSON or an invalid answer it
uses the client library's own range assignor instead, logs one WARNING and
counts the fallback by reason (:attr:`LagAssignor.fallbacks`). An answer made
without (all of) the lag is used, logged at WARNING and counted
(:attr:`LagAssignor.blind_answers`); every decision is logged at INFO.

- aiokafka: :class:`LagAssignor` (this module).
- kafka-python 3: :class:`lagassign_client.kafka_python.KafkaPythonLagAssignor`.
- Prometheus: :class:`lagassign_client.metrics.DecisionCollector` (the ``metrics`` extra).
"""

from lagassign_client.assignor.aiokafka import LagAssignor
from lagassign_client.assignor.leader import Decision
from lagassign_client.assignor.shim import (
    DEFAULT_TIMEOUT_S,
    PROTOCOL_NAME,
    RESET_POLICIES,
    STRATEGIES,
)
from lagassign_client.errors import BLIND_REASONS, FALLBACK_REASONS
from lagassign_client.wire.userdata import AssignmentUserData

__all__ = [
    "BLIND_REASONS",
    "DEFAULT_TIMEOUT_S",
    "FALLBACK_REASONS",
    "PROTOCOL_NAME",
    "RESET_POLICIES",
    "STRATEGIES",
    "AssignmentUserData",
    "Decision",
    "LagAssignor",
]
