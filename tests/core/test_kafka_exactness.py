"""``range`` and ``roundrobin`` give exactly the answers of Kafka's own Java assignors.

Several hundred seeded groups (identical and different subscriptions, static and dynamic
members, topics without partitions, more members than partitions, member ids that Java and
Python order differently) go to Kafka's RangeAssignor and RoundRobinAssignor in one JVM
(``tests/kafka_reference``, built by ``make harness``), and every answer must be equal.
"""

from __future__ import annotations

import random
import string
from pathlib import Path
from typing import Any

import pytest

from lagassign.core.model import Member, Rebalance, make_rebalance
from tests import kafka_reference
from tests.core.checking import assign_checked
from tests.kafka_reference import request_of, run_kafka_assignors

pytestmark = pytest.mark.java

ASSIGNORS = {"range": "range", "roundrobin": "roundrobin"}  # ours -> Kafka's
GROUPS = 300


def seeded_group(seed: int) -> Rebalance:
    """A random group drawn from ``seed``: sizes, subscriptions and identities vary."""
    rng = random.Random(seed)
    topics = [f"topic-{rng.choice(string.ascii_letters)}{i}" for i in range(rng.randint(1, 6))]
    partitions = {t: rng.choice([0, 1, 2, 3, 4, 7, 12, 31]) for t in topics}
    n_members = rng.choice([1, 2, 3, 5, 8, 13, 40])
    identical = rng.random() < 0.4
    static_share = rng.choice([0.0, 0.5, 1.0])
    members = []
    for i in range(n_members):
        subscribed = topics if identical else rng.sample(topics, rng.randint(1, len(topics)))
        instance = (
            f"instance-{rng.randrange(10**4):04d}-{i}" if rng.random() < static_share else None
        )
        member_id = f"consumer-{rng.randrange(10**6):06d}-{i}"
        members.append(Member(member_id, tuple(subscribed), group_instance_id=instance))
    return make_rebalance(members, partitions)


def static_membership_example() -> Rebalance:
    """RangeAssignor's javadoc: C0 and C1 came back as C3 and C2, with instance ids I0 and I1."""
    return make_rebalance(
        [
            Member("C3", ("t0", "t1"), group_instance_id="I0"),
            Member("C2", ("t0", "t1"), group_instance_id="I1"),
        ],
        {"t0": 3, "t1": 3},
    )


def java_ordered_group() -> Rebalance:
    """Ids above U+FFFF: Java orders their surrogates before U+E000..U+FFFF, Python after."""
    return make_rebalance(
        [
            Member("\uff21-consumer", ("t0", "t1")),
            Member("\U0001f600-consumer", ("t0", "t1")),
            Member("plain", ("t0",), group_instance_id="\uff41"),
            Member("other", ("t0",), group_instance_id="\U0001f601"),
        ],
        {"t0": 7, "t1": 3},
    )


CASES: dict[str, Rebalance] = {
    "static-membership-example": static_membership_example(),
    "java-string-order": java_ordered_group(),
    **{f"seed-{seed}": seeded_group(seed) for seed in range(GROUPS)},
}


@pytest.fixture(scope="module")
def kafka_answers() -> dict[tuple[str, str], Any]:
    """Kafka's answer for every case and assignor, from one JVM."""
    keys = [(name, ours) for name in CASES for ours in ASSIGNORS]
    requests = [request_of(CASES[name], ASSIGNORS[ours]) for name, ours in keys]
    answers = run_kafka_assignors(requests)
    return {key: answer["assignment"] for key, answer in zip(keys, answers, strict=True)}


def test_the_range_static_membership_example_is_kafkas(
    kafka_answers: dict[tuple[str, str], Any],
) -> None:
    expected = {"C3": {"t0": [0, 1], "t1": [0, 1]}, "C2": {"t0": [2], "t1": [2]}}
    assert kafka_answers[("static-membership-example", "range")] == expected
    assert assign_checked("range", static_membership_example()).assignment == expected


@pytest.mark.parametrize("strategy", list(ASSIGNORS))
def test_member_ids_are_ordered_as_java_orders_them(
    strategy: str, kafka_answers: dict[tuple[str, str], Any]
) -> None:
    ours = assign_checked(strategy, java_ordered_group()).assignment
    assert ours == kafka_answers[("java-string-order", strategy)]


@pytest.mark.parametrize("strategy", list(ASSIGNORS))
def test_every_seeded_group_gets_kafkas_exact_answer(
    strategy: str, kafka_answers: dict[tuple[str, str], Any]
) -> None:
    shapes = {"identical": 0, "different": 0, "static": 0, "empty-topic": 0, "crowded": 0}
    for seed in range(GROUPS):
        rebalance = CASES[f"seed-{seed}"]
        ours = assign_checked(strategy, rebalance, reorderings=1).assignment
        assert ours == kafka_answers[(f"seed-{seed}", strategy)], f"seed {seed} differs"
        shapes["identical" if len({m.topics for m in rebalance.members}) == 1 else "different"] += 1
        shapes["static"] += any(m.group_instance_id for m in rebalance.members)
        shapes["empty-topic"] += 0 in rebalance.partitions.values()
        shapes["crowded"] += len(rebalance.members) > rebalance.partition_count()
    # the seeds cover every shape the generator is meant to draw
    assert min(shapes.values()) >= 20, shapes


def test_a_missing_harness_says_how_to_build_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(kafka_reference, "HARNESS", tmp_path)
    with pytest.raises(RuntimeError, match="make harness"):
        kafka_reference.reference_jar()


def test_a_request_the_harness_rejects_raises_with_its_reason() -> None:
    request = request_of(static_membership_example(), "sticky-but-not-kafkas")
    with pytest.raises(RuntimeError, match="unknown"):
        run_kafka_assignors([request])
