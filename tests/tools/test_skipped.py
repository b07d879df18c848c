"""Tests of tools/skipped.py (make test's closing list) and of tests/support/tools.py's skips."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import tools
from support.python import ROOT, load_tool, run_python

SKIPPED = load_tool("tools/skipped.py")


def test_the_closing_list_groups_every_runners_skips_by_reason(tmp_path: Path) -> None:
    """Skips noted by pytest and by the web tests are counted and listed by reason, the most
    frequent first; an empty folder says nothing was skipped."""
    assert run_python("tools/skipped.py", "--reset", str(tmp_path), pythonpath="").returncode == 0
    empty = run_python("tools/skipped.py", str(tmp_path), pythonpath="")
    assert empty.stdout.strip() == "make test skipped nothing."
    nginx = "needs nginx, which this machine lacks: install it with `apt-get install nginx-light`"
    (tmp_path / "pytest.txt").write_text(
        "".join(f"tests/faults/test_{n}.py::test_x\t{nginx}\n" for n in range(5))
    )
    (tmp_path / "web.txt").write_text("clients/web: the web client\tneeds chromium\n")
    done = run_python("tools/skipped.py", str(tmp_path), pythonpath="")
    lines = done.stdout.splitlines()
    assert lines[0] == "make test skipped 6 tests:"
    assert lines[1].startswith(f"- 5 for: {nginx} (tests/faults/test_0.py::test_x, ")
    assert lines[1].endswith("and 2 more)")
    assert lines[2] == "- 1 for: needs chromium (clients/web: the web client)"


def test_a_missing_tool_skips_naming_its_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without SCOPA_REQUIRE_ALL a missing tool skips the test with the apt-get line."""
    monkeypatch.setattr(tools, "find_tool", lambda name: None)
    monkeypatch.delenv("SCOPA_REQUIRE_ALL", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"needs nginx.*apt-get install nginx-light"):
        tools.system_tool("nginx")


def test_a_missing_tool_fails_under_scopa_require_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """With SCOPA_REQUIRE_ALL=1 (.ci/run) the same test fails: CI runs everything."""
    monkeypatch.setattr(tools, "find_tool", lambda name: None)
    monkeypatch.setenv("SCOPA_REQUIRE_ALL", "1")
    with pytest.raises(pytest.fail.Exception, match=r"needs openssl.*SCOPA_REQUIRE_ALL=1"):
        tools.system_tool("openssl")


def test_a_present_tool_is_found() -> None:
    """redis-server, which every service test starts, is found where the machine has it."""
    assert Path(tools.system_tool("redis-server")).name == "redis-server"


def test_ci_requires_every_tool() -> None:
    """.ci/run runs make test under SCOPA_REQUIRE_ALL=1."""
    assert "SCOPA_REQUIRE_ALL=1 make test" in (ROOT / ".ci" / "run").read_text()
