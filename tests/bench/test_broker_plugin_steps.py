"""The real-broker plugin bench reads the plugin's log: its steps, and the sidecar's own."""

from __future__ import annotations

from bench.broker_plugin_real import plugin_steps

ANSWERED = (
    "DEBUG lagassign: group g (50 members, 10000 partitions) assigned by the sidecar in 45000 us"
    " (waited for the plugin's thread 0.1 ms, request built 3.2 ms (2.9 ms CPU), sidecar answered"
    " 38.0 ms (its own steps: read 0.41, parse 3.10, turn 0.02, answer 20.31, total 25.02 ms),"
    " answer read 2.1 ms (2.0 ms CPU))"
)
ABANDONED = (
    "WARN lagassign: a group of 50 members gets 'uniform' (timeout) after 50 ms: no usable answer"
    " from http://127.0.0.1:1/assign within 50 ms (waited for the plugin's thread 0.2 ms, request"
    " built 9.0 ms (4.0 ms CPU), the sidecar had not answered); the call was abandoned"
)


def test_the_steps_of_answered_and_abandoned_calls_and_the_sidecars_own() -> None:
    figures = plugin_steps("\n".join([ANSWERED, ABANDONED, ANSWERED.replace("20.31", "30.31")]))
    assert figures["plugin_answered"] == 2
    assert figures["plugin_steps_ms_p50"]["request built"] == 3.2
    assert figures["plugin_steps_cpu_ms_p50"]["request built"] == 2.9
    assert figures["plugin_abandoned_in"] == {"the sidecar had not answered": 1}
    assert figures["sidecar_steps_ms_p50"]["parse"] == 3.1
    assert figures["sidecar_steps_ms_p50"]["total"] == 25.02
    assert set(figures["sidecar_steps_ms_p50"]) == {"read", "parse", "turn", "answer", "total"}
    # Each call, in the order of the log.
    first, abandoned, third = figures["plugin_calls"]
    assert first["sidecar answered"] == 38.0
    assert first["its own steps"] == "read 0.41, parse 3.10, turn 0.02, answer 20.31, total 25.02"
    assert abandoned == {
        "waited for the plugin's thread": 0.2,
        "request built": 9.0,
        "abandoned": "the sidecar had not answered",
    }
    assert "answer 30.31" in third["its own steps"]


def test_a_log_without_calls_has_no_figures() -> None:
    assert plugin_steps("INFO nothing here") == {
        "plugin_answered": 0,
        "plugin_steps_ms_p50": {},
        "plugin_steps_cpu_ms_p50": {},
        "plugin_abandoned_in": {},
        "sidecar_steps_ms_p50": {},
        "plugin_calls": [],
    }
