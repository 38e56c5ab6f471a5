"""The Java programs of the plugin's tests (``JavaMember.java``, ``JmxRead.java``), compiled
once per process with ``javac``: each run then starts the class instead of having the
source launcher compile it again (seconds of a loaded machine's CPU every time)."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path


@functools.cache
def compiled(source: Path, classpath: str = "") -> str:
    """The classpath that runs ``source``'s class: its compiled class first, then ``classpath``."""
    classes = Path(tempfile.mkdtemp(prefix=f"lagassign-{source.stem}-"))
    atexit.register(shutil.rmtree, classes, ignore_errors=True)
    subprocess.run(
        ["javac", *(["-cp", classpath] if classpath else []), "-d", str(classes), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return os.pathsep.join(p for p in (str(classes), classpath) if p)


def java_command(source: Path, classpath: str = "") -> list[str]:
    """``java`` running ``source``'s class (named as its file) as a short-lived program: the
    quick compiler alone, one GC thread."""
    return [
        "java",
        "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC",
        "-cp",
        compiled(source, classpath),
        source.stem,
    ]
