"""The docs are complete and self-contained: every setting, every metric, links that resolve.

The contracts live in ``docs/``; nothing in the project points at a file outside it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from lagassign.http.sidecar import build_sidecar
from lagassign.settings import Settings, env_name
from tests.service.fake_lag_view import FakeLagView, snapshot_of

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def tracked_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [REPO / name for name in listed if (REPO / name).is_file()]


def test_every_setting_is_documented() -> None:
    text = (DOCS / "settings.md").read_text()
    missing = [
        env_name(name) for name in Settings.model_fields if f"`{env_name(name)}`" not in text
    ]
    assert missing == []


def test_every_exported_metric_is_documented(tmp_path: Path) -> None:
    view = FakeLagView({"orders": snapshot_of("orders", {"t0": [5, 6]})})
    settings = Settings.from_environ({"LAGASSIGN_WEIGHTS_PATH": str(tmp_path / "w.json")})
    sidecar = build_sidecar(settings, lag_view=view, kafka=False)
    text = (DOCS / "metrics.md").read_text()
    names = {family.name for family in sidecar.metrics.registry.collect()}
    suffix = {"lagassign_build": "_info"}
    undocumented = sorted(
        n for n in names if f"`{n}{suffix.get(n, '')}`" not in text and f"`{n}_total`" not in text
    )
    assert undocumented == []


def test_links_between_docs_resolve() -> None:
    for page in [REPO / "README.md", *DOCS.glob("*.md")]:
        for target in LINK.findall(page.read_text()):
            if target.startswith(("http://", "https://")):
                continue
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


def test_no_file_points_outside_the_project() -> None:
    offenders = [
        str(path.relative_to(REPO))
        for path in tracked_files()
        if path.suffix in {".py", ".md", ".yaml", ".yml", ".java", ".toml", ".json", ""}
        and path.name != "test_docs.py"
        and "DESIGN.md" in path.read_text(errors="replace")
    ]
    assert offenders == []
