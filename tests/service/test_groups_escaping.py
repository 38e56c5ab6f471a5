"""Hostile names on the ``/groups`` pages: escaped in every place they appear, text or attribute.

A group id, a member id and a topic carry ``<script>``, both quote kinds and ``&``;
so does the refresh error Kafka reported. Each page, as the app serves it, is read
back with the standard library's HTML parser, which decodes the entities again: a
value escaped where it landed comes back whole (as the text of its element or as
its attribute's value), while one that broke out of its element or attribute would
come back cut, or as a tag. Every place each name is expected is listed and checked,
on the HTML the app sends and on the DOM headless Chromium builds from it.
"""

from __future__ import annotations

import shutil
from collections import Counter
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from lagassign.http.app import create_app
from lagassign.settings import Settings
from tests.service.fake_lag_view import FakeLagView
from tests.service.group_builders import snapshot_of
from tests.service.serving import served, served_on_a_port
from tests.service.test_groups_browser import run_chromium

pytestmark = pytest.mark.anyio

PAYLOAD = """<script>alert("x")</script>'&amp;"""
GROUP = f"g{PAYLOAD}"
MEMBER = f"m{PAYLOAD}"
OTHER = "c-2"
TOPIC = f"t{PAYLOAD}"
ERROR = f"broker said {PAYLOAD}"
HTML = {"accept": "text/html"}


class Places(HTMLParser):
    """Where each decoded string sits: ``(tag, attribute)`` for values, ``(tag, "#text")``."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.open: list[str] = []
        self.places: list[tuple[str, str, str]] = []  # (tag, attribute or #text, value)
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.open.append(tag)
        self.places += [(tag, name, value or "") for name, value in attrs]

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag) :]

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.places.append((self.open[-1] if self.open else "", "#text", data))

    def where(self, value: str) -> Counter[tuple[str, str]]:
        """How often ``value`` is a whole attribute value or inside a text, by place."""
        return Counter(
            (tag, kind)
            for tag, kind, found in self.places
            if (found == value if kind != "#text" else value in found)
        )

    def payloads(self) -> int:
        return sum(found.count("alert(") for _, _, found in self.places)


def view() -> FakeLagView:
    snapshot = snapshot_of(
        GROUP,
        {MEMBER: {TOPIC: [0, 1]}, OTHER: {TOPIC: [2]}},
        {TOPIC: [900, 800, 10]},
        as_of=datetime.now(UTC),
        error=ERROR,
    )
    fake = FakeLagView({GROUP: snapshot})
    fake.kafka_up = False
    fake.last_refresh_error = ERROR
    return fake


GROUP_PATH = "/groups/" + quote(GROUP, safe="")
REQUEST = {
    "group_id": GROUP,
    "members": [{"member_id": m, "topics": [TOPIC]} for m in (MEMBER, OTHER)],
    "partitions": {TOPIC: 3},
}


async def pages() -> tuple[str, str]:
    app = create_app(Settings.from_environ({}), lag_view=view())
    async with served(app) as client:
        assert (await client.post("/assign", json=REQUEST)).status_code == 200
        group = await client.get(GROUP_PATH, headers=HTML)
        listing = await client.get("/groups", headers=HTML)
    assert group.status_code == listing.status_code == 200
    return group.text, listing.text


async def test_hostile_names_are_escaped_everywhere_on_the_group_page() -> None:
    text, _ = await pages()
    assert "<script" not in text
    check_group_page(Places(text))


async def test_hostile_names_are_escaped_everywhere_on_the_list_page() -> None:
    _, text = await pages()
    assert "<script" not in text
    check_list_page(Places(text))


@pytest.mark.browser
async def test_chromium_builds_no_element_from_a_hostile_name(tmp_path: Path) -> None:
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is missing: `make chromium` installs it"
    app = create_app(Settings.from_environ({}), lag_view=view())
    async with served_on_a_port(app) as base:
        async with httpx.AsyncClient(base_url=base, timeout=10) as client:
            assert (await client.post("/assign", json=REQUEST)).status_code == 200
        group = await run_chromium(chromium, tmp_path / "g", "--dump-dom", base + GROUP_PATH)
        listing = await run_chromium(chromium, tmp_path / "l", "--dump-dom", base + "/groups")
    # The DOM as Chromium serializes it: its own escaping, the same elements and values.
    check_group_page(Places(group))
    check_list_page(Places(listing))


def check_group_page(page: Places) -> None:
    assert "script" not in page.tags
    assert page.where(GROUP) == {("title", "#text"): 1, ("code", "#text"): 1}
    assert page.where(MEMBER) == {
        ("tr", "data-member"): 1,  # the member's row
        # The member cell and its client id; consumer_id and client_id of its two
        # partitions' rows; consumer_id of its two hot partitions.
        ("td", "#text"): 8,
        ("div", "data-member"): 2,  # its live bar and its what-if bar
    }
    assert page.where(TOPIC) == {
        ("tr", "data-topic"): 3,  # each partition row
        ("td", "#text"): 6,  # its topic cell, and the three hot partitions'
    }
    assert page.where(ERROR) == {("div", "#text"): 1}  # "Last refresh failed: ..."
    # Nothing else carries the payload: 3 names' places + the error = every payload.
    places = [page.where(v) for v in (GROUP, MEMBER, TOPIC, ERROR)]
    assert page.payloads() == sum(c.total() for c in places)


def check_list_page(page: Places) -> None:
    assert "script" not in page.tags
    assert page.where(GROUP) == {("tr", "data-group"): 1, ("a", "#text"): 1}
    assert page.where("/groups/" + quote(GROUP, safe="")) == {("a", "href"): 1}
    assert page.where(ERROR) == {("span", "#text"): 1}  # "Last refresh error: ..."
    assert page.payloads() == 3
