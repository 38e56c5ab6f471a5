"""A strict reader of the block-style YAML subset that the files in ``deploy/`` use.

The project depends on no YAML library, so the deploy tests read the manifests
with this: block mappings and sequences by indentation, ``- key: value`` items,
plain, single- and double-quoted scalars, flow sequences of scalars (``[a, "b"]``),
the empty flow mapping ``{}``, literal and folded block scalars (``|``, ``|-``,
``>``), comments and ``---`` between documents. Anything outside the subset
(anchors, tags, flow mappings with content, tabs, bad indentation) raises
:class:`YamlSubsetError`, which keeps the deploy files plain.
"""

from __future__ import annotations

import json
import re
from typing import Any

KEY = re.compile(r"^([A-Za-z0-9_./-]+|\"[^\"]*\"|'[^']*'):(?: (.*))?$")
NUMBER = re.compile(r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?$")


class YamlSubsetError(ValueError):
    pass


def load_all(text: str) -> list[Any]:
    """Every document of ``text``, as plain dicts, lists and scalars."""
    if "\t" in text:
        raise YamlSubsetError("tabs are not allowed")
    documents: list[list[tuple[int, str]]] = [[]]
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.rstrip() == "---":
            documents.append([])
            continue
        documents[-1].append((number, raw.rstrip()))
    out = []
    for lines in documents:
        reader = Reader(lines)
        if reader.at_end():
            continue
        out.append(reader.document())
    return out


class Reader:
    def __init__(self, lines: list[tuple[int, str]]) -> None:
        self.lines = lines
        self.i = 0

    def document(self) -> Any:
        indent = self.indent()
        value = self.block(indent)
        if not self.at_end():
            raise self.error("unexpected text after the document")
        return value

    # --- lines ----------------------------------------------------------------

    def skip_blank(self) -> None:
        while self.i < len(self.lines) and not strip_comment(self.lines[self.i][1]).strip():
            self.i += 1

    def at_end(self) -> bool:
        self.skip_blank()
        return self.i >= len(self.lines)

    def indent(self) -> int:
        self.skip_blank()
        text = self.lines[self.i][1]
        return len(text) - len(text.lstrip(" "))

    def content(self) -> str:
        return strip_comment(self.lines[self.i][1]).strip()

    def error(self, message: str) -> YamlSubsetError:
        number = self.lines[min(self.i, len(self.lines) - 1)][0] if self.lines else 0
        return YamlSubsetError(f"line {number}: {message}")

    # --- blocks ---------------------------------------------------------------

    def block(self, indent: int) -> Any:
        if self.content().startswith("- ") or self.content() == "-":
            return self.sequence(indent)
        return self.mapping(indent)

    def sequence(self, indent: int) -> list[Any]:
        items: list[Any] = []
        while not self.at_end() and self.indent() == indent and self.content()[:1] == "-":
            rest = self.content()[1:]
            if rest and not rest.startswith(" "):
                raise self.error("a sequence item needs a space after '-'")
            rest = rest.strip()
            if not rest:
                self.i += 1
                items.append(self.nested(indent))
            elif KEY.match(rest):
                # "- key: value": a mapping whose keys sit two columns right of the dash.
                number, _ = self.lines[self.i]
                self.lines[self.i] = (number, " " * (indent + 2) + rest)
                items.append(self.mapping(indent + 2))
            else:
                self.i += 1
                items.append(self.scalar_or_block(rest, indent))
        if not self.at_end() and self.indent() > indent:
            raise self.error("bad indentation in a sequence")
        return items

    def mapping(self, indent: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while not self.at_end() and self.indent() == indent:
            text = self.content()
            if text.startswith("- "):
                break
            match = KEY.match(text)
            if not match:
                raise self.error(f"expected 'key: value', got {text!r}")
            key = unquote(match.group(1))
            if key in out:
                raise self.error(f"duplicate key {key!r}")
            rest = (match.group(2) or "").strip()
            self.i += 1
            out[key] = self.scalar_or_block(rest, indent) if rest else self.nested(indent)
        if not self.at_end() and self.indent() > indent:
            raise self.error("bad indentation in a mapping")
        return out

    def nested(self, indent: int) -> Any:
        """The block under ``key:`` or ``-``: more indented, or a sequence at the same indent."""
        if self.at_end():
            return None
        deeper = self.indent()
        if deeper > indent:
            return self.block(deeper)
        if deeper == indent and self.content().startswith("- "):
            return self.sequence(indent)
        return None

    def scalar_or_block(self, text: str, indent: int) -> Any:
        if text in ("|", "|-", ">", ">-"):
            return self.block_scalar(text, indent)
        if text[:1] in ("&", "*", "!"):
            raise self.error("anchors, aliases and tags are outside the subset")
        return scalar(text, self.error)

    def block_scalar(self, style: str, indent: int) -> str:
        lines: list[str] = []
        body_indent: int | None = None
        while self.i < len(self.lines):
            raw = self.lines[self.i][1]
            if raw.strip():
                current = len(raw) - len(raw.lstrip(" "))
                if current <= indent:
                    break
                body_indent = current if body_indent is None else body_indent
                if current < body_indent:
                    raise self.error("a block scalar line is less indented than its first line")
                lines.append(raw[body_indent:])
            else:
                lines.append("")
            self.i += 1
        while lines and not lines[-1]:
            lines.pop()
        joined = " ".join(lines) if style.startswith(">") else "\n".join(lines)
        return joined if style.endswith("-") else joined + "\n"


def strip_comment(line: str) -> str:
    """The line without a trailing ``# comment`` (a ``#`` inside quotes stays)."""
    quote: str | None = None
    escaped = False
    for i, ch in enumerate(line):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] == " "):
            return line[:i]
    return line


def unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return str(scalar(text, YamlSubsetError))
    return text


def scalar(text: str, error: Any) -> Any:
    if text.startswith('"'):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            raise error(f"bad double-quoted string {text!r}") from None
    if text.startswith("'"):
        if not text.endswith("'") or len(text) < 2:
            raise error(f"bad single-quoted string {text!r}")
        return text[1:-1].replace("''", "'")
    if text.startswith("["):
        if not text.endswith("]"):
            raise error(f"a flow sequence must end on its line: {text!r}")
        inner = text[1:-1].strip()
        return [scalar(item.strip(), error) for item in split_flow(inner)] if inner else []
    if text.startswith("{"):
        if text != "{}":
            raise error("flow mappings with content are outside the subset")
        return {}
    if text in ("true", "false"):
        return text == "true"
    if text in ("null", "~"):
        return None
    if NUMBER.match(text):
        return float(text) if "." in text else int(text)
    if text.startswith("- ") or ": " in text or text.endswith(":"):
        raise error(f"ambiguous plain scalar {text!r}; quote it")
    return text


def split_flow(text: str) -> list[str]:
    items, current, quote = [], "", None
    for ch in text:
        if quote:
            current += ch
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
            current += ch
        elif ch == ",":
            items.append(current)
            current = ""
        elif ch in "[]{}":
            raise YamlSubsetError("nested flow collections are outside the subset")
        else:
            current += ch
    items.append(current)
    return items
