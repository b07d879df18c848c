"""The public rules documents the presets and options cite, as data.

Every preset's and option's ``source`` (served by ListRulesets, shown by the web client's
"Source:" line and tabled in docs/rules.md) names documents anyone can look up: one of
:data:`SOURCES`, another public page or book, or :func:`ruling` where no document decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = [
    "SCOPA_PAGE",
    "SOURCES",
    "SPATOLA",
    "SPAZZINO",
    "WIKIPEDIA",
    "Source",
    "cite",
    "ruling",
]


@dataclass(frozen=True, slots=True)
class Source:
    """A public rules document: how citations name it, what it covers, where it is."""

    name: str
    """How a source line names it (``str(source)``)."""
    covers: str
    """The games and rules it gives."""
    url: str = ""
    """Where to read it: its address, or its site when the page has no fixed address."""

    def __str__(self) -> str:
        return self.name

    def on(self, part: str) -> str:
        """The citation of one part of the document (a variant, a detail)."""
        return f"{self.name} ({part})"


SPAZZINO: Final = Source(
    "Lo Spazzino (Cuperativa, invido.it)",
    "Spazzino for two as the Cuperativa program plays it: picula, bagher, napola, game to 21",
    "invido.it",
)
SPATOLA: Final = Source(
    "La Spatola (an Italian rules text)",
    "Spatola, Scopa crossed with Spazzino: piccola, same-suit captures, two napole, game to 61",
)
SCOPA_PAGE: Final = Source(
    '"Come si gioca a Scopa?" (an Italian rules page)',
    "Scopa for 2 to 4 players, Napola, Re bello, Asso piglia tutto, Scopa a 15",
)
WIKIPEDIA: Final = Source(
    'it.wikipedia, "Scopa (gioco)"',
    "Scopa for 2, 3, 4 and 6 players, its scoring variants, Scopone and about 25 named variants",
    "https://it.wikipedia.org/wiki/Scopa_(gioco)",
)

SOURCES: Final = (SPAZZINO, SPATOLA, SCOPA_PAGE, WIKIPEDIA)
"""The rules texts the engine implements; other pages are cited by their address."""


def cite(*parts: Source | str) -> str:
    """A source line: the documents (or other citations) in order, ``; `` between them."""
    return "; ".join(map(str, parts))


def ruling(reason: str) -> str:
    """The citation of a default this project chose where no document decides."""
    return f"this project's ruling ({reason})"
