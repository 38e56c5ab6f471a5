"""The lag view's Kafka wire I/O: every read and write it makes through aiokafka.

- :mod:`.clients`: the admin client, and the reads made through it;
- :mod:`.groups`: the group list, one group's description and committed offsets;
- :mod:`.offsets`: log start and end offsets of topics, once per refresh;
- the Kafka protocol messages the view sends itself, one module per request kind:
  :mod:`.group_requests` (``ListGroups``, ``DescribeGroups``, ``OffsetFetch``),
  :mod:`.consumer_group_describe` (KIP-848), :mod:`.metadata` (topics, topic ids),
  :mod:`.list_offsets` (log start, high watermark, last stable offset), over
  :mod:`.wire` (hand-written decoders, requests of one version);
- :mod:`.record_times`: the timestamp of the first record a group has not consumed;
- :mod:`.nudge`: making the broker recompute a consumer-protocol group's assignment.

The rest of :mod:`lagassign.lagview` (the lag rules, the snapshots, the store and the
refresh loop) reads Kafka only through these modules.
"""
