"""The compiled-answer benchmark at a tiny size: both answer forms, both paths agree."""

from __future__ import annotations

from bench.native_answer import lines


def test_a_tiny_run_gives_one_line_per_form_with_both_paths_timed() -> None:
    measured = lines(members=7, topics=5, per_topic=30, runs=2)
    assert [line["form"] for line in measured] == ["topics", "indexed"]
    for line in measured:
        assert line["partitions"] == 150
        assert line["bytes"] > 150
        assert line["native_median_s"] >= 0
        # A ratio, not a bar: on a busy machine either path may take the longer at this size.
        assert line["python_over_native"] >= 0
        assert line["python_median_s"] >= line["python_build_median_s"]
