"""Settings from an ``environ`` dict: defaults, parsing, and clear refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from lagassign.settings import Settings, SettingsError

TOKEN = "s3cret-token-0123456789"


def refused(environ: dict[str, str]) -> SettingsError:
    with pytest.raises(SettingsError) as caught:
        Settings.from_environ(environ)
    return caught.value


def test_defaults_bind_loopback_and_ignore_the_process_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LAGASSIGN_PORT", "9999")
    settings = Settings.from_environ({})
    assert settings.host == "127.0.0.1"
    assert settings.port == 8321
    assert settings.bootstrap_servers == ("127.0.0.1:9092",)
    assert settings.default_strategy == "balanced"
    assert settings.refresh_interval_s == 10
    assert settings.on_demand_budget_ms == 500
    assert settings.max_members == 5_000
    assert settings.max_partitions == 2_000_000
    assert settings.partition_metrics is True
    assert settings.token is None
    assert settings.security_protocol == "PLAINTEXT"


def test_values_are_parsed_case_insensitively() -> None:
    settings = Settings.from_environ(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": "k1:9092, k2:9093,[::1]:9094",
            "lagassign_groups": "orders, audit,",
            "LAGASSIGN_GROUP_PATTERN": "^pay-.*$",
            "LAGASSIGN_GROUP_RESET_POLICIES": "orders=earliest, audit=latest",
            "LAGASSIGN_READ_COMMITTED_GROUPS": "orders",
            "LAGASSIGN_REFRESH_INTERVAL_S": "2.5",
            "LAGASSIGN_PARTITION_METRICS": "false",
            "LAGASSIGN_DEFAULT_STRATEGY": "lag-aware",
            "LAGASSIGN_ON_DEMAND_BUDGET_MS": "250",
        }
    )
    assert settings.bootstrap_servers == ("k1:9092", "k2:9093", "[::1]:9094")
    assert settings.groups == ("orders", "audit")
    assert settings.group_regex is not None
    assert settings.group_regex.match("pay-eu")
    assert settings.reset_policy_of("orders") == "earliest"
    assert settings.reset_policy_of("other") == "latest"
    assert settings.read_committed_groups == ("orders",)
    assert settings.refresh_interval_s == 2.5
    assert settings.partition_metrics is False
    assert settings.default_strategy == "lag-aware"
    assert settings.on_demand_budget_s == 0.25


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        (
            {"LAGASSIGN_BOOTSTRAP_SERVERS": "kafka"},
            "LAGASSIGN_BOOTSTRAP_SERVERS: 'kafka' is not host:port",
        ),
        (
            {"LAGASSIGN_BOOTSTRAP_SERVERS": "kafka:99999"},
            "LAGASSIGN_BOOTSTRAP_SERVERS: 'kafka:99999' is not host:port",
        ),
        (
            {"LAGASSIGN_BOOTSTRAP_SERVERS": "bad host:9092"},
            "LAGASSIGN_BOOTSTRAP_SERVERS: 'bad host:9092' does not name a valid host",
        ),
        ({"LAGASSIGN_BOOTSTRAP_SERVERS": " , "}, "LAGASSIGN_BOOTSTRAP_SERVERS: must list"),
        ({"LAGASSIGN_REFRESH_INTERVAL_S": "0"}, "LAGASSIGN_REFRESH_INTERVAL_S: Input should be"),
        ({"LAGASSIGN_REFRESH_INTERVAL_S": "often"}, "LAGASSIGN_REFRESH_INTERVAL_S: Input should"),
        ({"LAGASSIGN_PORT": "tcp://10.0.0.1:8321"}, "(got 'tcp://10.0.0.1:8321')"),
        (
            {"LAGASSIGN_HOST": "0.0.0.0"},
            "LAGASSIGN_HOST: binding 0.0.0.0 (not a loopback address) needs LAGASSIGN_TOKEN",
        ),
        ({"LAGASSIGN_HOST": "no such host!"}, "LAGASSIGN_HOST: 'no such host!' is not"),
        (
            {"LAGASSIGN_DEFAULT_STRATEGY": "fastest"},
            "LAGASSIGN_DEFAULT_STRATEGY: 'fastest' is unknown; use one of: range",
        ),
        (
            {"LAGASSIGN_GROUP_PATTERN": "orders-(eu"},
            "LAGASSIGN_GROUP_PATTERN: 'orders-(eu' is not a valid regular expression",
        ),
        ({"LAGASSIGN_RESET_POLICY": "none"}, "LAGASSIGN_RESET_POLICY: Input should be 'latest'"),
        (
            {"LAGASSIGN_GROUP_RESET_POLICIES": "orders:earliest"},
            "LAGASSIGN_GROUP_RESET_POLICIES: 'orders:earliest' is not group=policy",
        ),
        ({"LAGASSIGN_ON_DEMAND_BUDGET_MS": "-1"}, "LAGASSIGN_ON_DEMAND_BUDGET_MS"),
        ({"LAGASSIGN_MAX_MEMBERS": "0"}, "LAGASSIGN_MAX_MEMBERS"),
        ({"LAGASSIGN_SECURITY_PROTOCOL": "KERBEROS"}, "LAGASSIGN_SECURITY_PROTOCOL"),
        (
            {"LAGASSIGN_SECURITY_PROTOCOL": "SASL_SSL", "LAGASSIGN_SASL_USERNAME": "app"},
            "SASL_SSL needs LAGASSIGN_SASL_MECHANISM, LAGASSIGN_SASL_PASSWORD",
        ),
        (
            {"LAGASSIGN_SASL_MECHANISM": "SCRAM-SHA-512"},
            "SASL settings are given but the protocol is PLAINTEXT",
        ),
        ({"LAGASSIGN_SSL_CAFILE": "/no/such/ca.pem"}, "LAGASSIGN_SSL_CAFILE: '/no/such/ca.pem'"),
        ({"LAGASSIGN_TOKEN": "short"}, "LAGASSIGN_TOKEN: must be at least 16 characters"),
    ],
)
def test_nonsense_is_refused_with_a_message_naming_the_variable(
    environ: dict[str, str], message: str
) -> None:
    error = refused(environ)
    assert message in str(error)
    assert str(error).startswith("invalid settings:")


def test_every_problem_is_listed_at_once() -> None:
    error = refused({"LAGASSIGN_PORT": "0", "LAGASSIGN_REFRESH_INTERVAL_S": "-5"})
    assert [p.split(":")[0] for p in error.problems] == [
        "LAGASSIGN_PORT",
        "LAGASSIGN_REFRESH_INTERVAL_S",
    ]


def test_non_loopback_bind_needs_a_token_or_an_explicit_opt_out() -> None:
    assert Settings.from_environ({"LAGASSIGN_HOST": "localhost"}).host == "localhost"
    assert Settings.from_environ({"LAGASSIGN_HOST": "::1"}).host == "::1"
    with_token = Settings.from_environ({"LAGASSIGN_HOST": "0.0.0.0", "LAGASSIGN_TOKEN": TOKEN})
    assert with_token.token is not None
    opted_out = Settings.from_environ(
        {"LAGASSIGN_HOST": "10.1.2.3", "LAGASSIGN_ALLOW_UNAUTHENTICATED": "true"}
    )
    assert opted_out.token is None
    refused({"LAGASSIGN_HOST": "sidecar.example"})


def test_secrets_never_show_in_repr_or_in_refusals(tmp_path: Path) -> None:
    password = "pa55word-that-must-not-leak"
    cafile = tmp_path / "ca.pem"
    cafile.write_text("not read at start-up\n")
    settings = Settings.from_environ(
        {
            "LAGASSIGN_TOKEN": TOKEN,
            "LAGASSIGN_SECURITY_PROTOCOL": "SASL_SSL",
            "LAGASSIGN_SASL_MECHANISM": "SCRAM-SHA-512",
            "LAGASSIGN_SASL_USERNAME": "app",
            "LAGASSIGN_SASL_PASSWORD": password,
            "LAGASSIGN_SSL_CAFILE": str(cafile),
        }
    )
    for text in (repr(settings), str(settings), str(settings.model_dump())):
        assert TOKEN not in text
        assert password not in text
    assert sorted(settings.secrets()) == sorted([TOKEN, password])
    error = refused(
        {
            "LAGASSIGN_TOKEN": "has whitespace " + TOKEN,
            "LAGASSIGN_SASL_PASSWORD": password,
            "LAGASSIGN_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
        }
    )
    assert TOKEN not in str(error)
    assert password not in str(error)
