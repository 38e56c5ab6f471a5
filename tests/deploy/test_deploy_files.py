"""The files in ``deploy/`` and the Dockerfile parse, fit together and name real metrics.

No Docker engine or cluster runs here: these tests read the files (YAML with
PyYAML's safe loader, the dashboard with ``json``), validate the compose file
against the Compose Specification's JSON schema (the copy ``check-jsonschema``
ships, so no network), and check what would otherwise only fail at deploy time:
names that must match, the probes, the native-sidecar shape, the KRaft settings,
and that every metric a rule or panel queries is one the service really exports.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from lagassign.history.parquet import ParquetHistorySink
from lagassign.history.recorder import HistoryRecorder
from lagassign.http.sidecar import build_sidecar
from lagassign.lagview.time_lag import StallClock
from lagassign.rates.window import RateWindow
from lagassign.settings import Settings
from tests.service.fake_lag_view import FakeLagView, snapshot_of

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
METRIC = re.compile(r"\b(lagassign_[a-z_]+)\b")


CHECK_JSONSCHEMA = Path(sys.executable).parent / "check-jsonschema"


def load_all(text: str) -> list[Any]:
    """Every document of a YAML text, as plain dicts, lists and scalars."""
    return list(yaml.safe_load_all(text))


def yaml_file(relative: str) -> list[Any]:
    return load_all((DEPLOY / relative).read_text())


def compose_schema_errors(path: Path) -> str | None:
    """None if ``path`` is a valid Compose file, else the validator's message."""
    done = subprocess.run(
        [str(CHECK_JSONSCHEMA), "--builtin-schema", "vendor.compose-spec", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return None if done.returncode == 0 else done.stdout + done.stderr


@pytest.fixture(scope="module")
def exported_metrics(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """Every sample name the app's registry can expose, read from a live app."""
    view = FakeLagView({"orders": snapshot_of("orders", {"t0": [5, 6]})})
    # What the real lag view has besides: its stall clock and the history recorder.
    view.store = SimpleNamespace(stalls=StallClock())  # type: ignore[attr-defined]
    history = ParquetHistorySink(tmp_path_factory.mktemp("history"), "local")
    view.listeners = [HistoryRecorder(history)]  # type: ignore[attr-defined]
    weights = tmp_path_factory.mktemp("weights") / "forecast-weights.json"
    settings = Settings.from_environ({"LAGASSIGN_WEIGHTS_PATH": str(weights)})
    sidecar = build_sidecar(settings, lag_view=view, kafka=False)
    sidecar.metrics.collect_rates_of(view, RateWindow())
    suffixes = {
        "counter": ("_total", "_created"),
        "histogram": ("_bucket", "_count", "_sum", "_created"),
        "gauge": ("",),
        "info": ("_info",),
        "summary": ("_count", "_sum", "_created"),
    }
    names: set[str] = set()
    for family in sidecar.metrics.registry.collect():
        names.update(family.name + suffix for suffix in suffixes[family.type])
    return names


def queried_metrics(expressions: Iterator[str]) -> set[str]:
    return {name for expr in expressions for name in METRIC.findall(expr)}


def test_every_yaml_file_parses() -> None:
    files = sorted(DEPLOY.glob("**/*.y*ml"))
    assert len(files) >= 5
    for path in files:
        if "local-kafka" in path.parts:
            continue
        documents = load_all(path.read_text())
        assert documents, path
        assert all(isinstance(d, dict) for d in documents), path


def test_compose_file_follows_the_compose_specification(tmp_path: Path) -> None:
    assert compose_schema_errors(DEPLOY / "compose.yaml") is None
    # The check can fail: a service with a misspelt key is refused.
    (compose,) = yaml_file("compose.yaml")
    compose["services"]["lagassign"]["healthchek"] = compose["services"]["lagassign"].get(
        "healthcheck", {}
    )
    broken = tmp_path / "compose.yaml"
    broken.write_text(yaml.safe_dump(compose))
    errors = compose_schema_errors(broken)
    assert errors is not None
    assert "healthchek" in errors


def test_compose_runs_kraft_kafka_the_sidecar_and_prometheus() -> None:
    (compose,) = yaml_file("compose.yaml")
    services = compose["services"]
    assert set(services) == {"kafka", "lagassign", "prometheus"}

    kafka = services["kafka"]
    assert kafka["image"].startswith("apache/kafka:")
    env = kafka["environment"]
    assert env["KAFKA_PROCESS_ROLES"] == "broker,controller"
    assert "CONTROLLER" in env["KAFKA_CONTROLLER_LISTENER_NAMES"]
    assert not any("ZOOKEEPER" in key for key in env)

    sidecar = services["lagassign"]
    assert (DEPLOY / sidecar["build"]["context"] / sidecar["build"]["dockerfile"]).is_file()
    assert sidecar["depends_on"]["kafka"]["condition"] == "service_healthy"
    sidecar_env = sidecar["environment"]
    assert sidecar_env["LAGASSIGN_BOOTSTRAP_SERVERS"] == "kafka:9092"
    # Bound beyond loopback, so the token is required from the environment, never baked in.
    assert sidecar_env["LAGASSIGN_HOST"] == "0.0.0.0"
    assert sidecar_env["LAGASSIGN_TOKEN"].startswith("${LAGASSIGN_TOKEN:?")
    assert "LAGASSIGN_ALLOW_UNAUTHENTICATED" not in sidecar_env

    prometheus = services["prometheus"]
    mounted = {v.split(":")[0] for v in prometheus["volumes"]}
    assert "./prometheus/rules.yaml" in mounted
    for volume in mounted:
        if volume.startswith("./"):
            assert (DEPLOY / volume).is_file(), volume

    for service in services.values():
        for port in service.get("ports", []):
            assert port.startswith("127.0.0.1:"), port


def test_prometheus_scrapes_the_sidecar_and_loads_the_rules() -> None:
    (config,) = yaml_file("prometheus/prometheus.yml")
    assert config["rule_files"] == ["/etc/prometheus/rules.yaml"]
    (job,) = config["scrape_configs"]
    assert job["metrics_path"] == "/metrics"
    assert job["static_configs"][0]["targets"] == ["lagassign:8321"]


def test_the_kubernetes_consumer_runs_lagassign_as_a_native_sidecar() -> None:
    (deployment,) = yaml_file("kubernetes/consumer-deployment.yaml")
    assert deployment["kind"] == "Deployment"
    pod = deployment["spec"]["template"]
    assert (
        deployment["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    )
    (sidecar,) = pod["spec"]["initContainers"]
    assert sidecar["restartPolicy"] == "Always"
    assert sidecar["livenessProbe"]["httpGet"]["path"] == "/livez"
    # Kafka down must not make every consumer pod NotReady (the file says why).
    assert "readinessProbe" not in sidecar
    assert sidecar["startupProbe"]["httpGet"]["path"] == "/livez"
    (port,) = sidecar["ports"]
    assert port["containerPort"] == 8321
    env = {e["name"]: e for e in sidecar["env"]}
    assert env["LAGASSIGN_HOST"]["value"] == "0.0.0.0"
    assert "secretKeyRef" in env["LAGASSIGN_TOKEN"]["valueFrom"]
    assert sidecar["securityContext"]["runAsUser"] == dockerfile_uid()
    assert sidecar["securityContext"]["readOnlyRootFilesystem"] is True
    (consumer,) = pod["spec"]["containers"]
    consumer_env = {e["name"]: e for e in consumer["env"]}
    assert consumer_env["LAGASSIGN_URL"]["value"] == "http://127.0.0.1:8321"


def test_the_pod_monitor_selects_the_consumer_pods_and_their_sidecar_port() -> None:
    (deployment,) = yaml_file("kubernetes/consumer-deployment.yaml")
    (monitor,) = yaml_file("kubernetes/podmonitor.yaml")
    assert monitor["kind"] == "PodMonitor"
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert monitor["spec"]["selector"]["matchLabels"].items() <= labels.items()
    (endpoint,) = monitor["spec"]["podMetricsEndpoints"]
    (sidecar,) = deployment["spec"]["template"]["spec"]["initContainers"]
    assert endpoint["port"] == sidecar["ports"][0]["name"]
    assert endpoint["path"] == "/metrics"


def test_the_alert_rules_cover_staleness_imbalance_and_fallback(
    exported_metrics: set[str],
) -> None:
    (rules,) = yaml_file("prometheus/rules.yaml")
    alerts = {r["alert"]: r for group in rules["groups"] for r in group["rules"]}
    assert {"LagassignLagStale", "LagassignHighImbalance", "LagassignFallbackSuspected"} <= set(
        alerts
    )
    for name, rule in alerts.items():
        assert rule["expr"].strip(), name
        assert rule["labels"]["severity"] in {"info", "warning", "critical"}, name
        assert rule["annotations"]["summary"], name
        assert re.fullmatch(r"\d+[smh]", rule["for"]), name
    used = queried_metrics(r["expr"] for r in alerts.values())
    assert used, "the rules query no lagassign metric"
    assert used <= exported_metrics, used - exported_metrics


def test_the_dashboard_is_valid_json_and_queries_exported_metrics(
    exported_metrics: set[str],
) -> None:
    dashboard = json.loads((DEPLOY / "grafana" / "lagassign.json").read_text())
    panels = dashboard["panels"]
    ids = [p["id"] for p in panels]
    assert len(ids) == len(set(ids))
    for panel in panels:
        grid = panel["gridPos"]
        assert grid["x"] + grid["w"] <= 24, panel["title"]
    expressions = [t["expr"] for p in panels for t in p.get("targets", [])]
    assert len(expressions) >= 10
    used = queried_metrics(iter(expressions))
    assert used <= exported_metrics, used - exported_metrics
    # The panels cover lag, skew, answers and the lag view.
    for metric in (
        "lagassign_group_lag_sum",
        "lagassign_assignment_imbalance_ratio",
        "lagassign_assign_duration_seconds_bucket",
        "lagassign_lag_snapshot_timestamp_seconds",
        "lagassign_kafka_up",
    ):
        assert metric in used, metric
    variables = {v["name"] for v in dashboard["templating"]["list"]}
    assert {"datasource", "group"} <= variables


def test_the_dockerfile_is_slim_non_root_and_checks_livez() -> None:
    text = (REPO / "Dockerfile").read_text()
    stages = re.findall(r"^FROM\s+(\S+)", text, re.MULTILINE)
    # the Rust toolchain, the build, then a runtime without the build tools
    assert stages == ["${RUST_IMAGE}", "${DEBIAN_IMAGE}", "${DEBIAN_IMAGE}"]
    assert dockerfile_uid() != 0
    healthcheck = re.search(r"^HEALTHCHECK .*?(?<!\\)$", text, re.MULTILINE | re.DOTALL)
    assert healthcheck is not None
    assert "/livez" in healthcheck.group(0)
    assert re.search(r'^CMD \["serve"\]', text, re.MULTILINE)
    assert "--workers" not in text
    instructions = [line for line in text.splitlines() if line and not line.startswith("#")]
    installs = [line for line in instructions if "/opt/lagassign" in line and " install " in line]
    # no [dev], no [pipeline]: the history extra only when asked for (its own image tag)
    assert installs == [
        'RUN pip --python /opt/lagassign/bin/python install /wheels/numpy-*.whl ".${EXTRAS}"'
    ]
    assert 'ARG EXTRAS=""' in instructions
    for line in instructions:
        if line.startswith(("FROM", "RUN")):
            assert not re.search(r"jdk|java|spark|temurin", line, re.IGNORECASE), line
    # The Rust extension and NumPy are built in the build stage; the runtime stage has no
    # toolchain, and its venv has no pip (it is made --without-pip).
    _, build, runtime = re.split(r"^FROM .*$", text, flags=re.MULTILINE)[1:]
    assert "COPY native ./native" in build
    assert "COPY --from=rust /usr/local/cargo /usr/local/cargo" in build
    assert "RUN /usr/bin/python3.11 -m venv --without-pip /opt/lagassign" in build
    assert "-Csetup-args=-Dblas=none" in build
    assert not re.search(r"cargo|rustup|gcc|pip|wheels|PROXY_CA|/opt/build", runtime), runtime
    # Debian's Python in both stages: the venv's interpreter is the runtime's
    assert "python3.11 ca-certificates" in runtime
    ignored = [
        line
        for line in (REPO / ".dockerignore").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert ignored[:5] == ["*", "!pyproject.toml", "!setup.cfg", "!README.md", "!service/"]
    # setup.cfg tags the wheel abi3: the build stage copies it beside pyproject.toml
    assert "COPY pyproject.toml setup.cfg README.md ./" in build


def test_the_base_images_are_named_once_and_a_proxy_ca_reaches_the_build() -> None:
    text = (REPO / "Dockerfile").read_text()
    instructions = [line for line in text.splitlines() if line and not line.startswith("#")]
    images = re.findall(r"^ARG (\w+_IMAGE)=(\S+)$", text, re.MULTILINE)
    assert dict(images) == {
        "DEBIAN_IMAGE": "debian:bookworm-slim",
        "RUST_IMAGE": "rust:1-slim-bookworm",
    }
    for _, image in images:  # each named once, in its ARG line
        assert sum(image in line for line in instructions) == 1, image
    # Every stage comes from an ARG or an earlier stage, never a name written in place.
    for source in re.findall(r"^(?:FROM|COPY --from=)(\S+)", text, re.MULTILINE):
        assert source.startswith("${") or source in {"rust", "build"}, source
    build = re.split(r"^FROM .*$", text, flags=re.MULTILINE)[2]
    assert 'ARG PROXY_CA=""' in build
    assert "update-ca-certificates" in build
    # pip and cargo read the system bundle the CA is added to, before any HTTPS download
    # (apt reads Debian's archive over HTTP, its indexes signed)
    for variable in ("PIP_CERT", "CARGO_HTTP_CAINFO", "SSL_CERT_FILE"):
        assert f"{variable}=/etc/ssl/certs/ca-certificates.crt" in build
    assert build.index("update-ca-certificates") < build.index("pip install --upgrade pip")


def dockerfile_uid() -> int:
    text = (REPO / "Dockerfile").read_text()
    match = re.search(r"^USER (\d+)", text, re.MULTILINE)
    assert match is not None, "the Dockerfile must switch to a numeric non-root user"
    return int(match.group(1))


def test_every_alert_has_a_dashboard_panel_for_each_metric_it_reads() -> None:
    """An alert that fires points at a panel: every metric an alert reads is on one."""
    (rules,) = yaml_file("prometheus/rules.yaml")
    dashboard = json.loads((DEPLOY / "grafana" / "lagassign.json").read_text())
    shown = "\n".join(t["expr"] for p in dashboard["panels"] for t in p.get("targets", []))
    on_panels = queried_metrics(iter([shown]))
    missing = {}
    for group in rules["groups"]:
        for rule in group["rules"]:
            # LagassignSidecarDown reads Prometheus' own `up`, checked below.
            wanted = queried_metrics(iter([rule["expr"]]))
            if not wanted <= on_panels:
                missing[rule["alert"]] = sorted(wanted - on_panels)
    assert missing == {}, missing
    assert 'up{job=~".*lagassign.*"}' in shown


def test_the_readme_names_every_metric_family(exported_metrics: set[str]) -> None:
    readme = (DEPLOY.parent / "README.md").read_text()
    listed = readme[readme.index("- `GET /metrics`") : readme.index("- `GET /livez`")]
    named = set(METRIC.findall(listed))
    families = {
        re.sub(r"_(bucket|count|sum)$", "", n)
        for n in exported_metrics
        if not n.endswith("_created")
    }
    # A histogram's _sum/_count and a family ending in _sum (lagassign_group_lag_sum) alike.
    missing = sorted(f for f in families if f not in named and f + "_sum" not in named)
    assert not missing, ", ".join(missing)
