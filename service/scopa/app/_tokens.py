"""Seat tokens and invite codes.

A seat token is ``<game>.<seat>.<nonce>.<mac>``: the game id, the seat, a 128-bit random nonce
and an HMAC-SHA256 over the three (nonce and MAC in URL-safe base64). Verifying needs only the
server secret, so any replica can check any token; comparison is constant-time. A token acts
for one seat of one game. Invite codes are 128-bit random strings; only their HMAC is stored.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from typing import Final

from ._errors import PermissionDenied, Unauthenticated

__all__ = ["TokenAuthority"]

_NONCE_BYTES: Final = 16
_SPECTATOR: Final = "v"
"""The seat part of a spectator token (a seat token's is a number)."""
_VERIFIED_MAX: Final = 8192
"""Tokens kept as verified (the seat games of a replica's recent callers); cleared when full."""


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    """Decode unpadded URL-safe base64, accepting only the one encoding `_b64` produces."""
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64(raw) != text:
        raise ValueError("not the canonical encoding")
    return raw


class TokenAuthority:
    """Issues and verifies seat tokens and invite codes with one server secret."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("the token secret must be at least 16 bytes")
        self._secret = secret
        # Keyed once: each MAC copies it instead of hashing the padded key twice again.
        self._keyed = hmac.new(secret, digestmod=hashlib.sha256)
        self._verified: dict[str, tuple[str, int]] = {}
        """Tokens that verified, with their game and seat: a seat's next call (every move of a
        game) is a lookup instead of two base64 decodes and an HMAC."""

    def _mac(self, *parts: str | bytes) -> bytes:
        mac = self._keyed.copy()
        for part in parts:
            data = part.encode() if isinstance(part, str) else part
            mac.update(len(data).to_bytes(4, "big") + data)
        return mac.digest()

    def _nonce(self, kind: str, game_id: str, seat: int, salt: str | None) -> bytes:
        if salt is None:
            return secrets.token_bytes(_NONCE_BYTES)
        return self._mac("nonce", kind, game_id, str(seat), salt)[:_NONCE_BYTES]

    def issue(self, game_id: str, seat: int, salt: str | None = None) -> str:
        """A token for ``seat`` of ``game_id``: random, or derived from ``salt`` (a request_id)
        so that a retried request gets the same token without the server storing it."""
        nonce = self._nonce("seat", game_id, seat, salt)
        mac = self._mac("seat", game_id, str(seat), nonce)
        return f"{game_id}.{seat}.{_b64(nonce)}.{_b64(mac)}"

    def verify(self, token: str, game_id: str, tokens_of: str = "") -> int:
        """The seat ``token`` acts for in ``game_id`` (or, for a rematch, whose seats the
        tokens of the game ``tokens_of`` act for: the same seat).

        A token that does not verify is UNAUTHENTICATED; a genuine token of another game is
        PERMISSION_DENIED.
        """
        token_game, seat = self.identify(token)
        if token_game != game_id and not (tokens_of and token_game == tokens_of):
            raise PermissionDenied("this token belongs to another game")
        return seat

    def identify(self, token: str) -> tuple[str, int]:
        """The game and seat a genuine ``token`` was issued for (UNAUTHENTICATED otherwise)."""
        known = self._verified.get(token)
        if known is None:
            known = self._verify(token)
            if len(self._verified) >= _VERIFIED_MAX:
                self._verified.clear()
            self._verified[token] = known
        return known

    def _verify(self, token: str) -> tuple[str, int]:
        """The game and seat of a genuine ``token``; UNAUTHENTICATED otherwise."""
        try:
            token_game, seat_text, nonce_text, mac_text = token.split(".")
            seat = int(seat_text)
            nonce, mac = _unb64(nonce_text), _unb64(mac_text)
        except (ValueError, binascii.Error):
            raise Unauthenticated("malformed seat token") from None
        if len(nonce) != _NONCE_BYTES or seat_text != str(seat) or not seat_text.isdigit():
            raise Unauthenticated("malformed seat token")
        if not hmac.compare_digest(mac, self._mac("seat", token_game, str(seat), nonce)):
            raise Unauthenticated("the seat token does not verify")
        return token_game, seat

    def issue_spectator(self, game_id: str) -> str:
        """The spectator token of ``game_id`` (``<game>.v.<nonce>.<mac>``): one per game,
        derived from its id, acting for no seat; it lets its bearer watch a game whose
        spectators need an invite."""
        nonce = self._mac("nonce", "spectator", game_id)[:_NONCE_BYTES]
        mac = self._mac("spectator", game_id, nonce)
        return f"{game_id}.{_SPECTATOR}.{_b64(nonce)}.{_b64(mac)}"

    def spectates(self, token: str, game_id: str) -> bool:
        """Whether ``token`` is ``game_id``'s spectator token; False for any other kind of
        token. A forged one is UNAUTHENTICATED, another game's PERMISSION_DENIED."""
        parts = token.split(".")
        if len(parts) != 4 or parts[1] != _SPECTATOR:
            return False
        if not hmac.compare_digest(token.encode(), self.issue_spectator(parts[0]).encode()):
            raise Unauthenticated("the spectator token does not verify")
        if parts[0] != game_id:
            raise PermissionDenied("this token belongs to another game")
        return True

    def new_invite(self, game_id: str, seat: int, salt: str | None = None) -> tuple[str, str]:
        """An invite code for ``seat`` (random, or derived from ``salt``) and its digest."""
        code = _b64(self._nonce("invite", game_id, seat, salt))
        return code, self.invite_digest(game_id, seat, code)

    def invite_digest(self, game_id: str, seat: int, code: str) -> str:
        """The stored form of an invite ``code``."""
        return _b64(self._mac("invite", game_id, str(seat), code))

    def owner_digest(self, issuer: str, subject: str) -> str:
        """The stored form of a signed-in player (issuer and subject): keyed, so a stored game
        names nobody, and the same for every replica sharing the secret."""
        return _b64(self._mac("owner", issuer, subject))

    def derive_rematch_id(self, game_id: str) -> str:
        """The id of a finished game's rematch: derived, so replicas racing to create it
        create the same game (one of them stores it)."""
        return _b64(self._mac("rematch", game_id))[:22]

    def derive_game_id(self, request_id: str) -> str:
        """A game id derived from a create request_id, so a retried create finds its game."""
        return _b64(self._mac("create", request_id))[:22]
