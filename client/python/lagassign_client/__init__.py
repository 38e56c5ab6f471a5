"""lagassign_client: the consumer-side shim of lagassign.

The group leader's assignor asks the lagassign sidecar (``POST /assign``) for a
lag-balanced assignment, checks it against its own metadata, and uses it; on a
timeout, a connection error, a non-200, malformed JSON or an invalid answer it
uses the client library's own range assignor instead, logs one WARNING and
counts the fallback by reason (:attr:`LagAssignor.fallbacks`).

- aiokafka: :class:`LagAssignor` (this module).
- kafka-python 3: :class:`lagassign_client.kafka_python.KafkaPythonLagAssignor`.
"""

from lagassign_client.aiokafka_assignor import LagAssignor
from lagassign_client.assignor import DEFAULT_TIMEOUT_S, PROTOCOL_NAME, STRATEGIES
from lagassign_client.errors import FALLBACK_REASONS
from lagassign_client.leader import Decision
from lagassign_client.userdata import AssignmentUserData

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "FALLBACK_REASONS",
    "PROTOCOL_NAME",
    "STRATEGIES",
    "AssignmentUserData",
    "Decision",
    "LagAssignor",
]
