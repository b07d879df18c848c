"""Tests of bench/micro.py: it runs and prints the baseline and every piece it measures."""

from __future__ import annotations

import re

from support.python import ROOT, run_python

PIECES = {
    "server_span_traceparent",
    "server_span",
    "access_line",
    "leaf_span",
    "view_to_pb",
    "token_verify",
    "with_view_tail",
    "options_tail",
    "rest_json_playcard",
    "rest_bind_playcard",
    "dump_state",
    "rest_get_state",
    "snapshot_with_presence",
    "snapshot_replace",
}


def test_micro_prints_the_baseline_and_one_figure_per_piece() -> None:
    """A short run prints `baseline=empty_call` then one positive figure per piece, nothing on
    stderr (its log lines go to /dev/null)."""
    pythonpath = f"{ROOT / 'service'}:{ROOT / 'clients' / 'python' / 'src'}"
    done = run_python("bench/micro.py", "--number", "50", "--repeat", "1", pythonpath=pythonpath)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"baseline=empty_call us_per_call=\d+\.\d+", lines[0]), lines
    figures = dict(re.findall(r"^micro=(\w+) us_per_call=(\d+\.\d+)$", done.stdout, re.M))
    assert set(figures) == PIECES, lines
    assert all(float(value) > 0 for value in figures.values())
