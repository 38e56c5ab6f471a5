"""This interpreter in a process of its own: ``lagassign``'s command line, or a script."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping


def run_python(
    *args: str,
    input: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout_s: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``python *args`` with the running interpreter, ``input`` on its stdin, its output
    captured as text; the caller reads its exit code (a failing run raises nothing)."""
    return subprocess.run(
        [sys.executable, *args],
        input=input,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )
