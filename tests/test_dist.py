"""``make dist-python``'s wheels install with pip in a fresh venv without any compiler.

The sidecar's wheel is abi3 and manylinux with ``lagassign._native`` inside; the
shim's is pure Python. Both are installed from ``dist/`` (``--no-index``: nothing is
downloaded, nothing built) by a venv whose ``PATH`` has no cargo, rustc or cc and
whose ``CC`` is a command that fails: any build would fail. The installed extension
then answers a call, from the fresh venv's own files. The dependencies (FastAPI,
NumPy, ...) come from the project's venv on ``PYTHONPATH``, which holds no lagassign
of its own (an editable install is a path hook those directories do not run).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist"

pytestmark = pytest.mark.dist


def wheel(pattern: str) -> Path:
    found = sorted(DIST.glob(pattern))
    assert found, f"no {pattern} in {DIST}: `make dist-python` builds it"
    return found[-1]


def test_the_wheels_install_and_run_without_a_compiler(tmp_path: Path) -> None:
    sidecar = wheel("lagassign-[0-9]*-cp311-abi3-manylinux_*_x86_64.whl")
    shim = wheel("lagassign_client-*-py3-none-any.whl")
    fresh = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(fresh)
    python = fresh / "bin" / "python"
    bare_path = os.pathsep.join([str(fresh / "bin"), "/usr/bin", "/bin"])
    for tool in ("cargo", "rustc"):
        found = shutil.which(tool, path=bare_path)
        assert found is None, f"{tool} is on the bare PATH ({found}): the test would prove nothing"
    env = {
        "PATH": bare_path,
        "HOME": str(tmp_path),
        "CC": "/bin/false",
        "CXX": "/bin/false",
        "PIP_NO_INDEX": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    installed = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--only-binary=:all:",
            str(sidecar),
            str(shim),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert "Building" not in installed.stdout

    # The dependencies from the project's venv, after the fresh venv's own site-packages.
    project_site = sysconfig.get_paths()["purelib"]
    check = (
        "import sys, lagassign, lagassign._native as n, lagassign_client, lagassign.cli as cli;"
        "assert lagassign.__file__.startswith(sys.prefix), lagassign.__file__;"
        "assert n.__file__.startswith(sys.prefix), n.__file__;"
        "assert lagassign_client.__file__.startswith(sys.prefix), lagassign_client.__file__;"
        "print(sorted(name for name in dir(n) if not name.startswith('_'))[:3]);"
        "sys.exit(cli.main(['--version']))"
    )
    ran = subprocess.run(
        [str(python), "-c", check],
        env={**env, "PYTHONPATH": project_site},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.strip().endswith("lagassign 0.1.0")
