"""Tests that the Kubernetes manifests agree with the server they deploy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from scopa.config import ENV_VARS
from scopa.server import READINESS_SERVICE

ROOT = Path(__file__).resolve().parents[2]


def _container() -> dict[str, Any]:
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "k8s" / "deployment.yaml").read_text()))
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    container: dict[str, Any] = deployment["spec"]["template"]["spec"]["containers"][0]
    return container


def test_probes_use_the_server_health_services() -> None:
    """Liveness checks the overall health service and readiness the Redis-backed one."""
    container = _container()
    assert container["livenessProbe"]["grpc"]["service"] == ""
    assert container["readinessProbe"]["grpc"]["service"] == READINESS_SERVICE


def test_manifest_sets_only_documented_variables() -> None:
    """Every environment variable the manifest sets is one the server documents."""
    documented = {v.name for v in ENV_VARS}
    assert {e["name"] for e in _container()["env"]} <= documented
