"""The shape of service/: rooms small enough to have one job each (issue 25).

A module over 700 lines, or a class with over 300 lines of methods, has more than one job:
split it by responsibility. The layers and the absence of import circles are make lint's
(.importlinter).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parents[1]
SERVICE = ROOT / "service" / "scopa"
MODULE_LINES: Final = 700
CLASS_METHOD_LINES: Final = 300


def _modules() -> list[Path]:
    return sorted(SERVICE.rglob("*.py"))


def _method_lines(node: ast.ClassDef) -> int:
    return sum(
        (item.end_lineno or item.lineno) - item.lineno + 1
        for item in node.body
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
    )


def test_no_module_is_over_700_lines() -> None:
    sizes = {
        str(p.relative_to(SERVICE)): len(p.read_text(encoding="utf-8").splitlines())
        for p in _modules()
    }
    over = {name: n for name, n in sizes.items() if n > MODULE_LINES}
    assert not over, f"modules over {MODULE_LINES} lines: {over}"


def test_no_class_has_over_300_lines_of_methods() -> None:
    sizes: dict[str, int] = {}
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                sizes[f"{path.relative_to(SERVICE)}:{node.name}"] = _method_lines(node)
    over = {name: n for name, n in sizes.items() if n > CLASS_METHOD_LINES}
    assert not over, f"classes with over {CLASS_METHOD_LINES} lines of methods: {over}"
