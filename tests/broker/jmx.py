"""The broker's JMX MBeans, read from the running broker process (``JmxRead.java``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.broker.java_programs import java_command

JMX_READ = Path(__file__).resolve().parent / "JmxRead.java"
PLUGIN = "io.lagassign:type=BrokerPlugin"


def mbeans(pid: int, pattern: str = "io.lagassign:*") -> dict[str, dict[str, str]]:
    """Object name -> attribute -> value (as text) of every MBean matching ``pattern``."""
    done = subprocess.run(
        [*java_command(JMX_READ), str(pid), pattern],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    out: dict[str, dict[str, str]] = {}
    for line in done.stdout.splitlines():
        name, attribute, value = line.split("\t", 2)
        out.setdefault(name, {})[attribute] = value
    return out


def plugin(pid: int) -> dict[str, str]:
    """The attributes of the plugin's own MBean."""
    return mbeans(pid, PLUGIN).get(PLUGIN, {})


def fallbacks(pid: int) -> dict[str, int]:
    """Fallback count by reason."""
    prefix = "io.lagassign:type=BrokerPluginFallbacks,reason="
    return {
        name[len(prefix) :]: int(attributes["Count"])
        for name, attributes in mbeans(pid, prefix + "*").items()
    }
