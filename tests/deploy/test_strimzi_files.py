"""The Strimzi files in ``deploy/kubernetes/strimzi/`` parse, validate and fit together.

No cluster or Docker engine runs here. Kubernetes' own kinds (Deployment, Service,
Secret, Role, ...) are validated offline against the Kubernetes schemas that
``kubernetes-validate`` ships, strictly (an unknown field is an error). Strimzi's
custom resources (``Kafka``, ``KafkaNodePool``) have no schema there: the test checks
what the plugin needs of them (the custom image, the assignor list, the ``lagassign.*``
keys the plugin knows, the token from the same Secret the sidecar reads, the URL of the
sidecar's Service) and that the Dockerfile puts the jar Maven builds into Kafka's libs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
STRIMZI = REPO / "deploy" / "kubernetes" / "strimzi"
PLUGIN_CONFIG = REPO / "broker" / "src" / "main" / "java" / "io" / "lagassign" / "broker"
PLUGIN_CLASS = "io.lagassign.broker.LagassignAssignor"
KUBERNETES_VERSION = "1.31"


def documents(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((STRIMZI / name).read_text()) if d is not None]


def one(docs: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    (found,) = [d for d in docs if d["kind"] == kind]
    return found


def plugin_keys() -> set[str]:
    """Every ``lagassign.*`` broker property the plugin's configuration defines."""
    source = (PLUGIN_CONFIG / "LagassignConfig.java").read_text()
    return set(re.findall(r'_CONFIG = "(lagassign\.[a-z.]+)"', source))


@pytest.mark.parametrize("name", ["kafka.yaml", "lagassign.yaml"])
def test_kubernetes_kinds_validate_against_the_kubernetes_schema(name: str) -> None:
    validated = 0
    for doc in documents(name):
        if doc["apiVersion"].startswith("kafka.strimzi.io/"):
            continue
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
        validated += 1
    assert validated >= 2


def test_the_validator_rejects_a_misspelt_field() -> None:
    deployment = one(documents("lagassign.yaml"), "Deployment")
    deployment["spec"]["replica"] = 3
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)


def test_the_kafka_cluster_loads_the_plugin_from_the_custom_image() -> None:
    docs = documents("kafka.yaml")
    kafka = one(docs, "Kafka")
    pool = one(docs, "KafkaNodePool")
    assert pool["metadata"]["labels"]["strimzi.io/cluster"] == kafka["metadata"]["name"]
    assert "broker" in pool["spec"]["roles"]
    spec = kafka["spec"]["kafka"]
    assert "lagassign" in spec["image"]
    config = spec["config"]
    assignors = config["group.consumer.assignors"].split(",")
    # Kafka's own first (the default for groups that do not opt in), the plugin after.
    assert assignors[0] == "uniform"
    assert assignors[-1] == PLUGIN_CLASS
    used = {key for key in config if key.startswith("lagassign.")}
    assert used <= plugin_keys(), used - plugin_keys()
    assert {"lagassign.url", "lagassign.token", "lagassign.timeout.ms"} <= used
    assert 0 < int(config["lagassign.timeout.ms"]) <= 1000


def test_the_brokers_call_the_sidecar_service_with_its_token() -> None:
    kafka_docs = documents("kafka.yaml")
    sidecar_docs = documents("lagassign.yaml")
    kafka = one(kafka_docs, "Kafka")
    config = kafka["spec"]["kafka"]["config"]
    namespace = kafka["metadata"]["namespace"]

    service = one(sidecar_docs, "Service")
    (port,) = service["spec"]["ports"]
    url = f"http://{service['metadata']['name']}.{service['metadata']['namespace']}.svc:{port['port']}"
    assert config["lagassign.url"] == url

    # The token: Strimzi's config provider reads the Secret the sidecar reads.
    secret = one(sidecar_docs, "Secret")
    provider = re.fullmatch(r"\$\{(\w+):([\w-]+)/([\w-]+):(\w+)\}", config["lagassign.token"])
    assert provider is not None, config["lagassign.token"]
    assert config["config.providers"] == provider[1]
    assert (
        config[f"config.providers.{provider[1]}.class"]
        == "io.strimzi.kafka.KubernetesSecretConfigProvider"
    )
    assert (provider[2], provider[3]) == (
        secret["metadata"]["namespace"],
        secret["metadata"]["name"],
    )
    assert provider[4] in secret["stringData"]
    deployment = one(sidecar_docs, "Deployment")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e for e in container["env"]}
    token_ref = env["LAGASSIGN_TOKEN"]["valueFrom"]["secretKeyRef"]
    assert (token_ref["name"], token_ref["key"]) == (secret["metadata"]["name"], provider[4])

    # The brokers' service account (Strimzi names it <cluster>-kafka) may read that Secret.
    role = one(kafka_docs, "Role")
    binding = one(kafka_docs, "RoleBinding")
    assert role["rules"][0]["resourceNames"] == [secret["metadata"]["name"]]
    assert binding["roleRef"]["name"] == role["metadata"]["name"]
    (subject,) = binding["subjects"]
    assert subject["name"] == f"{kafka['metadata']['name']}-kafka"
    assert subject["namespace"] == namespace == secret["metadata"]["namespace"]


def test_the_sidecar_is_a_token_guarded_service_of_several_replicas() -> None:
    docs = documents("lagassign.yaml")
    deployment = one(docs, "Deployment")
    service = one(docs, "Service")
    budget = one(docs, "PodDisruptionBudget")
    assert deployment["spec"]["replicas"] >= 2
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()
    assert budget["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert budget["spec"]["minAvailable"] < deployment["spec"]["replicas"]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e.get("value") for e in container["env"]}
    # Reached from the brokers: bound beyond loopback, which the sidecar allows only with a token.
    assert env["LAGASSIGN_HOST"] == "0.0.0.0"
    assert "LAGASSIGN_TOKEN" in env
    assert env["LAGASSIGN_TRACK_CONSUMER_GROUPS"] == "true"
    (port,) = container["ports"]
    assert service["spec"]["ports"][0]["targetPort"] == port["name"]
    assert int(env["LAGASSIGN_PORT"]) == port["containerPort"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/livez"


def test_the_dockerfile_puts_the_built_plugin_jar_into_kafkas_libs() -> None:
    text = (STRIMZI / "Dockerfile").read_text()
    pom = (REPO / "broker" / "pom.xml").read_text()
    final_name = re.search(r"<finalName>([^<]+)</finalName>", pom)
    assert final_name is not None
    jar = f"/src/broker/target/{final_name[1]}.jar"
    assert re.search(rf"^COPY --from=plugin {re.escape(jar)} /opt/kafka/libs/$", text, re.M)
    stages = re.findall(r"^FROM (\S+)", text, re.M)
    assert stages[-1] == "${STRIMZI_KAFKA_IMAGE}"
    assert "ARG STRIMZI_KAFKA_IMAGE" in text
