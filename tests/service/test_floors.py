"""The service's rooms import only downwards: a request flows down the floors, never back up.

Read from the source with ``ast`` (no import runs). ``settings``, ``errors``,
``redaction``, ``limits`` and ``_native`` (the compiled writer, which imports nothing
of the package) are leaves every room may read.
"""

from __future__ import annotations

import ast
from pathlib import Path

import lagassign

PACKAGE = Path(lagassign.__file__).parent
LEAVES = {"", "settings", "errors", "redaction", "limits", "_native"}
# What each room may import besides itself and the leaves, from the top floor down.
MAY_IMPORT = {
    "cli": {"assign", "core", "serve"},
    "serve": {"http", "history"},  # history: the directory is checked before the server starts
    "http": {"assign", "groups", "metrics", "forecast", "history", "lagview", "core", "rates"},
    "groups": {"assign", "forecast", "lagview", "core", "rates"},
    "metrics": {"assign", "forecast", "lagview", "core", "rates", "history"},
    "rates": {"assign", "lagview"},
    "assign": {"forecast", "lagview", "core"},
    "history": {"lagview"},
    "forecast": set(),
    "lagview": set(),
    "core": set(),
}


def room_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def imports_of(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m == "lagassign" or m.startswith("lagassign.")}


def test_every_room_imports_only_the_rooms_below_it() -> None:
    climbing: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).with_suffix("")
        room = relative.parts[0] if len(relative.parts) > 1 else relative.name
        if room in LEAVES or room in {"__init__", "demo"}:
            continue
        allowed = MAY_IMPORT[room] | LEAVES | {room}
        for module in sorted(imports_of(path)):
            if room_of(module) not in allowed:
                climbing.append(f"{relative}: {module}")
    assert climbing == []


def test_the_lag_view_reads_kafka_only_through_its_kafka_room() -> None:
    """``lagview/kafka/`` holds the lag view's wire I/O; its rules, snapshots, store and
    refresh loop never import a Kafka client themselves."""
    lagview = PACKAGE / "lagview"
    wire = lagview / "kafka"
    clients = {"aiokafka", "kafka", "confluent_kafka"}
    talking = []
    for path in sorted(lagview.rglob("*.py")):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
            elif isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
        if names & clients and wire not in path.parents:
            talking.append(str(path.relative_to(PACKAGE)))
    assert talking == []
    assert sorted(p.stem for p in wire.glob("*.py") if p.stem != "__init__") == [
        "clients",
        "consumer_group_describe",
        "group_requests",
        "groups",
        "list_offsets",
        "metadata",
        "nudge",
        "offsets",
        "record_times",
        "wire",
    ]


def test_every_room_is_a_folder_and_the_top_holds_only_entry_points_and_leaves() -> None:
    loose = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
    assert set(loose) <= {"cli", "serve", "demo"} | LEAVES
    assert {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()} == {
        "assign",
        "core",
        "forecast",
        "groups",
        "history",
        "http",
        "lagview",
        "metrics",
        "rates",
    }
