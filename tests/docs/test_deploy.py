"""Tests that the Kubernetes overlays agree with the server they deploy and with each other."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from scopa.config import ENV_VARS, ConfigError, Settings
from scopa.server import READINESS_SERVICE
from scopa.telemetry import K8S_ENV_ATTRIBUTES

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
OVERLAYS = ("dev", "prod")
KUSTOMIZE = ROOT / ".venv-deploy" / "bin" / "kubectl"

pytestmark = pytest.mark.skipif(
    not KUSTOMIZE.exists(), reason="kubectl missing: run `make check-deploy`"
)

Docs = list[dict[str, Any]]


@pytest.fixture(scope="module")
def rendered() -> dict[str, Docs]:
    """Each overlay rendered by `kubectl kustomize`, as a list of objects."""
    out = {}
    for overlay in OVERLAYS:
        text = subprocess.run(
            [str(KUSTOMIZE), "kustomize", str(K8S / "overlays" / overlay)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        out[overlay] = [d for d in yaml.safe_load_all(text) if d]
    return out


def _one(docs: Docs, kind: str, name: str) -> dict[str, Any]:
    found = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind}/{name}, found {len(found)}"
    return found[0]


def _pod(docs: Docs) -> dict[str, Any]:
    pod: dict[str, Any] = _one(docs, "Deployment", "scopa")["spec"]["template"]["spec"]
    return pod


def _container(docs: Docs) -> dict[str, Any]:
    container: dict[str, Any] = _pod(docs)["containers"][0]
    return container


def _server_port(name: str) -> int:
    default = next(v.default for v in ENV_VARS if v.name == name)
    return int(default.strip("`"))


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_probes_use_the_server_health_services(rendered: dict[str, Docs], overlay: str) -> None:
    """Startup and liveness check the overall health service, readiness the Redis-backed one."""
    container = _container(rendered[overlay])
    grpc_port = _server_port("SCOPA_PORT")
    for probe, service in [
        ("startupProbe", ""),
        ("livenessProbe", ""),
        ("readinessProbe", READINESS_SERVICE),
    ]:
        assert container[probe]["grpc"] == {"port": grpc_port, "service": service}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_manifest_sets_only_variables_something_reads(
    rendered: dict[str, Docs], overlay: str
) -> None:
    """Each variable is documented by the server, a k8s attribute it reads, or an OTel SDK one."""
    env = _container(rendered[overlay])["env"]
    known = {v.name for v in ENV_VARS} | {name for name, _ in K8S_ENV_ATTRIBUTES}
    for name in (e["name"] for e in env):
        assert name in known or name.startswith("OTEL_"), name


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_pod_identity_comes_from_the_downward_api(rendered: dict[str, Docs], overlay: str) -> None:
    """Every k8s resource attribute the server reads is set from the pod's own fields."""
    env = {e["name"]: e for e in _container(rendered[overlay])["env"]}
    for name, _ in K8S_ENV_ATTRIBUTES:
        assert "fieldPath" in env[name]["valueFrom"]["fieldRef"], name


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_pod_meets_the_restricted_pod_security_profile(
    rendered: dict[str, Docs], overlay: str
) -> None:
    """Every pod runs as non-root with seccomp, no capabilities, no token and a read-only root."""
    templates = [
        d["spec"]["template"]["spec"]
        for d in rendered[overlay]
        if d["kind"] in {"Deployment", "StatefulSet"}
    ]
    assert len(templates) >= 2
    for pod in templates:
        assert pod["automountServiceAccountToken"] is False
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        for container in pod["containers"]:
            context = container["securityContext"]
            assert context["capabilities"] == {"drop": ["ALL"]}
            assert context["allowPrivilegeEscalation"] is False
            assert context["readOnlyRootFilesystem"] is True


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_namespace_enforces_restricted_and_holds_everything(
    rendered: dict[str, Docs], overlay: str
) -> None:
    """One non-default namespace enforces Pod Security "restricted"; every object is in it."""
    docs = rendered[overlay]
    (namespace,) = [d for d in docs if d["kind"] == "Namespace"]
    name = namespace["metadata"]["name"]
    assert name != "default"
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    assert all(d["metadata"]["namespace"] == name for d in docs if d["kind"] != "Namespace")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_shutdown_waits_for_endpoints_then_drains(rendered: dict[str, Docs], overlay: str) -> None:
    """A preStop delay comes first; the grace period covers it, the drain delay and the grace."""
    pod = _pod(rendered[overlay])
    sleep_s = _container(rendered[overlay])["lifecycle"]["preStop"]["sleep"]["seconds"]
    env = {e["name"]: e.get("value") for e in _container(rendered[overlay])["env"]}
    drain_s = float(env["SCOPA_DRAIN_DELAY_S"]) + float(env["SCOPA_GRACE_S"])
    assert sleep_s >= 3
    assert pod["terminationGracePeriodSeconds"] > sleep_s + drain_s


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_service_speaks_h2c_on_the_grpc_port(rendered: dict[str, Docs], overlay: str) -> None:
    """The gRPC port is marked as cleartext HTTP/2; both ports are the server's defaults."""
    ports = {p["name"]: p for p in _one(rendered[overlay], "Service", "scopa")["spec"]["ports"]}
    assert ports["grpc"]["port"] == _server_port("SCOPA_PORT")
    assert ports["grpc"]["appProtocol"] == "kubernetes.io/h2c"
    assert ports["http"]["port"] == _server_port("SCOPA_HTTP_PORT")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_disruption_budget_lets_a_drain_progress(rendered: dict[str, Docs], overlay: str) -> None:
    """The PodDisruptionBudget allows one pod down at a time, whatever the replica count."""
    spec = _one(rendered[overlay], "PodDisruptionBudget", "scopa")["spec"]
    assert spec == {"maxUnavailable": 1, "selector": spec["selector"]}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_traffic_is_denied_unless_allowed(rendered: dict[str, Docs], overlay: str) -> None:
    """A default-deny NetworkPolicy covers every pod in both directions."""
    deny = _one(rendered[overlay], "NetworkPolicy", "default-deny")["spec"]
    assert deny == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}


def test_dev_runs_one_replica_on_an_in_cluster_redis(rendered: dict[str, Docs]) -> None:
    """Dev: one replica whose REDIS_URL names the persistent in-cluster Redis."""
    docs = rendered["dev"]
    assert _one(docs, "Deployment", "scopa")["spec"]["replicas"] == 1
    env = {e["name"]: e for e in _container(docs)["env"]}
    assert env["REDIS_URL"] == {"name": "REDIS_URL", "value": "redis://redis:6379/0"}
    redis = _one(docs, "StatefulSet", "redis")["spec"]
    assert "--appendonly" in redis["template"]["spec"]["containers"][0]["args"]
    assert redis["volumeClaimTemplates"][0]["metadata"]["name"] == "data"


def test_prod_scales_from_three_replicas_on_cpu(rendered: dict[str, Docs]) -> None:
    """Prod: the autoscaler owns the replica count, at least 3, on CPU utilisation."""
    docs = rendered["prod"]
    assert "replicas" not in _one(docs, "Deployment", "scopa")["spec"]
    hpa = _one(docs, "HorizontalPodAutoscaler", "scopa")["spec"]
    assert hpa["minReplicas"] >= 3
    assert hpa["scaleTargetRef"]["name"] == "scopa"
    assert [m["resource"]["name"] for m in hpa["metrics"]] == ["cpu"]


def test_prod_reads_redis_from_the_secret_and_pins_the_image(rendered: dict[str, Docs]) -> None:
    """Prod: REDIS_URL comes from the Secret `scopa`, the image by digest, spread over nodes."""
    docs = rendered["prod"]
    container = _container(docs)
    env = {e["name"]: e for e in container["env"]}
    assert env["REDIS_URL"]["valueFrom"]["secretKeyRef"] == {"name": "scopa", "key": "redis-url"}
    assert "@sha256:" in container["image"]
    spread = _pod(docs)["topologySpreadConstraints"]
    assert {c["topologyKey"] for c in spread} >= {"kubernetes.io/hostname"}


def test_prod_takes_clients_only_from_the_ingress_controller(rendered: dict[str, Docs]) -> None:
    """Prod: pods admit only the controller's namespace, so its forwarded address is trusted."""
    docs = rendered["prod"]
    rules = _one(docs, "NetworkPolicy", "scopa")["spec"]["ingress"]
    assert rules
    for rule in rules:
        assert rule["from"]
        assert all(set(peer) == {"namespaceSelector"} for peer in rule["from"])
    env = {e["name"]: e.get("value") for e in _container(docs)["env"]}
    assert env["SCOPA_TRUSTED_PROXY_HEADER"] == "x-forwarded-for"


def test_prod_ingress_routes_both_ports_with_tls(rendered: dict[str, Docs]) -> None:
    """Prod: one TLS Ingress per port, gRPC with a gRPC backend, both to the scopa Service."""
    ingresses = {d["metadata"]["name"]: d for d in rendered["prod"] if d["kind"] == "Ingress"}
    ports = set()
    for ingress in ingresses.values():
        spec = ingress["spec"]
        hosts = {rule["host"] for rule in spec["rules"]}
        assert hosts <= {h for tls in spec["tls"] for h in tls["hosts"]}
        for rule in spec["rules"]:
            for path in rule["http"]["paths"]:
                assert path["backend"]["service"]["name"] == "scopa"
                ports.add(path["backend"]["service"]["port"]["name"])
    assert ports == {"grpc", "http"}
    grpc = ingresses["scopa-grpc"]["metadata"]["annotations"]
    assert grpc["nginx.ingress.kubernetes.io/backend-protocol"] == "GRPC"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_collector_receives_what_the_server_sends(rendered: dict[str, Docs], overlay: str) -> None:
    """The OTLP endpoint names the example collector's Service and port."""
    docs = rendered[overlay]
    env = {e["name"]: e.get("value") for e in _container(docs)["env"]}
    service = _one(docs, "Service", "otel-collector")
    port = service["spec"]["ports"][0]["port"]
    assert env["OTEL_EXPORTER_OTLP_ENDPOINT"] == f"http://otel-collector:{port}"


def test_no_secret_is_in_an_applied_folder() -> None:
    """Example Secrets live only under deploy/examples, which no overlay includes."""
    applied = [p for p in K8S.rglob("*.yaml") if "kind: Secret" in p.read_text()]
    assert applied == []
    examples = list((DEPLOY / "examples").glob("*secret*.yaml"))
    assert examples
    for example in examples:
        assert "WARNING" in example.read_text()


def test_example_secret_uses_redis_over_tls() -> None:
    """The example Secret's Redis URLs (each mode) use TLS and parse; its token is refused."""
    text = (DEPLOY / "examples" / "secret.example.yaml").read_text()
    (secret,) = yaml.safe_load_all(text)
    assert secret["metadata"]["name"] == "scopa"
    urls = re.findall(r"\brediss?(?:\+\w+)?://[^\s\"']+", text)
    assert secret["stringData"]["redis-url"] in urls
    assert {url.split("://")[0] for url in urls} == {"rediss", "rediss+cluster", "rediss+sentinel"}
    for url in urls:
        Settings.from_env({"REDIS_URL": url, "SCOPA_TOKEN_SECRET": "x" * 32})
    with pytest.raises(ConfigError, match="SCOPA_TOKEN_SECRET"):
        Settings.from_env({"SCOPA_TOKEN_SECRET": secret["stringData"]["token-secret"]})


def _dockerfile(instruction: str) -> list[str]:
    """Arguments of each `instruction` line of deploy/Dockerfile, in order."""
    lines = (DEPLOY / "Dockerfile").read_text().splitlines()
    return [line.split(None, 1)[1] for line in lines if line.startswith(f"{instruction} ")]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_pod_runs_as_the_image_user(rendered: dict[str, Docs], overlay: str) -> None:
    """The pod's runAsUser:runAsGroup is the final stage's USER, so files stay readable."""
    context = _pod(rendered[overlay])["securityContext"]
    assert f"{context['runAsUser']}:{context['runAsGroup']}" == _dockerfile("USER")[-1]


def test_image_exposes_the_container_ports(rendered: dict[str, Docs]) -> None:
    """The image's EXPOSE line lists exactly the container's ports."""
    exposed = {int(port) for port in _dockerfile("EXPOSE")[-1].split()}
    assert exposed == {p["containerPort"] for p in _container(rendered["prod"])["ports"]}


def test_image_entrypoint_is_the_server_script() -> None:
    """The image starts the console script the server package declares."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert _dockerfile("ENTRYPOINT")[-1] == '["scopa-server"]'
    assert "scopa-server" in scripts
