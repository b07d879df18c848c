"""Tests of bench/compare.py's pure parts: its arguments, the lines it reads, the table."""

from __future__ import annotations

import pytest
from support.python import load_tool

compare = load_tool("bench/compare.py")

_BENCH_OUTPUT = """\
env=bench/service.py python=3.11.2 server_path=/x/service
rpc=CreateGame cpu_us_per_call=1500.000 phase=create cpu_attrib=isolated proto=grpc
rpc=PlayCard cpu_us_per_call=812.500 phase=play cpu_attrib=isolated proto=grpc
rpc=PlayCard cpu_us_per_call=900 phase=play cpu_attrib=isolated proto=rest
rpc=PlayCard cpu_us_per_call=1000 phase=play cpu_attrib=isolated proto=connect
rpc=PlayCard cpu_us_per_call=2000 phase=games cpu_attrib=phase_avg proto=grpc
"""


def test_defaults_and_the_calls_chosen_in_protocol_order() -> None:
    """REF alone: 3 rounds of every protocol; --calls keeps the table's protocol order."""
    args = compare.parse_args(["d9d6f8c"])
    assert (args.ref, args.rounds, args.calls, args.compiled) == (
        "d9d6f8c",
        3,
        ("grpc", "rest", "connect"),
        "none",
    )
    args = compare.parse_args(["main~3", "--rounds", "5", "--calls", "rest", "grpc", "--compiled"])
    assert (args.ref, args.rounds, args.calls) == ("main~3", 5, ("grpc", "rest"))
    assert args.compiled == "both"
    assert compare.parse_args(["main~3", "--compiled", "head"]).compiled == "head"


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["x", "--rounds", "0"],
        ["x", "--calls", "http"],
        ["x", "--seconds", "0"],
        ["x", "--compiled", "ref"],
    ],
)
def test_wrong_arguments_exit_with_usage(argv: list[str]) -> None:
    """No REF, no round, an unknown protocol or no time: a usage error (exit 2)."""
    with pytest.raises(SystemExit) as exited:
        compare.parse_args(argv)
    assert exited.value.code == 2


def test_rounds_alternate_which_tree_runs_first() -> None:
    """REF first in even rounds, this tree first in odd ones."""
    assert [compare.order(i) for i in range(3)] == [
        ("ref", "head"),
        ("head", "ref"),
        ("ref", "head"),
    ]


def test_only_the_isolated_playcard_lines_are_read() -> None:
    """The per-protocol PlayCard figure; CreateGame and the games phase's average are not it."""
    assert compare.playcard_cpu(_BENCH_OUTPUT) == {"grpc": 812.5, "rest": 900.0, "connect": 1000.0}


def test_the_table_has_medians_their_ratio_and_the_round_ratios() -> None:
    """Medians of the rounds per side, head over ref of the medians, and each round's ratio."""
    ref = {"grpc": [1000.0, 1200.0, 800.0], "rest": [500.0, 400.0, 600.0]}
    head = {"grpc": [700.0, 900.0, 720.0], "rest": [500.0, 500.0, 500.0]}
    lines = compare.table(ref, head, ["grpc", "rest"])
    assert lines[0].split() == ["proto", "ref_us", "head_us", "head/ref", "round", "ratios"]
    assert lines[1].split() == ["grpc", "1000", "720", "0.72", "0.70..0.90"]
    assert lines[2].split() == ["rest", "500", "500", "1.00", "0.83..1.25"]
    assert len(lines) == 3
