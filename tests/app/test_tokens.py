"""Tests of scopa.app._tokens."""

from __future__ import annotations

import pytest

from scopa.app import PermissionDenied, TokenAuthority, Unauthenticated

SECRET = b"s" * 32


def test_token_round_trip() -> None:
    """A token verifies to the seat it was issued for."""
    auth = TokenAuthority(SECRET)
    assert auth.verify(auth.issue("g1", 3), "g1") == 3


def test_token_carries_128_bit_nonce() -> None:
    """Two tokens for the same seat differ: each has a fresh 128-bit nonce."""
    auth = TokenAuthority(SECRET)
    first, second = auth.issue("g1", 0), auth.issue("g1", 0)
    assert first != second
    assert len(first.split(".")[2]) >= 22  # 16 bytes in unpadded base64


def test_token_bound_to_game() -> None:
    """A token of one game is refused by another."""
    auth = TokenAuthority(SECRET)
    with pytest.raises(PermissionDenied):
        auth.verify(auth.issue("g1", 0), "g2")


def test_token_bound_to_seat() -> None:
    """Editing the seat number of a token breaks its MAC: UNAUTHENTICATED."""
    auth = TokenAuthority(SECRET)
    token = auth.issue("g1", 0)
    forged = token.replace("g1.0.", "g1.1.", 1)
    with pytest.raises(Unauthenticated):
        auth.verify(forged, "g1")


def test_token_with_edited_game_does_not_verify() -> None:
    """Editing the game id inside a token breaks its MAC: UNAUTHENTICATED."""
    auth = TokenAuthority(SECRET)
    forged = auth.issue("g1", 0).replace("g1.", "g2.", 1)
    with pytest.raises(Unauthenticated):
        auth.verify(forged, "g2")


def test_token_bound_to_secret() -> None:
    """A token signed with another secret is UNAUTHENTICATED."""
    token = TokenAuthority(b"o" * 32).issue("g1", 0)
    with pytest.raises(Unauthenticated):
        TokenAuthority(SECRET).verify(token, "g1")


@pytest.mark.parametrize(
    "token", ["", "abc", "g1.0.!!.??", "g1.x.AAAA.BBBB", "g1.0.AAAA.BBBB", "g1.-1.AAAA.BBBB"]
)
def test_malformed_token(token: str) -> None:
    """Malformed tokens are UNAUTHENTICATED, not a crash."""
    with pytest.raises(Unauthenticated):
        TokenAuthority(SECRET).verify(token, "g1")


def test_salted_token_is_stable() -> None:
    """A token derived from a request_id is the same on a retry and still verifies."""
    auth = TokenAuthority(SECRET)
    token = auth.issue("g1", 1, "req-1")
    assert token == auth.issue("g1", 1, "req-1")
    assert token != auth.issue("g1", 1, "req-2")
    assert auth.verify(token, "g1") == 1


def test_invite_digest_matches_code() -> None:
    """An invite code's stored digest is recomputed from the code alone."""
    auth = TokenAuthority(SECRET)
    code, digest = auth.new_invite("g1", 2)
    assert auth.invite_digest("g1", 2, code) == digest
    assert auth.invite_digest("g1", 1, code) != digest


def test_short_secret_refused() -> None:
    """A secret shorter than 128 bits is refused."""
    with pytest.raises(ValueError, match="16 bytes"):
        TokenAuthority(b"short")


def test_only_the_canonical_encoding_verifies() -> None:
    """A seat with a leading zero or a base64 part with '=' padding is UNAUTHENTICATED."""
    auth = TokenAuthority(SECRET)
    token = auth.issue("g1", 0)
    game, seat, nonce, mac = token.split(".")
    assert auth.verify(token, "g1") == 0
    variants = [
        f"{game}.00.{nonce}.{mac}",
        f"{game}.+0.{nonce}.{mac}",
        f"{game}.{seat}.{nonce}.{mac}=",
        f"{game}.{seat}.{nonce}==.{mac}",
        f"{game}.{seat}.{nonce}.{mac}\n",
    ]
    for variant in variants:
        with pytest.raises(Unauthenticated):
            auth.verify(variant, "g1")


def test_a_token_verified_before_is_still_bound_to_its_game_and_seat() -> None:
    """Verified once (and kept), a token still acts only for its seat of its own game, and a
    forged neighbour of it is still refused."""
    auth = TokenAuthority(SECRET)
    token = auth.issue("g1", 1)
    assert auth.verify(token, "g1") == 1
    assert auth.verify(token, "g1") == 1
    with pytest.raises(PermissionDenied):
        auth.verify(token, "g2")
    with pytest.raises(Unauthenticated):
        auth.verify(token.replace("g1.1.", "g1.0.", 1), "g1")
    with pytest.raises(Unauthenticated):
        auth.verify(token[:-2] + ("AA" if token[-2:] != "AA" else "BB"), "g1")


def test_a_token_that_failed_is_checked_again_and_never_kept() -> None:
    """A token that did not verify keeps failing; the kept tokens stay bounded."""
    auth = TokenAuthority(SECRET)
    other = TokenAuthority(b"o" * 32).issue("g1", 0)
    for _ in range(2):
        with pytest.raises(Unauthenticated):
            auth.verify(other, "g1")
    tokens = [auth.issue(f"g{i}", 0) for i in range(9000)]
    assert all(auth.verify(t, f"g{i}") == 0 for i, t in enumerate(tokens))
    assert len(auth._verified) <= 8192
    assert other not in auth._verified


def test_a_rematch_takes_the_tokens_of_the_game_it_names() -> None:
    """With ``tokens_of``, a token of that game verifies for the same seat; others do not."""
    auth = TokenAuthority(SECRET)
    token = auth.issue("g1", 1)
    assert auth.verify(token, "g2", tokens_of="g1") == 1
    assert auth.identify(token) == ("g1", 1)
    with pytest.raises(PermissionDenied):
        auth.verify(token, "g2", tokens_of="g3")
    assert auth.derive_rematch_id("g1") == auth.derive_rematch_id("g1") != "g1"
    assert auth.derive_rematch_id("g1") != auth.derive_game_id("g1")


def test_spectator_tokens_are_per_game_and_act_for_no_seat() -> None:
    """A game's spectator token is the same on every replica, recognised only for its game;
    a forged one does not verify; a seat token is no spectator token, and vice versa."""
    authority = TokenAuthority(SECRET)
    token = authority.issue_spectator("g1")
    assert token == TokenAuthority(SECRET).issue_spectator("g1") != authority.issue_spectator("g2")
    assert authority.spectates(token, "g1")
    assert not authority.spectates(authority.issue("g1", 0), "g1")
    with pytest.raises(PermissionDenied):
        authority.spectates(token, "g2")
    with pytest.raises(Unauthenticated):
        authority.spectates(token[:-2] + "AA", "g1")
    with pytest.raises(Unauthenticated):
        authority.verify(token, "g1")
