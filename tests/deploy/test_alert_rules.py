"""The shipped alert rules pass ``promtool check rules`` and their unit tests.

``tests/deploy/alerts.test.yaml`` holds the unit tests: every alert pending or quiet
before its condition has lasted, firing once it has (labels and annotations exact),
resolved after. promtool comes from Debian's ``prometheus`` package (``make promtool``).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

HERE = Path(__file__).resolve().parent
RULES = HERE.parents[1] / "deploy" / "prometheus" / "rules.yaml"
UNIT_TESTS = HERE / "alerts.test.yaml"


def promtool() -> str:
    found = shutil.which("promtool")
    assert found, "promtool is missing: `make promtool` installs Debian's prometheus package"
    return found


@pytest.mark.promtool
def test_the_rules_pass_promtool_check() -> None:
    done = subprocess.run(
        [promtool(), "check", "rules", str(RULES)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.promtool
def test_every_alert_fires_and_resolves_in_the_unit_tests() -> None:
    done = subprocess.run(
        [promtool(), "test", "rules", UNIT_TESTS.name],
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


def test_the_unit_tests_cover_every_alert() -> None:
    rules = yaml.safe_load(RULES.read_text())
    alerts = {r["alert"] for group in rules["groups"] for r in group["rules"]}
    unit = yaml.safe_load(UNIT_TESTS.read_text())
    tests = unit["tests"]
    firing: set[str] = set()
    resolved: set[str] = set()
    for case in tests:
        for check in case["alert_rule_test"]:
            (firing if check["exp_alerts"] else resolved).add(check["alertname"])
    assert firing == alerts
    assert resolved == alerts
