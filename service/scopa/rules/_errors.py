"""Domain errors of the rules engine, each with a stable machine-readable reason."""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "ActionNotLegal",
    "CaptureChoiceRequired",
    "CaptureNotLegal",
    "CardNotInHand",
    "FormatTooNew",
    "GameOver",
    "InvalidDeck",
    "InvalidOption",
    "InvalidSeat",
    "InvalidState",
    "NotYourTurn",
    "RulesError",
]


class RulesError(Exception):
    """A move or request the rules do not allow. The state it was tried on is unchanged."""

    reason: ClassVar[str] = "RULES_ERROR"
    """Stable upper-case reason, used as google.rpc.ErrorInfo.reason by the service."""

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        metadata: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.metadata: dict[str, str] = metadata or {}
        """Extra machine-readable facts (e.g. the card code), for ErrorInfo.metadata."""


class NotYourTurn(RulesError):
    """The seat tried to play out of turn."""

    reason = "NOT_YOUR_TURN"


class CardNotInHand(RulesError):
    """The played card is not in the seat's hand."""

    reason = "CARD_NOT_IN_HAND"


class CaptureNotLegal(RulesError):
    """The named capture is not one of the legal captures for the card."""

    reason = "CAPTURE_NOT_LEGAL"


class CaptureChoiceRequired(RulesError):
    """The card has several legal captures and the move did not name one."""

    reason = "CAPTURE_CHOICE_REQUIRED"


class ActionNotLegal(RulesError):
    """The ruleset allows no such action now (a kind it lacks, or a declaration not open)."""

    reason = "ACTION_NOT_LEGAL"


class GameOver(RulesError):
    """The game is over; no more moves."""

    reason = "GAME_OVER"


class InvalidSeat(RulesError):
    """No such seat in this game."""

    reason = "INVALID_SEAT"


class InvalidOption(RulesError):
    """An unknown preset or option, or an option value out of range."""

    reason = "INVALID_OPTION"


class InvalidDeck(RulesError):
    """A stacked deck that is not a permutation of the 40 cards."""

    reason = "INVALID_DECK"


class InvalidState(RulesError):
    """Serialised state that cannot be read (corrupt, or an unknown format version)."""

    reason = "INVALID_STATE"


class FormatTooNew(InvalidState):
    """Stored data of a format newer than this release reads: a newer replica wrote it (a
    rolling update is under way, or was rolled back). Retrying on another replica can work."""

    reason = "FORMAT_TOO_NEW"

    @classmethod
    def of(cls, what: str, version: int, readable: int) -> FormatTooNew:
        """The error for ``what`` stored in format ``version`` when this release reads formats
        up to ``readable``."""
        return cls(
            f"this {what} was written in format {version} by a newer release of the server; "
            f"this replica reads formats up to {readable}. Retry: another replica can serve it",
            metadata={"format": str(version), "readable_format": str(readable)},
        )


class GameUnplayable(InvalidState):
    """A stored game whose rules this release cannot build (say, a deck size it no longer
    deals): it cannot be served, by this replica or any other of this release."""

    reason = "GAME_UNPLAYABLE"
