"""Errors of the assignment core.

    ValueError
     ├── InvalidRebalance    the inputs of a rebalance contradict themselves
     │                       (a subscribed topic without a partition count, a lag
     │                       list of the wrong length, duplicate member ids, ...)
     └── InvalidAssignment   an assignment breaks the validity rules (a partition
                             missing, given twice, given to a non-subscriber,
                             a member absent)

Both carry a human message and a JSON-able ``details`` value.
"""

from __future__ import annotations

from typing import Any


class InvalidRebalance(ValueError):
    """The inputs of a rebalance are inconsistent; ``message`` names the field."""

    def __init__(self, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class InvalidAssignment(ValueError):
    """An assignment breaks a validity rule; ``problems`` lists every breach."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems[:5]) + (" ..." if len(problems) > 5 else ""))
        self.problems = problems
