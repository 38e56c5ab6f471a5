"""Reading the ``/groups`` HTML back: the member bars and the rows of each table."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Row:
    kind: str
    attrs: dict[str, str]
    cells: list[str] = field(default_factory=list)


class GroupsPage(HTMLParser):
    """Rows (``<tr class=...>`` with their cell texts) and bars (``<div class="bar ...">``)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.rows: list[Row] = []
        self.bar_attrs: list[dict[str, str]] = []
        self.bar_spans: list[str] = []
        self.ids: set[str] = set()
        self._row: Row | None = None
        self._cell: list[str] | None = None
        self._in_bar = False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "tr":
            self._row = Row(a.get("class", ""), a)
        elif tag == "td" and self._row is not None:
            self._cell = []
        elif tag == "div" and a.get("class", "").startswith("bar "):
            self.bar_attrs.append(a)
            self._in_bar = True
        elif tag == "span" and self._in_bar:
            self.bar_spans.append(a.get("style", ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._row is not None and self._cell is not None:
            self._row.cells.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None
        elif tag == "div":
            self._in_bar = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def rows_of(self, kind: str) -> list[Row]:
        return [r for r in self.rows if r.kind == kind]

    def bars(self, kind: str) -> list[dict[str, str]]:
        return [a for a in self.bar_attrs if a.get("class") == f"bar {kind}"]
