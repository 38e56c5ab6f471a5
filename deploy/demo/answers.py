"""``make run``'s answers: one real ``POST /assign`` (with curl when it is installed) and
the per-member lag of Kafka's ``range`` beside lagassign's ``balanced`` for the demo group."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

from deploy.demo.cli import say
from deploy.demo.group import GROUP, TARGET_LAG
from harness.broker import REPO
from harness.sidecar import SidecarProcess


def assign_request(group: Mapping[str, Any], strategy: str) -> dict[str, Any]:
    """What the group leader's shim would send: the live members, their owned partitions."""
    return {
        "group_id": GROUP,
        "members": [
            {"member_id": m["member_id"], "topics": list(TARGET_LAG), "owned": m["assignment"]}
            for m in group["members"]
        ],
        "partitions": {t: len(lags) for t, lags in TARGET_LAG.items()},
        "strategy": strategy,
    }


def curl_assign(sidecar: SidecarProcess, request_path: Path) -> tuple[str, dict[str, Any] | None]:
    """The curl command line, and its answer when curl is installed."""
    command = ["curl", "-s", "-X", "POST", f"{sidecar.url}/assign"]
    command += ["-H", "content-type: application/json"]
    shown = list(command)
    if sidecar.headers:
        command += ["-H", f"authorization: {sidecar.headers['authorization']}"]
        shown += ["-H", "authorization: Bearer $LAGASSIGN_TOKEN"]
    relative = request_path.relative_to(REPO) if request_path.is_relative_to(REPO) else request_path
    command += ["--data", f"@{request_path}"]
    shown += ["--data", f"@{relative}"]
    line = shlex.join(shown)
    if shutil.which("curl") is None:
        return line, None
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=30)
    if done.returncode != 0:
        return line, None
    answer: dict[str, Any] = json.loads(done.stdout)
    return line, answer


NUMBER_LIST = re.compile(r"\[\s*([-\d.,\s]*?)\s*\]")


def compact_json(value: Any) -> str:
    """Indented JSON with lists of numbers kept on one line."""

    def one_line(match: re.Match[str]) -> str:
        items = [item.strip() for item in match[1].split(",") if item.strip()]
        return "[" + ", ".join(items) + "]"

    return NUMBER_LIST.sub(one_line, json.dumps(value, indent=2))


def comparison(range_answer: Mapping[str, Any], balanced: Mapping[str, Any]) -> list[str]:
    """A small table: per member, partitions and lag under range and under balanced."""

    def count(assignment: Mapping[str, Mapping[str, list[int]]], member: str) -> int:
        return sum(len(ps) for ps in assignment.get(member, {}).values())

    members = sorted(balanced["assignment"])
    width = max(len(m) for m in members)
    lines = [f"  {'member':<{width}}   {'range':>18}   {'balanced':>18}"]
    for m in members:
        r_lag = range_answer["stats"]["member_lag"][m]
        b_lag = balanced["stats"]["member_lag"][m]
        r_n, b_n = count(range_answer["assignment"], m), count(balanced["assignment"], m)
        lines.append(f"  {m:<{width}}   {r_lag:>8} lag, {r_n:>2} p   {b_lag:>8} lag, {b_n:>2} p")
    for name, answer in (("range", range_answer), ("balanced", balanced)):
        s = answer["stats"]
        lines.append(
            f"  {name}: max member lag {s['max_lag']}, imbalance {s['imbalance']:.3f} "
            f"(lower bound {s['lower_bound']:.0f}), moved {s['moved']}"
        )
    return lines


async def show_answers(
    client: httpx.AsyncClient, sidecar: SidecarProcess, group: Mapping[str, Any]
) -> None:
    # range first, so the last answer the service records is balanced's
    range_response = await client.post("/assign", json=assign_request(group, "range"))
    range_response.raise_for_status()
    request_path = sidecar.log_path.parent / "assign-request.json"
    request_path.write_text(json.dumps(assign_request(group, "balanced"), indent=2) + "\n")
    line, answer = curl_assign(sidecar, request_path)
    if answer is None:  # no curl here: the same request with httpx
        response = await client.post(
            "/assign",
            content=request_path.read_bytes(),
            headers={"content-type": "application/json"},
        )
        response.raise_for_status()
        answer = response.json()
        say("One POST /assign (curl is not installed; the same request was sent with httpx):")
    else:
        say("One real POST /assign:")
    say(f"  $ {line}")
    for text in compact_json(answer).splitlines():
        say(f"  {text}")
    say()
    say("Per-member lag, Kafka's range assignor vs lagassign's balanced strategy:")
    for text in comparison(range_response.json(), answer):
        say(text)
