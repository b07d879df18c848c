"""scopa: the authoritative rules engine and game service for the Scopa family of card games."""

from pkgutil import extend_path

# A tree built by tools/build_mypyc.py (the same scopa.rules source compiled) put first on
# PYTHONPATH supplies scopa.rules; every other subpackage still comes from this directory.
__path__ = extend_path(__path__, __name__)

__version__ = "0.1.0"

__all__ = ["__version__"]
