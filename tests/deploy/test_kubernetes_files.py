"""The Kubernetes examples validate and fit together: limits, history, weights, pipeline.

Offline: Kubernetes' own kinds are validated strictly against the schemas
``kubernetes-validate`` ships for the oldest (1.29, native sidecars) and newest
versions it has; the rest checks what the files promise each other (the volume, the
weights path, the history path, the token Secret) and what the settings refuse.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml

from lagassign.settings import Settings, SettingsError

KUBERNETES = Path(__file__).resolve().parents[2] / "deploy" / "kubernetes"
VERSIONS = ("1.29", "1.37")
FILES = (
    "consumer-deployment.yaml",
    "history-and-pipeline.yaml",
    "strimzi/lagassign.yaml",
)
#: The largest RSS the docs measured for one sidecar (100,000 partitions, window + history).
MEASURED_PEAK_MIB = 399


def documents(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((KUBERNETES / name).read_text()) if d is not None]


def kind(name: str, wanted: str, metadata_name: str | None = None) -> dict[str, Any]:
    (found,) = [
        d
        for d in documents(name)
        if d["kind"] == wanted and metadata_name in (None, d["metadata"]["name"])
    ]
    return found


def mebibytes(quantity: str) -> float:
    number, unit = re.fullmatch(r"(\d+)(Mi|Gi)", quantity).groups()  # type: ignore[union-attr]
    return int(number) * (1024 if unit == "Gi" else 1)


def env_of(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", FILES)
def test_the_kubernetes_kinds_validate_strictly(name: str, version: str) -> None:
    checked = 0
    for doc in documents(name):
        if doc["apiVersion"].startswith(("kafka.strimzi.io/", "monitoring.coreos.com/")):
            continue
        kubernetes_validate.validate(doc, version, strict=True)
        checked += 1
    assert checked >= 1


def test_a_misspelt_cronjob_field_is_refused() -> None:
    cronjob = kind("history-and-pipeline.yaml", "CronJob")
    cronjob["spec"]["schedul"] = cronjob["spec"].pop("schedule")
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(cronjob, VERSIONS[0], strict=True)


def sidecar_containers() -> list[dict[str, Any]]:
    consumer = kind("consumer-deployment.yaml", "Deployment")["spec"]["template"]["spec"]
    recorder = kind("history-and-pipeline.yaml", "Deployment")["spec"]["template"]["spec"]
    strimzi = kind("strimzi/lagassign.yaml", "Deployment")["spec"]["template"]["spec"]
    return [*consumer["initContainers"], *recorder["containers"], *strimzi["containers"]]


def test_every_sidecar_has_a_memory_limit_above_the_measured_peak() -> None:
    for container in sidecar_containers():
        resources = container["resources"]
        assert mebibytes(resources["limits"]["memory"]) > MEASURED_PEAK_MIB
        assert mebibytes(resources["requests"]["memory"]) >= 128


def test_history_weights_and_pipeline_share_one_volume_and_their_paths() -> None:
    claim = kind("history-and-pipeline.yaml", "PersistentVolumeClaim")
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
    recorder = kind("history-and-pipeline.yaml", "Deployment")["spec"]["template"]["spec"]
    job = kind("history-and-pipeline.yaml", "CronJob")["spec"]
    pipeline_pod = job["jobTemplate"]["spec"]["template"]["spec"]
    consumer_pod = kind("consumer-deployment.yaml", "Deployment")["spec"]["template"]["spec"]
    for pod in (recorder, pipeline_pod, consumer_pod):
        claims = [
            v["persistentVolumeClaim"]["claimName"]
            for v in pod["volumes"]
            if "persistentVolumeClaim" in v
        ]
        assert claims == [claim["metadata"]["name"]]

    (pipeline,) = pipeline_pod["containers"]
    args = dict(a.removeprefix("--").split("=", 1) for a in pipeline["args"])
    (recorder_sidecar,) = recorder["containers"]
    assert env_of(recorder_sidecar)["LAGASSIGN_HISTORY_DIR"] == args["history"]
    (consumer_sidecar,) = consumer_pod["initContainers"]
    assert env_of(consumer_sidecar)["LAGASSIGN_WEIGHTS_PATH"] == args["weights"]
    assert "LAGASSIGN_HISTORY_DIR" not in env_of(consumer_sidecar)
    # The weights' freshness (the horizon) outlasts a schedule period, a roll and a run.
    assert float(args["horizon-seconds"]) >= 300 + 300 + 284
    assert job["concurrencyPolicy"] == "Forbid"

    def mounted(container: dict[str, Any], path: str) -> dict[str, Any]:
        (mount,) = [m for m in container["volumeMounts"] if path.startswith(m["mountPath"] + "/")]
        return dict(mount)

    assert mounted(consumer_sidecar, args["weights"]).get("readOnly") is True
    assert not mounted(recorder_sidecar, args["history"]).get("readOnly", False)
    assert not mounted(pipeline, args["weights"]).get("readOnly", False)
    # One recorder, never two at once (each would record every row).
    recorder_deployment = kind("history-and-pipeline.yaml", "Deployment")["spec"]
    assert recorder_deployment["replicas"] == 1
    assert recorder_deployment["strategy"]["type"] == "Recreate"
    # The image's user writes the volume.
    assert recorder["securityContext"]["fsGroup"] == 10001


def test_the_strimzi_secret_placeholder_is_refused_by_the_sidecar() -> None:
    secret = kind("strimzi/lagassign.yaml", "Secret")
    placeholder = secret["stringData"]["token"]
    with pytest.raises(SettingsError, match="LAGASSIGN_TOKEN"):
        Settings.from_environ({"LAGASSIGN_TOKEN": placeholder})


def test_the_strimzi_pod_monitor_scrapes_the_sidecar_deployment() -> None:
    deployment = kind("strimzi/lagassign.yaml", "Deployment")
    (monitor,) = documents("strimzi/podmonitor.yaml")
    assert (monitor["apiVersion"], monitor["kind"]) == ("monitoring.coreos.com/v1", "PodMonitor")
    assert monitor["metadata"]["namespace"] == deployment["metadata"]["namespace"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert monitor["spec"]["selector"]["matchLabels"].items() <= labels.items()
    (endpoint,) = monitor["spec"]["podMetricsEndpoints"]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert endpoint["port"] in {p["name"] for p in container["ports"]}
    assert endpoint["path"] == "/metrics"


def test_every_sidecar_with_a_history_runs_the_history_image() -> None:
    """LAGASSIGN_HISTORY_DIR needs pyarrow: the image built with the history extra."""
    seen = []
    for name in FILES:
        for document in documents(name):
            spec = document.get("spec", {}).get("template", {}).get("spec", {})
            for container in spec.get("containers", []) + spec.get("initContainers", []):
                if "/lagassign:" not in container.get("image", ""):
                    continue
                env = {e["name"] for e in container.get("env", [])}
                history = container["image"].endswith("-history")
                assert history == ("LAGASSIGN_HISTORY_DIR" in env), (name, container["name"])
                seen.append(history)
    assert sorted(set(seen)) == [False, True]
