"""What the two demos share on the command line: the broker and work directories they
take, the logs they keep quiet, the broker they run on, and how they speak."""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from harness.broker import REPO, LocalKafka, stop_broker


def say(text: str = "") -> None:
    print(text, flush=True)


def arguments(
    prog: str, description: str, work_dir: Path, work_help: str
) -> argparse.ArgumentParser:
    """The parser with the demos' two directories: the broker's and the demo's own."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument(
        "--kafka-dir", type=Path, default=REPO / "var" / "kafka", help="broker directory"
    )
    parser.add_argument("--work-dir", type=Path, default=work_dir, help=work_help)
    return parser


def quiet_logs(level: int) -> None:
    """The members rebalance on purpose: aiokafka's notes about it are noise here."""
    logging.basicConfig(level=level, format="%(name)s: %(message)s")
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)


def run_on(broker: LocalKafka, demo: Callable[[], Coroutine[Any, Any, None]]) -> int:
    """Run ``demo``, then stop the broker if the demo started it."""
    try:
        asyncio.run(demo())
    finally:
        stop_broker(broker)
    return 0
