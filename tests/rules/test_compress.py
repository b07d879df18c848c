"""Tests of the stored formats' compression: zlib up to format 7, zstd with a dictionary since 8,
in two frames since 9."""

from __future__ import annotations

import hashlib
import json
import random
import threading
import zlib

import pytest
from rules_helpers import random_move

from scopa.rules import _compress, apply_move, dump_state, make_ruleset, new_match
from scopa.rules._compress import (
    PARTS_FROM,
    ZSTD_FROM,
    CorruptPayload,
    compress,
    compress_parts,
    decompress,
    frame,
)


def _texts() -> list[bytes]:
    """The JSON text of every state of a whole scopone game."""
    rng = random.Random(12)
    state, _ = new_match(make_ruleset("scopone", {"target_score": 21}), rng=rng)
    texts = []
    while not state.finished:
        state, _ = apply_move(state, state.turn, random_move(state, rng), rng)
        blob = dump_state(state)
        texts.append(decompress(blob[1:], blob[0]))
    return texts


def test_each_format_reads_back_what_it_writes() -> None:
    """zlib for formats 1-7, one zstd frame for 8, two from 9 on: each reads back its own
    bytes, not the others'."""
    texts = _texts()
    assert max(map(len, texts)) > 4096  # past the zlib format's 8 KB window's half
    for text in texts:
        old, one = compress(text, ZSTD_FROM - 1), compress(text, ZSTD_FROM)
        parts = compress(text, PARTS_FROM)
        assert zlib.decompress(old) == text == decompress(old, 1)
        assert decompress(one, ZSTD_FROM) == text
        assert decompress(parts, PARTS_FROM) == text == decompress(parts, 255)
        for data, wrong in ((old, ZSTD_FROM), (one, ZSTD_FROM - 1), (parts, ZSTD_FROM)):
            with pytest.raises(CorruptPayload):
                decompress(data, wrong)


def test_a_payload_in_two_parts_reads_back_as_their_texts_joined() -> None:
    """The first part's frame, written once, joins any second part (format 9)."""
    first = frame(b'{"results":[1,2],')
    for rest in (b'"a":1}', b'"a":2,"b":[3]}'):
        assert decompress(compress_parts(first, rest), PARTS_FROM) == b'{"results":[1,2],' + rest
    assert decompress(compress_parts(b"", b"{}"), PARTS_FROM) == b"{}"
    long_first = frame(bytes(range(256)) * 4)  # a two-byte length
    assert decompress(compress_parts(long_first, b"x"), PARTS_FROM) == bytes(range(256)) * 4 + b"x"


def test_the_zlib_format_reads_texts_beyond_its_window() -> None:
    """A text larger than the zlib format's 8 KB window comes back whole."""
    big = json.dumps([[i, str(i) * 3] for i in range(3000)]).encode()
    assert len(big) > 4 << _compress._ZLIB_WBITS
    assert decompress(compress(big, ZSTD_FROM - 1), ZSTD_FROM - 1) == big


def test_zstd_with_the_dictionary_writes_fewer_bytes_than_zlib() -> None:
    """Over a whole game's states the zstd frames are under three quarters of zlib's bytes."""
    texts = _texts()
    zstd = sum(len(compress(t, ZSTD_FROM)) for t in texts)
    old = sum(len(compress(t, ZSTD_FROM - 1)) for t in texts)
    assert zstd < 0.75 * old


def test_the_dictionary_is_pinned() -> None:
    """The dictionary is part of format 8: a changed byte would misread every stored frame."""
    digest = hashlib.sha256(_compress.STATE_DICT).hexdigest()
    assert digest == "500788be8cf2f5a488fbfe7310f87e8e00f9c18f42ef3a25221dc0615772f308"
    assert json.loads(_compress.STATE_DICT)["preset"] == "scopa"


@pytest.mark.parametrize("version", [1, 7, 8, 9])
@pytest.mark.parametrize(
    "data", [b"", b"garbage", b"\x28\xb5\x2f\xfd\x00", b"\x7f\x28\xb5", b"\xff\xff\xff\xff\xff\xff"]
)
def test_corrupt_payloads_raise_corrupt_payload(version: int, data: bytes) -> None:
    """Bytes neither compression can read raise CorruptPayload, not the library's error."""
    with pytest.raises(CorruptPayload):
        decompress(data, version)


def test_each_thread_compresses_with_its_own_zstd_pair() -> None:
    """zstandard's compressors are not thread-safe: each thread gets its own pair, and threads
    compressing at once each read back their own texts (the pair was one object shared by every
    thread in the compiled build)."""
    texts = _texts()
    start = threading.Barrier(4)
    pairs: list[object] = []
    failures: list[int] = []

    def work(index: int) -> None:
        start.wait()
        pairs.append(_compress._zstd())
        for text in texts[index::4] * 20:
            if decompress(compress(text, ZSTD_FROM), ZSTD_FROM) != text:
                failures.append(index)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    assert len({id(pair) for pair in pairs}) == 4
    assert _compress._zstd() is _compress._zstd()  # the calling thread's, made once
