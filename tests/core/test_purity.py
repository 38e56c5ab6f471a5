"""The core imports without FastAPI, aiokafka, HTTP, metrics, asyncio or pyspark."""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN = (
    "fastapi",
    "starlette",
    "aiokafka",
    "httpx",
    "prometheus_client",
    "pyspark",
    "asyncio",
    "pydantic",
)

PROBE = f"""
import importlib.abc, sys
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {FORBIDDEN!r}:
            raise ImportError("the core must not import " + name)
        return None
sys.meta_path.insert(0, Refuse())
import lagassign.core, lagassign.core.strategies, lagassign.core.stats, lagassign.core.validity
print("pure")
"""


def test_the_core_imports_with_io_libraries_refused() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "pure"
