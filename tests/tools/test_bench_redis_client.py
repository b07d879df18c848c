"""Tests of bench/redis_client.py: the store's Redis call against the pipelined prototype."""

from __future__ import annotations

import re

from support.python import ROOT, run_python

RUN = re.compile(r"client=(store|pipelined) conc=(\d+) round=(\d+) cpu_us_per_call=[\d.]+")
SUMMARY = re.compile(
    r"summary conc=(\d+) store_us=[\d.]+ pipelined_us=[\d.]+ pipelined_vs_store=[\d.]+"
)
PYTHONPATH = f"{ROOT / 'service'}:{ROOT / 'clients' / 'python' / 'src'}"


def test_each_client_runs_every_round_and_each_concurrency_is_summed_up() -> None:
    args = ("--conc", "1", "4", "--calls", "40", "--rounds", "2")
    done = run_python("bench/redis_client.py", *args, pythonpath=PYTHONPATH, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    runs = [m.groups() for m in map(RUN.fullmatch, lines) if m]
    assert sorted(runs) == sorted(
        (client, conc, rnd) for client in ("store", "pipelined") for conc in "14" for rnd in "01"
    ), done.stdout
    assert [m.group(1) for m in map(SUMMARY.fullmatch, lines) if m] == ["1", "4"], done.stdout


def test_bad_arguments_are_refused() -> None:
    done = run_python("bench/redis_client.py", "--conc", "0", pythonpath=PYTHONPATH, timeout=60)
    assert done.returncode == 2 and "must be positive" in done.stderr
