"""``harness.owned``: a test's child process ends with the process that started it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from harness.owned import REPO
from harness.poll import eventually

OWNER = """
import subprocess, sys, time
from harness.owned import owned_by_this_process
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
owned_by_this_process(child)
print(child.pid, flush=True)
time.sleep(600)
"""


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_child_gets_sigterm_when_its_owner_is_killed() -> None:
    with subprocess.Popen(
        [sys.executable, "-c", OWNER], stdout=subprocess.PIPE, text=True, cwd=REPO
    ) as owner:
        child = 0
        try:
            assert owner.stdout is not None
            child = int(owner.stdout.readline())
            assert not gone(child)
            owner.send_signal(signal.SIGKILL)
            owner.wait(timeout=30)
            eventually(lambda: gone(child), 30, "the owned child ends with its owner")
        finally:
            owner.kill()
            if child and not gone(child):
                os.kill(child, signal.SIGKILL)
