"""The compression of each stored format: zlib up to format 7, zstd with a dictionary since 8.

:func:`compress` writes a payload as a format stores it and :func:`decompress` reads it back;
both are told the format version, so a blob of any earlier format still reads. Corrupt input
raises :class:`CorruptPayload`. Since format 9 a payload is two zstd frames whose texts join
into it: ``varint(len(first)) + first + second`` (the first may be empty), so a part that
stays the same from write to write (a state's hand results, :func:`compress_parts`) is
compressed once and its frame reused. zstd at level 1 with the raw-content dictionary
:data:`STATE_DICT` encodes and decodes a state in about a third of zlib's time and two thirds
of its bytes (``bench/codec.py``; docs/performance.md).
"""

from __future__ import annotations

import threading
import zlib
from typing import Final

import zstandard

from ._varint import read_varint, varint

__all__ = [
    "PARTS_FROM",
    "ZSTD_FROM",
    "CorruptPayload",
    "compress",
    "compress_parts",
    "decompress",
    "frame",
]

ZSTD_FROM: Final = 8
"""The first format compressed with zstd."""
PARTS_FROM: Final = 9
"""The first format whose payload is two zstd frames (a length-prefixed first, then a second)."""

_ZLIB_LEVEL: Final = 1
"""zlib's fastest level: about half level 6's CPU on a state (~1.4 KB of JSON), ~11% larger
(~565 bytes against ~505 over a whole game). Any level reads back alike."""

_ZLIB_WBITS: Final = 13
_ZLIB_MEM_LEVEL: Final = 5
"""An 8 KB window and a 4096-entry hash table instead of zlib's 32 KB and 32,768: a new
compressor clears its hash table, and the default one's 64 KB cost more than a third of
compressing a state (callgrind, a 3.7 KB state: 205k -> 149k instructions); over 4,362 states
of five presets' matches (mean 3.7 KB of JSON, largest 9.7 KB) the blobs are 0.11% larger.
The stream is zlib's as before (its header names the window), read by the same decompress."""

STATE_DICT: Final = (
    b'{"preset":"scopa","overrides":{},"hand_number":1,"dealer":1,"turn":0,"hands":[[2,22],[19'
    b',17]],"table":[21,35,27,18,29],"stock":[31,37,23,16,5,8,15,14,11,12,24,25],"piles":[[33,'
    b'3,0,20,10,26,7,30,13,34],[1,32,4,39,9,28,38,36,6]],"sweeps":[0,0],"specials":[[],[]],"ph'
    b'ase":"play","declared":[],"declarations":[],"last_capturer":0,"last_laid":21,"history":['
    b'{"t":"card_played","seat":0,"card":39,"captured":[],"taken":false,"sweep":false,"special'
    b's":[]},{"t":"card_played","seat":1,"card":4,"captured":[1,32],"taken":true,"sweep":false'
    b',"specials":[]},{"t":"card_played","seat":0,"card":0,"captured":[],"taken":false,"sweep"'
    b':false,"specials":[]},{"t":"card_played","seat":1,"card":26,"captured":[],"taken":false,'
    b'"sweep":false,"specials":[]},{"t":"card_played","seat":0,"card":35,"captured":[],"taken"'
    b':false,"sweep":false,"specials":[]},{"t":"card_played","seat":1,"card":9,"captured":[39]'
    b',"taken":true,"sweep":false,"specials":[]},{"t":"card_played","seat":0,"card":3,"capture'
    b'd":[33],"taken":true,"sweep":false,"specials":[]},{"t":"card_played","seat":1,"card":38,'
    b'"captured":[28],"taken":true,"sweep":false,"specials":[]},{"t":"card_played","seat":0,"c'
    b'ard":20,"captured":[0],"taken":true,"sweep":false,"specials":[]},{"t":"card_played","sea'
    b't":1,"card":10,"captured":[],"taken":false,"sweep":false,"specials":[]},{"t":"card_playe'
    b'd","seat":0,"card":7,"captured":[10,26],"taken":true,"sweep":false,"specials":[]},{"t":"'
    b'card_played","seat":1,"card":29,"captured":[],"taken":false,"sweep":false,"specials":[]}'
    b',{"t":"card_played","seat":0,"card":13,"captured":[],"taken":false,"sweep":false,"specia'
    b'ls":[]},{"t":"card_played","seat":1,"card":27,"captured":[],"taken":false,"sweep":false,'
    b'"specials":[]},{"t":"card_played","seat":0,"card":36,"captured":[],"taken":false,"sweep"'
    b':false,"specials":[]},{"t":"card_played","seat":1,"card":6,"captured":[36],"taken":true,'
    b'"sweep":false,"specials":[]},{"t":"card_played","seat":0,"card":18,"captured":[],"taken"'
    b':false,"sweep":false,"specials":[]},{"t":"card_played","seat":1,"card":30,"captured":[],'
    b'"taken":false,"sweep":false,"specials":[]},{"t":"card_played","seat":0,"card":34,"captur'
    b'ed":[30,13],"taken":true,"sweep":false,"specials":[]},{"t":"card_played","seat":1,"card"'
    b':21,"captured":[],"taken":false,"sweep":false,"specials":[]}],"scores":[0,0],"results":['
    b'],"winners":[],"finish_reason":"","decks":[],"out":[]}'
)
"""The raw-content dictionary of every zstd frame (formats 8 and later): the JSON of one scopa
state in the middle of its first hand (seed 99, 20 random plays), the text every state shares
the most of. It is part of the format: changing it needs a new format version."""

_ZSTD_LEVEL: Final = 1
_ZSTD_DICT: Final = zstandard.ZstdCompressionDict(
    STATE_DICT, dict_type=zstandard.DICT_TYPE_RAWCONTENT
)


class CorruptPayload(Exception):
    """A payload its format's compression cannot read."""


class _Zstd:
    """A zstd compressor and decompressor (zstandard's are not thread-safe: one pair per
    thread, see :func:`_zstd`)."""

    def __init__(self) -> None:
        self.compressor = zstandard.ZstdCompressor(
            level=_ZSTD_LEVEL, dict_data=_ZSTD_DICT, write_checksum=False, write_dict_id=False
        )
        self.decompressor = zstandard.ZstdDecompressor(dict_data=_ZSTD_DICT)


_LOCAL: Final = threading.local()
"""Each thread's :class:`_Zstd`. A plain ``threading.local`` read by attribute: a subclass of
it compiled by mypyc became one native object shared by every thread (and crashed the
interpreter when interpreted code read its attributes)."""


def _zstd() -> _Zstd:
    """This thread's zstd pair, made on its first use in the thread."""
    codecs: _Zstd | None = getattr(_LOCAL, "zstd", None)
    if codecs is None:
        codecs = _Zstd()
        _LOCAL.zstd = codecs
    return codecs


def frame(raw: bytes) -> bytes:
    """``raw`` as one zstd frame (with the dictionary): a first part of :func:`compress_parts`."""
    data: bytes = _zstd().compressor.compress(raw)
    return data


def compress_parts(first: bytes, second: bytes) -> bytes:
    """A format-9 payload whose text is ``first``'s (a :func:`frame`, or empty) then
    ``second``'s (compressed here)."""
    return varint(len(first)) + first + frame(second)


def compress(raw: bytes, version: int) -> bytes:
    """``raw`` compressed as format ``version`` stores it."""
    if version >= PARTS_FROM:
        return compress_parts(b"", raw)
    if version >= ZSTD_FROM:
        return frame(raw)
    deflate = zlib.compressobj(_ZLIB_LEVEL, zlib.DEFLATED, _ZLIB_WBITS, _ZLIB_MEM_LEVEL)
    return deflate.compress(raw) + deflate.flush()


def decompress(data: bytes, version: int) -> bytes:
    """The raw payload of a format-``version`` blob (after its format byte)."""
    try:
        if version >= PARTS_FROM:
            try:
                size, start = read_varint(data, 0)
            except ValueError as exc:
                raise CorruptPayload("no length at the start of the payload") from exc
            end = start + size
            if end > len(data):
                raise CorruptPayload("the first part is cut short")
            decompressor = _zstd().decompressor
            first: bytes = decompressor.decompress(data[start:end]) if size else b""
            second: bytes = decompressor.decompress(data[end:])
            return first + second
        if version >= ZSTD_FROM:
            raw: bytes = _zstd().decompressor.decompress(data)
            return raw
        return zlib.decompress(data)
    except (zlib.error, zstandard.ZstdError) as exc:
        raise CorruptPayload(str(exc)) from exc
