"""The sidecar's settings: one object, read from ``LAGASSIGN_*`` environment variables.

Built at start-up from an ``environ`` mapping (:meth:`Settings.from_environ`),
never at import, so tests pass a plain dict. Nonsense is refused at once with a
:class:`SettingsError` whose message names each bad variable::

    LAGASSIGN_BOOTSTRAP_SERVERS: 'kafka' is not host:port
    LAGASSIGN_HOST: binding 0.0.0.0 (not a loopback address) needs LAGASSIGN_TOKEN, ...

Secrets (``LAGASSIGN_TOKEN``, ``LAGASSIGN_SASL_PASSWORD``) are ``SecretStr``:
their ``repr`` and ``str`` show ``**********`` and error messages never echo them.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from lagassign.core.strategies import DEFAULT_STRATEGY, STRATEGIES
from lagassign.lagview.rules import RESET_POLICIES, ResetPolicy
from lagassign.limits import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_MEMBERS,
    DEFAULT_MAX_PARTITIONS,
    INT32_MAX,
    RequestLimits,
)

ENV_PREFIX = "LAGASSIGN_"

SecurityProtocol = Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"]
SaslMechanism = Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]
LogLevel = Literal["critical", "error", "warning", "info", "debug"]
LagModel = Literal["backlog", "load", "drain"]

SECRET_FIELDS = frozenset({"token", "sasl_password"})
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
HOSTNAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$")


class SettingsError(ValueError):
    """The settings are refused; ``problems`` lists one line per bad variable."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("invalid settings:\n" + "\n".join(f"  {p}" for p in problems))
        self.problems = problems


def env_name(field_name: str) -> str:
    return ENV_PREFIX + field_name.upper()


def split_list(value: Any) -> Any:
    """``"a, b,,c"`` -> ``("a", "b", "c")``; other values pass through to validation."""
    if isinstance(value, str):
        return tuple(item.strip() for item in value.split(",") if item.strip())
    return value


def check_host_port(address: str) -> str:
    host, sep, port = address.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{address!r} is not host:port")
    if not is_ip_address(host) and not HOSTNAME.match(host):
        raise ValueError(f"{address!r} does not name a valid host")
    return address


def is_ip_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Settings(BaseSettings):
    """Every setting of the sidecar; the field ``x`` is read from ``LAGASSIGN_X``."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        case_sensitive=False,
        extra="ignore",
        frozen=True,
        hide_input_in_errors=True,
    )

    # HTTP
    #: Address to bind; anything but loopback needs a token or the explicit opt-out.
    host: str = "127.0.0.1"
    port: int = Field(8321, ge=1, le=65535)
    #: Bearer token that guards /assign and /groups (at least 16 characters).
    token: SecretStr | None = None
    #: Serve a non-loopback address without a token, on purpose.
    allow_unauthenticated: bool = False
    log_level: LogLevel = "info"
    #: One log line per HTTP request (off: a rebalance storm should not flood the log).
    access_log: bool = False
    #: Slow and idle clients: seconds to send a request's headers, to send its body,
    #: and idle between requests on a kept-alive connection.
    header_timeout_s: float = Field(10.0, gt=0, le=600)
    body_timeout_s: float = Field(30.0, gt=0, le=600)
    keep_alive_timeout_s: int = Field(5, ge=1, le=600)
    #: Open connections at most (uvicorn answers 503 beyond, in plain text).
    max_connections: int = Field(1_000, ge=1, le=100_000)
    #: Heavy requests (past a cost estimate) computed at once in worker threads; one
    #: more waits at most heavy_wait_s, then gets 503 with Retry-After.
    max_heavy_requests: int = Field(2, ge=1, le=64)
    heavy_wait_s: float = Field(10.0, gt=0, le=600)
    #: Bytes of a request line and headers at most (uvicorn answers 400 beyond).
    max_header_bytes: int = Field(64 * 1024, ge=1024, le=16 * 1024 * 1024)
    #: Host header values served (comma list; ``*`` any, ``*.example.com`` subdomains).
    #: Unset: the loopback names when bound to loopback, any host otherwise (a token
    #: guards a non-loopback bind).
    allowed_hosts: Annotated[tuple[str, ...] | None, NoDecode] = None

    # Assignment
    #: Strategy for requests that name none.
    default_strategy: str = DEFAULT_STRATEGY
    #: How long /assign may wait for an on-demand lag read of an unknown group (0: never).
    on_demand_budget_ms: int = Field(500, ge=0, le=60_000)
    #: Limits of one request (413 beyond them); lagassign.limits holds the defaults.
    max_members: int = Field(DEFAULT_MAX_MEMBERS, ge=1, le=INT32_MAX)
    max_partitions: int = Field(DEFAULT_MAX_PARTITIONS, ge=1, le=INT32_MAX)
    max_body_bytes: int = Field(DEFAULT_MAX_BODY_BYTES, ge=1024, le=2**40)
    #: The pipeline's forecast weights file, and how old its history may be to be used
    #: (unset: the file's forecast horizon).
    weights_path: Path | None = None
    weights_max_age_s: float | None = Field(None, gt=0)
    #: How long the last good weights stay in use after the file turns unusable.
    weights_error_grace_s: float = Field(60.0, ge=0, le=86_400)

    # Rebalance advice (classic groups)
    #: The share by which a rebalance must lower the worst member's lag to be advised.
    advice_min_gain: float = Field(0.3, gt=0, lt=1)
    #: How long that gain must hold, without a break, before a rebalance is advised
    #: (unset: in proportion to the projected catch-up, lagassign.groups.advice).
    advice_hold_s: float | None = Field(None, ge=0, le=86_400)
    #: No advice within this long of the group's last rebalance (unset: in proportion).
    advice_cooldown_s: float | None = Field(None, ge=0, le=604_800)
    #: What one rebalance stalls a group, in seconds: a rebalance is advised only when it
    #: shortens the projected catch-up by more than twice this.
    advice_rebalance_cost_s: float = Field(1.0, ge=0, le=86_400)
    #: Advise consumer-protocol groups on the broker plugin too, and act on it: the
    #: sidecar's own member joins and leaves the group so that the broker computes a new
    #: target assignment (lagassign.lagview.kafka.nudge; needs READ on the group).
    nudge_consumer_groups: bool = False

    # Lag view
    #: Comma-separated host:port list.
    bootstrap_servers: Annotated[tuple[str, ...], NoDecode] = ("127.0.0.1:9092",)
    #: Seconds between lag refreshes.
    refresh_interval_s: float = Field(10.0, ge=0.1, le=3_600)
    #: Bound on each Kafka request of a refresh.
    kafka_timeout_ms: int = Field(5_000, ge=100, le=120_000)
    #: Groups to track from the start (comma list), and a regex over the cluster's
    #: group ids (the whole id must match); /assign adds its groups as they come.
    groups: Annotated[tuple[str, ...], NoDecode] = ()
    group_pattern: str | None = None
    #: Track every consumer-protocol group (KIP-848) of the cluster, so the broker
    #: plugin's requests (which name no group) resolve to them by member id.
    track_consumer_groups: bool = True
    #: Lag of a partition without a committed offset: ``latest`` (0) or ``earliest``;
    #: per-group overrides as ``group=policy,...``.
    reset_policy: ResetPolicy = "latest"
    group_reset_policies: Annotated[dict[str, ResetPolicy], NoDecode] = Field(default_factory=dict)
    #: Groups whose lag is measured to the last stable offset (comma list).
    read_committed_groups: Annotated[tuple[str, ...], NoDecode] = ()
    #: Where the lag history is written (Parquet); unset: no history.
    history_dir: Path | None = None
    #: A history file is finished (readable by the pipeline) at the first refresh once
    #: it is this old, or once it reaches the size below.
    history_roll_interval_s: float = Field(300.0, ge=1, le=86_400)
    history_max_file_bytes: int = Field(64 * 1024 * 1024, ge=64 * 1024)
    #: The cluster's name in the history and the forecast weights.
    cluster: str = Field("default", min_length=1)
    #: Groups tracked because they called /assign (not named or matched above): at
    #: most this many (least recently used dropped first), dropped when unused this
    #: long; their metric series and recent answers go with them.
    max_tracked_groups: int = Field(1_000, ge=1, le=1_000_000)
    tracked_group_idle_s: float = Field(3_600.0, gt=0, le=30 * 86_400)
    #: Bytes the recent answers shown by /groups may hold, oldest dropped first.
    answer_log_max_bytes: int = Field(64 * 1024 * 1024, ge=1024, le=2**40)
    #: Export lagassign_partition_lag (switch off for groups with very many partitions).
    partition_metrics: bool = True

    # Live rates and time lag
    #: How far back the rate window reaches, in seconds (produce/consume rate, time lag).
    rate_window_s: float = Field(900.0, ge=10, le=86_400)
    #: The most points one partition keeps in the window (they are spread over it).
    rate_window_points: int = Field(64, ge=2, le=10_000)
    #: The weight /assign uses from the lag view: ``backlog`` (lag), ``load``
    #: (lag + produce rate x ``LAGASSIGN_LOAD_HORIZON_S``) or ``drain`` (lag + produce
    #: rate x the group's catch-up horizon, lagassign.rates.drain).
    lag_model: LagModel = "drain"
    load_horizon_s: float = Field(60.0, gt=0, le=86_400)
    #: Records/s one member can read, for the ``drain`` model (unset: measured).
    member_capacity: float | None = Field(None, gt=0, le=1e12)

    # Kafka security
    security_protocol: SecurityProtocol = "PLAINTEXT"
    sasl_mechanism: SaslMechanism | None = None
    sasl_username: str | None = None
    sasl_password: SecretStr | None = None
    #: CA bundle for SSL and SASL_SSL (default: the system's CAs).
    ssl_cafile: Path | None = None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Settings:
        """Read ``LAGASSIGN_*`` from ``environ`` (case-insensitive); SettingsError if refused."""
        try:
            values = MappingEnvSource(cls, environ)()
            return cls(**values)
        except ValidationError as exc:
            raise SettingsError(problems_of(exc)) from None
        except ValueError as exc:
            # pydantic-settings reports undecodable complex values this way.
            raise SettingsError([str(exc)]) from None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Only what the caller passes: never os.environ behind its back.
        return (init_settings,)

    @field_validator(
        "bootstrap_servers", "groups", "read_committed_groups", "allowed_hosts", mode="before"
    )
    @classmethod
    def _split_lists(cls, value: Any) -> Any:
        return split_list(value)

    @field_validator("bootstrap_servers")
    @classmethod
    def _check_bootstrap(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("must list at least one host:port")
        return tuple(check_host_port(address) for address in value)

    @field_validator("host")
    @classmethod
    def _check_host(cls, value: str) -> str:
        if not is_ip_address(value) and not HOSTNAME.match(value):
            raise ValueError(f"{value!r} is not an IP address or host name")
        return value

    @field_validator("token")
    @classmethod
    def _check_token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        secret = value.get_secret_value()
        if len(secret) < 16 or any(c.isspace() for c in secret):
            raise ValueError("must be at least 16 characters with no whitespace")
        return value

    @field_validator("default_strategy")
    @classmethod
    def _check_strategy(cls, value: str) -> str:
        if value not in STRATEGIES:
            raise ValueError(f"{value!r} is unknown; use one of: {', '.join(STRATEGIES)}")
        return value

    @field_validator("group_pattern")
    @classmethod
    def _check_pattern(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"{value!r} is not a valid regular expression: {exc}") from None
        return value

    @field_validator("group_reset_policies", mode="before")
    @classmethod
    def _parse_reset_policies(cls, value: Any) -> Any:
        """``"orders=earliest, audit=latest"`` -> ``{"orders": "earliest", "audit": "latest"}``."""
        if not isinstance(value, str):
            return value
        out: dict[str, str] = {}
        for item in split_list(value):
            group, sep, policy = item.rpartition("=")
            if not sep or not group.strip() or policy.strip() not in RESET_POLICIES:
                raise ValueError(
                    f"{item!r} is not group=policy with policy one of: {', '.join(RESET_POLICIES)}"
                )
            out[group.strip()] = policy.strip()
        return out

    @field_validator("ssl_cafile")
    @classmethod
    def _check_cafile(cls, value: Path | None) -> Path | None:
        if value is not None and not value.is_file():
            raise ValueError(f"{str(value)!r} is not a readable file")
        return value

    @model_validator(mode="after")
    def _check_together(self) -> Settings:
        problems: list[str] = []
        if not is_loopback(self.host) and self.token is None and not self.allow_unauthenticated:
            problems.append(
                f"{env_name('host')}: binding {self.host} (not a loopback address) needs "
                f"{env_name('token')}, or {env_name('allow_unauthenticated')}=true to serve "
                "without authentication on purpose"
            )
        sasl = self.security_protocol.startswith("SASL_")
        if sasl:
            missing = [
                env_name(name)
                for name in ("sasl_mechanism", "sasl_username", "sasl_password")
                if getattr(self, name) is None
            ]
            if missing:
                problems.append(
                    f"{env_name('security_protocol')}: {self.security_protocol} needs "
                    + ", ".join(missing)
                )
        elif self.sasl_mechanism or self.sasl_username or self.sasl_password:
            problems.append(
                f"{env_name('security_protocol')}: SASL settings are given but the protocol is "
                f"{self.security_protocol}; use SASL_PLAINTEXT or SASL_SSL"
            )
        if self.ssl_cafile is not None and not self.security_protocol.endswith("SSL"):
            problems.append(
                f"{env_name('ssl_cafile')}: a CA file needs {env_name('security_protocol')} "
                "SSL or SASL_SSL"
            )
        if problems:
            raise ValueError("\n".join(problems))
        return self

    @property
    def group_regex(self) -> re.Pattern[str] | None:
        return re.compile(self.group_pattern) if self.group_pattern else None

    @property
    def hosts_served(self) -> tuple[str, ...]:
        """The Host header values served: the setting, or the default of its comment."""
        if self.allowed_hosts is not None:
            return self.allowed_hosts
        return LOOPBACK_NAMES if is_loopback(self.host) else ("*",)

    @property
    def request_limits(self) -> RequestLimits:
        return RequestLimits(self.max_members, self.max_partitions, self.max_body_bytes)

    @property
    def on_demand_budget_s(self) -> float:
        return self.on_demand_budget_ms / 1000

    def reset_policy_of(self, group_id: str) -> ResetPolicy:
        return self.group_reset_policies.get(group_id, self.reset_policy)

    def secrets(self) -> list[str]:
        """The secret values, for scrubbing them from anything that leaves the process."""
        return [s.get_secret_value() for s in (self.token, self.sasl_password) if s is not None]


class MappingEnvSource(EnvSettingsSource):
    """pydantic-settings' environment source over a given mapping instead of os.environ."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._environ = {k.lower(): v for k, v in environ.items()}
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return self._environ


def problems_of(exc: ValidationError) -> list[str]:
    """One line per error, naming the environment variable, never echoing the input."""
    problems: list[str] = []
    for error in exc.errors(include_url=False, include_context=False):
        message = str(error["msg"]).removeprefix("Value error, ")
        loc = error["loc"]
        if loc:
            name = str(loc[0])
            given = error.get("input")
            if name not in SECRET_FIELDS and isinstance(given, str) and repr(given) not in message:
                message += f" (got {given!r})"
            problems.append(f"{env_name(name)}: {message}")
        else:
            problems.extend(message.splitlines())
    return problems
