"""An aiokafka consumer with the shim as a user installs it: run by the clean-install test.

``python installed_consumer.py BOOTSTRAP GROUP TOPIC URL RECORDS``: consumes until it
has seen RECORDS records (at most 90 s), then prints one JSON line: where
``lagassign_client`` was imported from, the leader's note on its assignment, its
answers and fallbacks, and how many records it consumed. It imports nothing from
the repository.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

from aiokafka import AIOKafkaConsumer  # type: ignore[import-untyped]

import lagassign_client
from lagassign_client import LagAssignor

DEADLINE_S = 90.0


async def main() -> None:
    bootstrap, group, topic, url, records = sys.argv[1:6]
    assignor = LagAssignor(url=url, group_id=group, reset_policy="earliest")
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=group,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        partition_assignment_strategy=(assignor,),
    )
    await consumer.start()
    seen = 0
    try:
        deadline = time.monotonic() + DEADLINE_S
        while seen < int(records) and time.monotonic() < deadline:
            batch = await consumer.getmany(timeout_ms=500)
            seen += sum(len(rs) for rs in batch.values())
    finally:
        await consumer.stop()
        assignor.close()
    note = assignor.assigned_by
    print(
        json.dumps(
            {
                "module": lagassign_client.__file__,
                "note": None
                if note is None
                else {"by": note.by, "strategy": note.strategy, "reason": note.reason},
                "answers": assignor.answers,
                "fallbacks": assignor.fallbacks,
                "consumed": seen,
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
