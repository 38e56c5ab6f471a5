"""Session-wide test configuration: the seeded Hypothesis profile."""

from hypothesis import HealthCheck, settings

# Every random case is reproducible: Hypothesis runs derandomized (seeded).
settings.register_profile(
    "seeded",
    derandomize=True,
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("seeded")
