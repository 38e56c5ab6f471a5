"""`lagassign assign`: the response on stdout, or the error JSON on stderr with exit 2."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness.python import run_python
from lagassign.cli import main

KIP_REQUEST: dict[str, Any] = {
    "group_id": "orders",
    "members": [{"member_id": "C0", "topics": ["t0"]}, {"member_id": "C1", "topics": ["t0"]}],
    "partitions": {"t0": 3},
    "strategy": "lag-aware",
    "lags": {"t0": [100_000, 60_000, 50_000]},
}


def run_cli(body: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run_python("-m", "lagassign.cli", "assign", *args, input=body)


def test_a_request_on_stdin_prints_the_response() -> None:
    done = run_cli(json.dumps(KIP_REQUEST))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["assignment"] == {"C0": {"t0": [0]}, "C1": {"t0": [1, 2]}}
    assert answer["revoked"] == {}
    assert answer["lag"]["source"] == "request"
    assert answer["stats"]["member_lag"] == {"C0": 100_000, "C1": 110_000}


def test_input_file_and_default_strategy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request = {k: v for k, v in KIP_REQUEST.items() if k != "strategy"}
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    assert main(["assign", "--input", str(path)]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["strategy"] == "balanced"
    assert main(["assign", "--input", str(path), "--strategy", "range"]) == 0
    assert json.loads(capsys.readouterr().out)["stats"]["member_lag"] == {
        "C0": 160_000,
        "C1": 50_000,
    }


def with_(**changes: Any) -> str:
    return json.dumps({**KIP_REQUEST, **changes})


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        ("{not json", "invalid_json", "not valid JSON"),
        (with_(members=[]), "invalid_request", "members: Expected `array` of length >= 1"),
        (
            with_(
                members=[{"member_id": "a", "topics": ["t0"]}, {"member_id": "a", "topics": ["t0"]}]
            ),
            "invalid_request",
            "members[1].member_id 'a' is duplicated",
        ),
        (
            with_(partitions={"t0": -3}, lags=None),
            "invalid_request",
            "partitions.t0: Expected `int` >= 0",
        ),
        (with_(lags={"t0": [1, -2, 3]}), "invalid_request", "lags.t0[1]: Expected `int` >= 0"),
        (with_(lags={"t0": [1, 2]}), "invalid_request", "has 2 values but the topic has 3"),
        (with_(strategy="fastest"), "invalid_request", "'fastest' is unknown"),
        (with_(partitions={"t9": 3}, lags=None), "invalid_request", "missing from partitions"),
        (
            with_(members=[{"member_id": "a", "topics": []}]),
            "invalid_request",
            "topics must not be empty",
        ),
        (
            with_(members=[{"member_id": "a"}]),
            "invalid_request",
            "members[0].topics: Field required",
        ),
        (with_(partitions={"t0": "three"}), "invalid_request", "partitions.t0"),
        ("[]", "invalid_request", "body"),
    ],
)
def test_bad_requests_print_the_error_json_and_exit_2(body: str, code: str, message: str) -> None:
    done = run_cli(body)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    error = json.loads(done.stderr)["error"]
    assert error["code"] == code
    assert message in error["message"]


def test_an_unreadable_input_file_is_a_bad_request(tmp_path: Path) -> None:
    done = run_cli("", "--input", str(tmp_path / "missing.json"))
    assert done.returncode == 2
    assert "cannot read" in json.loads(done.stderr)["error"]["message"]


def test_version_prints_the_package_version_and_exits_0() -> None:
    from lagassign import __version__

    done = run_python("-m", "lagassign.cli", "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"lagassign {__version__}\n"
    assert __version__ == importlib.metadata.version("lagassign")
