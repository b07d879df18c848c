"""Check deploy/ offline: render each kustomize overlay, validate it, scan it and the Dockerfile.

    python tools/check_deploy.py [--bin .venv-deploy/bin]

For every overlay in deploy/k8s/overlays: `kubectl kustomize` renders it into build/deploy/,
`kubernetes-validate --strict` checks it against each Kubernetes version in K8S_VERSIONS (any
warning, such as an unknown kind, fails), and checkov scans it; checkov and hadolint also check
deploy/Dockerfile. Every checkov skip must carry its reason. The tools come from
deploy/requirements.txt (`make check-deploy` installs them); exit status 1 on any finding.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OVERLAYS = ROOT / "deploy" / "k8s" / "overlays"
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
OUT = ROOT / "build" / "deploy"
DEFAULT_BIN = ROOT / ".venv-deploy" / "bin"
K8S_VERSIONS = ("1.30", "1.37")
"""The oldest Kubernetes the manifests support (preStop `sleep`) and the newest bundled schema."""

MIN_REASON_CHARS = 20
"""A skip's reason must say why, not just repeat the check id."""


@dataclass
class Validation:
    """kubernetes-validate's verdict on one rendered file for one Kubernetes version."""

    version: str
    passed: int = 0
    problems: list[str] = field(default_factory=list)


@dataclass
class Scan:
    """checkov's results for one file: counts and the findings that fail the check."""

    passed: int = 0
    failed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    unjustified: list[str] = field(default_factory=list)


def _run(args: list[str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)


def render(overlay: Path, tools: Path, out_dir: Path = OUT) -> Path:
    """Render one overlay with `kubectl kustomize` into out_dir; raise RuntimeError on failure."""
    result = _run([str(tools / "kubectl"), "kustomize", str(overlay)])
    if result.returncode != 0:
        raise RuntimeError(f"kubectl kustomize {overlay}: {result.stderr.strip()}")
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{overlay.name}.yaml"
    target.write_text(result.stdout)
    return target


def validate(path: Path, version: str, tools: Path) -> Validation:
    """Validate manifests strictly against one Kubernetes version; a warning is a problem."""
    result = _run([str(tools / "kubernetes-validate"), "--strict", "-k", version, str(path)])
    verdict = Validation(version)
    for line in (result.stdout + result.stderr).splitlines():
        if line.startswith("INFO") and " passed for resource " in line:
            verdict.passed += 1
        elif line.strip():
            verdict.problems.append(line.strip())
    if result.returncode != 0 and not verdict.problems:
        verdict.problems.append(f"kubernetes-validate exited with {result.returncode}")
    return verdict


def scan(paths: list[Path], tools: Path) -> dict[Path, Scan]:
    """Run checkov once over Kubernetes manifests and Dockerfiles; results per file."""
    args = [str(tools / "checkov"), "--skip-download", "--compact", "-o", "json"]
    for path in paths:
        args += ["-f", str(path)]
    args += ["--framework", "kubernetes", "dockerfile"]
    result = _run(args)
    if not result.stdout.strip().startswith(("[", "{")):
        raise RuntimeError(f"checkov failed: {result.stderr.strip()[-2000:]}")
    reports = json.loads(result.stdout)
    scans = {path.resolve(): Scan() for path in paths}
    for report in reports if isinstance(reports, list) else [reports]:
        _collect(report.get("results", {}), scans)
    return scans


def _collect(results: dict[str, list[dict[str, Any]]], scans: dict[Path, Scan]) -> None:
    for check in results.get("passed_checks", []):
        _scan_for(check, scans).passed += 1
    for check in results.get("failed_checks", []):
        _scan_for(check, scans).failed.append(_describe(check))
    for check in results.get("skipped_checks", []):
        target = _scan_for(check, scans)
        reason = str(check["check_result"].get("suppress_comment") or "").strip()
        target.skipped.append(f"{check['check_id']} ({check['resource']}): {reason}")
        if len(reason) < MIN_REASON_CHARS or reason == "No comment provided":
            target.unjustified.append(_describe(check))


def _scan_for(check: dict[str, Any], scans: dict[Path, Scan]) -> Scan:
    """Map checkov's file path (absolute, or relative to the scanned file's folder) to its file."""
    reported = Path(check["file_abs_path"]).resolve()
    return scans.setdefault(reported, Scan())


def _describe(check: dict[str, Any]) -> str:
    return f"{check['check_id']} {check['check_name']} ({check['resource']})"


def lint_dockerfile(path: Path, tools: Path) -> list[str]:
    """hadolint findings for a Dockerfile, at every level down to style."""
    result = _run([str(tools / "hadolint"), "--failure-threshold", "style", str(path)])
    findings = [line for line in result.stdout.splitlines() if line.strip()]
    if result.returncode != 0 and not findings:
        findings.append(f"hadolint exited with {result.returncode}: {result.stderr.strip()}")
    return findings


def _report_scan(name: str, result: Scan) -> bool:
    print(
        f"  checkov: {result.passed} passed, {len(result.failed)} failed, "
        f"{len(result.skipped)} skipped"
    )
    for skip in result.skipped:
        print(f"    skip {skip}")
    for finding in result.failed:
        print(f"    FAILED {finding}")
    for finding in result.unjustified:
        print(f"    SKIPPED WITHOUT A REASON {finding}")
    return not result.failed and not result.unjustified and result.passed > 0


def check(tools: Path) -> bool:
    """Run every check, print a summary per overlay and for the Dockerfile; True when clean."""
    ok = True
    rendered = [render(overlay, tools) for overlay in sorted(OVERLAYS.iterdir())]
    scans = scan([*rendered, DOCKERFILE], tools)
    for path in rendered:
        print(f"overlay {path.stem}: rendered to {path.relative_to(ROOT)}")
        for version in K8S_VERSIONS:
            verdict = validate(path, version, tools)
            print(
                f"  kubernetes-validate --strict -k {version}: {verdict.passed} resources "
                f"passed, {len(verdict.problems)} problems"
            )
            for problem in verdict.problems:
                print(f"    {problem}")
            ok = ok and not verdict.problems and verdict.passed > 0
        ok = _report_scan(path.stem, scans[path.resolve()]) and ok
    print(f"Dockerfile {DOCKERFILE.relative_to(ROOT)}")
    ok = _report_scan("Dockerfile", scans[DOCKERFILE.resolve()]) and ok
    findings = lint_dockerfile(DOCKERFILE, tools)
    print(f"  hadolint: {len(findings)} findings")
    for finding in findings:
        print(f"    {finding}")
    return ok and not findings


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; exit status 0 when every check is clean."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", type=Path, default=DEFAULT_BIN, help="where the tools are")
    args = parser.parse_args(argv)
    try:
        clean = check(args.bin)
    except RuntimeError as exc:
        print(f"check-deploy: {exc}", file=sys.stderr)
        return 1
    print("check-deploy: clean" if clean else "check-deploy: FAILED")
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
