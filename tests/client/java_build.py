"""The Java shim's classes and test classes, built by Maven, and the classpath to run them.

Every build of ``client/java`` in the tests holds :func:`java_build_lock`: test processes
running side by side (pytest-xdist) never run two Maven builds in its ``target/`` at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
JAVA_PROJECT = REPO / "client" / "java"
CLASSPATH_FILE = JAVA_PROJECT / "target" / "test-classpath.txt"
BUILD_TIMEOUT_S = 600
LOCK_FILE = Path(tempfile.gettempdir()) / (
    "lagassign-java-build-" + hashlib.sha256(str(JAVA_PROJECT).encode()).hexdigest()[:12] + ".lock"
)


@contextlib.contextmanager
def java_build_lock() -> Iterator[None]:
    """Hold the lock of this checkout's ``client/java`` builds (released when the file closes)."""
    with LOCK_FILE.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def java_member_classpath() -> str:
    """Compile the shim and its test programs; the classpath of ``io.lagassign.GroupMember``."""
    with java_build_lock():
        subprocess.run(
            [
                "mvn",
                "-q",
                "-B",
                "-f",
                str(JAVA_PROJECT / "pom.xml"),
                "test-compile",
                "dependency:build-classpath",
                f"-Dmdep.outputFile={CLASSPATH_FILE}",
                "-Dmdep.includeScope=test",
            ],
            check=True,
            timeout=BUILD_TIMEOUT_S,
            capture_output=True,
        )
    dependencies = CLASSPATH_FILE.read_text().strip()
    target = JAVA_PROJECT / "target"
    return ":".join([str(target / "test-classes"), str(target / "classes"), dependencies])
