"""The ``/metrics`` text, bounded in bytes, rendered away from the event loop.

A scrape is taken in two steps. :func:`collect` runs every collector of the
registry (on the event loop, so the lag collectors read the cached snapshots
between two refresh steps) and keeps the families it yields: plain values, no
longer tied to the live state. :func:`render` then writes them as Prometheus text
(in a worker thread), with two bounds:

- a label value longer than :data:`LABEL_MAX_BYTES` UTF-8 bytes is shortened to its
  first :data:`LABEL_KEEP_BYTES` bytes, ``~`` and the first 16 hex digits of its
  SHA-256 (``orders-eu-...~3f2a9c0d1b7e6a54``): still one series per id, still
  recognisable, and the full id is on ``/groups``. A Kafka group id may be 32,767
  characters, and 1,000 such ids made a 256 MB scrape;
- the text stops before the first family that would take it past ``max_bytes``;
  ``lagassign_metrics_families_dropped`` then says how many were left out, so a
  scrape is always valid text, never cut in the middle of a line.
"""

from __future__ import annotations

import copy
import functools
import hashlib
from collections.abc import Iterable

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import generate_latest
from prometheus_client.metrics_core import GaugeMetricFamily, Metric

LABEL_MAX_BYTES = 128
LABEL_KEEP_BYTES = 64
#: The default bound of one scrape's text.
SCRAPE_MAX_BYTES = 8 * 1024 * 1024


class Families:
    """Collected families, in the shape ``generate_latest`` reads (a ``collect()``)."""

    def __init__(self, families: Iterable[Metric]) -> None:
        self.families = list(families)

    def collect(self) -> list[Metric]:
        return self.families


def collect(registry: CollectorRegistry) -> Families:
    """Every family of ``registry`` as it is now (run where the collectors may read state)."""
    return Families(registry.collect())


def short_label(value: str) -> str:
    """``value``, or its first bytes and a digest of all of it when it is too long."""
    if len(value) <= LABEL_MAX_BYTES // 4:
        return value
    return shortened(value)


@functools.lru_cache(maxsize=4096)
def shortened(value: str) -> str:
    """:func:`short_label` of a value that may be too long (one digest per id, not per scrape)."""
    raw = value.encode("utf-8", "surrogatepass")
    if len(raw) <= LABEL_MAX_BYTES:
        return value
    head = raw[:LABEL_KEEP_BYTES].decode("utf-8", "ignore")
    return f"{head}~{hashlib.sha256(raw).hexdigest()[:16]}"


def bounded(family: Metric) -> Metric:
    """``family`` with every over-long label value shortened."""
    if not any(len(v) > LABEL_MAX_BYTES // 4 for s in family.samples for v in s.labels.values()):
        return family
    out = copy.copy(family)
    out.samples = [
        s._replace(labels={k: short_label(v) for k, v in s.labels.items()}) for s in family.samples
    ]
    return out


def render(families: Families, max_bytes: int = SCRAPE_MAX_BYTES) -> bytes:
    """The Prometheus text of ``families``, labels shortened, at most about ``max_bytes``."""
    parts: list[bytes] = []
    size = 0
    dropped = 0
    for family in families.collect():
        text = generate_latest(Families([bounded(family)]))
        if dropped or size + len(text) > max_bytes:
            dropped += 1
            continue
        parts.append(text)
        size += len(text)
    if dropped:
        gauge = GaugeMetricFamily(
            "lagassign_metrics_families_dropped",
            "Metric families left out of this scrape to keep it within its byte bound.",
            value=dropped,
        )
        parts.append(generate_latest(Families([gauge])))
    return b"".join(parts)
