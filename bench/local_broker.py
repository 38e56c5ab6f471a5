"""The broker a benchmark runs on: the one given, or a local one started for the run."""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

KAFKA_SCRIPT = Path(__file__).resolve().parents[1] / "deploy" / "local-kafka" / "kafka"


@contextmanager
def local_broker(bootstrap: str | None, prefix: str = "lagassign-bench-") -> Iterator[str]:
    """Yield ``bootstrap`` if given, else start a broker in a temporary directory and stop it."""
    if bootstrap:
        yield bootstrap
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as directory:
        command = [str(KAFKA_SCRIPT), "start", "--port", "0", "--dir", directory]
        subprocess.run(command, check=True, timeout=300, capture_output=True)
        state = json.loads((Path(directory) / "broker.json").read_text())
        try:
            yield str(state["bootstrap"])
        finally:
            subprocess.run(
                [str(KAFKA_SCRIPT), "stop", "--dir", directory],
                check=False,
                timeout=120,
                capture_output=True,
            )
