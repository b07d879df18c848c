"""Tests of bench/codec.py: a short run prints one line per codec, zlib's ratios at 1."""

from __future__ import annotations

import re

from support.python import ROOT, run_python


def test_codec_prints_each_codec_against_zlib() -> None:
    """One line per codec with positive figures; zlib's own ratios are 1.00 and the stored
    format's bytes are zstd_dict's plus the format byte."""
    pythonpath = f"{ROOT / 'service'}:{ROOT / 'clients' / 'python' / 'src'}"
    done = run_python("bench/codec.py", "--games", "1", "--repeat", "1", pythonpath=pythonpath)
    assert done.returncode == 0, done.stderr
    pattern = (
        r"^codec=(\w+) states=(\d+) encode_us=([\d.]+) decode_us=([\d.]+) bytes=(\d+) "
        r"time_vs_zlib=([\d.]+) bytes_vs_zlib=([\d.]+)$"
    )
    rows = {m[0]: m[1:] for m in re.findall(pattern, done.stdout, re.M)}
    assert set(rows) == {"zlib", "zstd_dict", "zstd", "stored"}, done.stdout
    assert rows["zlib"][-2:] == ("1.00", "1.00")
    assert all(float(v) > 0 for row in rows.values() for v in row)
    # Format 9's two frames: a length, a second frame's header, the results compressed apart.
    assert 0 <= int(rows["stored"][3]) - int(rows["zstd_dict"][3]) <= 32
    hands = re.findall(
        r"^dump_state hand=(\d+) states=(\d+) encode_us=([\d.]+) bytes=(\d+)$", done.stdout, re.M
    )
    assert [int(h[0]) for h in hands] == [1, 5, 10, 20], done.stdout
    assert all(int(h[1]) > 0 and float(h[2]) > 0 for h in hands)
    assert int(hands[-1][3]) > int(hands[0][3])  # later states carry more hand results
