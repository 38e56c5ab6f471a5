"""The shim's settings and what it shows the application, shared by every client library.

:class:`ShimAssignor` holds one consumer's :class:`~lagassign_client.assignor.member.MemberState`
and :class:`~lagassign_client.assignor.leader.GroupLeader`; the library adapters
(:mod:`lagassign_client.assignor.aiokafka`, :mod:`lagassign_client.kafka_python`)
only translate between it and their library's types.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Required, TypedDict, TypeVar

import httpx

from lagassign_client.advice.leadership import Leadership
from lagassign_client.assignor.leader import Decision, GroupLeader
from lagassign_client.assignor.member import MemberState
from lagassign_client.wire.sidecar import Sidecar
from lagassign_client.wire.userdata import AssignmentUserData

PROTOCOL_NAME = "lagassign"
DEFAULT_TIMEOUT_S = 1.5
STRATEGIES = ("range", "roundrobin", "lag-aware", "fair", "sticky", "balanced")
RESET_POLICIES = ("earliest", "latest", "none")

_Shim = TypeVar("_Shim", bound="ShimAssignor")


class ShimOptions(TypedDict, total=False):
    """The keyword settings of :class:`ShimAssignor`, for the adapters that pass them on."""

    group_id: Required[str]
    timeout_s: float
    strategy: str | None
    reset_policy: str | None
    token: str | None
    instance_id: str | None
    rack: str | None
    pause_gc: bool
    transport: httpx.BaseTransport | None


def consumer_options(consumer_settings: Mapping[str, Any]) -> dict[str, Any]:
    """The shim's arguments that repeat a consumer's own settings (aiokafka's and
    kafka-python's keyword arguments have the same names): ``group_id``,
    ``auto_offset_reset`` (as ``reset_policy``), ``group_instance_id`` (as
    ``instance_id``) and ``client_rack`` (as ``rack``)."""
    group_id = consumer_settings.get("group_id")
    if not isinstance(group_id, str) or not group_id:
        raise ValueError("the consumer settings have no group_id")
    reset = consumer_settings.get("auto_offset_reset", "latest")
    # kafka-python also reads "smallest" and "largest" as the old names.
    reset = {"smallest": "earliest", "largest": "latest"}.get(reset, reset)
    return {
        "group_id": group_id,
        "reset_policy": reset,
        "instance_id": consumer_settings.get("group_instance_id") or None,
        "rack": consumer_settings.get("client_rack") or None,
    }


class ShimAssignor:
    """Settings checked once, at construction; never during a rebalance.

    - ``url``: the sidecar's base URL, e.g. ``http://127.0.0.1:8321``.
    - ``group_id``: the consumer's ``group_id`` (the assignor is not told it).
    - ``timeout_s``: the hard total deadline of the sidecar call (well under the
      session timeout); on expiry the rebalance uses the range assignor.
    - ``strategy``: one of :data:`STRATEGIES`, or None for the sidecar's default.
    - ``reset_policy``: the consumer's ``auto_offset_reset`` (one of
      :data:`RESET_POLICIES`), sent with each request so the sidecar counts the lag
      of partitions without a committed offset the way this consumer will read
      them; None leaves it to the sidecar's ``RESET_POLICY`` setting.
    - ``token``: bearer token, when the sidecar requires one.
    - ``instance_id``, ``rack``: this consumer's ``group_instance_id`` and
      ``client_rack``, sent in the subscription user data.
    - ``pause_gc``: pause CPython's cyclic garbage collector while the leader builds
      the request and reads the answer (:func:`lagassign_client.wire.codec.paused_gc`). Off
      by default: the collector is the application's. It pays only for groups of
      hundreds of thousands of partitions (see the README's figures).
    - ``transport``: replaces the network (``httpx.MockTransport`` in tests).

    :meth:`for_consumer` takes ``group_id``, the reset policy, the instance id and
    the rack from the consumer's own settings instead.
    """

    name = PROTOCOL_NAME

    def __init__(
        self,
        url: str,
        *,
        group_id: str,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        strategy: str | None = None,
        reset_policy: str | None = None,
        token: str | None = None,
        instance_id: str | None = None,
        rack: str | None = None,
        pause_gc: bool = False,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not group_id:
            raise ValueError("group_id must name the consumer group")
        if strategy is not None and strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}; got {strategy!r}")
        if reset_policy is not None and reset_policy not in RESET_POLICIES:
            raise ValueError(
                f"reset_policy must be one of {', '.join(RESET_POLICIES)} (the consumer's"
                f" auto_offset_reset); got {reset_policy!r}"
            )
        sidecar = Sidecar(url, timeout_s=timeout_s, token=token, transport=transport)
        self.leader = GroupLeader(sidecar, group_id, strategy, reset_policy, pause_gc=pause_gc)
        self.member = MemberState(instance_id=instance_id, rack=rack)
        #: Whether this member led the last rebalance (read by the rebalance advisor).
        self.leadership = Leadership()

    @classmethod
    def for_consumer(
        cls: type[_Shim], url: str, consumer_settings: Mapping[str, Any], **options: Any
    ) -> _Shim:
        """An assignor for the consumer built with ``consumer_settings`` (its keyword
        arguments): ``group_id``, ``auto_offset_reset`` (as ``reset_policy``),
        ``group_instance_id`` and ``client_rack`` come from them; ``options`` are the
        other arguments (``timeout_s``, ``strategy``, ``token``, ...)::

            settings = {"group_id": "orders", "auto_offset_reset": "earliest"}
            assignor = LagAssignor.for_consumer("http://127.0.0.1:8321", settings)
            consumer = AIOKafkaConsumer(
                "orders", partition_assignment_strategy=(assignor,), **settings
            )
        """
        return cls(url, **consumer_options(consumer_settings), **options)

    @property
    def fallbacks(self) -> dict[str, int]:
        """Rebalances this consumer led on the range fallback, by reason."""
        return self.leader.fallbacks

    @property
    def answers(self) -> int:
        """Rebalances this consumer led on the sidecar's answer."""
        return self.leader.answers

    @property
    def blind_answers(self) -> dict[str, int]:
        """Rebalances led on an answer made without (all of) the lag, by reason:
        ``lag_blind`` (no lag at all) and ``lag_partial`` (some partitions' lag assumed)."""
        return self.leader.blind_answers

    @property
    def dropped_assignments(self) -> int:
        """Leader assignments the client library did not apply (kafka-python only)."""
        return 0

    @property
    def last_decision(self) -> Decision | None:
        """The last rebalance this consumer led: by whom, why, how long it took."""
        return self.leader.last_decision

    @property
    def assigned_by(self) -> AssignmentUserData | None:
        """The leader's note on this consumer's current assignment."""
        return self.member.assigned_by

    def close(self) -> None:
        """Release the HTTP connections now; call after the consumer has stopped.

        Optional: an assignor that is dropped closes its connection with it.
        """
        self.leader.sidecar.close()
