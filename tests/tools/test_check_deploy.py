"""Tests of tools/check_deploy.py: each offline check rejects what it exists to reject."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def load_tool() -> ModuleType:
    """Import tools/check_deploy.py (a script, not a package module)."""
    path = ROOT / "tools" / "check_deploy.py"
    spec = importlib.util.spec_from_file_location("check_deploy", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


CHECK = load_tool()
TOOLS: Path = CHECK.DEFAULT_BIN

pytestmark = pytest.mark.skipif(
    not (TOOLS / "checkov").exists(), reason="deploy tools missing: run `make check-deploy`"
)


def _docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _write(path: Path, docs: list[dict[str, Any]]) -> Path:
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return path


def _container(docs: list[dict[str, Any]], name: str) -> dict[str, Any]:
    (deployment,) = [d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == name]
    container: dict[str, Any] = deployment["spec"]["template"]["spec"]["containers"][0]
    return container


@pytest.fixture(scope="module")
def prod(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The prod overlay rendered by the checker."""
    out = tmp_path_factory.mktemp("rendered")
    rendered: Path = CHECK.render(CHECK.OVERLAYS / "prod", TOOLS, out)
    return rendered


@pytest.fixture(scope="module")
def variants(prod: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The rendered prod overlay, and copies each missing one security setting or reason."""
    out = tmp_path_factory.mktemp("variants")
    docs = _docs(prod)

    no_drop = _docs(prod)
    del _container(no_drop, "scopa")["securityContext"]["capabilities"]

    writable = _docs(prod)
    _container(writable, "scopa")["securityContext"]["readOnlyRootFilesystem"] = False

    token = _docs(prod)
    for doc in token:
        if doc["kind"] == "Deployment":
            doc["spec"]["template"]["spec"].pop("automountServiceAccountToken")

    unexplained = _docs(prod)
    for doc in unexplained:
        if doc["kind"] == "Deployment" and doc["metadata"]["name"] == "scopa":
            doc["metadata"]["annotations"] = {"checkov.io/skip1": "CKV_K8S_11"}

    root_image = out / "Dockerfile"
    root_image.write_text('FROM python:3.11-slim\nCMD ["python"]\n')
    return {
        "clean": _write(out / "clean.yaml", docs),
        "no_drop": _write(out / "no_drop.yaml", no_drop),
        "writable": _write(out / "writable.yaml", writable),
        "token": _write(out / "token.yaml", token),
        "unexplained": _write(out / "unexplained.yaml", unexplained),
        "root_image": root_image,
    }


@pytest.fixture(scope="module")
def scans(variants: dict[str, Path]) -> dict[str, Any]:
    """One checkov run over every variant, results by variant name."""
    results = CHECK.scan(list(variants.values()), TOOLS)
    return {name: results[path.resolve()] for name, path in variants.items()}


def _failed_ids(scan: Any) -> set[str]:
    return {finding.split()[0] for finding in scan.failed}


def test_checkov_passes_the_rendered_prod_overlay(scans: dict[str, Any]) -> None:
    """The unmodified prod overlay has passed checks, no failure and only reasoned skips."""
    clean = scans["clean"]
    assert clean.passed > 100
    assert clean.failed == []
    assert clean.unjustified == []


@pytest.mark.parametrize(
    ("variant", "check_id"),
    [("no_drop", "CKV_K8S_37"), ("writable", "CKV_K8S_22"), ("token", "CKV_K8S_38")],
)
def test_checkov_rejects_a_missing_security_setting(
    scans: dict[str, Any], variant: str, check_id: str
) -> None:
    """Removing one restricted-profile setting from the scopa pod fails its checkov check."""
    assert check_id in _failed_ids(scans[variant])
    assert check_id not in _failed_ids(scans["clean"])


def test_checkov_skip_without_a_reason_is_a_finding(scans: dict[str, Any]) -> None:
    """A skip annotation that names a check but gives no reason is reported as unjustified."""
    assert any("CKV_K8S_11" in finding for finding in scans["unexplained"].unjustified)


def test_checkov_rejects_an_image_running_as_root(scans: dict[str, Any]) -> None:
    """A Dockerfile without a USER fails checkov's non-root check."""
    assert "CKV_DOCKER_3" in _failed_ids(scans["root_image"])


def test_validate_passes_the_rendered_prod_overlay(prod: Path) -> None:
    """Every rendered prod object is valid for each supported Kubernetes version."""
    for version in CHECK.K8S_VERSIONS:
        verdict = CHECK.validate(prod, version, TOOLS)
        assert verdict.problems == []
        assert verdict.passed == len(_docs(prod))


def test_validate_rejects_an_unknown_field(prod: Path, tmp_path: Path) -> None:
    """A misspelt field inside a pod spec is an error under --strict."""
    docs = _docs(prod)
    _container(docs, "scopa")["securityContext"]["readOnlyRootFileSystem"] = True
    verdict = CHECK.validate(_write(tmp_path / "typo.yaml", docs), "1.30", TOOLS)
    assert any("readOnlyRootFileSystem" in problem for problem in verdict.problems)


def test_validate_treats_an_unknown_kind_as_a_problem(tmp_path: Path) -> None:
    """A kind without a bundled schema (a CRD) only warns in the tool, and fails the check."""
    route = {"apiVersion": "example.com/v1", "kind": "Route", "metadata": {"name": "r"}}
    verdict = CHECK.validate(_write(tmp_path / "crd.yaml", [route]), "1.30", TOOLS)
    assert verdict.passed == 0
    assert any("Route" in problem for problem in verdict.problems)


def test_render_reports_a_broken_overlay(tmp_path: Path) -> None:
    """An overlay naming a missing resource raises with kustomize's message."""
    overlay = tmp_path / "broken"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text("resources: [missing.yaml]\n")
    with pytest.raises(RuntimeError, match=r"missing\.yaml"):
        CHECK.render(overlay, TOOLS, tmp_path / "out")


def test_hadolint_rejects_unpinned_apt_packages(tmp_path: Path) -> None:
    """An apt-get install without versions is DL3008; the project's Dockerfile has no finding."""
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text(
        "FROM debian:12\n"
        "RUN apt-get update && apt-get install -y --no-install-recommends curl"
        " && rm -rf /var/lib/apt/lists/*\n"
        "USER 10001\n"
    )
    assert any("DL3008" in finding for finding in CHECK.lint_dockerfile(dockerfile, TOOLS))
    assert CHECK.lint_dockerfile(CHECK.DOCKERFILE, TOOLS) == []
