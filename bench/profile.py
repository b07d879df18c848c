"""Where a profiled server spent its samples, by component: the breakdown the bench notes quote.

Reads py-spy's raw collapsed stacks (``frame;frame;... count`` per line, full file names, as
``bench/service.py --py-spy DIR`` writes them) and charges each sample to the innermost frame
that belongs to a known component (scopa's own layers, the libraries on the hot path). Frames
of the standard library and of unknown code go to their nearest known caller: ``json.dumps``
called by structlog counts as structlog, an ``asyncio`` socket write as asyncio. Run::

    .venv/bin/python bench/profile.py /tmp/spy/play-rest.txt [/tmp/spy/play-connect.txt ...]

Output: one ``profile=<file> samples=<n>`` line per file, then ``component=<name> share=<x>``
lines (largest first) and the ten hottest own functions (``own=<function> share=<x>``: samples
whose innermost scopa frame is that function, so including the library code it calls).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

__all__ = ["COMPONENTS", "breakdown", "component_of", "main"]

COMPONENTS: tuple[tuple[str, str], ...] = (
    # (name, part of a frame's full file path); the first match names the frame.
    ("rules", "/scopa/rules/"),
    ("app: state codec", "/scopa/app/_codec"),
    ("app: tokens", "/scopa/app/_tokens"),
    ("app: core", "/scopa/app/"),
    ("storage", "/scopa/storage/"),
    ("transport: proto conversion", "/scopa/transport/_convert"),
    ("transport: calls", "/scopa/transport/_calls"),
    ("transport: proto3 JSON", "/scopa/transport/_rest_json"),
    ("transport: REST binding", "/scopa/transport/_rest_rules"),
    ("transport: REST", "/scopa/transport/_rest"),
    ("transport: Connect", "/scopa/transport/_connect"),
    ("transport: HTTP telemetry", "/scopa/transport/_http_telemetry"),
    ("transport: HTTP other", "/scopa/transport/_http"),
    ("transport: gRPC", "/scopa/transport/"),
    ("server: interceptors and guard", "/scopa/server/"),
    ("telemetry (ours)", "/scopa/telemetry/"),
    ("opentelemetry", "/opentelemetry/"),
    ("structlog", "/structlog/"),
    ("protobuf json_format", "/google/protobuf/json_format"),
    ("protobuf", "/google/"),
    ("connectrpc", "/connectrpc/"),
    ("uvicorn", "/uvicorn/"),
    ("h11", "/h11/"),
    ("httptools", "/httptools/"),
    ("redis-py", "/redis/"),
    ("grpc", "/grpc/"),
    ("asyncio", "/asyncio/"),
)

_FILE = re.compile(r"\(([^:()]+)(?::\d+)?\)$")
_LINE = re.compile(r"(:\d+)?\)$")


def component_of(frame: str) -> str | None:
    """The component a py-spy frame (``func (path/file.py:line)``) belongs to, or None."""
    found = _FILE.search(frame)
    if found is None:
        return None
    path = found.group(1)
    for name, part in COMPONENTS:
        if part in path:
            return name
    return None


def _short(frame: str) -> str:
    """``func (/path/to/scopa/x/y.py:12)`` -> ``func(scopa/x/y.py)``."""
    function, _, where = frame.partition(" (")
    return f"{function}(scopa/{_LINE.sub('', where).rpartition('/scopa/')[2]})"


def _stacks(text: str) -> Iterator[tuple[list[str], int]]:
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            yield stack.split(";"), int(count)


def breakdown(text: str) -> tuple[int, Counter[str], Counter[str]]:
    """Total samples, samples per component (innermost known frame) and per innermost own
    function (with what it calls outside scopa)."""
    total = 0
    by_component: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for frames, count in _stacks(text):
        total += count
        name = next(
            (c for c in map(component_of, reversed(frames)) if c is not None), "other (stdlib)"
        )
        by_component[name] += count
        innermost = next((f for f in reversed(frames) if "/scopa/" in f), None)
        if innermost is not None:
            own[_short(innermost)] += count
    return total, by_component, own


def main(argv: Sequence[str] | None = None) -> int:
    """Print the breakdown of each file."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="py-spy raw files")
    parser.add_argument("--top", type=int, default=10, help="own functions to list")
    args = parser.parse_args(argv)
    for path in args.files:
        total, by_component, own = breakdown(path.read_text())
        print(f"profile={path} samples={total}")
        for name, count in by_component.most_common():
            print(f"component={name.replace(' ', '_')} share={count / max(1, total):.3f}")
        for function, count in own.most_common(args.top):
            print(f"own={function.replace(' ', '')} share={count / max(1, total):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
