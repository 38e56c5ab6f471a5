"""`lagassign assign` against the hostile corpus, endless input and oversized groups.

Every bad input ends in the error JSON on stderr and exit 2, never a traceback,
and memory stays bounded: the CLI reads at most LAGASSIGN_MAX_BODY_BYTES and
applies the service's caps before building anything from a partition count.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from lagassign.cli import main
from tests.hostile import CORPUS, Case, check_valid_answer, request


def run_cli(
    body: bytes, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "lagassign.cli", "assign", *args],
        input=body,
        capture_output=True,
        timeout=120,
        check=False,
        env=env,
    )


def error_of(done: subprocess.CompletedProcess[bytes]) -> dict[str, str]:
    assert done.returncode == 2, done.stderr[-2000:]
    assert b"Traceback" not in done.stderr
    assert done.stdout == b""
    error: dict[str, str] = json.loads(done.stderr)["error"]
    return error


def run_main(body: bytes, monkeypatch: pytest.MonkeyPatch) -> subprocess.CompletedProcess[bytes]:
    """``lagassign assign`` through :func:`lagassign.cli.main` in this process.

    The same code as the console script without starting an interpreter per case
    (about a second of CPU each); the tests below run the real process.
    """
    stdout, stderr = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body), encoding="utf-8"))
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", stderr)
    code = main(["assign"])
    out, err = stdout.getvalue().encode(), stderr.getvalue().encode()
    return subprocess.CompletedProcess(["lagassign", "assign"], code, out, err)


@pytest.mark.parametrize("case", CORPUS, ids=str)
def test_the_hostile_corpus(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    done = run_main(case.body, monkeypatch)
    if case.status == 200:
        assert done.returncode == 0, done.stderr[-2000:]
        check_valid_answer(case.body, json.loads(done.stdout))
        return
    error = error_of(done)
    if case.code is not None:
        assert error["code"] == case.code


def test_endless_input_is_refused_after_the_body_limit() -> None:
    done = run_cli(b"", "--input", "/dev/zero", env={"LAGASSIGN_MAX_BODY_BYTES": "65536"})
    error = error_of(done)
    assert error["code"] == "too_large"
    assert "65536 bytes (LAGASSIGN_MAX_BODY_BYTES)" in error["message"]


def test_input_over_the_default_body_limit_is_refused() -> None:
    done = run_cli(b" " * (64 * 1024 * 1024 + 1))
    assert error_of(done)["code"] == "too_large"


def test_the_service_limits_apply_from_the_same_variables() -> None:
    body = json.dumps(request(partitions={"t0": 30}, lags=None)).encode()
    error = error_of(run_cli(body, env={"LAGASSIGN_MAX_PARTITIONS": "20"}))
    assert error == {
        "code": "too_large",
        "message": "partitions: 30 partitions exceed the limit of 20 (LAGASSIGN_MAX_PARTITIONS)",
        "details": None,
    }
    members = [{"member_id": f"c{i}", "topics": ["t0"]} for i in range(3)]
    error = error_of(
        run_cli(json.dumps(request(members=members)).encode(), env={"LAGASSIGN_MAX_MEMBERS": "2"})
    )
    assert error["code"] == "too_large"


def test_refused_settings_are_an_error_json_too() -> None:
    error = error_of(run_cli(b"{}", env={"LAGASSIGN_MAX_PARTITIONS": "lots"}))
    assert "LAGASSIGN_MAX_PARTITIONS" in error["message"]
