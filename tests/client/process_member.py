"""A member in a process of its own (the Java and Go members), behind the
:class:`~tests.client.member.Member` interface: it reports JSON lines on stdout and
stops on ``stop`` through stdin, else by its pid."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from tests.client.member import STOP_TIMEOUT_S, Partition, Record


class ProcessMember:
    """A member in a process of its own that reports JSON lines on stdout (one event a
    line) and stops on ``stop`` through stdin, else by its pid. A subclass keeps what it
    needs of each event in :meth:`_on_event`, called under the lock."""

    def __init__(self, name: str, command: Sequence[str], log_dir: Path) -> None:
        self.name = name
        self._command = list(command)
        self._log_path = log_dir / f"{name}.log"
        self._log: IO[bytes] | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._lock = threading.Lock()
        self._partitions: set[Partition] = set()
        self._consumed: set[Record] = set()
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
                if event["event"] == "consumed":
                    self._consumed.update((t, p, o) for t, p, o in event["records"])
                self._on_event(event)

    def _on_event(self, event: dict[str, Any]) -> None:
        raise NotImplementedError

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

    def consumed(self) -> set[Record]:
        with self._lock:
            return set(self._consumed)

    def fallbacks(self) -> dict[str, int]:
        with self._lock:
            return dict(self._last.get("fallbacks") or {})
