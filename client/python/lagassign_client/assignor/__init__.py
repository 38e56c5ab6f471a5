"""The assignor: what runs inside the consumer's client library during a rebalance.

- :mod:`~lagassign_client.assignor.shim`: the assignor both client libraries share (its
  settings, the group leader, each member's state, the decisions it counts);
- :mod:`~lagassign_client.assignor.aiokafka`: the adapter for aiokafka
  (:class:`lagassign_client.LagAssignor`); kafka-python's is
  :mod:`lagassign_client.kafka_python`, helped by ``kafka_python_loop`` and ``kafka_python_poll``;
- :mod:`~lagassign_client.assignor.leader`: the group leader's call to the sidecar and its
  fallback to the library's own range assignor;
- :mod:`~lagassign_client.assignor.member`, ``dropped_assignment``, ``assignment_digest``:
  what a member remembers between rebalances.
"""
