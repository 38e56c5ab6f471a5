"""``/metrics`` is bounded in bytes: long group ids are shortened in labels (issue 26:
1,000 ids of 32,000 characters made a 256 MB scrape), the text stops at a byte
bound between families, and it is written off the event loop."""

from __future__ import annotations

import hashlib
import re
import threading
from typing import Any

import pytest
from prometheus_client import CollectorRegistry, Gauge

from lagassign.http import metrics as metrics_route
from lagassign.http.app import create_app
from lagassign.metrics.exposition import LABEL_MAX_BYTES, collect, render, short_label
from lagassign.settings import Settings
from tests.service.serving import served
from tests.service.test_groups_bytes import assign_each, long_id

pytestmark = pytest.mark.anyio


async def test_a_thousand_groups_of_32000_character_ids_scrape_in_under_8_mib() -> None:
    app = create_app(Settings.from_environ({}))
    async with served(app) as client:
        await assign_each(client, map(long_id, range(1_000)))
        text = (await client.get("/metrics")).text
    assert len(text.encode()) < 8 * 1024 * 1024
    labels = set(re.findall(r'^lagassign_assign_requests_total\{group="([^"]*)"', text, re.M))
    assert len(labels) == 1_000  # still one series per group
    assert all(len(label.encode()) <= LABEL_MAX_BYTES for label in labels)
    digest = hashlib.sha256(long_id(7).encode()).hexdigest()[:16]
    assert short_label(long_id(7)) == long_id(7)[:64] + "~" + digest
    assert short_label(long_id(7)) in labels


def test_a_short_label_is_kept_and_a_long_one_of_wide_characters_is_cut_in_bytes() -> None:
    assert short_label("orders") == "orders"
    wide = "\U0001f600" * 100  # 400 UTF-8 bytes
    short = short_label(wide)
    assert short.startswith("\U0001f600" * 16 + "~")
    assert len(short.encode()) <= LABEL_MAX_BYTES


def test_the_text_stops_between_families_at_its_byte_bound() -> None:
    registry = CollectorRegistry(auto_describe=False)
    for n in range(10):
        gauge = Gauge(f"family_{n}", "A family.", ["i"], registry=registry)
        for i in range(100):
            gauge.labels(str(i)).set(i)
    whole = render(collect(registry), max_bytes=10**9)
    cut = render(collect(registry), max_bytes=len(whole) // 2).decode()
    assert len(cut) < len(whole)
    assert cut.endswith("lagassign_metrics_families_dropped 5.0\n")
    kept = re.findall(r"^# TYPE (family_\d+) gauge$", cut, re.M)
    assert kept == [f"family_{n}" for n in range(5)]
    # Every kept family is whole.
    for name in kept:
        assert len(re.findall(rf"^{name}\{{", cut, re.M)) == 100


async def test_the_text_is_written_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[int] = []
    real = render

    def recording(*args: Any) -> bytes:
        threads.append(threading.get_ident())
        return real(*args)

    monkeypatch.setattr(metrics_route, "render", recording)
    async with served(create_app(Settings.from_environ({}))) as client:
        assert (await client.get("/metrics")).status_code == 200
    assert threads
    assert threads[0] != threading.get_ident()
