"""``lagassign serve`` settles the garbage collector once the sidecar is built, and
hands the interpreter to a waiting thread sooner than Python's default.

Checked in a process of its own, since the settings are the whole interpreter's.
"""

from __future__ import annotations

from harness.python import run_python

SETTLED = """
import gc
from lagassign.serve import GC_THRESHOLDS, settle_collector

before = gc.get_freeze_count()
kept = [object()]  # made at start-up: frozen by the settle, never walked again
settle_collector()
assert gc.get_threshold() == GC_THRESHOLDS, gc.get_threshold()
assert gc.get_freeze_count() > before, (before, gc.get_freeze_count())
assert not any(o is kept for o in gc.get_objects()), "a start-up object is still walked"
later = [object()]  # made after: collected as usual
assert any(o is later for o in gc.get_objects())
print("settled")
"""


def test_start_up_objects_are_frozen_and_full_collections_made_rare() -> None:
    run = run_python("-c", SETTLED)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "settled"


SHARED = """
import sys
from lagassign.serve import SWITCH_INTERVAL_S, share_interpreter

assert sys.getswitchinterval() == 0.005, sys.getswitchinterval()
share_interpreter()
assert sys.getswitchinterval() == SWITCH_INTERVAL_S < 0.005, sys.getswitchinterval()
print("shared")
"""


def test_a_waiting_thread_gets_the_interpreter_sooner_than_by_default() -> None:
    run = run_python("-c", SHARED)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "shared"
