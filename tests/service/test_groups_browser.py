"""The ``/groups/{group_id}`` page of a real group on the real broker, in headless Chromium.

A topic gets skewed records and committed offsets, two live members join the
group, and the sidecar (the real app and lag view, served by uvicorn on
127.0.0.1) reads it. Chromium loads the page twice: ``--dump-dom`` for the rows
and bars, which are checked against Kafka's own ``kafka-consumer-groups
--describe``; ``--screenshot`` for the picture, kept in ``test-artifacts/`` and
read back to check that the bars were drawn (without JavaScript) at their widths.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from harness.broker import REPO, LocalKafka
from harness.builders import commit, create_topic, members, produce
from harness.poll import eventually_async
from lagassign.http.app import create_app
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.lagview.view import LagView
from lagassign.settings import Settings
from tests.service.page_reader import GroupsPage
from tests.service.png_pixels import longest_runs, read_png
from tests.service.serving import served_on_a_port

pytestmark = [pytest.mark.kafka, pytest.mark.browser]

ARTIFACTS = REPO / "test-artifacts"
SCREENSHOT = ARTIFACTS / "groups-page.png"
WINDOW = (1400, 1400)
BAR_WIDTH_PX = 352  # .bar { width: 22rem } at 16 px per rem
LIVE_BAR = (0xD9, 0x82, 0x2B)
RECORDS = [600, 300, 20, 10, 5, 5]
COMMITTED = [100, 0, 0, 0, 0, 0]
DEADLINE_S = 60.0
CHROMIUM_TIMEOUT_S = 90.0
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
]


@dataclass
class Loaded:
    dom: str
    describe: str
    snapshot: GroupSnapshot
    answer: dict[str, Any]


def test_the_group_page_in_chromium(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str], tmp_path: Path
) -> None:
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is missing: `make chromium` installs it"
    topic, group = kafka_names("topic"), kafka_names("group")
    loaded = asyncio.run(load_page(kafka_broker, topic, group, chromium, tmp_path))
    page = GroupsPage(loaded.dom)

    # Every partition row says what kafka-consumer-groups says.
    described = describe_rows(loaded.describe, group)
    rows = page.rows_of("partition")
    assert len(rows) == len(RECORDS)
    for row in rows:
        topic_cell, partition, current, end, start, lag, *figures, consumer, host, client, _ = (
            row.cells
        )
        # The live figures beside the record lag: time lag, produce and consume rate.
        lag_seconds, produce, consume = figures
        if lag == "0":
            assert lag_seconds == "0.0"
        for figure in (lag_seconds, produce, consume):
            assert figure == "null" or float(figure) >= 0
        expected = described[(topic_cell, int(partition))]
        assert (current, end, lag) == (
            expected["CURRENT-OFFSET"],
            expected["LOG-END-OFFSET"],
            expected["LAG"],
        )
        assert (consumer, host, client) == (
            expected["CONSUMER-ID"],
            expected["HOST"],
            expected["CLIENT-ID"],
        )
        assert start == "0"
    lags = {int(r.cells[1]): int(r.cells[5]) for r in rows}
    assert lags == {p: n - c for p, (n, c) in enumerate(zip(RECORDS, COMMITTED, strict=True))}

    # One live bar per member, as long as its share of the largest bar.
    live = page.bars("live")
    member_lag = {m.member_id: 0 for m in loaded.snapshot.members}
    for p in loaded.snapshot.partitions:
        if p.consumer_id is not None:
            member_lag[p.consumer_id] += p.lag or 0
    assert {b["data-member"]: int(b["data-lag"]) for b in live} == member_lag
    balanced = {b["data-member"]: int(b["data-lag"]) for b in page.bars("balanced")}
    assert balanced == loaded.answer["stats"]["member_lag"]
    scale = max([*member_lag.values(), *balanced.values()])
    for bar in live:
        assert float(bar["data-width"]) == pytest.approx(100 * int(bar["data-lag"]) / scale, 0.01)
    assert len(page.rows_of("member")) == 2
    assert len(page.rows_of("answer")) == 1
    assert {"members", "skew", "default-now", "hot", "answers", "partitions"} <= page.ids
    assert "protocol-note" not in page.ids

    # The screenshot shows the bars at those widths (the first orange band is the legend).
    image = read_png(SCREENSHOT)
    assert (image.width, image.height) == WINDOW
    drawn = longest_runs(image, LIVE_BAR)[1:]
    ordered = [int(b["data-lag"]) for b in live]
    assert len(drawn) == len(ordered)
    for px, drawn_lag in zip(drawn, ordered, strict=True):
        assert px == pytest.approx(BAR_WIDTH_PX * drawn_lag / scale, abs=2)


async def load_page(
    broker: LocalKafka, topic: str, group: str, chromium: str, tmp_path: Path
) -> Loaded:
    bootstrap = broker.bootstrap
    await create_topic(bootstrap, topic, len(RECORDS))
    await produce(bootstrap, topic, RECORDS)
    await commit(bootstrap, group, {(topic, p): c for p, c in enumerate(COMMITTED)})
    async with members(bootstrap, group, [topic], 2, "page"):
        view = LagView(bootstrap, groups=[group], interval_s=0.5, request_timeout_s=10)
        app = create_app(Settings.from_environ({}), lag_view=view)
        async with served_on_a_port(app, DEADLINE_S) as base:
            snapshot = await settled_view(view, group)
            answer = await answer_once(base, group, topic, snapshot)
            snapshot = await refreshed_after(view, group, answer)
            describe = await asyncio.to_thread(
                broker.consumer_groups, "--describe", "--group", group
            )
            url = f"{base}/groups/{quote(group, safe='')}"
            dom = await run_chromium(chromium, tmp_path / "dom", "--dump-dom", url)
            ARTIFACTS.mkdir(exist_ok=True)
            SCREENSHOT.unlink(missing_ok=True)
            await run_chromium(
                chromium,
                tmp_path / "shot",
                f"--window-size={WINDOW[0]},{WINDOW[1]}",
                f"--screenshot={SCREENSHOT}",
                url,
            )
    assert SCREENSHOT.is_file()
    return Loaded(dom=dom, describe=describe, snapshot=snapshot, answer=answer)


async def settled_view(view: LagView, group: str) -> GroupSnapshot:
    """The group's snapshot once both members hold partitions and every lag is known."""

    def settled() -> GroupSnapshot | None:
        snapshot = view.snapshot(group)
        if (
            snapshot is not None
            and len(snapshot.members) == 2
            and all(m.assignment for m in snapshot.members)
            and len(snapshot.partitions) == len(RECORDS)
            and snapshot.unknown_partitions == 0
        ):
            return snapshot
        return None

    return await eventually_async(settled, DEADLINE_S, f"the view sees group {group} settle")


async def answer_once(base: str, group: str, topic: str, snapshot: GroupSnapshot) -> dict[str, Any]:
    """``POST /assign`` as the group leader's shim would, from the live members."""
    request = {
        "group_id": group,
        "members": [
            {
                "member_id": m.member_id,
                "topics": [topic],
                "owned": {t: list(ps) for t, ps in m.assignment.items()},
            }
            for m in snapshot.members
        ],
        "partitions": {topic: len(RECORDS)},
    }
    async with httpx.AsyncClient(base_url=base, timeout=10) as client:
        response = await client.post("/assign", json=request)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    assert answer["lag"]["source"] == "kafka"
    return answer


async def refreshed_after(view: LagView, group: str, answer: dict[str, Any]) -> GroupSnapshot:
    """The first snapshot read after the answer (so the page compares it with the answer)."""
    answered = time.time()

    def fresh() -> GroupSnapshot | None:
        snapshot = view.snapshot(group)
        return snapshot if snapshot is not None and snapshot.as_of.timestamp() > answered else None

    return await eventually_async(fresh, DEADLINE_S, f"a refresh of {group} after the answer")


async def run_chromium(chromium: str, profile: Path, *args: str) -> str:
    """Run headless Chromium with a fresh profile; its stdout. Killed (its own group) on timeout."""
    profile.mkdir(parents=True)
    process = await asyncio.create_subprocess_exec(
        chromium,
        *CHROMIUM_FLAGS,
        f"--user-data-dir={profile}",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), CHROMIUM_TIMEOUT_S)
    except TimeoutError:
        os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        raise
    assert process.returncode == 0, err.decode(errors="replace")[-2000:]
    return out.decode()


def describe_rows(output: str, group: str) -> dict[tuple[str, int], dict[str, str]]:
    """``kafka-consumer-groups --describe`` rows of ``group`` by (topic, partition)."""
    lines = [line.split() for line in output.splitlines() if line.strip()]
    header = next(line for line in lines if line[:2] == ["GROUP", "TOPIC"])
    rows = {}
    for line in lines:
        if line[0] == group and len(line) == len(header):
            row = dict(zip(header, line, strict=True))
            rows[(row["TOPIC"], int(row["PARTITION"]))] = row
    return rows
