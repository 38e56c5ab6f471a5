"""The lag history is an optional extra: without pyarrow the sidecar serves, and
``lagassign serve`` refuses a ``LAGASSIGN_HISTORY_DIR`` it could not write Parquet to.

Real processes with pyarrow made unimportable (a finder that refuses it, as an
install without the ``history`` extra would).
"""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

from harness.python import run_python
from tests.service.test_serve import base_environ

WITHOUT_PYARROW = textwrap.dedent(
    """
    import sys

    class NoPyarrow:
        def find_spec(self, name, path=None, target=None):
            if name == "pyarrow" or name.startswith("pyarrow."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NoPyarrow())
    """
)


def run(code: str, environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_python("-c", WITHOUT_PYARROW + textwrap.dedent(code), env=environ)


def test_the_sidecar_imports_and_answers_without_pyarrow() -> None:
    done = run(
        """
        import asyncio
        from lagassign.cli import main
        from lagassign.http.app import create_app
        from lagassign.settings import Settings
        from tests.service.serving import served

        async def ask():
            async with served(create_app(Settings.from_environ({}))) as client:
                groups = (await client.get("/groups")).json()
                metrics = (await client.get("/metrics")).status_code
                return groups["history"], metrics

        print(asyncio.run(ask()))
        print("pyarrow" in sys.modules)
        """,
        base_environ(),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["(None, 200)", "False"]


def test_serve_refuses_a_history_directory_without_pyarrow(tmp_path: Path) -> None:
    done = run(
        """
        sys.argv = ["lagassign", "serve"]
        from lagassign.cli import main
        sys.exit(main())
        """,
        {
            **base_environ(),
            "LAGASSIGN_BOOTSTRAP_SERVERS": "127.0.0.1:9",
            "LAGASSIGN_HISTORY_DIR": str(tmp_path / "history"),
        },
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr == (
        "lagassign serve: LAGASSIGN_HISTORY_DIR: the lag history is written with pyarrow, "
        "which is not installed: install lagassign[history] (the image's -history tag), "
        "or unset LAGASSIGN_HISTORY_DIR\n"
    )
    assert not (tmp_path / "history").exists()
