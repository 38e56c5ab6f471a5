"""The Java shim's classes and test classes, built by Maven, and the classpath to run them."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
JAVA_PROJECT = REPO / "client" / "java"
CLASSPATH_FILE = JAVA_PROJECT / "target" / "test-classpath.txt"
BUILD_TIMEOUT_S = 600


def java_member_classpath() -> str:
    """Compile the shim and its test programs; the classpath of ``io.lagassign.GroupMember``."""
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
