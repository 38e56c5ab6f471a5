"""lagassign: lag-aware partition assignment for Kafka consumer groups."""

__version__ = "0.1.0"
