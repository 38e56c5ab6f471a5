"""A franz-go consumer with the Go shim (``groupmember``) in a process of its own, with
the interface of the Java and Python test members of ``tests/client/members.py``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from tests.client.members import STOP_TIMEOUT_S, Partition, Record


class GoMember:
    """``groupmember`` reporting JSON lines on stdout; stopped through stdin, else by its pid."""

    def __init__(
        self,
        program: Path,
        name: str,
        bootstrap: str,
        group: str,
        topics: Sequence[str],
        url: str,
        timeout_s: float,
        log_dir: Path,
        cooperative: bool = False,
    ) -> None:
        self.name = name
        self._command = [
            str(program),
            bootstrap,
            group,
            ",".join(topics),
            url,
            str(round(timeout_s * 1000)),
            name,
            *(["cooperative"] if cooperative else []),
        ]
        self._log_path = log_dir / f"{name}.log"
        self._log: IO[bytes] | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._lock = threading.Lock()
        self._partitions: set[Partition] = set()
        self._consumed: set[Record] = set()
        self._revoked: Counter[Partition] = Counter()
        self._last: dict[str, Any] = {}

    async def start(self) -> None:
        self._log = self._log_path.open("wb")
        self._process = subprocess.Popen(
            self._command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log
        )
        self._reader = threading.Thread(target=self._read, name=f"read-{self.name}", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._process is not None
        assert self._process.stdout is not None
        for raw in self._process.stdout:
            event = json.loads(raw)
            with self._lock:
                if event["event"] == "assigned":
                    # The partitions added (cooperative: only the new ones).
                    self._partitions |= {(t, p) for t, p in event["partitions"]}
                    self._last = event
                elif event["event"] == "revoked":
                    revoked = {(t, p) for t, p in event["partitions"]}
                    self._partitions -= revoked
                    self._revoked.update(revoked)
                elif event["event"] == "consumed":
                    self._consumed.update((t, p, o) for t, p, o in event["records"])

    async def stop(self) -> None:
        process = self._process
        if process is None:
            return
        if process.poll() is None and process.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                process.stdin.write(b"stop\n")
                process.stdin.close()
            try:
                await asyncio.to_thread(process.wait, STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                await asyncio.to_thread(process.wait, STOP_TIMEOUT_S)
        if self._reader is not None:
            await asyncio.to_thread(self._reader.join, STOP_TIMEOUT_S)
        if process.stdout is not None:
            process.stdout.close()
        if self._log is not None:
            self._log.close()

    def partitions(self) -> set[Partition]:
        with self._lock:
            return set(self._partitions)

    def note(self) -> dict[str, Any] | None:
        with self._lock:
            note = self._last.get("note")
        return dict(note) if note else None

    def revoked(self) -> Counter[Partition]:
        """How often each partition was taken from it."""
        with self._lock:
            return Counter(self._revoked)

    def answers(self) -> int:
        """Rebalances it led on the sidecar's answer."""
        with self._lock:
            return int(self._last.get("answers") or 0)

    def consumed(self) -> set[Record]:
        with self._lock:
            return set(self._consumed)

    def fallbacks(self) -> dict[str, int]:
        with self._lock:
            return dict(self._last.get("fallbacks") or {})

    def decision_seconds(self) -> float | None:
        return None
