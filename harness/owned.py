"""A child process that ends with the process that started it, however that one ends.

:func:`owned_by_this_process` starts a small watcher (``python -m harness.owned``)
that holds pidfds of this process and of the child, opened here (the child is not
reaped yet, so its pid cannot have been reused), and waits on both with no polling:
if this process ends first (a test run killed by a timeout, say), the child gets
SIGTERM; if the child ends first, the watcher ends too. The test sidecars use it, so
a killed run leaves no ``lagassign serve`` behind (the brokers have the same through
``kafka start --stop-with``).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def owned_by_this_process(child: subprocess.Popen[bytes]) -> None:
    """Start the watcher that sends ``child`` SIGTERM when this process ends."""
    owner_fd, child_fd = os.pidfd_open(os.getpid()), os.pidfd_open(child.pid)
    try:
        # The watcher forks and its first process ends at once: the watcher is not a
        # child of this process, which has nothing to wait for.
        subprocess.run(
            [sys.executable, "-m", "harness.owned", str(owner_fd), str(child_fd)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            pass_fds=(owner_fd, child_fd),
            cwd=REPO,
            check=True,
            timeout=30,
        )
    finally:
        os.close(owner_fd)
        os.close(child_fd)


def watch(owner_fd: int, child_fd: int) -> None:
    """Wait for either to end; if the owner ended first, SIGTERM the child."""
    ended, _, _ = select.select([owner_fd, child_fd], [], [])
    if child_fd not in ended:
        signal.pidfd_send_signal(child_fd, signal.SIGTERM)


if __name__ == "__main__":
    if os.fork() == 0:
        watch(int(sys.argv[1]), int(sys.argv[2]))
