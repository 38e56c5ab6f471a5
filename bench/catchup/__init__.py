"""The catch-up benchmark: real consumers drain skewed backlogs under each assignor.

``python -m bench.catchup`` (:mod:`.cli`): the scenarios (:mod:`.scenarios`) and
their lower bounds, the members (:mod:`.members`), one run of one group
(:mod:`.run`), the broker's lag samples (:mod:`.sampler`), the figures of a run
(:mod:`.figures`) and its plot (:mod:`.plot`). docs/catchup.md says what it
measures and holds the results.
"""
