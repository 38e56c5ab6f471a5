"""The Java shim as a team gets it: ``make install-java`` into a Maven local repository
that starts empty, an application project built against that repository, and that
application run as real consumers.

The empty local repository takes Maven's own plugins and kafka-clients from the machine's
Maven cache through a ``file://`` mirror, so nothing is downloaded and the shim itself can
only come from what ``make install-java`` put there.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path
from typing import IO, Any

from tests.client.java_build import java_build_lock

REPO = Path(__file__).resolve().parents[2]
CONSUMER_PROJECT = Path(__file__).resolve().parent / "java_consumer"
MAVEN_CACHE = Path.home() / ".m2" / "repository"
BUILD_TIMEOUT_S = 600
STOP_TIMEOUT_S = 30.0


def mirror_settings(path: Path) -> Path:
    """A Maven settings file whose only repository is the machine's Maven cache."""
    path.write_text(
        "<settings><mirrors><mirror><id>machine-cache</id><mirrorOf>*</mirrorOf>"
        f"<url>{MAVEN_CACHE.as_uri()}</url></mirror></mirrors></settings>\n"
    )
    return path


def install_shim(local_repo: Path, settings: Path) -> None:
    """``make install-java`` into ``local_repo`` (builds dist/ first)."""
    with java_build_lock():
        subprocess.run(
            [
                "make",
                "-C",
                str(REPO),
                "install-java",
                f"MAVEN_REPO_LOCAL={local_repo}",
                f"MAVEN_FLAGS=-s {settings}",
            ],
            check=True,
            timeout=BUILD_TIMEOUT_S,
            capture_output=True,
        )


def build_consumer(workdir: Path, local_repo: Path, settings: Path) -> str:
    """Compile the example application against ``local_repo``; its runtime classpath."""
    project = workdir / "orders-consumer"
    shutil.copytree(CONSUMER_PROJECT, project, ignore=shutil.ignore_patterns("target"))
    classpath_file = project / "classpath.txt"
    subprocess.run(
        [
            "mvn",
            "-q",
            "-B",
            "-s",
            str(settings),
            f"-Dmaven.repo.local={local_repo}",
            "-f",
            str(project / "pom.xml"),
            "compile",
            "dependency:build-classpath",
            f"-Dmdep.outputFile={classpath_file}",
            "-Dmdep.includeScope=runtime",
        ],
        check=True,
        timeout=BUILD_TIMEOUT_S,
        capture_output=True,
    )
    return ":".join([str(project / "target" / "classes"), classpath_file.read_text().strip()])


class InstalledConsumer:
    """``example.OrdersConsumer`` in its own JVM: its JSON lines, its log, stopped by stdin."""

    def __init__(
        self,
        classpath: str,
        bootstrap: str,
        group: str,
        topics: list[str],
        url: str,
        client_id: str,
        auto_offset_reset: str,
        log_path: Path,
        strategies: str = "io.lagassign.LagAssignor",
    ) -> None:
        self.client_id = client_id
        self.log_path = log_path
        self._log: IO[bytes] = log_path.open("wb")
        self._process = subprocess.Popen(
            [
                "java",
                "-Xmx256m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-Dorg.slf4j.simpleLogger.log.io.lagassign=info",
                "-cp",
                classpath,
                "example.OrdersConsumer",
                bootstrap,
                group,
                ",".join(topics),
                url,
                client_id,
                auto_offset_reset,
                strategies,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
        )
        self._lock = threading.Lock()
        self._events: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, name=f"read-{client_id}", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._process.stdout is not None
        for raw in self._process.stdout:
            event = json.loads(raw)
            with self._lock:
                self._events.append(event)

    def events(self, kind: str) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self._events if e["event"] == kind]

    def last_assigned(self) -> dict[str, Any] | None:
        assigned = self.events("assigned")
        return assigned[-1] if assigned else None

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        process = self._process
        if process.poll() is None and process.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                process.stdin.write(b"stop\n")
                process.stdin.close()
            try:
                process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                process.wait(STOP_TIMEOUT_S)
        self._reader.join(STOP_TIMEOUT_S)
        if process.stdout is not None:
            process.stdout.close()
        self._log.close()
