"""The project's harness: what tests, benchmarks and the demo need around the product.

Not shipped (the installed packages are ``lagassign``, ``lagassign_pipeline`` and
``lagassign_client``); imported from the repository root:

- :mod:`harness.broker`: the local Kafka broker (``deploy/local-kafka/kafka``);
- :mod:`harness.sidecar`: a ``lagassign serve`` process on a free port;
- :mod:`harness.builders`: topics, records, commits and members on a real broker;
- :mod:`harness.poll`: ``eventually``, the one bounded poll;
- :mod:`harness.python`: this interpreter in a process of its own.
"""
