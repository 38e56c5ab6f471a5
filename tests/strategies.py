"""Hypothesis strategies for the project's domain values (seeded profile in conftest)."""

from __future__ import annotations

from hypothesis import strategies as st

from lagassign.core.model import Member, Protocol, Rebalance, make_rebalance


@st.composite
def rebalances(
    draw: st.DrawFn,
    max_members: int = 8,
    max_topics: int = 5,
    max_partitions: int = 12,
    max_lag: int = 1_000,
    identical: bool | None = None,
    with_owned: bool = True,
    protocol: Protocol = "eager",
) -> Rebalance:
    """A consistent rebalance: subscriptions, counts, lags, static ids and owned partitions.

    ``identical`` forces identical (True) or independent (False) subscriptions;
    None lets Hypothesis choose. Owned partitions never overlap between members.
    """
    n_topics = draw(st.integers(1, max_topics))
    topics = [f"t{i}" for i in range(n_topics)]
    partitions = {t: draw(st.integers(0, max_partitions)) for t in topics}
    lags = {
        t: draw(st.lists(st.integers(0, max_lag), min_size=n, max_size=n))
        for t, n in partitions.items()
    }
    n_members = draw(st.integers(1, max_members))
    same = draw(st.booleans()) if identical is None else identical
    shared = draw(st.lists(st.sampled_from(topics), min_size=1, unique=True))
    members: list[Member] = []
    free = {(t, p) for t, n in partitions.items() for p in range(n)}
    for i in range(n_members):
        subscribed = (
            shared if same else draw(st.lists(st.sampled_from(topics), min_size=1, unique=True))
        )
        static = draw(st.booleans())
        owned: dict[str, tuple[int, ...]] = {}
        if with_owned:
            mine = draw(
                st.lists(
                    st.sampled_from(sorted(free)) if free else st.nothing(),
                    max_size=4 if free else 0,
                    unique=True,
                )
            )
            for t, p in mine:
                free.discard((t, p))
                owned[t] = (*owned.get(t, ()), p)
        members.append(
            Member(
                member_id=f"m{i:02d}-{draw(st.integers(0, 99)):02d}",
                topics=tuple(subscribed),
                group_instance_id=f"i{draw(st.integers(0, 9))}-{i}" if static else None,
                owned=owned,
                generation=draw(st.integers(1, 5)) if owned else None,
            )
        )
    return make_rebalance(members, partitions, lags, protocol=protocol)


@st.composite
def plain_groups(
    draw: st.DrawFn, max_members: int, max_topics: int, min_partitions: int, max_partitions: int
) -> Rebalance:
    """A group whose members all subscribe to every topic and own nothing (lags 0..99)."""
    counts = {
        f"t{t}": draw(st.integers(min_partitions, max_partitions))
        for t in range(draw(st.integers(1, max_topics)))
    }
    lags = {
        t: draw(st.lists(st.integers(0, 99), min_size=n, max_size=n)) for t, n in counts.items()
    }
    members = [Member(f"m{m}", tuple(counts)) for m in range(draw(st.integers(1, max_members)))]
    return make_rebalance(members, counts, lags)
