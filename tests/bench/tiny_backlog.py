"""The tiny backlog the catch-up benchmark's tests on the real broker drain: two members
at 200 records/s, 900 records on two topics of two partitions, 600 of them on ``a-0``
(3 s of one member: the lower bound)."""

from __future__ import annotations

from bench.catchup.scenarios import Scenario

TINY = Scenario(
    name="tiny",
    backlog={("a", 0): 600, ("a", 1): 100, ("b", 0): 100, ("b", 1): 100},
    members=2,
    rate=200,
)
