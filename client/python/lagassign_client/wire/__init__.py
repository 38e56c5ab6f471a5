"""What crosses a wire: the sidecar's ``POST /assign`` and the members' user data in Kafka.

- :mod:`~lagassign_client.wire.group`: the group as the leader sees it, and the request it makes;
- :mod:`~lagassign_client.wire.sidecar`: the HTTP call (``httpx_log`` keeps httpx's own log quiet);
- :mod:`~lagassign_client.wire.answer`: the ``packed`` answer read and checked (with
  :mod:`~lagassign_client.wire.answer_arrays`, NumPy's optional step);
- :mod:`~lagassign_client.wire.codec`: the JSON codec and the garbage collector's pause;
- :mod:`~lagassign_client.wire.userdata`: the subscription and assignment user data members
  exchange through Kafka's group protocol.
"""
