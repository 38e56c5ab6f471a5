"""Session-wide test configuration: the seeded Hypothesis profile."""

from hypothesis import HealthCheck, settings

from tests.kafka_fixture import kafka_broker, kafka_names, kafka_outage_broker  # noqa: F401

# Every random case is reproducible: Hypothesis runs derandomized (seeded).
settings.register_profile(
    "seeded",
    derandomize=True,
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("seeded")
