"""Reading the sidecar's answer and checking it against the leader's own metadata.

An answer is used only when every member the leader asked about is present,
every partition of every subscribed topic is given exactly once, only to a
member subscribed to its topic, and nothing unknown appears. The rebalance is
eager, so nothing may be withheld in ``revoked``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from lagassign_client.errors import LAG_BLIND, LAG_PARTIAL, InvalidAnswer, MalformedAnswer
from lagassign_client.group import Assignment, GroupView


@dataclass(frozen=True, slots=True)
class AnswerLag:
    """What the answer says of the lag it balanced: where from, and how much was known.

    ``source`` is ``request``, ``kafka``, ``forecast`` or ``none`` (no lag at all);
    ``None`` when the answer does not say.
    """

    source: str | None
    complete: bool
    unknown_partitions: int
    max_lag: int | None = None
    mean_lag: float | None = None

    def blindness(self) -> str | None:
        """Why the answer was lag-blind (``lag_blind``) or partly (``lag_partial``), or None."""
        if self.source is None or self.source == "none":
            return LAG_BLIND
        if not self.complete or self.unknown_partitions > 0:
            return LAG_PARTIAL
        return None

    def describe(self) -> str:
        if self.source is None:
            return "the answer does not say which lag it balanced"
        if self.source == "none":
            return "the sidecar saw no lag for the group (lag.source=none)"
        return (
            f"the sidecar assumed the lag of {self.unknown_partitions} partition(s)"
            f" (lag.source={self.source}, lag.complete={str(self.complete).lower()})"
        )


@dataclass(frozen=True, slots=True)
class SidecarAnswer:
    """A checked answer: every subscriber listed, partition lists sorted."""

    assignment: Assignment
    strategy: str | None
    lag: AnswerLag = AnswerLag(source=None, complete=False, unknown_partitions=0)


def _partition_lists(value: object, where: str) -> dict[str, list[int]]:
    if not isinstance(value, dict):
        raise MalformedAnswer(f"{where} is not an object")
    out: dict[str, list[int]] = {}
    for topic, partitions in value.items():
        if not isinstance(partitions, list) or not all(
            isinstance(p, int) and not isinstance(p, bool) for p in partitions
        ):
            raise MalformedAnswer(f"{where}[{topic!r}] is not a list of partition ids")
        out[topic] = partitions
    return out


def _shape(raw: bytes) -> tuple[dict[str, dict[str, list[int]]], dict[str, Any]]:
    try:
        body = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise MalformedAnswer(f"the answer is not JSON: {exc}") from None
    if not isinstance(body, dict) or not isinstance(body.get("assignment"), dict):
        raise MalformedAnswer("the answer has no 'assignment' object")
    assignment = {
        member_id: _partition_lists(topics, f"assignment[{member_id!r}]")
        for member_id, topics in body["assignment"].items()
    }
    return assignment, body


def _withheld(body: dict[str, Any]) -> bool:
    """Whether the answer holds back any partition in ``revoked``."""
    revoked = body.get("revoked")
    if revoked is None:
        return False
    if not isinstance(revoked, dict):
        raise MalformedAnswer("'revoked' is not an object")
    return any(
        partitions
        for member_id, topics in revoked.items()
        for partitions in _partition_lists(topics, f"revoked[{member_id!r}]").values()
    )


def read_answer(raw: bytes, view: GroupView) -> SidecarAnswer:
    """Parse and check one answer for ``view``.

    Raises :class:`MalformedAnswer` when it is not the answer's JSON shape and
    :class:`InvalidAnswer` when it breaks the rules above.
    """
    given, body = _shape(raw)
    if _withheld(body):
        raise InvalidAnswer("the answer withholds partitions in 'revoked' in an eager rebalance")
    topics_of = {m: ts for m, ts in view.member_topics().items() if ts}
    for member_id in sorted(topics_of):
        if member_id not in given:
            raise InvalidAnswer(f"member {member_id!r} is missing from the answer")
    owner: dict[tuple[str, int], str] = {}
    for member_id, topics in given.items():
        if member_id not in topics_of:
            raise InvalidAnswer(f"the answer names unknown member {member_id!r}")
        for topic, partitions in topics.items():
            if not partitions:
                continue
            count = view.partitions.get(topic)
            if count is None:
                raise InvalidAnswer(f"the answer gives unknown topic {topic!r} to {member_id!r}")
            if topic not in topics_of[member_id]:
                raise InvalidAnswer(f"the answer gives {topic!r} to {member_id!r}, not subscribed")
            for p in partitions:
                if not 0 <= p < count:
                    raise InvalidAnswer(f"the answer gives unknown partition {topic}-{p}")
                if (topic, p) in owner:
                    raise InvalidAnswer(
                        f"the answer gives {topic}-{p} to both {owner[(topic, p)]!r}"
                        f" and {member_id!r}"
                    )
                owner[(topic, p)] = member_id
    subscribed = {t for ts in topics_of.values() for t in ts}
    for topic in sorted(subscribed):
        missing = [p for p in range(view.partitions[topic]) if (topic, p) not in owner]
        if missing:
            raise InvalidAnswer(f"the answer leaves {topic} partitions {missing[:10]} unassigned")
    assignment: Assignment = {s.member_id: {} for s in view.subscribers}
    for member_id, topics in given.items():
        assignment[member_id] = {t: sorted(ps) for t, ps in sorted(topics.items()) if ps}
    strategy = body.get("strategy")
    return SidecarAnswer(
        assignment=assignment,
        strategy=strategy if isinstance(strategy, str) else None,
        lag=_lag(body),
    )


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _lag(body: dict[str, Any]) -> AnswerLag:
    """The answer's ``lag`` and ``stats`` as far as they have the contract's shape."""
    lag = body.get("lag")
    stats = body.get("stats")
    stats = stats if isinstance(stats, dict) else {}
    max_lag = _number(stats.get("max_lag"))
    mean_lag = _number(stats.get("mean_lag"))
    worst = None if max_lag is None else int(max_lag)
    if not isinstance(lag, dict) or not isinstance(lag.get("source"), str):
        return AnswerLag(
            None, complete=False, unknown_partitions=0, max_lag=worst, mean_lag=mean_lag
        )
    unknown = _number(lag.get("unknown_partitions"))
    return AnswerLag(
        source=lag["source"],
        complete=lag.get("complete") is True,
        unknown_partitions=0 if unknown is None else int(unknown),
        max_lag=worst,
        mean_lag=mean_lag,
    )
