"""Every constant the balanced strategy tunes, in one frozen object.

The work budgets count *partitions looked at*, so they bound the time a stage
may take on a huge group whatever its shape; none of them is reached by groups
within the service's request limits except the largest.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Tuning:
    # the answer with owned partitions kept stands when its largest member lag is
    # within this factor of the fresh answer's (the one computed as if nobody owned anything)
    tolerance: float = 1.05
    # local moves: partitions looked at per call (the deal's costless moves)
    move_budget: int = 2_000_000
    # more, per partition of the group, when owned partitions may move (frugal, uneven, redeal)
    frugal_budget_per_partition: int = 16
    # local moves: the lightest members each step considers as partners
    partners: int = 24
    # work charged per topic a change looks at, beside its partitions
    topic_work: int = 4
    # rounds of evening out any two members when the most loaded cannot be helped
    evening_rounds: int = 3
    # work each evening round may take at most
    evening_work: int = 200_000
    # stop when the last ``stall_steps`` changes together gained under ``stall_gain`` of the lag
    stall_steps: int = 32
    stall_gain: float = 1e-3
    # exact re-split of two members: at most this many partitions between them ...
    split_max_partitions: int = 14
    # ... at most this many re-splits tried ...
    split_max_tries: int = 20_000
    # ... and this much work charged per partner tried
    split_work: int = 2_000
    # count targets: work the search for count-evening chains may take
    chain_search_work: int = 5_000_000
    # racks: a swap onto a replica's rack may raise the largest member lag by this share
    rack_slack: float = 0.01
    # racks: partners looked at per rack, nearest lag first
    rack_partners: int = 16
    # re-deal: growing shares of the heaviest partitions taken back and dealt again
    redeal_shares: tuple[float, ...] = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5)

    def frugal_budget(self, partitions: int) -> int:
        """The work budget of local moves that may move owned partitions."""
        return self.move_budget + self.frugal_budget_per_partition * partitions


TUNING = Tuning()
