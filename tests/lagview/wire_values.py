"""Hypothesis strategies for the values of Kafka's wire: strings and fixed-size integers."""

from __future__ import annotations

from hypothesis import strategies as st

names = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
int16 = st.integers(-(2**15), 2**15 - 1)
int32 = st.integers(-(2**31), 2**31 - 1)
int64 = st.integers(-(2**63), 2**63 - 1)
