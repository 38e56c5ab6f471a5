"""The assignment core: pure strategies over plain values.

Nothing in this package performs I/O or imports asyncio, aiokafka, FastAPI,
HTTP clients, metrics or pyspark. The service, the CLI and the pipeline's
backtest all call the same functions.
"""

from lagassign.core.errors import InvalidAssignment, InvalidRebalance
from lagassign.core.model import (
    Assignment,
    AssignmentResult,
    Member,
    Protocol,
    Rebalance,
    make_rebalance,
)

__all__ = [
    "Assignment",
    "AssignmentResult",
    "InvalidAssignment",
    "InvalidRebalance",
    "Member",
    "Protocol",
    "Rebalance",
    "make_rebalance",
]
