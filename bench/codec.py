"""The stored state's compression: zlib (formats up to 6) against zstd, on real states.

Plays ``--games`` seeded random matches of each of five presets and keeps the JSON text of
every state after every play (the text ``dump_state`` compresses); then compresses and
decompresses them all with each codec, best of ``--repeat`` rounds (the codecs take turns in
each round), and prints one line per codec (wrapped here)::

    codec=<name> states=<n> encode_us=<x> decode_us=<x> bytes=<mean> time_vs_zlib=<x>
        bytes_vs_zlib=<x>

``zlib`` is format 7's (level 1, an 8 KB window); ``zstd_dict`` is format 8's (zstd at level 1
with the raw-content dictionary of one state's JSON); ``zstd`` is the same without the
dictionary; ``stored`` is what ``dump_state``/``load_state`` of this tree write and read, whole
(JSON included), for the record: since format 9 two zstd frames (the hand results apart, kept
compressed from move to move), a few bytes more than ``zstd_dict``. The ratios are of encode +
decode time and of mean bytes, against ``zlib`` in the same run::

    .venv/bin/python bench/codec.py [--games 20] [--repeat 5]

Then ``dump_state`` by the hand a state is in, over the states of one seeded 2-player scopa
game to 1,000 points (its hand results grow with every hand): one ``dump_state hand=<n>
states=<n> encode_us=<x> bytes=<mean>`` line for hands 1, 5, 10 and 20. With ``PYTHONPATH`` at
another tree's ``service`` it measures that tree's ``dump_state`` (the bench's own code needs
only ``dump_state``, ``compress`` and ``decompress``).
"""

from __future__ import annotations

import argparse
import functools
import random
import time
from collections.abc import Callable, Sequence

import zstandard

from scopa.bots import random_action
from scopa.rules import (
    MatchState,
    apply_action,
    dump_state,
    load_state,
    make_ruleset,
    new_match,
)
from scopa.rules._compress import STATE_DICT, ZSTD_FROM, compress, decompress

__all__ = ["main"]

PRESETS = ("scopa", "scopone", "cirulla", "scopa4", "marescialla")

Codec = tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]]


def states(games: int) -> list[MatchState]:
    """Every state of ``games`` seeded random matches of each preset in :data:`PRESETS`."""
    out: list[MatchState] = []
    for preset in PRESETS:
        ruleset = make_ruleset(preset)
        for seed in range(games):
            rng = random.Random(seed)
            state, _ = new_match(ruleset, rng=rng)
            out.append(state)
            while state.turn >= 0:
                state, _ = apply_action(state, state.turn, random_action(state, rng), rng)
                out.append(state)
    return out


HANDS = (1, 5, 10, 20)
"""The hands whose states :func:`by_hand` keeps."""


def by_hand(hands: Sequence[int] = HANDS) -> dict[int, list[MatchState]]:
    """The states of one seeded 2-player scopa game to 1,000 points, by hand, for ``hands``."""
    rng = random.Random(1)
    state, _ = new_match(make_ruleset("scopa", {"target_score": 1000}), rng=rng)
    kept: dict[int, list[MatchState]] = {hand: [] for hand in hands}
    while state.turn >= 0 and state.hand_number <= max(hands):
        state, _ = apply_action(state, state.turn, random_action(state, rng), rng)
        if state.hand_number in kept:
            kept[state.hand_number].append(state)
    return kept


def _format(version: int) -> Codec:
    """The compression of stored format ``version``, as the codec runs it."""
    return (lambda raw: compress(raw, version)), (lambda data: decompress(data, version))


def _zstd_plain() -> Codec:
    """zstd at format 7's level, without its dictionary."""
    compressor = zstandard.ZstdCompressor(level=1, write_checksum=False)
    return compressor.compress, zstandard.ZstdDecompressor().decompress


def _encode_all(code: Callable[[bytes], bytes], items: list[bytes]) -> list[bytes]:
    return [code(item) for item in items]


def _dump_all(states: list[MatchState]) -> list[bytes]:
    return [dump_state(state) for state in states]


def _timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def measure(
    texts: list[bytes], codecs: dict[str, Codec], rounds: int
) -> dict[str, tuple[float, float, float]]:
    """Per codec: mean encode and decode microseconds per text (the best round; the codecs take
    turns in each round, so a burst of other load hits them alike), and mean bytes."""
    blobs = {name: [encode(t) for t in texts] for name, (encode, _) in codecs.items()}
    for name, (_, decode) in codecs.items():
        assert [decode(b) for b in blobs[name]] == texts, name
    best = {name: [float("inf"), float("inf")] for name in codecs}
    for _ in range(rounds):
        for name, (encode, decode) in codecs.items():
            enc = _timed(functools.partial(_encode_all, encode, texts))
            dec = _timed(functools.partial(_encode_all, decode, blobs[name]))
            best[name] = [min(best[name][0], enc), min(best[name][1], dec)]
    n = len(texts)
    return {
        name: (enc / n * 1e6, dec / n * 1e6, sum(map(len, blobs[name])) / n)
        for name, (enc, dec) in best.items()
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="matches per preset")
    parser.add_argument("--repeat", type=int, default=5, help="rounds, best taken")
    args = parser.parse_args(argv)
    kept = states(args.games)
    texts = [decompress(blob[1:], blob[0]) for blob in map(dump_state, kept)]
    codecs: dict[str, Codec] = {
        "zlib": _format(ZSTD_FROM - 1),
        "zstd_dict": _format(ZSTD_FROM),
        "zstd": _zstd_plain(),
    }
    assert STATE_DICT  # format 7's dictionary, in zstd_dict
    figures = measure(texts, codecs, args.repeat)
    stored = [dump_state(s) for s in kept]
    enc = min(_timed(lambda: [dump_state(s) for s in kept]) for _ in range(args.repeat))
    dec = min(_timed(lambda: [load_state(b) for b in stored]) for _ in range(args.repeat))
    enc, dec = enc / len(kept) * 1e6, dec / len(kept) * 1e6
    figures["stored"] = (enc, dec, sum(map(len, stored)) / len(stored))
    base_time = figures["zlib"][0] + figures["zlib"][1]
    base_bytes = figures["zlib"][2]
    for name, (enc, dec, size) in figures.items():
        print(
            f"codec={name} states={len(texts)} encode_us={enc:.2f} decode_us={dec:.2f} "
            f"bytes={size:.0f} time_vs_zlib={(enc + dec) / base_time:.2f} "
            f"bytes_vs_zlib={size / base_bytes:.2f}"
        )
    for hand, hand_states in by_hand().items():
        for state in hand_states:  # each history text and results frame kept, as in play
            dump_state(state)
        dump_all = functools.partial(_dump_all, hand_states)
        rounds = [_timed(dump_all) for _ in range(args.repeat)]
        size = sum(len(dump_state(s)) for s in hand_states) / len(hand_states)
        print(
            f"dump_state hand={hand} states={len(hand_states)} "
            f"encode_us={min(rounds) / len(hand_states) * 1e6:.2f} bytes={size:.0f}"
        )


if __name__ == "__main__":
    main()
