"""scopa: the authoritative rules engine and game service for the Scopa family of card games."""

__version__ = "0.1.0"

__all__ = ["__version__"]
