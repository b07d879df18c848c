"""Print what `make test` skipped, grouped by reason: its closing lines.

Each test runner writes one ``<test>\\t<reason>`` line per skipped test into a file of
``$SCOPA_SKIPPED_DIR`` (build/skipped; the Makefile empties it before a run): pytest
(tests/conftest.py) into pytest.txt, the web client's browser tests into web.txt.

Usage: python tools/skipped.py [folder]      # --reset empties the folder first
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "build" / "skipped"


def skipped(folder: Path) -> dict[str, list[str]]:
    """Reason -> the tests skipped for it, over every runner's file in ``folder``."""
    by_reason: dict[str, list[str]] = defaultdict(list)
    for path in sorted(folder.glob("*.txt")) if folder.is_dir() else ():
        for line in path.read_text(encoding="utf-8").splitlines():
            test, _, reason = line.partition("\t")
            if test:
                by_reason[reason or "(no reason given)"].append(test)
    return dict(by_reason)


def report(by_reason: dict[str, list[str]]) -> str:
    """The closing lines: how many tests were skipped, then each reason with its tests."""
    total = sum(len(tests) for tests in by_reason.values())
    if not total:
        return "make test skipped nothing."
    lines = [f"make test skipped {total} test{'s' if total != 1 else ''}:"]
    for reason, tests in sorted(by_reason.items(), key=lambda item: -len(item[1])):
        shown = ", ".join(tests[:3]) + (f" and {len(tests) - 3} more" if len(tests) > 3 else "")
        lines.append(f"- {len(tests)} for: {reason} ({shown})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=None)
    parser.add_argument("--reset", action="store_true", help="empty the folder and exit")
    args = parser.parse_args(argv)
    folder = args.folder or Path(os.environ.get("SCOPA_SKIPPED_DIR") or DEFAULT)
    if args.reset:
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        return 0
    print(report(skipped(folder)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
