"""Balanced: lag balanced across all topics, counts balanced, sticky. The default strategy.

Rule.

1. Counts (:mod:`.quotas`). Per topic, each subscriber gets P // C or
   P // C + 1 partitions; members' totals are as even as the subscriptions
   allow (with identical subscriptions they differ by at most one); a member
   keeps its extra partition of a topic where it held one.
2. Lag. Minimise the largest member lag over all topics together (the seed
   ``lag-aware`` balances each topic alone). Partitions are dealt in rounds,
   largest lags to the least-loaded members (:mod:`.lag_rounds`), then the
   most-loaded member swaps or hands over partitions within the count rules
   while that lowers it (:mod:`.local_moves`).
3. Racks (:mod:`.racks`). With replica racks and member racks known, a
   partition is swapped onto a member in one of its replicas' racks when that
   keeps every count and raises the largest member lag by at most 1%.
4. Stickiness: the movement rule (:mod:`.owned`). Each member first keeps what
   it owned, up to its count targets (a member over target gives up the
   partitions that bring what it keeps nearest the mean member lag). The rest
   is dealt as above, and local moves then make only changes that take no
   partition from its previous owner. This *sticky answer* stands when its
   largest member lag is within ``Tuning.tolerance`` (1.05) of the *fresh answer*'s,
   the one computed as if nobody owned anything (when it is within 1.05 of the
   lower bound, max(mean member lag, largest partition), the fresh answer is
   not even computed). Otherwise local moves may move owned partitions too,
   those reaching the goal with the fewest moves first, and stop as soon as the
   sticky answer is within 1.05 of the fresh one: a partition moves only for a
   real gain. If they cannot get there, a growing share of the heaviest
   partitions is dealt again (:mod:`.redeal`); failing that, the fresh answer
   is used, each member of a given subscription taking the partition set it
   owned most of. One exception to the per-topic counts (:mod:`.by_totals`):
   when every member subscribes to every topic and the previous layout was
   balanced by totals but not by topic (Kafka's ``uniform``: contiguous runs,
   often of one topic), members keep owned partitions up to their *total*
   target, local moves may swap partitions of any two topics, and the answer
   keeps the totals within one rather than each topic's counts.
5. Never worse than ``lag-aware``: when the answer's largest member lag is
   above the one ``lag-aware`` gives on the same input and partitions were
   owned, frugal local moves continue down to it, then re-dealing the
   heaviest. Both balance every topic;
   ``lag-aware`` can only do better by leaving the totals uneven (two members, topics of three
   partitions [142, 71, 58] and [90, 55, 50]: 232 and 234 with two and four
   partitions, against 247 at best with three each). So next, hand-overs may
   leave the totals uneven; failing that, ``lag-aware``'s own answer is used,
   its partition sets handed out as in 4. Either way the totals are then evened
   out as far as ``lag-aware``'s lag allows. This is the one case where totals
   may differ by more than the subscriptions force: being at least as good as
   ``lag-aware`` comes first. In seeded small groups it happens about once in a
   hundred; with owned partitions taking ``lag-aware``'s answer can move many.

The stages (:mod:`.stages`), in order; each runs only while the answer misses
its bar (:mod:`.goals`), and the last one that ran settled the answer
(``settled_by`` in the result):

==============================  ==========  =======  ==============================
stage                           bar         owned?   does
==============================  ==========  =======  ==============================
deal                            (first)     either   1-4: keep, deal, costless moves,
                                                     racks (:mod:`.deal`)
frugal-moves                    near-fresh  yes      4: local moves that may move
                                                     owned partitions
redeal-heaviest                 near-fresh  yes      4: re-deal the heaviest
fresh-answer                    near-fresh  yes      4: the fresh answer, relabelled
frugal-moves-to-lag-aware       lag-aware   yes      5: frugal moves
redeal-heaviest-to-lag-aware    lag-aware   yes      5: re-deal the heaviest
uneven-moves                    lag-aware   either   5: totals may go uneven
lag-aware-answer                lag-aware   either   5: lag-aware's answer
flow-moves                      near-bound  either   6: counts yield to flows
==============================  ==========  =======  ==============================

6. Flows (:mod:`.flow_moves`): only when the lags are the ``drain`` model's
   weights with production in them (``Rebalance.flows``), the heaviest member
   hands partitions to lighter subscribers whatever the counts, while that lowers
   it, toward 1.05x the lower bound. Without production this never runs.

Every constant is in one frozen :class:`~.tuning.Tuning`. The strategy never
touches the garbage collector: a caller building answers for a million
partitions may pause it around the call (the service does).

With the same input as last time (members own what balanced gave, same lags)
the sticky answer is last time's answer and nothing moves.

Example (the seed's weakness): members a and b, topics t0 .. t9 each with two
partitions of lags 100 and 1. ``lag-aware`` gives a the 100 of every topic:
1,000 against 10. Balanced deals the ten rounds in topic order (all lead with
100), the 100 to the lighter member and the 1 to the other:

    t0: a <- 100, b <- 1      a = 100, b = 1
    t1: b <- 100, a <- 1      a = 101, b = 101
    t2: a <- 100, b <- 1      ...
    t9: b <- 100, a <- 1      a = 505, b = 505

a holds partition 0 of t0, t2, t4, t6, t8 and partition 1 of the others.
"""

from __future__ import annotations

from lagassign.core.model import Assignment, AssignmentResult, Rebalance
from lagassign.core.strategies.balanced.stages import STAGES, Attempt, Stage, run_stages
from lagassign.core.strategies.balanced.tuning import TUNING, Tuning

__all__ = ["STAGES", "TUNING", "Stage", "Tuning", "assign", "settle"]


def settle(rebalance: Rebalance, tuning: Tuning = TUNING) -> AssignmentResult:
    """The balanced answer (every member listed, lists sorted) and the stage that settled it."""
    attempt = Attempt(rebalance, tuning)
    settled_by = run_stages(attempt)
    return AssignmentResult(flat=attempt.answer().flat(), settled_by=settled_by)


def assign(rebalance: Rebalance, tuning: Tuning = TUNING) -> Assignment:
    """The balanced assignment of ``rebalance`` (every member listed, lists sorted)."""
    return settle(rebalance, tuning).assignment
